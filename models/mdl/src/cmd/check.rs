//! `mdl check FILE...`: explore every interleaving of each scenario with the model
//! ([`mdl_check::model`], searched by [`mdl_check::model::search`]) and report the
//! built-in properties and the `assert` lines.
//!
//! Every file is answered, in the order given, even after a bad one; the exit status is
//! the worst of them (2 > 1 > 3 > 0). Exit 0: every property holds in every file; 1: a
//! property is violated; 2: a file is invalid (`FILE:LINE:COL: message`) or unreadable,
//! the command line is wrong (a `--report`/`--replay` path that cannot be written is
//! refused before any work), or `--deny-warnings` and a warning; 3: no violation was
//! found but a limit (`--max-memory`, `--max-states`, `--max-time`) stopped a search
//! before it was complete, or `--simulate` sampled paths and found no violation (a sample
//! decides only what it finds). With `--format json`, one document per file per line
//! (`models/docs/json-output.md`).

use super::{document, print_document, worst, OutPath, Status};
use mdl_check::model::check::{check, Options};
use mdl_check::model::reference::{self, RefOptions};
use mdl_check::model::result::CheckResult;
use mdl_check::model::simulate::{simulate, SimOptions};
use mdl_check::model::{report, MdlModel};
use mdl_check::sql::SqlCheck;
use mdl_scenario::parse::ParseOptions;
use mdl_scenario::read::{read_file_with, ReadError};
use serde_json::Map;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

/// The search engine of `mdl check`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    /// Ours (`mdl_check::model::search`): compact states, memory bound, partial-order
    /// reduction, symmetry, two threads.
    Mdl,
    /// stateright's own checker (BFS, or DFS with --dfs) on the same model, without
    /// reductions: the reference that ours is compared with.
    Stateright,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Scenario files (`.mdl`).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// The search engine: ours, or stateright's checker as the reference (no
    /// reductions; --max-states, --max-time, --dfs and --threads apply).
    #[arg(long, value_enum, default_value = "mdl")]
    pub engine: Engine,
    /// Search depth-first; traces are then not the shortest. The default is
    /// breadth-first (it goes on depth-first by itself past half of --max-memory).
    #[arg(long)]
    pub dfs: bool,
    /// Turn symmetry reduction off (sessions with identical programs that no assert or
    /// kill names are interchangeable).
    #[arg(long)]
    pub no_symmetry: bool,
    /// Turn partial-order reduction off (steps of different sessions on lock objects no
    /// one else touches are explored in one order only).
    #[arg(long)]
    pub no_por: bool,
    /// Keep the grant order of locks that can no longer have a waiter (by default a
    /// lock none of whose types from a state on conflict is written in one order, and
    /// its steps commute for the partial-order reduction).
    #[arg(long)]
    pub no_dynamic_quiet: bool,
    /// Explore at most this many actions deep (a bounded check: "complete up to depth
    /// N").
    #[arg(long, value_name = "N")]
    pub max_depth: Option<usize>,
    /// Threads of the breadth-first search: each batch of the queue is expanded on N
    /// threads and merged in queue order, so the result is the same on any number.
    /// Default: the machine's cores, at most 2 (2 measured fastest on this 2-core machine,
    /// see models/MODEL.md). Depth-first runs on one.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Stop with an "incomplete" result (exit 3) after this many unique states.
    #[arg(long, value_name = "N")]
    pub max_states: Option<u64>,
    /// Stop with an "incomplete" result (exit 3) before the process's heap passes this
    /// size (`512M`, `2G`; default: half of the machine's memory).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_memory: Option<u64>,
    /// Stop with an "incomplete" result (exit 3) after this many seconds of search, with
    /// what it found so far (states, depth, violations, the steps it took).
    #[arg(long, value_name = "SECONDS", value_parser = parse_seconds)]
    pub max_time: Option<f64>,
    /// Instead of every interleaving, take N random paths (uniform over the enabled
    /// actions, seeded by --seed) and check the same properties on them: for files too
    /// big to search. A violation found is a real counterexample; nothing found is exit
    /// 3 (incomplete), never "holds".
    #[arg(long, value_name = "N")]
    pub simulate: Option<u64>,
    /// The seed of --simulate (path i of seed S is the same on any machine).
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// Warnings (a step whose outcome is `error` on every path) fail the check (exit 2).
    #[arg(long)]
    pub deny_warnings: bool,
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
    /// Read every file in this dialect: a built-in one (mysql-8.0, mariadb) or a dialect
    /// folder (models/docs/dialect-format.md); it replaces the files' `dialect` lines.
    #[arg(long, value_name = "NAME|DIR")]
    pub dialect: Option<String>,
}

/// Reads, parses and models one file (the one scenario reader, then the model).
pub fn load(path: &Path, opts: &ParseOptions) -> Result<MdlModel, ReadError> {
    let file = read_file_with(path, opts)?;
    MdlModel::new(&file.scenario).map_err(|e| file.error(&e))
}

