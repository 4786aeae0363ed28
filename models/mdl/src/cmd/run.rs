//! `mdl run FILE...`: play scenario files in written order and check their `expect`
//! lines. Every file is answered, in the order given, even after a bad one; the exit
//! status is the worst of them: 2 a file is invalid (`FILE:LINE:COL: message`) or
//! unreadable, or the command line is wrong; 1 an expectation failed or a session was
//! left waiting at the end without an `expect SESSION waiting`; 0 otherwise. With
//! `--format json`, one document per file per line (`models/docs/json-output.md`).

use super::{document, print_document, worst, Status};
use mdl_scenario::parse::ParseOptions;
use mdl_scenario::read::{read_file_with, ReadError};
use mdl_scenario::runner::{self, Engine, Transcript};
use serde_json::{json, Map, Value};

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
    /// Read every file in this dialect: a built-in one (mysql-8.0, mariadb) or a dialect
    /// folder (models/docs/dialect-format.md); it replaces the files' `dialect` lines.
    #[arg(long, value_name = "NAME|DIR")]
    pub dialect: Option<String>,
}

fn engine_name(e: Engine) -> &'static str {
    match e {
        Engine::Manager => "manager",
        Engine::Table => "table",
        Engine::Threads => "threads",
    }
}

/// The members of a file that was not played.
fn empty_members(engine: Engine) -> Map<String, Value> {
    let v = json!({
        "engine": engine_name(engine),
        "steps": [],
        "events": [],
        "expects": [],
        "left_waiting": [],
        "transcript": [],
    });
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// The status of a played file.
fn status_of(t: &Transcript) -> Status {
    match t.exit_code() {
        0 => Status::Pass,
        1 => Status::Fail,
        _ => Status::Invalid,
    }
}

/// Plays one file; prints its result; returns its exit status.
pub fn run_file(
    path: &std::path::Path,
    engine: Engine,
    format: Format,
    opts: &ParseOptions,
) -> i32 {
    let name = path.display().to_string();
    let file = match read_file_with(path, opts) {
        Ok(f) => f,
        Err(e) => return refused(&name, &e, engine, format),
    };
    if mdl_check::sql::is_sql(&file.scenario) {
        return run_sql(&name, &file, engine, format);
    }
    let t = runner::run_engine(&file.scenario, engine);
    let invalid = t.invalid.as_ref().map(|e| file.error(e));
    let status = status_of(&t);
    match format {
        Format::Text => print!("{}", t.text()),
        Format::Json => print_document(&document(
            "run",
            &name,
            status,
            invalid.as_ref(),
            t.json_members(),
        )),
    }
    // Nothing lost: every failed expectation, every session left waiting, then the line
    // that made the file invalid.
    for x in t.expects().filter(|x| !x.ok) {
        eprintln!(
            "{name}:{}: expectation failed: expected {} {}, seen {}",
            x.line, x.session, x.expected, x.seen
        );
    }
    for l in t.left_waiting.iter().filter(|l| l.covered_by.is_none()) {
        eprintln!(
            "{name}:{}: session `{}` is still waiting at the end of the file (add `expect {} \
             waiting` after its step if the wait is meant to last)",
            l.step_line, l.session, l.session
        );
    }
    if let Some(e) = &invalid {
        eprintln!("{}", e.render());
    }
    status.exit()
}

/// A SQL scenario: its written order on the SQL model (`mdl_check::sql::written`), the
/// same actions `mdl check` explores. Text only; both engines are the one SQL model.
fn run_sql(
    name: &str,
    file: &mdl_scenario::read::ScenarioFile,
    engine: Engine,
    format: Format,
) -> i32 {
    let sc = &file.scenario;
    let refuse = |e: &mdl_scenario::ParseError| refused(name, &file.error(e), engine, format);
    if format == Format::Json {
        let pos = sc.lines.first().map(|l| l.pos).unwrap_or_default();
        return refuse(&mdl_scenario::ParseError {
            file: sc.file.clone(),
            pos,
            msg: "SQL scenarios are played in text format only (--format json does not cover \
                  them yet)"
                .into(),
        });
    }
    let m = match mdl_check::sql::SqlCheck::new(sc) {
        Ok(m) => m,
        Err(e) => return refuse(&e),
    };
    let w = mdl_check::sql::written::play(&m);
    println!("{name}: SQL sessions on the SQL model ({})", m.table_name());
    for t in &w.transcript {
        println!("{t}");
    }
    for f in &w.failures {
        eprintln!("{f}");
    }
    for (line, s) in &w.left_waiting {
        eprintln!(
            "{name}:{line}: session `{s}` is still waiting at the end of the file (add `expect \
             {s} waiting` after its step if the wait is meant to last)"
        );
    }
    if let Some((line, col, msg)) = &w.invalid {
        let e = file.error(&mdl_scenario::ParseError {
            file: sc.file.clone(),
            pos: mdl_scenario::Pos {
                line: *line,
                col: *col,
            },
            msg: msg.clone(),
        });
        eprintln!("{}", e.render());
    }
    w.exit_code()
}

/// A file that could not be read or parsed.
fn refused(name: &str, e: &ReadError, engine: Engine, format: Format) -> i32 {
    let status = Status::of_read_error(e);
    if format == Format::Json {
        print_document(&document(
            "run",
            name,
            status,
            Some(e),
            empty_members(engine),
        ));
    }
    eprintln!("{}", e.render());
    status.exit()
}

pub fn main(args: Args) -> i32 {
    let opts = match super::dialect_option("run", args.dialect.as_deref()) {
        Ok(o) => o,
        Err(code) => return code,
    };
    let mut code = 0;
    let many = args.files.len() > 1;
    for f in &args.files {
        if many && args.format == Format::Text {
            println!("== {}", f.display());
        }
        code = worst(code, run_file(f, args.engine, args.format, &opts));
    }
    code
}
