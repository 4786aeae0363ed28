//! `mdl check FILE...`: explore every interleaving of each scenario with the stateright
//! model ([`mdl_check::model`]) and report the built-in properties and the `assert` lines.
//!
//! Exit 0: every property holds in every file; 1: a property is violated; 2: a file is
//! invalid (`FILE:LINE:COL: message`) or the command line is wrong; 3: no violation was
//! found but the state limit (`--max-states`) stopped a search before it was complete.

use mdl_check::model::check::{check, Options};
use mdl_check::model::{report, MdlModel};
use mdl_scenario::parse::parse;
use mdl_scenario::ParseError;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Scenario files (`.mdl`).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Search depth-first (with symmetry reduction over sessions with identical
    /// programs); traces are then not the shortest. The default is breadth-first.
    #[arg(long)]
    pub dfs: bool,
    /// Turn symmetry reduction off (it only takes effect with --dfs).
    #[arg(long)]
    pub no_symmetry: bool,
    /// Explore at most this many actions deep (a bounded check).
    #[arg(long, value_name = "N")]
    pub max_depth: Option<usize>,
    /// Checker threads (1 is usually fastest on 2 cores).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub threads: usize,
    /// Stop with an "incomplete" result after this many states, instead of running out
    /// of memory.
    #[arg(long, value_name = "N", default_value_t = 2_000_000)]
    pub max_states: usize,
    /// No progress line, and in text format only the per-file summary.
    #[arg(long)]
    pub quiet: bool,
    /// Also write a Markdown report (properties, Mermaid sequence diagrams and wait-for
    /// graphs of the counterexamples).
    #[arg(long, value_name = "FILE.md")]
    pub report: Option<PathBuf>,
    /// Write the first counterexample as a scenario file that `mdl run` replays (it is
    /// printed after each trace otherwise).
    #[arg(long, value_name = "FILE.mdl")]
    pub replay: Option<PathBuf>,
}

/// Reads, parses and models one file.
pub fn load(path: &Path) -> Result<MdlModel, String> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| {
        ParseError {
            file: name.clone(),
            pos: mdl_scenario::Pos { line: 1, col: 1 },
            msg: format!("cannot read the file: {e}"),
        }
        .to_string()
    })?;
    let sc = parse(&name, &text).map_err(|e| e.to_string())?;
    MdlModel::new(&sc).map_err(|e| e.to_string())
}

pub fn main(args: Args) -> i32 {
    if args.threads == 0 || args.max_states == 0 || args.max_depth == Some(0) {
        eprintln!("mdl check: --threads, --max-states and --max-depth must be at least 1");
        return 2;
    }
    // Load every file first: an invalid file is exit 2 before any checking.
    let mut models = Vec::new();
    let mut bad = false;
    for f in &args.files {
        match load(f) {
            Ok(m) => models.push(m),
            Err(e) => {
                eprintln!("{e}");
                bad = true;
            }
        }
    }
    if bad {
        return 2;
    }
    let opts = Options {
        dfs: args.dfs,
        symmetry: !args.no_symmetry,
        max_depth: args.max_depth,
        threads: args.threads,
        max_states: args.max_states,
        progress: !args.quiet && std::io::stderr().is_terminal(),
    };
    let mut violated = false;
    let mut limited = false;
    let mut md = String::from("# mdl check report\n\n");
    let mut json = Vec::new();
    let mut replay_written = false;
    for m in &models {
        let r = check(m, &opts);
        violated |= r.any_violated();
        limited |= r.limited;
        match args.format {
            Format::Text => {
                if args.quiet {
                    let word = if r.any_violated() {
                        "violated"
                    } else if r.limited {
                        "incomplete"
                    } else {
                        "holds"
                    };
                    println!("{}: {word} ({} states)", m.scenario.file, r.unique_states);
                } else {
                    print!("{}", report::text(m, &r, args.replay.is_none()));
                }
            }
            Format::Json => json.push(report::json(m, &r)),
        }
        if args.report.is_some() {
            md.push_str(&report::markdown(m, &r));
        }
        if let (Some(path), false) = (&args.replay, replay_written) {
            if let Some((p, t)) = r
                .props
                .iter()
                .find_map(|p| p.trace.as_ref().map(|t| (p, t)))
            {
                let title = format!("replay of {}: `{}` violated", m.scenario.file, p.name);
                if let Err(e) = std::fs::write(path, report::replay_scenario(m, t, &title)) {
                    eprintln!("mdl check: cannot write {}: {e}", path.display());
                    return 2;
                }
                replay_written = true;
            }
        }
    }
    if let (Some(path), false) = (&args.replay, replay_written) {
        eprintln!(
            "mdl check: no counterexample, so no replay was written to {}",
            path.display()
        );
    }
    if args.format == Format::Json {
        let v = if json.len() == 1 {
            json.pop().unwrap_or_default()
        } else {
            serde_json::Value::Array(json)
        };
        println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
    }
    if let Some(path) = &args.report {
        if let Err(e) = std::fs::write(path, md) {
            eprintln!("mdl check: cannot write {}: {e}", path.display());
            return 2;
        }
    }
    if violated {
        1
    } else if limited {
        3
    } else {
        0
    }
}