/// A file read for checking: lock requests, or SQL sessions ([`mdl_check::sql`]).
enum Loaded {
    // Both boxed: the two differ in size by about as much as clippy allows.
    Locks(Box<MdlModel>),
    Sql(Box<SqlCheck>),
}

/// The word of a result in `--quiet` text output.
fn quiet_word(r: &CheckResult) -> &'static str {
    if r.any_violated() {
        "violated"
    } else if r.incomplete() {
        "incomplete"
    } else if r.depth_cut {
        "holds up to the depth bound"
    } else {
        "holds"
    }
}

/// The default `--threads`: the cores this process may use, at most 2. Measured on the
/// shared 2-core machine (models/MODEL.md, "Threads"): 2 threads finish the larger scale
/// files 1.2-1.4x sooner than 1 when a core is free, and no slower when it is loaded; more
/// threads than cores only add merging.
/// `--simulate N`'s options (lock and SQL scenarios alike).
fn sim_options(args: &Args, paths: u64, max_memory: u64) -> SimOptions {
    SimOptions {
        paths,
        seed: args.seed,
        max_depth: args.max_depth,
        max_time: args.max_time,
        max_memory,
    }
}

fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(2))
}

fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x > 0.0 && x.is_finite() => Ok(x),
        _ => Err(format!("`{s}` is not a positive number of seconds")),
    }
}

fn parse_size(s: &str) -> Result<u64, String> {
    mdl_check::model::mem::parse_size(s)
}

