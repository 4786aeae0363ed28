//! `mdl conform`: SQL scenarios on a real MariaDB server and on our manager, compared;
//! `--learn` regenerates the statement-to-lock table, `--matrix` the statement matrix.

use mdl_conform::{self as conform, learn, mapping::Mapping, matrix, scenario, server::Server};
use std::io::Write;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// SQL scenario files (`.mdl` with `SESSION: sql STATEMENT` steps).
    pub files: Vec<PathBuf>,
    /// Learn the statement-to-lock table on the server and write it
    /// (default `models/conformance/statements.tsv`).
    #[arg(long)]
    pub learn: bool,
    /// Measure the statement compatibility matrix on the server and print it next to our
    /// prediction (writes `models/conformance/statement-matrix.tsv`).
    #[arg(long)]
    pub matrix: bool,
    /// With --matrix: do not start a server; compare the committed measured matrix with
    /// our prediction.
    #[arg(long)]
    pub offline: bool,
    /// Where --learn / --matrix write (default: the committed file).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print every step, not only the differences.
    #[arg(long, short)]
    pub verbose: bool,
}

pub fn main(args: Args) -> i32 {
    match run(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("mdl conform: {e}");
            2
        }
    }
}

fn run(args: Args) -> Result<i32, conform::ConformError> {
    let io = |e: std::io::Error| conform::ConformError::Io(e.to_string());
    if args.learn {
        let server = Server::start()?;
        let mut err = std::io::stderr();
        let m = learn::learn(&server, &mut err)?;
        let out = args
            .out
            .clone()
            .unwrap_or_else(|| conform::data_dir().join(conform::mapping::STATEMENTS_FILE));
        std::fs::write(&out, m.to_text()).map_err(io)?;
        eprintln!("wrote {}", out.display());
        return Ok(0);
    }
    let map = Mapping::load()?;
    if args.matrix {
        return matrix::main(&map, args.offline, args.out.clone());
    }
    if args.files.is_empty() {
        eprintln!("mdl conform: no scenario files (or use --learn / --matrix)");
        return Ok(2);
    }
    let server = Server::start()?;
    let mut all_ok = true;
    let mut out = std::io::stdout();
    for f in &args.files {
        let r = scenario::run_file(&server, &map, f, args.verbose, &mut out)?;
        all_ok &= r.agrees();
        let _ = writeln!(out, "{}: {}", f.display(), r.summary());
    }
    Ok(if all_ok { 0 } else { 1 })
}
