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

/// The default `--threads`: the cores this process may use, at most 2. Measured on the
/// shared 2-core machine (models/MODEL.md, "Threads"): 2 threads finish the larger scale
/// files 1.2-1.4x sooner than 1 when a core is free, and no slower when it is loaded; more
/// threads than cores only add merging.
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

/// What one `mdl check` run carries from file to file: its options, the output paths
/// probed before any work, the Markdown report so far and the exit status so far.
struct Run {
    args: Args,
    parse_opts: ParseOptions,
    opts: Options,
    report_out: Option<OutPath>,
    replay_out: Option<OutPath>,
    md: String,
    code: i32,
    warned: bool,
}

pub fn main(args: Args) -> i32 {
    let mut run = match Run::new(args) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let files = run.args.files.clone();
    for f in &files {
        // Every file is answered, in order, even after a bad one.
        let name = f.display().to_string();
        match run.load(f) {
            Ok(Loaded::Locks(m)) => run.check_locks(&name, &m),
            Ok(Loaded::Sql(m)) => run.check_sql(&name, &m),
            Err(e) => run.refused(&name, &e),
        }
    }
    run.finish()
}

impl Run {
    /// The command line checked (a wrong one is exit 2) and turned into options; the
    /// output paths probed, so that a report that cannot be written fails now, not after
    /// the whole check.
    fn new(args: Args) -> Result<Run, i32> {
        if args.threads == Some(0)
            || args.max_states == Some(0)
            || args.max_depth == Some(0)
            || args.simulate == Some(0)
        {
            eprintln!(
                "mdl check: --threads, --max-states, --max-depth and --simulate must be at least 1"
            );
            return Err(2);
        }
        let parse_opts = super::dialect_option("check", args.dialect.as_deref())?;
        let probe = |opt: &str, path: &Option<PathBuf>| match path {
            None => Ok(None),
            Some(p) => OutPath::probe(opt, p).map(Some).map_err(|e| {
                eprintln!("mdl check: {e}");
                2
            }),
        };
        let report_out = probe("--report", &args.report)?;
        let replay_out = probe("--replay", &args.replay)?;
        if args.engine == Engine::Stateright
            && (args.simulate.is_some() || args.max_depth.is_some() || args.max_memory.is_some())
        {
            eprintln!(
                "mdl check: --engine stateright takes --dfs, --threads, --max-states and \
                 --max-time; --simulate, --max-depth and --max-memory are the mdl engine's"
            );
            return Err(2);
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
        Ok(Run {
            args,
            parse_opts,
            opts,
            report_out,
            replay_out,
            md: String::from("# mdl check report\n\n"),
            code: 0,
            warned: false,
        })
    }

    /// Reads one file and builds its model: lock requests or SQL sessions.
    fn load(&self, f: &Path) -> Result<Loaded, ReadError> {
        let file = read_file_with(f, &self.parse_opts)?;
        if !mdl_check::sql::is_sql(&file.scenario) {
            return MdlModel::new(&file.scenario)
                .map(|m| Loaded::Locks(Box::new(m)))
                .map_err(|e| file.error(&e));
        }
        SqlCheck::new(&file.scenario)
            .map(|m| Loaded::Sql(Box::new(m)))
            .map_err(|e| file.error(&e))
    }

    /// A file that could not be read or modelled: its status and its error.
    fn refused(&mut self, name: &str, e: &ReadError) {
        let status = Status::of_read_error(e);
        match self.args.format {
            Format::Text => println!("{name}: {}", status.word()),
            Format::Json => print_document(&document("check", name, status, Some(e), Map::new())),
        }
        eprintln!("{}", e.render());
        self.md
            .push_str(&format!("## {name}\n\n{}: {}\n\n", status.word(), e));
        self.code = worst(self.code, status.exit());
    }

    /// Writes the first counterexample as a replay, once per run.
    fn write_replay(&mut self, text: impl FnOnce() -> Option<String>) {
        let Some(out) = self.replay_out.as_mut().filter(|o| !o.written()) else {
            return;
        };
        if let Some(text) = text() {
            if let Err(e) = out.write(&text) {
                eprintln!("mdl check: {e}");
                self.code = worst(self.code, 2);
            }
        }
    }

    /// Lock requests: the engine asked for, then the report.
    fn check_locks(&mut self, name: &str, m: &MdlModel) {
        let args = &self.args;
        let r = match args.simulate {
            _ if args.engine == Engine::Stateright => {
                reference::check(m, &self.ref_options(args.max_states))
            }
            Some(paths) => simulate(m, &sim_options(args, paths, self.opts.max_memory)),
            None => check(m, &self.opts),
        };
        let status = if r.any_violated() {
            Status::Fail
        } else if r.incomplete() {
            Status::Incomplete
        } else {
            Status::Pass
        };
        self.code = worst(self.code, status.exit());
        self.warned |= !r.warnings.is_empty();
        self.report_locks(name, m, &r, status);
        if self.report_out.is_some() {
            self.md.push_str(&report::markdown(m, &r));
        }
        self.write_replay(|| {
            let (p, t) = r
                .props
                .iter()
                .find_map(|p| p.trace.as_ref().map(|t| (p, t)))?;
            let title = format!("replay of {}: `{}` violated", m.scenario.file, p.name);
            Some(report::replay_scenario(m, t, &title))
        });
    }

    /// stateright's checker's options.
    fn ref_options(&self, max_states: Option<u64>) -> RefOptions {
        RefOptions {
            dfs: self.args.dfs,
            max_states,
            max_time: self.args.max_time,
            threads: self.opts.threads,
            exhaustive: false,
        }
    }

    /// A lock scenario's result, as text or JSON.
    fn report_locks(&self, name: &str, m: &MdlModel, r: &CheckResult, status: Status) {
        match self.args.format {
            Format::Text if self.args.quiet => {
                println!("{name}: {} ({} states)", quiet_word(r), r.unique_states);
                for w in &r.warnings {
                    eprintln!("{name}:{}: warning: {}", w.line, w.message);
                }
            }
            Format::Text => {
                let replays = if self.args.replay.is_none() {
                    report::Replays::Shown
                } else {
                    report::Replays::Omitted
                };
                print!("{}", report::text(m, r, replays));
            }
            Format::Json => {
                let members = match report::json(m, r) {
                    serde_json::Value::Object(o) => o,
                    _ => Map::new(),
                };
                print_document(&document("check", name, status, None, members));
            }
        }
    }

    /// SQL sessions: the engine asked for (SQL scenarios have their own default state
    /// limit), then the report.
    fn check_sql(&mut self, name: &str, m: &SqlCheck) {
        let args = &self.args;
        let opts = &self.opts;
        let max_states = args
            .max_states
            .unwrap_or(mdl_check::sql::check::DEFAULT_MAX_STATES);
        let r = if let Some(paths) = args.simulate {
            mdl_check::sql::simulate::simulate(m, &sim_options(args, paths, opts.max_memory))
        } else if args.engine == Engine::Stateright {
            mdl_check::sql::reference::check(m, &self.ref_options(Some(max_states)))
        } else {
            mdl_check::sql::check::check_with(
                m,
                &mdl_check::model::search::SearchOptions {
                    dfs: opts.dfs,
                    symmetry: opts.symmetry,
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
        self.code = worst(self.code, status.exit());
        if args.format == Format::Json {
            let members = match mdl_check::sql::json::json(m, &r) {
                serde_json::Value::Object(o) => o,
                _ => Map::new(),
            };
            print_document(&document("check", name, status, None, members));
        } else if args.quiet {
            println!("{name}: {} ({} states)", status.word(), r.unique);
        } else {
            print!("{}", mdl_check::sql::text::text(m, &r));
        }
        if self.report_out.is_some() {
            let text = mdl_check::sql::text::text(m, &r);
            self.md
                .push_str(&format!("## {name}\n\n```text\n{text}```\n\n"));
        }
        self.write_replay(|| {
            let (p, actions) = r
                .props
                .iter()
                .filter(|p| p.violated)
                .find_map(|p| p.trace.as_ref().map(|(t, _)| (p, t)))?;
            let actions: Vec<_> = actions.iter().map(|x| x.action).collect();
            let title = format!("replay of {}: `{}` violated", m.scenario.file, p.name);
            Some(mdl_check::sql::text::replay_scenario(m, &actions, &title))
        });
    }

    /// After the last file: the replay not written, the report, `--deny-warnings`.
    fn finish(mut self) -> i32 {
        if let Some(out) = self.replay_out.as_ref().filter(|o| !o.written()) {
            eprintln!(
                "mdl check: no counterexample, so no replay was written to {}",
                out.path.display()
            );
        }
        if let Some(out) = self.report_out.as_mut() {
            if let Err(e) = out.write(&self.md) {
                eprintln!("mdl check: {e}");
                self.code = worst(self.code, 2);
            }
        }
        if self.warned && self.args.deny_warnings {
            eprintln!("mdl check: warnings are errors (--deny-warnings)");
            self.code = worst(self.code, 2);
        }
        self.code
    }
}