pub fn main(args: Args) -> i32 {
    if args.threads == Some(0)
        || args.max_states == Some(0)
        || args.max_depth == Some(0)
        || args.simulate == Some(0)
    {
        eprintln!(
            "mdl check: --threads, --max-states, --max-depth and --simulate must be at least 1"
        );
        return 2;
    }
    let parse_opts = match super::dialect_option("check", args.dialect.as_deref()) {
        Ok(o) => o,
        Err(code) => return code,
    };
    // Output paths are checked before any work: a report that cannot be written fails
    // now, not after the whole check.
    let mut report_out = None;
    let mut replay_out = None;
    for (opt, path, slot) in [
        ("--report", &args.report, &mut report_out),
        ("--replay", &args.replay, &mut replay_out),
    ] {
        if let Some(p) = path {
            match OutPath::probe(opt, p) {
                Ok(o) => *slot = Some(o),
                Err(e) => {
                    eprintln!("mdl check: {e}");
                    return 2;
                }
            }
        }
    }
    let opts = Options {
        dfs: args.dfs,
        symmetry: !args.no_symmetry,
        por: !args.no_por,
        dynamic_quiet: !args.no_dynamic_quiet,
        max_depth: args.max_depth,
        threads: args.threads.unwrap_or_else(default_threads),
        max_states: args.max_states,
        max_memory: args
            .max_memory
            .unwrap_or_else(mdl_check::model::mem::default_max_memory),
        progress: !args.quiet && std::io::stderr().is_terminal(),
        max_time: args.max_time,
    };
    if args.engine == Engine::Stateright
        && (args.simulate.is_some() || args.max_depth.is_some() || args.max_memory.is_some())
    {
        eprintln!(
            "mdl check: --engine stateright takes --dfs, --threads, --max-states and \
             --max-time; --simulate, --max-depth and --max-memory are the mdl engine's"
        );
        return 2;
    }
    let mut code = 0;
    let mut warned = false;
    let mut md = String::from("# mdl check report\n\n");
    for f in &args.files {
        let name = f.display().to_string();
        // Every file is answered, in order, even after a bad one.
        let json = args.format == Format::Json;
        let loaded = read_file_with(f, &parse_opts).and_then(|file| {
            if !mdl_check::sql::is_sql(&file.scenario) {
                return MdlModel::new(&file.scenario)
                    .map(|m| Loaded::Locks(Box::new(m)))
                    .map_err(|e| file.error(&e));
            }
            SqlCheck::new(&file.scenario)
                .map(|m| Loaded::Sql(Box::new(m)))
                .map_err(|e| file.error(&e))
        });
        let m = match loaded {
            Ok(Loaded::Locks(m)) => *m,
            Ok(Loaded::Sql(m)) => {
                let max_states = args
                    .max_states
                    .unwrap_or(mdl_check::sql::check::DEFAULT_MAX_STATES);
                let r = if let Some(paths) = args.simulate {
                    mdl_check::sql::simulate::simulate(
                        &m,
                        &sim_options(&args, paths, opts.max_memory),
                    )
                } else if args.engine == Engine::Stateright {
                    mdl_check::sql::reference::check(
                        &m,
                        &RefOptions {
                            dfs: args.dfs,
                            max_states: Some(max_states),
                            max_time: args.max_time,
                            threads: opts.threads,
                            exhaustive: false,
                        },
                    )
                } else {
                    mdl_check::sql::check::check_with(
                        &m,
                        &mdl_check::model::search::SearchOptions {
                            dfs: opts.dfs,
                            symmetry: false,
                            por: opts.por,
                            dynamic_quiet: false,
                            max_depth: opts.max_depth,
                            max_states: Some(max_states),
                            max_memory: opts.max_memory,
                            progress: opts.progress,
                            threads: opts.threads,
                            max_time: opts.max_time,
                        },
                    )
                };
                let status = if r.any_violated() {
                    Status::Fail
                } else if r.incomplete {
                    Status::Incomplete
                } else {
                    Status::Pass
                };
                code = worst(code, status.exit());
                if json {
                    let members = match mdl_check::sql::json::json(&m, &r) {
                        serde_json::Value::Object(o) => o,
                        _ => Map::new(),
                    };
                    print_document(&document("check", &name, status, None, members));
                } else if args.quiet {
                    println!("{name}: {} ({} states)", status.word(), r.unique);
                } else {
                    print!("{}", mdl_check::sql::text::text(&m, &r));
                }
                if report_out.is_some() {
                    md.push_str(&format!(
                        "## {name}\n\n```text\n{}```\n\n",
                        mdl_check::sql::text::text(&m, &r)
                    ));
                }
                if let Some(out) = replay_out.as_mut().filter(|o| !o.written()) {
                    if let Some((p, actions)) = r
                        .props
                        .iter()
                        .filter(|p| p.violated)
                        .find_map(|p| p.trace.as_ref().map(|(t, _)| (p, t)))
                    {
                        let actions: Vec<_> = actions.iter().map(|x| x.action).collect();
                        let title = format!("replay of {}: `{}` violated", m.scenario.file, p.name);
                        let text = mdl_check::sql::text::replay_scenario(&m, &actions, &title);
                        if let Err(e) = out.write(&text) {
                            eprintln!("mdl check: {e}");
                            code = worst(code, 2);
                        }
                    }
                }
                continue;
            }
            Err(e) => {
                let status = Status::of_read_error(&e);
                match args.format {
                    Format::Text => println!("{name}: {}", status.word()),
                    Format::Json => {
                        print_document(&document("check", &name, status, Some(&e), Map::new()))
                    }
                }
                eprintln!("{}", e.render());
                md.push_str(&format!("## {name}\n\n{}: {}\n\n", status.word(), e));
                code = worst(code, status.exit());
                continue;
            }
        };
        let r = match args.simulate {
            _ if args.engine == Engine::Stateright => reference::check(
                &m,
                &RefOptions {
                    dfs: args.dfs,
                    max_states: args.max_states,
                    max_time: args.max_time,
                    threads: opts.threads,
                    exhaustive: false,
                },
            ),
            Some(paths) => simulate(&m, &sim_options(&args, paths, opts.max_memory)),
            None => check(&m, &opts),
        };
        let status = if r.any_violated() {
            Status::Fail
        } else if r.incomplete() {
            Status::Incomplete
        } else {
            Status::Pass
        };
        code = worst(code, status.exit());
        warned |= !r.warnings.is_empty();
        match args.format {
            Format::Text => {
                if args.quiet {
                    println!("{name}: {} ({} states)", quiet_word(&r), r.unique_states);
                    for w in &r.warnings {
                        eprintln!("{name}:{}: warning: {}", w.line, w.message);
                    }
                } else {
                    print!(
                        "{}",
                        report::text(
                            &m,
                            &r,
                            if args.replay.is_none() {
                                report::Replays::Shown
                            } else {
                                report::Replays::Omitted
                            }
                        )
                    );
                }
            }
            Format::Json => {
                let members = match report::json(&m, &r) {
                    serde_json::Value::Object(o) => o,
                    _ => Map::new(),
                };
                print_document(&document("check", &name, status, None, members));
            }
        }
        if report_out.is_some() {
            md.push_str(&report::markdown(&m, &r));
        }
        if let Some(out) = replay_out.as_mut().filter(|o| !o.written()) {
            if let Some((p, t)) = r
                .props
                .iter()
                .find_map(|p| p.trace.as_ref().map(|t| (p, t)))
            {
                let title = format!("replay of {}: `{}` violated", m.scenario.file, p.name);
                if let Err(e) = out.write(&report::replay_scenario(&m, t, &title)) {
                    eprintln!("mdl check: {e}");
                    code = worst(code, 2);
                }
            }
        }
    }
    if let Some(out) = replay_out.as_ref().filter(|o| !o.written()) {
        eprintln!(
            "mdl check: no counterexample, so no replay was written to {}",
            out.path.display()
        );
    }
    if let Some(out) = report_out.as_mut() {
        if let Err(e) = out.write(&md) {
            eprintln!("mdl check: {e}");
            code = worst(code, 2);
        }
    }
    if warned && args.deny_warnings {
        eprintln!("mdl check: warnings are errors (--deny-warnings)");
        code = worst(code, 2);
    }
    code
}
