//! `mdl conform`: SQL scenarios on a real MariaDB server and on our model, compared;
//! `--learn` regenerates the statement table, `--matrix` the statement matrix, `--random`
//! compares random scenarios.
//!
//! Every file given is answered, in order, even after a bad one; the exit status is the
//! worst of all files (2 > 1 > 0). With `--format json` each file gives one JSON document
//! on a line of its own (`models/docs/json-output.md`, schema `mdl/1`, command `conform`).

use mdl_conform::scenario::Report;
use mdl_conform::{self as conform, learn, matrix, random, scenario, server::Server, ConformError};
use mdl_sql::mapping::{self, Mapping};
use serde_json::json;
use std::io::Write;
use std::path::PathBuf;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Differences and a summary line per file.
    Text,
    /// One JSON document per file, one per line.
    Json,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    /// SQL scenario files (`.mdl` with `SESSION: sql STATEMENT` steps).
    pub files: Vec<PathBuf>,
    /// Learn the statement table on the server and write it
    /// (default `models/conformance/statements.tsv`).
    #[arg(long)]
    pub learn: bool,
    /// Measure the statement compatibility matrix on the server and print it next to our
    /// prediction (writes `models/conformance/statement-matrix.tsv`).
    #[arg(long)]
    pub matrix: bool,
    /// With --matrix: do not start a server; compare the committed measured matrix with
    /// our prediction. With --corpus: play the statements on the model only.
    #[arg(long)]
    pub offline: bool,
    /// Where --learn / --matrix write (default: the committed file).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// With --matrix: measure again only these rows of the measured matrix (--out or the
    /// committed file), keeping the others.
    #[arg(long, value_delimiter = ',', requires = "matrix")]
    pub rows: Vec<String>,
    /// Run N random scenarios on the server and on our model; shrink each difference to
    /// a file under --found.
    #[arg(long, value_name = "N")]
    pub random: Option<usize>,
    /// The first seed of --random (scenario i uses seed S + i).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Sessions per random scenario.
    #[arg(long, default_value_t = 3)]
    pub sessions: usize,
    /// Lines per random scenario.
    #[arg(long, default_value_t = 12)]
    pub steps: usize,
    /// Where --random keeps the shrunk differences (default
    /// `models/conformance/found/`).
    #[arg(long)]
    pub found: Option<PathBuf>,
    /// Play the statements of MariaDB's test suite (the `mysql-test/` directory of
    /// `mariadb-test-data`) one by one: accepted or refused offline, and with a server
    /// (unless --offline) each accepted statement's locks compared with the server's.
    /// Differences are written as one-statement scenarios under --out (default
    /// `corpus-differences/`).
    #[arg(long, value_name = "DIR")]
    pub corpus: Option<PathBuf>,
    /// With --corpus: the list of test files, relative to DIR (default
    /// `models/conformance/corpus-files.txt`).
    #[arg(long, value_name = "FILE", requires = "corpus")]
    pub corpus_list: Option<PathBuf>,
    /// With --corpus: every `*.test` file under DIR (the whole suite, `main/` and every
    /// `suite/`) instead of the list.
    #[arg(long, requires = "corpus", conflicts_with = "corpus_list")]
    pub whole_suite: bool,
    /// With --corpus: play only N statements, spread evenly over the whole list.
    #[arg(long, value_name = "N", requires = "corpus")]
    pub sample: Option<usize>,
    /// Print every step, not only the differences.
    #[arg(long, short)]
    pub verbose: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    pub format: Format,
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

/// Warns when the running server is not the one the table was learned on.
fn version_warning(map: &Mapping, server: &Server) -> Option<String> {
    map.version_warning(server.version())
}

