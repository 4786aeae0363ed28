//! `mdl run FILE...`: play scenario files in written order and check their `expect`
//! lines. Exit 0: every expectation held; 1: one failed; 2: a file is invalid
//! (`FILE:LINE:COL: message`) or the command line is wrong.

use mdl_scenario::parse::parse;
use mdl_scenario::runner::{self, Engine};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// One line per step, event and expectation.
    Text,
    /// One JSON document per file, one per line.
    Json,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Scenario files (`.mdl`).
    #[arg(required = true)]
    pub files: Vec<std::path::PathBuf>,
    /// The lock manager to play them on.
    #[arg(long, value_enum, default_value = "manager")]
    pub engine: Engine,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
}

/// Plays one file; returns its exit code (0, 1 or 2) and prints its report.
pub fn run_file(path: &std::path::Path, engine: Engine, format: Format) -> i32 {
    let name = path.display().to_string();
    let text = match std::fs::read(path) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) => {
            eprintln!("mdl run: cannot read {name}: {e}");
            return 2;
        }
    };
    let invalid = |msg: String| {
        if format == Format::Json {
            println!("{}", serde_json::json!({ "file": name, "error": msg }));
        }
        eprintln!("{msg}");
        2
    };
    let sc = match parse(&name, &text) {
        Ok(s) => s,
        Err(e) => return invalid(e.to_string()),
    };
    let t = match runner::run_engine(&sc, engine) {
        Ok(t) => t,
        Err(e) => return invalid(e.to_string()),
    };
    match format {
        Format::Text => print!("{}", t.text()),
        Format::Json => println!("{}", t.json()),
    }
    let mut code = 0;
    for x in t.expects().filter(|x| !x.ok) {
        eprintln!(
            "{name}:{}: expectation failed: expected {} {}, seen {}",
            x.line, x.session, x.expected, x.seen
        );
        code = 1;
    }
    code
}

pub fn main(args: Args) -> i32 {
    let mut code = 0;
    let many = args.files.len() > 1;
    for f in &args.files {
        if many && args.format == Format::Text {
            println!("== {}", f.display());
        }
        code = code.max(run_file(f, args.engine, args.format));
    }
    code
}
