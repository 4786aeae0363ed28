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
//! Files: this one reads a file line by line (`Parser::run`); `lex.rs` splits a line into
//! words; `header.rs` parses the lines before the first step (settings, `server_option`);
//! `command.rs` the statements (top-level lines and step commands) and their words;
//! `tests.rs` the parser's tests.

use super::ast::*;
use mdl_core::dialect::Dialect;
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use lex::{is_server_option, is_session_name, is_setup, split_step, sql_text, tokenize, SrcLine};

mod command;
mod header;
mod lex;
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

    fn run(self) -> Result<Scenario, ParseError> {
        // Pass 1: settings before the first step, session names in order of first step.
        let mut settings = Settings::default();
        let mut seen_setting: HashMap<&'static str, usize> = HashMap::new();
        let mut sessions: Vec<String> = Vec::new();
        let mut first_step: Option<usize> = None;
        let mut chosen: Option<DialectChoice> = None;
        let mut setup = Vec::new();
        let mut server: Option<(Pos, String)> = None;
        let mut server_options: Vec<ServerOption> = Vec::new();
        for l in &self.lines {
            if l.toks.is_empty() {
                continue;
            }
            if is_server_option(&l.toks) {
                if let Some(f) = first_step {
                    return Err(self.err(
                        l.no,
                        l.toks[0].col,
                        format!("settings must come before the first step (line {f})"),
                    ));
                }
                let o = self
                    .server_option(l, &server_options)
                    .map_err(|(c, m)| self.err(l.no, c, m))?;
                server_options.push(o);
                continue;
            }
            if let Some(st) = split_step(&l.toks).filter(is_setup) {
                if let Some(f) = first_step {
                    return Err(self.err(
                        l.no,
                        st.name.col,
                        format!("`setup:` lines must come before the first step (line {f})"),
                    ));
                }
                let t = &st.cmd[0];
                let text = sql_text(l.raw, t.off + t.text.len());
                if text.is_empty() {
                    return Err(self.err(
                        l.no,
                        t.end_col(),
                        "expected an SQL statement after `setup: sql`",
                    ));
                }
                setup.push((
                    Pos {
                        line: l.no,
                        col: st.name.col,
                    },
                    text,
                ));
                continue;
            }
            if l.toks[0].text.eq_ignore_ascii_case("server") && split_step(&l.toks).is_none() {
                if let Some(f) = first_step {
                    return Err(self.err(
                        l.no,
                        l.toks[0].col,
                        format!("settings must come before the first step (line {f})"),
                    ));
                }
                if let Some((p, _)) = &server {
                    return Err(self.err(
                        l.no,
                        l.toks[0].col,
                        format!("`server` is already set at line {}", p.line),
                    ));
                }
                match l.toks.get(1..) {
                    Some([v]) => {
                        server = Some((
                            Pos {
                                line: l.no,
                                col: v.col,
                            },
                            v.text.clone(),
                        ));
                    }
                    _ => {
                        return Err(self.err(
                            l.no,
                            l.toks.get(2).map(|t| t.col).unwrap_or(l.end_col),
                            "expected one server version after `server`",
                        ))
                    }
                }
                continue;
            }
            if let Some(st) = split_step(&l.toks) {
                if is_session_name(&st.name.text) && !sessions.contains(&st.name.text) {
                    sessions.push(st.name.text.clone());
                }
                first_step.get_or_insert(l.no);
                continue;
            }
            let kw = l.toks[0].text.to_ascii_lowercase();
            let Some(&key) = SETTINGS.iter().find(|s| **s == kw) else {
                continue;
            };
            if let Some(f) = first_step {
                return Err(self.err(
                    l.no,
                    l.toks[0].col,
                    format!("settings must come before the first step (line {f})"),
                ));
            }
            if let Some(prev) = seen_setting.insert(key, l.no) {
                return Err(self.err(
                    l.no,
                    l.toks[0].col,
                    format!("`{key}` is already set at line {prev}"),
                ));
            }
            if let Some(c) = self
                .setting(l, key, &mut settings)
                .map_err(|(c, m)| self.err(l.no, c, m))?
            {
                chosen = Some(c);
            }
        }
        let chosen = match (self.opts.dialect.clone(), chosen) {
            (Some(c), _) | (None, Some(c)) => c,
            (None, None) => DialectChoice {
                dialect: builtin("mysql-8.0").expect("built in"),
                path: None,
            },
        };
        settings.dialect = chosen.dialect.name.clone();
        settings.dialect_path = chosen.path.clone();
        self.apply_server_options(&server_options, &seen_setting, &mut settings)?;
        let dialect = chosen.dialect.clone();
        let index: HashMap<&str, usize> = sessions
            .iter()
            .enumerate()
            .map(|(i, s)| (s.as_str(), i))
            .collect();

        // Pass 2: everything else.
        let mut out = Vec::new();
        let mut gone: HashMap<usize, usize> = HashMap::new();
        for l in &self.lines {
            if l.toks.is_empty() {
                continue;
            }
            let pos = Pos {
                line: l.no,
                col: l.toks[0].col,
            };
            if split_step(&l.toks).is_some_and(|st| is_setup(&st))
                || (l.toks[0].text.eq_ignore_ascii_case("server") && split_step(&l.toks).is_none())
                || is_server_option(&l.toks)
            {
                continue; // pass 1
            }
            if let Some(st) = split_step(&l.toks) {
                let name = &st.name;
                if name.text.is_empty() {
                    return Err(self.err(l.no, name.col, "expected a session name before `:`"));
                }
                if !is_session_name(&name.text) {
                    return Err(self.err(
                        l.no,
                        name.col,
                        format!(
                            "`{}` is not a session name (letters, digits and `_`, not \
                             starting with a digit)",
                            name.text
                        ),
                    ));
                }
                let session = index[name.text.as_str()];
                if let Some(at) = gone.get(&session) {
                    return Err(self.err(
                        l.no,
                        name.col,
                        format!(
                            "session `{}` disconnected at line {at}; it takes no further steps",
                            name.text
                        ),
                    ));
                }
                let end = st
                    .cmd
                    .last()
                    .map(|t| t.end_col())
                    .unwrap_or(name.end_col() + 1);
                let cmd = self
                    .command(&dialect, l, &st.cmd, end)
                    .map_err(|(c, m)| self.err(l.no, c, m))?;
                if matches!(cmd, Command::Disconnect) {
                    gone.insert(session, l.no);
                }
                out.push(Line {
                    pos,
                    item: Item::Step { session, cmd },
                });
                continue;
            }
            let kw = l.toks[0].text.to_ascii_lowercase();
            if SETTINGS.contains(&kw.as_str()) {
                continue; // handled in pass 1
            }
            if !TOP.contains(&kw.as_str()) {
                return Err(self.err(
                    l.no,
                    l.toks[0].col,
                    format!(
                        "expected `SESSION: COMMAND`, a setting or a top-level line (kill, \
                         advance, expect, assert), found `{}`",
                        l.toks[0].text
                    ),
                ));
            }
            let item = self
                .top(&dialect, &index, l, &kw)
                .map_err(|(c, m)| self.err(l.no, c, m))?;
            out.push(Line { pos, item });
        }
        Ok(Scenario {
            file: self.file.to_owned(),
            settings,
            lines: out,
            sessions,
            dialect,
            setup,
            server,
            server_options,
        })
    }
}