fn run(args: Args) -> Result<i32, ConformError> {
    let io = |e: std::io::Error| ConformError::Io(e.to_string());
    if args.learn {
        let server = Server::start()?;
        let mut err = std::io::stderr();
        let m = learn::learn(&server, &mut err)?;
        let out = args
            .out
            .clone()
            .unwrap_or_else(|| conform::data_dir().join(mapping::STATEMENTS_FILE));
        std::fs::write(&out, m.to_text()).map_err(io)?;
        eprintln!("wrote {}", out.display());
        return Ok(0);
    }
    let map = Mapping::load()?;
    if args.matrix {
        return matrix::main(&map, args.offline, args.out.clone(), &args.rows);
    }
    if let Some(dir) = &args.corpus {
        return corpus(&map, dir, &args);
    }
    if let Some(n) = args.random {
        let server = Server::start()?;
        if let Some(w) = version_warning(&map, &server) {
            eprintln!("mdl conform: warning: {w}");
        }
        let found = args
            .found
            .clone()
            .unwrap_or_else(|| conform::data_dir().join("found"));
        let mut err = std::io::stderr();
        let t = std::time::Instant::now();
        let opts = random::Options {
            n,
            seed: args.seed,
            sessions: args.sessions,
            steps: args.steps,
            found_dir: found.clone(),
            shrink: true,
            stop_at_first: false,
        };
        let sum = random::run(&server, &map, &opts, &mut err)?;
        let secs = t.elapsed().as_secs_f64();
        match args.format {
            Format::Text => println!(
                "{} of {} random scenarios agree, {} explained outside MDL, {} agreed when run \
                 again (races on the server), {} differences kept under {} ({:.0} s)",
                sum.agreed,
                sum.run,
                sum.explained,
                sum.raced,
                sum.found.len(),
                found.display(),
                secs
            ),
            Format::Json => println!(
                "{}",
                json!({
                    "schema": "mdl/1",
                    "command": "conform",
                    "file": null,
                    "error": null,
                    "mode": "random",
                    "status": if sum.found.is_empty() { "pass" } else { "fail" },
                    "exit": if sum.found.is_empty() { 0 } else { 1 },
                    "seed": args.seed,
                    "sessions": args.sessions,
                    "run": sum.run,
                    "agreed": sum.agreed,
                    "explained": sum.explained,
                    "raced": sum.raced,
                    "found": sum.found.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
                })
            ),
        }
        return Ok(if sum.found.is_empty() { 0 } else { 1 });
    }
    if args.files.is_empty() {
        eprintln!("mdl conform: no scenario files (or use --learn / --matrix / --random)");
        return Ok(2);
    }
    // Every file is answered: load each first (no server needed to refuse a bad one).
    let mut server: Option<Server> = None;
    let mut worst = 0;
    for f in &args.files {
        let name = f.display().to_string();
        let res: Result<Report, ConformError> = (|| {
            let sc = scenario::load(f, &map)?;
            // A file's `server_option` lines need a server started with them: a new one
            // whenever the options change from one file to the next.
            let opts = scenario::options_of(&sc);
            if server.as_ref().is_some_and(|s| s.options() != opts) {
                server = None;
            }
            if server.is_none() {
                let s = Server::start_with(&opts)?;
                if let Some(w) = version_warning(&map, &s) {
                    eprintln!("mdl conform: warning: {w}");
                }
                server = Some(s);
            }
            let s = server.as_ref().expect("started");
            let mut out: Box<dyn Write> = match args.format {
                Format::Text => Box::new(std::io::stdout()),
                Format::Json => Box::new(std::io::sink()),
            };
            let mut r = scenario::run_scenario(s, &map, &sc, args.verbose, &mut out)?;
            if let Some(w) = version_warning(&map, s) {
                r.warnings.push(w);
            }
            Ok(r)
        })();
        let code = match &res {
            Ok(r) if r.invalid.is_some() => 2,
            Ok(r) if r.agrees() => 0,
            Ok(_) => 1,
            Err(_) => 2,
        };
        worst = worst.max(code);
        match args.format {
            Format::Text => match &res {
                Ok(r) => println!("{name}: {}", r.summary()),
                Err(e) => println!("{name}: {e}"),
            },
            Format::Json => println!("{}", document(&name, code, &res)),
        }
        let _ = std::io::stdout().flush();
    }
    Ok(worst)
}

/// `--corpus DIR`: the suite's statements, offline and (without --offline) compared.
fn corpus(map: &Mapping, dir: &std::path::Path, args: &Args) -> Result<i32, ConformError> {
    use conform::corpus;
    let files = if args.whole_suite {
        corpus::every_test(dir)?
    } else {
        let list = args
            .corpus_list
            .clone()
            .unwrap_or_else(|| conform::data_dir().join(corpus::LIST_FILE));
        corpus::files(dir, &list)?
    };
    let entries = corpus::statements(dir, &files)?;
    let server = if args.offline {
        None
    } else {
        let s = Server::start()?;
        if let Some(w) = version_warning(map, &s) {
            eprintln!("mdl conform: warning: {w}");
        }
        Some(s)
    };
    let opts = corpus::Options {
        sample: args.sample,
        out_dir: args
            .out
            .clone()
            .unwrap_or_else(|| PathBuf::from("corpus-differences")),
        server: server.as_ref(),
    };
    let t = std::time::Instant::now();
    let sum = corpus::run(map, &entries, &opts, &mut std::io::stderr())?;
    let mut out = std::io::stdout();
    corpus::report(&sum, server.as_ref().map(|s| s.version()), &mut out)
        .map_err(|e| ConformError::Io(e.to_string()))?;
    println!("({:.0} s)", t.elapsed().as_secs_f64());
    Ok(if sum.differences.is_empty() { 0 } else { 1 })
}

/// The `error` member; an error of no file of its own (the server's) names the file being
/// run.
fn error_object(name: &str, e: &ConformError) -> serde_json::Value {
    match e {
        ConformError::Scenario {
            file,
            line,
            col,
            msg,
        } => json!({"file": file, "line": line, "col": col, "message": msg}),
        ConformError::Data { file, line, msg } => {
            json!({"file": file, "line": line, "col": null, "message": msg})
        }
        other => json!({"file": name, "line": null, "col": null, "message": other.to_string()}),
    }
}

/// One file's JSON document (`models/docs/json-output.md`).
fn document(name: &str, code: i32, res: &Result<Report, ConformError>) -> serde_json::Value {
    match res {
        Ok(r) => {
            let status = match code {
                0 => "pass",
                2 => "invalid",
                _ => "fail",
            };
            json!({
                "schema": "mdl/1",
                "command": "conform",
                "file": name,
                "status": status,
                "exit": code,
                "error": r.invalid.as_ref().map(|e| error_object(name, e)),
                "server_version": r.server_version,
                "steps": r.steps,
                "differences": r.diffs,
                "failed_expects": r.expect_failures,
                "diverged": r.diverged,
                "warnings": r.warnings,
            })
        }
        Err(e) => {
            let status = match e {
                ConformError::Scenario { .. } => "invalid",
                _ => "error",
            };
            json!({
                "schema": "mdl/1",
                "command": "conform",
                "file": name,
                "status": status,
                "exit": code,
                "error": error_object(name, e),
                "server_version": null,
                "steps": 0,
                "differences": [],
                "failed_expects": [],
                "diverged": null,
                "warnings": [],
            })
        }
    }
}
