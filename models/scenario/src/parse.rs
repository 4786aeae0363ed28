//! The scenario parser: `shared/spec/scenario-format.md` (version 1) plus the `sql`
//! extension of the conformance harness.
//!
//! [`parse`] never panics, on any input: it slices lines only at character boundaries it
//! found itself, and every problem is a [`ParseError`] with the 1-based line and column
//! (in characters) of the offending word.
//!
//! Decisions the spec leaves to the project:
//! - A step line is `NAME:` followed by a command; spaces around the colon are allowed
//!   (`s1 : commit`, `s1:commit`).
//! - Optional parts of a command (`[DURATION] [WAIT]`, `[TYPE] [DURATION]`) may come in
//!   either order; each at most once.
//! - In `acquire_all` the requests are separated by commas, which may stand alone or stick
//!   to the words around them (`SR, TABLE`, `SR ,TABLE`, `SR,TABLE`); elsewhere a comma is
//!   an ordinary character of a word.
//! - A setting may appear once, anywhere before the first step.
//! - `kill`, `expect` and `assert` must name a session that has a step somewhere in the
//!   file; a step of a session after its `disconnect` makes the file invalid.
//! - `assert` lines take `never|sometimes SESSION|* OUTCOME`, `eventually SESSION granted`
//!   and `bounded SESSION N`, each optionally followed by `at line N` (whether line N is
//!   a step of that session is the model checker's to say).
//! - `SESSION: sql STATEMENT` keeps the rest of the line verbatim (trimmed) up to a `#`
//!   outside quotes (`'`, `"`, `` ` ``).
//! - `dialect PATH` (version 3) names a dialect folder relative to the file's folder; a
//!   built-in name always means the built-in. The folder is loaded here, once per file
//!   (the built-ins once per process), unless [`ParseOptions::dialect`] (`--dialect`)
//!   replaces it. A step's type word is one of the dialect's types, else a built-in type
//!   (which its namespaces do not take: an `error` outcome), else a parse error.
//! - Conformance extension (`models/docs/scenario-format.md`, "Changes since version 1"):
//!   `setup: sql STATEMENT` lines and one `server VERSION` line, both before the first
//!   step; `setup` is then not a session name.
//! - `server_option NAME VALUE` (version 5): options of the conformance server, before
//!   the first step, each NAME once; `max_write_lock_count` and `lock_wait_timeout` set
//!   the settings of those names too (a file giving both forms is refused).
//!
//! Files: this one reads a file in two passes (`Parser::run`): `prelude.rs` the lines
//! before the first step, `steps.rs` the steps and top-level lines; `lex.rs` splits a line
//! into words; `header.rs` parses a setting or a `server_option` line;
//! `command.rs` the statements (top-level lines and step commands) and their words;
//! `tests.rs` the parser's tests.

use super::ast::*;
use mdl_core::dialect::Dialect;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use lex::{tokenize, SrcLine};
use steps::Body;

mod command;
mod header;
mod lex;
mod prelude;
mod steps;
#[cfg(test)]
mod tests;

/// Parses scenario `text`; `file` names it in error messages, and a dialect folder its
/// `dialect` line names is found relative to `file`'s folder.
pub fn parse(file: &str, text: &str) -> Result<Scenario, ParseError> {
    parse_with(file, text, &ParseOptions::default())
}

/// Parses scenario `text` with `opts` (a dialect given on the command line).
pub fn parse_with(file: &str, text: &str, opts: &ParseOptions) -> Result<Scenario, ParseError> {
    Parser::new(file, text, opts).run()
}

/// What the command line adds to a file.
#[derive(Clone, Debug, Default)]
pub struct ParseOptions {
    /// `--dialect`: read every file in this dialect, whatever its `dialect` line says.
    pub dialect: Option<DialectChoice>,
}

/// A loaded dialect and where it came from.
#[derive(Clone, Debug)]
pub struct DialectChoice {
    pub dialect: Arc<Dialect>,
    /// The folder's absolute path; `None` for a built-in dialect.
    pub path: Option<String>,
}

impl DialectChoice {
    /// A built-in dialect by name, else the dialect folder `spec` relative to `base`. The
    /// error is the folder's first problem at `FILE:LINE:COL` of its file.
    pub fn load(spec: &str, base: &Path) -> Result<DialectChoice, String> {
        if let Some(d) = builtin(spec) {
            return Ok(DialectChoice {
                dialect: d,
                path: None,
            });
        }
        let d = Dialect::load(spec, base).map_err(|e| e.to_string())?;
        let dir = base.join(spec);
        let path = std::fs::canonicalize(&dir)
            .unwrap_or(dir)
            .display()
            .to_string();
        Ok(DialectChoice {
            dialect: Arc::new(d),
            path: Some(path),
        })
    }
}

/// A built-in dialect, read from its files once per process.
fn builtin(name: &str) -> Option<Arc<Dialect>> {
    static MYSQL: OnceLock<Arc<Dialect>> = OnceLock::new();
    static MARIADB: OnceLock<Arc<Dialect>> = OnceLock::new();
    let name = Dialect::builtin_name(name)?;
    let cell = if name == "mariadb" { &MARIADB } else { &MYSQL };
    let d = cell.get_or_init(|| Arc::new(Dialect::builtin(name).expect("built in")));
    Some(d.clone())
}

const SETTINGS: [&str; 5] = [
    "dialect",
    "max_write_lock_count",
    "lock_wait_timeout",
    "max_search_depth",
    "deadlock_resolution",
];
const TOP: [&str; 4] = ["kill", "advance", "expect", "assert"];
const COMMANDS: &str = "acquire, acquire_all, upgrade, downgrade, clone, release, \
end_statement, commit, rollback, release_explicit, savepoint, rollback_to, set_duration, \
force_dml_weight, disconnect, sql";
const OUTCOMES: &str = "granted, waiting, busy, deadlock, timeout, killed, ok, error";

struct Parser<'a> {
    file: &'a str,
    lines: Vec<SrcLine<'a>>,
    opts: &'a ParseOptions,
}

impl<'a> Parser<'a> {
    fn new(file: &'a str, text: &'a str, opts: &'a ParseOptions) -> Parser<'a> {
        let lines = text
            .lines()
            .enumerate()
            .map(|(i, raw)| {
                let (toks, end_col) = tokenize(raw);
                SrcLine {
                    no: i + 1,
                    raw,
                    toks,
                    end_col,
                }
            })
            .collect();
        Parser { file, lines, opts }
    }

    fn err(&self, line: usize, col: usize, msg: impl Into<String>) -> ParseError {
        ParseError {
            file: self.file.to_owned(),
            pos: Pos { line, col },
            msg: msg.into(),
        }
    }

    /// Reads the file in two passes: the settings before the first step
    /// ([`Parser::prelude`]), then the steps and top-level lines ([`Parser::body`]).
    fn run(self) -> Result<Scenario, ParseError> {
        let mut p = self.prelude()?;
        let chosen = match (self.opts.dialect.clone(), p.chosen.take()) {
            (Some(c), _) | (None, Some(c)) => c,
            (None, None) => DialectChoice {
                dialect: builtin("mysql-8.0").expect("built in"),
                path: None,
            },
        };
        p.settings.dialect = chosen.dialect.name.clone();
        p.settings.dialect_path = chosen.path.clone();
        self.apply_server_options(&p.server_options, &p.seen_setting, &mut p.settings)?;
        let dialect = chosen.dialect.clone();
        let lines = self.body(&mut Body::new(&dialect, &p.sessions))?;
        Ok(Scenario {
            file: self.file.to_owned(),
            settings: p.settings,
            lines,
            sessions: p.sessions,
            dialect,
            setup: p.setup,
            server: p.server,
            server_options: p.server_options,
        })
    }
}
