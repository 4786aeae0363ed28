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

use super::ast::*;
use mdl_core::dialect::Dialect;
use mdl_core::key::MdlKey;
use mdl_core::{Duration, LockType, Outcome, WaitOption};
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, OnceLock};

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

/// A word of a line: its text and 1-based column (in characters).
#[derive(Clone, Debug)]
struct Tok {
    text: String,
    col: usize,
    /// Byte offset of the word in its line.
    off: usize,
}

impl Tok {
    fn end_col(&self) -> usize {
        self.col + self.text.chars().count()
    }
}

struct SrcLine<'a> {
    no: usize,
    raw: &'a str,
    toks: Vec<Tok>,
    /// Column just after the last word (where "end of line" is reported).
    end_col: usize,
}

/// Splits a line into words: spaces, tabs and carriage returns separate words outside
/// backticks; `#` outside backticks starts a comment.
fn tokenize(raw: &str) -> (Vec<Tok>, usize) {
    let mut toks = Vec::new();
    let mut cur: Option<Tok> = None;
    let mut in_tick = false;
    let mut end_col = 1usize;
    for (i, (off, c)) in raw.char_indices().enumerate() {
        let col = i + 1;
        if !in_tick && c == '#' {
            break;
        }
        if !in_tick && (c == ' ' || c == '\t' || c == '\r') {
            if let Some(t) = cur.take() {
                end_col = t.end_col();
                toks.push(t);
            }
            continue;
        }
        if c == '`' {
            in_tick = !in_tick;
        }
        match &mut cur {
            Some(t) => t.text.push(c),
            None => {
                cur = Some(Tok {
                    text: c.to_string(),
                    col,
                    off,
                })
            }
        }
    }
    if let Some(t) = cur.take() {
        end_col = t.end_col();
        toks.push(t);
    }
    (toks, end_col)
}

/// Splits words on commas outside backticks; each comma becomes a word of its own.
fn split_commas(toks: &[Tok]) -> Vec<Tok> {
    let mut out = Vec::new();
    for t in toks {
        let mut in_tick = false;
        let mut cur: Option<Tok> = None;
        for (i, (boff, c)) in t.text.char_indices().enumerate() {
            if c == '`' {
                in_tick = !in_tick;
            }
            if c == ',' && !in_tick {
                if let Some(x) = cur.take() {
                    out.push(x);
                }
                out.push(Tok {
                    text: ",".into(),
                    col: t.col + i,
                    off: t.off + boff,
                });
                continue;
            }
            match &mut cur {
                Some(x) => x.text.push(c),
                None => {
                    cur = Some(Tok {
                        text: c.to_string(),
                        col: t.col + i,
                        off: t.off + boff,
                    })
                }
            }
        }
        if let Some(x) = cur.take() {
            out.push(x);
        }
    }
    out
}

/// `server_option ...` (version 5): not a step (`server_option: ...` is one).
fn is_server_option(toks: &[Tok]) -> bool {
    toks[0].text.eq_ignore_ascii_case("server_option") && split_step(toks).is_none()
}

/// `setup: sql ...`: a setup line, not a step of a session named `setup`.
fn is_setup(st: &StepSplit) -> bool {
    st.name.text == "setup"
        && st
            .cmd
            .first()
            .is_some_and(|t| t.text.eq_ignore_ascii_case("sql"))
}

fn is_session_name(s: &str) -> bool {
    let mut cs = s.chars();
    match cs.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
        _ => return false,
    }
    cs.all(|c| c.is_ascii_alphanumeric() || c == '_')
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

/// `expect SESSION error N` (version 5): the server's error code N after `error`.
fn error_code(w: &mut Words) -> PResult<Expectation> {
    let n = number(w, "an error code after `error`")?;
    let code = u32::try_from(n).map_err(|_| (w.here(), "error code too large".to_owned()))?;
    Ok(Expectation::ErrorCode(code))
}

/// A step line split into its session name and command words.
struct StepSplit {
    name: Tok,
    cmd: Vec<Tok>,
}

/// Recognises `NAME: ...`, `NAME :...`, `NAME:...`. Returns None for other lines.
fn split_step(toks: &[Tok]) -> Option<StepSplit> {
    let first = toks.first()?;
    if let Some(i) = first.text.find(':') {
        let name = Tok {
            text: first.text[..i].to_owned(),
            col: first.col,
            off: first.off,
        };
        let mut cmd = Vec::new();
        let rest = &first.text[i + 1..];
        if !rest.is_empty() {
            cmd.push(Tok {
                text: rest.to_owned(),
                col: first.col + first.text[..=i].chars().count(),
                off: first.off + i + 1,
            });
        }
        cmd.extend(toks[1..].iter().cloned());
        return Some(StepSplit { name, cmd });
    }
    let second = toks.get(1)?;
    let rest = second.text.strip_prefix(':')?;
    let mut cmd = Vec::new();
    if !rest.is_empty() {
        cmd.push(Tok {
            text: rest.to_owned(),
            col: second.col + 1,
            off: second.off + 1,
        });
    }
    cmd.extend(toks[2..].iter().cloned());
    Some(StepSplit {
        name: first.clone(),
        cmd,
    })
}

struct Parser<'a> {
    file: &'a str,
    lines: Vec<SrcLine<'a>>,
    opts: &'a ParseOptions,
}

/// The words of one statement, consumed left to right.
struct Words<'t> {
    toks: &'t [Tok],
    i: usize,
    end_col: usize,
}

impl<'t> Words<'t> {
    fn peek(&self) -> Option<&'t Tok> {
        self.toks.get(self.i)
    }
    fn next(&mut self) -> Option<&'t Tok> {
        let t = self.toks.get(self.i);
        if t.is_some() {
            self.i += 1;
        }
        t
    }
    /// The column where a missing word is reported.
    fn here(&self) -> usize {
        match self.toks.get(self.i) {
            Some(t) => t.col,
            None => self
                .toks
                .last()
                .map(|t| t.end_col())
                .unwrap_or(self.end_col),
        }
    }
}

type PResult<T> = Result<T, (usize, String)>;

fn found(t: Option<&Tok>) -> String {
    match t {
        Some(t) => format!("`{}`", t.text),
        None => "end of line".into(),
    }
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

    /// `server_option NAME VALUE` (version 5): NAME one of [`ServerOptionName::ALL`], each
    /// at most once, VALUE within the servers' range.
    fn server_option(&self, l: &SrcLine, prev: &[ServerOption]) -> PResult<ServerOption> {
        let mut w = Words {
            toks: &l.toks[1..],
            i: 0,
            end_col: l.end_col,
        };
        let names = ServerOptionName::ALL.map(|n| n.as_str()).join(", ");
        let t = w.next().ok_or_else(|| {
            (
                w.here(),
                format!("expected a server option ({names}), found end of line"),
            )
        })?;
        let name = ServerOptionName::from_name(&t.text).ok_or_else(|| {
            (
                t.col,
                format!("expected a server option ({names}), found `{}`", t.text),
            )
        })?;
        if let Some(p) = prev.iter().find(|o| o.name == name) {
            return Err((
                t.col,
                format!(
                    "server option `{}` is already set at line {}",
                    name.as_str(),
                    p.pos.line
                ),
            ));
        }
        let col = w.here();
        let value = number(&mut w, "a number")?;
        if value < name.min() || value > name.max() {
            return Err((
                col,
                format!(
                    "{} must be from {} to {} (the server's range)",
                    name.as_str(),
                    name.min(),
                    name.max()
                ),
            ));
        }
        done(&w)?;
        Ok(ServerOption {
            pos: Pos {
                line: l.no,
                col: t.col,
            },
            name,
            value,
        })
    }

    /// What the server options set in the model: `max_write_lock_count` the setting of
    /// that name, `lock_wait_timeout` (seconds) the setting `lock_wait_timeout` (ms). A
    /// file that also has that setting is refused (one value, said once).
    fn apply_server_options(
        &self,
        opts: &[ServerOption],
        seen: &HashMap<&'static str, usize>,
        s: &mut Settings,
    ) -> Result<(), ParseError> {
        for o in opts {
            if let Some(line) = seen.get(o.name.as_str()) {
                return Err(self.err(
                    o.pos.line,
                    o.pos.col,
                    format!(
                        "`{}` is already set at line {line}: give it as a setting or as a \
                         server option, not both",
                        o.name.as_str()
                    ),
                ));
            }
            match o.name {
                ServerOptionName::MaxWriteLockCount => s.max_write_lock_count = o.value,
                ServerOptionName::LockWaitTimeout => {
                    s.lock_wait_timeout = Some(o.value.saturating_mul(1000))
                }
                ServerOptionName::InnodbLockWaitTimeout => {}
            }
        }
        Ok(())
    }

    /// Reads a setting line into `s`; a `dialect` line gives its dialect (unless the
    /// command line named one: then the line is not loaded).
    fn setting(&self, l: &SrcLine, key: &str, s: &mut Settings) -> PResult<Option<DialectChoice>> {
        let mut chosen = None;
        let mut w = Words {
            toks: &l.toks[1..],
            i: 0,
            end_col: l.end_col,
        };
        match key {
            "dialect" => {
                let t = w.next().ok_or_else(|| {
                    (
                        w.here(),
                        "expected a dialect (mysql-8.0, mariadb or a dialect folder), found end \
                         of line"
                            .into(),
                    )
                })?;
                if self.opts.dialect.is_none() {
                    let base = Path::new(self.file).parent().unwrap_or(Path::new(""));
                    let c = DialectChoice::load(&t.text, base).map_err(|e| {
                        let msg = if Dialect::builtin_name(&t.text).is_none()
                            && !base.join(&t.text).is_dir()
                        {
                            format!(
                                "expected a dialect (mysql-8.0, mariadb or a dialect folder \
                                 relative to this file), found `{}`",
                                t.text
                            )
                        } else {
                            format!("the dialect folder `{}` does not load: {e}", t.text)
                        };
                        (t.col, msg)
                    })?;
                    chosen = Some(c);
                }
            }
            "max_write_lock_count" => {
                let col = w.here();
                let n = number(&mut w, "a count")?;
                // Both servers: sys_vars.cc, Sys_max_write_lock_count, VALID_RANGE(1,
                // ULONG_MAX). A limit of 0 would turn every reschedule into a pass that
                // gives way (MariaDB: `m_hog_lock_count >= max_write_lock_count` holds
                // before any hog), which no server can run.
                if n == 0 {
                    return Err((
                        col,
                        "max_write_lock_count must be at least 1 (the servers' range is 1 to \
                         ULONG_MAX)"
                            .into(),
                    ));
                }
                s.max_write_lock_count = n;
            }
            "max_search_depth" => {
                let t = w.next().ok_or_else(|| {
                    (
                        w.here(),
                        "expected a search depth (a number from 1), found end of line".into(),
                    )
                })?;
                s.max_search_depth = Some(
                    mdl_core::dialect::parse_max_search_depth(&t.text).map_err(|m| (t.col, m))?,
                );
            }
            "deadlock_resolution" => {
                let t = w.next().ok_or_else(|| {
                    (
                        w.here(),
                        "expected `victim` or `soft_edges`, found end of line".into(),
                    )
                })?;
                s.soft_edges = Some(
                    mdl_core::dialect::parse_deadlock_resolution(&t.text)
                        .map_err(|m| (t.col, m))?,
                );
            }
            _ => s.lock_wait_timeout = Some(number(&mut w, "a number of milliseconds")?),
        }
        done(&w)?;
        Ok(chosen)
    }

    fn top(
        &self,
        d: &Dialect,
        index: &HashMap<&str, usize>,
        l: &SrcLine,
        kw: &str,
    ) -> PResult<Item> {
        let mut w = Words {
            toks: &l.toks[1..],
            i: 0,
            end_col: l.end_col,
        };
        let item = match kw {
            "kill" => Item::Kill {
                session: session_ref(&mut w, index)?,
            },
            "advance" => Item::Advance {
                ms: number(&mut w, "a number of milliseconds")?,
            },
            "expect" => {
                let session = session_ref(&mut w, index)?;
                let t = w.next();
                let what = match t.map(|t| t.text.to_ascii_lowercase()) {
                    Some(x) if x == "tickets" => {
                        // `tickets N` or `tickets NS KEY N`.
                        let key = if w.toks.len() - w.i >= 3 {
                            Some(ns_key(d, &mut w)?)
                        } else {
                            None
                        };
                        let n = number(&mut w, "a number of tickets")?;
                        Expectation::Tickets {
                            key,
                            n: usize::try_from(n).map_err(|_| (w.here(), "too many".into()))?,
                        }
                    }
                    Some(x) if x == "holds" || x == "not-holds" => {
                        let (key, ty) = ns_key_type(d, &mut w)?;
                        if x == "holds" {
                            Expectation::Holds { key, ty }
                        } else {
                            Expectation::NotHolds { key, ty }
                        }
                    }
                    _ => match t.and_then(|t| Outcome::parse(&t.text)) {
                        Some(Outcome::Error) if w.peek().is_some() => error_code(&mut w)?,
                        Some(o) => Expectation::Outcome(o),
                        None => {
                            return Err((
                                t.map(|t| t.col).unwrap_or_else(|| w.here()),
                                format!(
                                    "expected an outcome ({OUTCOMES}), `holds`, \
                                     `not-holds` or `tickets`, found {}",
                                    found(t)
                                ),
                            ))
                        }
                    },
                };
                Item::Expect { session, what }
            }
            _ => {
                let t = w.next();
                let kind = match t.map(|t| t.text.to_ascii_lowercase()).as_deref() {
                    Some("never") => AssertKind::Never,
                    Some("sometimes") => AssertKind::Sometimes,
                    Some("eventually") => AssertKind::Eventually,
                    Some("bounded") => AssertKind::Bounded(0),
                    _ => {
                        return Err((
                            t.map(|t| t.col).unwrap_or_else(|| w.here()),
                            format!(
                                "expected `never`, `sometimes`, `eventually` or `bounded`, \
                                 found {}",
                                found(t)
                            ),
                        ))
                    }
                };
                let liveness = matches!(kind, AssertKind::Eventually | AssertKind::Bounded(_));
                let session = if !liveness && w.peek().is_some_and(|t| t.text == "*") {
                    w.next();
                    None
                } else {
                    Some(session_ref(&mut w, index)?)
                };
                let (kind, outcome) = match kind {
                    AssertKind::Bounded(_) => {
                        let n = number(&mut w, "a number of grants")?;
                        let n = u32::try_from(n)
                            .map_err(|_| (w.here(), format!("the bound {n} is too large")))?;
                        (AssertKind::Bounded(n), Outcome::Granted)
                    }
                    AssertKind::Eventually => {
                        let t = w.next();
                        if t.map(|t| t.text.to_ascii_lowercase()).as_deref() != Some("granted") {
                            return Err((
                                t.map(|t| t.col).unwrap_or_else(|| w.here()),
                                format!("expected `granted`, found {}", found(t)),
                            ));
                        }
                        (kind, Outcome::Granted)
                    }
                    k => (k, outcome(&mut w)?),
                };
                let at_line = if w.peek().is_some_and(|t| t.text.eq_ignore_ascii_case("at")) {
                    w.next();
                    let t = w.next();
                    if t.map(|t| t.text.to_ascii_lowercase()).as_deref() != Some("line") {
                        return Err((
                            t.map(|t| t.col).unwrap_or_else(|| w.here()),
                            format!("expected `line` after `at`, found {}", found(t)),
                        ));
                    }
                    Some(number(&mut w, "a line number")? as usize)
                } else {
                    None
                };
                Item::Assert {
                    kind,
                    session,
                    outcome,
                    at_line,
                }
            }
        };
        done(&w)?;
        Ok(item)
    }

    fn command(&self, d: &Dialect, l: &SrcLine, toks: &[Tok], end: usize) -> PResult<Command> {
        let mut w = Words {
            toks,
            i: 0,
            end_col: end,
        };
        let Some(t) = w.next() else {
            return Err((
                end,
                format!("expected a command ({COMMANDS}), found end of line"),
            ));
        };
        let name = t.text.to_ascii_lowercase();
        let cmd = match name.as_str() {
            "acquire" => {
                let (key, ty) = ns_key_type(d, &mut w)?;
                let (dur, wait) = dur_wait(
                    &mut w,
                    Options {
                        duration: true,
                        last: true,
                    },
                )?;
                Command::Acquire {
                    key,
                    ty,
                    dur: dur.unwrap_or(Duration::Transaction),
                    wait,
                }
            }
            "acquire_all" => {
                let (dur, wait) = dur_wait(
                    &mut w,
                    Options {
                        duration: true,
                        last: false,
                    },
                )?;
                let rest = split_commas(&toks[w.i..]);
                let mut b = Words {
                    toks: &rest,
                    i: 0,
                    end_col: end,
                };
                let mut reqs = Vec::new();
                loop {
                    reqs.push(ns_key_type(d, &mut b)?);
                    match b.next() {
                        None => break,
                        Some(c) if c.text == "," => continue,
                        Some(c) => {
                            return Err((
                                c.col,
                                format!("expected `,` or end of line, found `{}`", c.text),
                            ))
                        }
                    }
                }
                w.i = toks.len();
                Command::AcquireAll {
                    dur: dur.unwrap_or(Duration::Transaction),
                    wait,
                    reqs,
                }
            }
            "upgrade" => {
                let (key, ty) = ns_key_type(d, &mut w)?;
                let (_, wait) = dur_wait(
                    &mut w,
                    Options {
                        duration: false,
                        last: true,
                    },
                )?;
                Command::Upgrade { key, ty, wait }
            }
            "downgrade" => {
                let (key, ty) = ns_key_type(d, &mut w)?;
                Command::Downgrade { key, ty }
            }
            "clone" => {
                let key = ns_key(d, &mut w)?;
                let mut ty = None;
                let mut dur = None;
                while let Some(t) = w.peek() {
                    if let Some(x) = Duration::parse(&t.text) {
                        if dur.replace(x).is_some() {
                            return Err((t.col, "the duration is given twice".into()));
                        }
                    } else if let Some(x) = type_named(d, &t.text) {
                        if ty.replace(x).is_some() {
                            return Err((t.col, "the lock type is given twice".into()));
                        }
                    } else {
                        return Err((
                            t.col,
                            format!(
                                "expected a lock type, a duration or end of line, found `{}`",
                                t.text
                            ),
                        ));
                    }
                    w.next();
                }
                Command::Clone {
                    key,
                    ty,
                    dur: dur.unwrap_or(Duration::Explicit),
                }
            }
            "release" => {
                let key = ns_key(d, &mut w)?;
                let ty = match w.peek() {
                    None => None,
                    Some(_) => Some(lock_type(d, &mut w)?),
                };
                Command::Release { key, ty }
            }
            "end_statement" => Command::EndStatement,
            "commit" => Command::Commit,
            "rollback" => Command::Rollback,
            "release_explicit" => Command::ReleaseExplicit,
            "savepoint" | "rollback_to" => {
                let n = w.next().ok_or_else(|| {
                    (
                        w.here(),
                        "expected a savepoint name, found end of line".into(),
                    )
                })?;
                if name == "savepoint" {
                    Command::Savepoint(n.text.clone())
                } else {
                    Command::RollbackTo(n.text.clone())
                }
            }
            "set_duration" => {
                let t = w.next();
                match t.and_then(|t| Duration::parse(&t.text)) {
                    Some(x) => Command::SetDuration(x),
                    None => {
                        return Err((
                            t.map(|t| t.col).unwrap_or_else(|| w.here()),
                            format!(
                                "expected a duration (statement, transaction, explicit), \
                                 found {}",
                                found(t)
                            ),
                        ))
                    }
                }
            }
            "force_dml_weight" => {
                let t = w.next();
                match t.map(|t| t.text.to_ascii_lowercase()).as_deref() {
                    Some("on") => Command::ForceDmlWeight(true),
                    Some("off") => Command::ForceDmlWeight(false),
                    _ => {
                        return Err((
                            t.map(|t| t.col).unwrap_or_else(|| w.here()),
                            format!("expected `on` or `off`, found {}", found(t)),
                        ))
                    }
                }
            }
            "disconnect" => Command::Disconnect,
            "sql" => {
                let text = sql_text(l.raw, t.off + t.text.len());
                if text.is_empty() {
                    return Err((t.end_col(), "expected an SQL statement after `sql`".into()));
                }
                w.i = toks.len();
                Command::Sql(text)
            }
            _ => {
                return Err((
                    t.col,
                    format!("expected a command ({COMMANDS}), found `{}`", t.text),
                ))
            }
        };
        done(&w)?;
        Ok(cmd)
    }
}

/// The rest of `raw` from byte `from`, up to a `#` outside quotes, trimmed.
fn sql_text(raw: &str, from: usize) -> String {
    let rest = raw.get(from..).unwrap_or("");
    let mut quote: Option<char> = None;
    let mut end = rest.len();
    for (i, c) in rest.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' || c == '`' => quote = Some(c),
            None if c == '#' => {
                end = i;
                break;
            }
            None => {}
        }
    }
    rest[..end].trim().to_owned()
}

fn done(w: &Words) -> PResult<()> {
    match w.peek() {
        None => Ok(()),
        Some(t) => Err((t.col, format!("expected end of line, found `{}`", t.text))),
    }
}

fn number(w: &mut Words, what: &str) -> PResult<u64> {
    let t = w.next();
    t.and_then(|t| t.text.parse::<u64>().ok()).ok_or_else(|| {
        (
            t.map(|t| t.col).unwrap_or_else(|| w.here()),
            format!("expected {what}, found {}", found(t)),
        )
    })
}

fn outcome(w: &mut Words) -> PResult<Outcome> {
    let t = w.next();
    t.and_then(|t| Outcome::parse(&t.text)).ok_or_else(|| {
        (
            t.map(|t| t.col).unwrap_or_else(|| w.here()),
            format!("expected an outcome ({OUTCOMES}), found {}", found(t)),
        )
    })
}

fn session_ref(w: &mut Words, index: &HashMap<&str, usize>) -> PResult<usize> {
    let t = w.next();
    let Some(t) = t else {
        return Err((
            w.here(),
            "expected a session name, found end of line".into(),
        ));
    };
    if !is_session_name(&t.text) {
        return Err((
            t.col,
            format!("expected a session name, found `{}`", t.text),
        ));
    }
    index.get(t.text.as_str()).copied().ok_or_else(|| {
        (
            t.col,
            format!("unknown session `{}`: it has no step in this file", t.text),
        )
    })
}

fn ns_key(d: &Dialect, w: &mut Words) -> PResult<MdlKey> {
    let t = w.next();
    let Some(t) = t else {
        return Err((
            w.here(),
            format!("expected a namespace of {}, found end of line", d.name),
        ));
    };
    let Some(ns) = d.namespace_by_name(&t.text) else {
        let names: Vec<&str> = d.namespaces.iter().map(|n| n.name.as_str()).collect();
        return Err((
            t.col,
            format!(
                "expected a namespace of {} ({}), found `{}`",
                d.name,
                names.join(", "),
                t.text
            ),
        ));
    };
    let k = w.next();
    let Some(k) = k else {
        return Err((w.here(), "expected a key, found end of line".into()));
    };
    MdlKey::in_namespace(d, ns, &k.text).map_err(|m| (k.col, format!("bad key `{}`: {m}", k.text)))
}

/// The type `s` names: one of the dialect's types, else a built-in type (which a
/// namespace of the dialect does not take: the step's outcome is then `error`, as for a
/// built-in type a namespace does not take under version 1).
fn type_named(d: &Dialect, s: &str) -> Option<LockType> {
    d.parse_type(s).or_else(|| LockType::parse(s))
}

fn lock_type(d: &Dialect, w: &mut Words) -> PResult<LockType> {
    let t = w.next();
    t.and_then(|t| type_named(d, &t.text)).ok_or_else(|| {
        (
            t.map(|t| t.col).unwrap_or_else(|| w.here()),
            format!("expected a lock type, found {}", found(t)),
        )
    })
}

fn ns_key_type(d: &Dialect, w: &mut Words) -> PResult<(MdlKey, LockType)> {
    let k = ns_key(d, w)?;
    let t = lock_type(d, w)?;
    Ok((k, t))
}

/// A wait option word, if `t` is one.
fn wait_word(t: &Tok) -> Option<PResult<WaitOption>> {
    let low = t.text.to_ascii_lowercase();
    if low == "nowait" {
        return Some(Ok(WaitOption::NoWait));
    }
    let ms = low.strip_prefix("timeout=")?;
    Some(ms.parse::<u64>().map(WaitOption::millis).map_err(|_| {
        (
            t.col + "timeout=".len(),
            format!(
                "expected a number of milliseconds after `timeout=`, found `{}`",
                &t.text["timeout=".len()..]
            ),
        )
    }))
}

/// Which option words a command takes after its key (see [`dur_wait`]).
#[derive(Clone, Copy)]
struct Options {
    /// A `DURATION` word may come (`upgrade` takes none).
    duration: bool,
    /// The options end the line: any other word is an error (`acquire_all`'s requests
    /// follow its options).
    last: bool,
}

/// Optional `[DURATION]` and `[WAIT]` words, in either order, each at most once. Stops
/// at the first word that is neither.
fn dur_wait(w: &mut Words, opts: Options) -> PResult<(Option<Duration>, WaitSpec)> {
    let Options {
        duration: allow_dur,
        last: tail,
    } = opts;
    let mut dur = None;
    let mut wait = WaitSpec::Default;
    while let Some(t) = w.peek() {
        if allow_dur {
            if let Some(x) = Duration::parse(&t.text) {
                if dur.replace(x).is_some() {
                    return Err((t.col, "the duration is given twice".into()));
                }
                w.next();
                continue;
            }
        }
        if let Some(x) = wait_word(t) {
            let x = x?;
            if wait != WaitSpec::Default {
                return Err((t.col, "the wait option is given twice".into()));
            }
            wait = WaitSpec::Given(x);
            w.next();
            continue;
        }
        if tail {
            let what = if allow_dur {
                "a duration (statement, transaction, explicit), a wait option (nowait, \
                 timeout=MS)"
            } else {
                "a wait option (nowait, timeout=MS)"
            };
            return Err((
                t.col,
                format!("expected {what} or end of line, found `{}`", t.text),
            ));
        }
        break;
    }
    Ok((dur, wait))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> Scenario {
        parse("t.mdl", text).unwrap_or_else(|e| panic!("{e}"))
    }

    fn bad(text: &str) -> ParseError {
        match parse("t.mdl", text) {
            Ok(_) => panic!("parsed: {text}"),
            Err(e) => e,
        }
    }

    fn at(text: &str, line: usize, col: usize, needle: &str) {
        if let Some(m) = at_check(text, line, col, needle) {
            panic!("{m}");
        }
    }

    fn at_check(text: &str, line: usize, col: usize, needle: &str) -> Option<String> {
        let e = bad(text);
        if (e.pos.line, e.pos.col) != (line, col) || !e.msg.contains(needle) {
            return Some(format!("{text:?}: got `{e}`, want {line}:{col} `{needle}`"));
        }
        assert!(e.to_string().starts_with(&format!("t.mdl:{line}:{col}: ")));
        None
    }

    fn step(s: &Scenario, i: usize) -> &Command {
        match &s.lines[i].item {
            Item::Step { cmd, .. } => cmd,
            o => panic!("not a step: {o:?}"),
        }
    }

    #[test]
    fn setup_and_server_lines() {
        let s = ok("dialect mariadb\nserver 10.11.19-MariaDB\n\
             setup: sql CREATE TABLE shop.t (a INT) ENGINE=MyISAM # made first\n\
             setup:sql CREATE DATABASE x\n\
             s1: sql SELECT * FROM t\n");
        assert_eq!(s.sessions, vec!["s1".to_string()]);
        assert_eq!(s.setup.len(), 2);
        assert_eq!(s.setup[0].1, "CREATE TABLE shop.t (a INT) ENGINE=MyISAM");
        assert_eq!((s.setup[0].0.line, s.setup[0].0.col), (3, 1));
        assert_eq!(s.setup[1].1, "CREATE DATABASE x");
        assert_eq!(s.server.as_ref().unwrap().1, "10.11.19-MariaDB");
        assert_eq!(s.lines.len(), 1);
        // A session named `setup` that does not run `sql` is an ordinary session.
        let s = ok("setup: acquire TABLE a.b SR\n");
        assert_eq!(s.sessions, vec!["setup".to_string()]);
        assert!(s.setup.is_empty());
        at(
            "s1: sql SELECT 1\nsetup: sql SELECT 2\n",
            2,
            1,
            "before the first step",
        );
        at("setup: sql  # nothing\n", 1, 11, "SQL statement");
        at("server\n", 1, 7, "one server version");
        at("server a b\n", 1, 10, "one server version");
        at("server a\nserver b\n", 2, 1, "already set at line 1");
        at(
            "s1: sql SELECT 1\nserver a\n",
            2,
            1,
            "before the first step",
        );
    }

    #[test]
    fn a_full_file() {
        let s = ok("# comment\n\
             DIALECT MySQL-8.0   # trailing\n\
             max_write_lock_count 1\n\
             lock_wait_timeout 50\n\
             \n\
             s1: ACQUIRE table test.t1 sr\n\
             s2: acquire TABLE `test`.`#sql-1` MDL_SHARED_WRITE explicit nowait\n\
             s1 : acquire_all statement timeout=5 GLOBAL - IX, TABLE a.b X ,TABLE a.c SR,SCHEMA a S\n\
             s2:upgrade TABLE test.`#sql-1` X timeout=0\n\
             s1: downgrade TABLE a.b SNW\n\
             s1: clone TABLE a.b SR statement\n\
             s1: clone TABLE a.b\n\
             s1: release TABLE a.b SR\n\
             s1: release TABLE a.b\n\
             s1: end_statement\n\
             s1: commit\n\
             s1: rollback\n\
             s1: release_explicit\n\
             s1: savepoint Sp1\n\
             s1: rollback_to Sp1\n\
             s1: set_duration EXPLICIT\n\
             s1: force_dml_weight ON\n\
             s2: force_dml_weight off\n\
             kill s2\n\
             advance 100\n\
             expect s1 Granted\n\
             expect s1 holds TABLE a.b SR\n\
             expect s2 not-holds GLOBAL - X\n\
             assert never * deadlock\n\
             assert sometimes s2 waiting\n\
             s2: sql SELECT '#x' FROM `t#` # comment\n\
             s1: disconnect\n");
        assert_eq!(s.settings.dialect, "mysql-8.0");
        assert_eq!(s.settings.max_write_lock_count, 1);
        assert_eq!(s.settings.lock_wait_timeout, Some(50));
        assert_eq!(s.sessions, vec!["s1", "s2"]);
        assert_eq!(s.lines[0].pos, Pos { line: 6, col: 1 });
        match step(&s, 1) {
            Command::Acquire { key, ty, dur, wait } => {
                assert_eq!(key.name(), "#sql-1");
                assert_eq!(*ty, LockType::SW);
                assert_eq!(*dur, Duration::Explicit);
                assert_eq!(*wait, WaitSpec::Given(WaitOption::NoWait));
            }
            o => panic!("{o:?}"),
        }
        match step(&s, 2) {
            Command::AcquireAll { dur, wait, reqs } => {
                assert_eq!(*dur, Duration::Statement);
                assert_eq!(*wait, WaitSpec::Given(WaitOption::millis(5)));
                let tys: Vec<LockType> = reqs.iter().map(|r| r.1).collect();
                assert_eq!(tys, [LockType::IX, LockType::X, LockType::SR, LockType::S]);
            }
            o => panic!("{o:?}"),
        }
        match step(&s, 0) {
            Command::Acquire { dur, wait, .. } => {
                assert_eq!(*dur, Duration::Transaction);
                assert_eq!(*wait, WaitSpec::Default);
            }
            o => panic!("{o:?}"),
        }
        assert!(matches!(
            step(&s, 6),
            Command::Clone {
                ty: None,
                dur: Duration::Explicit,
                ..
            }
        ));
        match &s.lines[s.lines.len() - 2].item {
            Item::Step {
                cmd: Command::Sql(q),
                session: 1,
            } => assert_eq!(q, "SELECT '#x' FROM `t#`"),
            o => panic!("{o:?}"),
        }
        assert!(matches!(
            s.lines[23].item,
            Item::Assert {
                kind: AssertKind::Never,
                session: None,
                outcome: Outcome::Deadlock,
                at_line: None,
            }
        ));
    }

    #[test]
    fn liveness_asserts_and_lines() {
        let s = ok("s1: acquire TABLE a.b SR\n\
             s1: commit\n\
             assert eventually s1 granted\n\
             assert bounded s1 2 at line 1\n\
             ASSERT sometimes s1 granted AT LINE 1\n");
        let got: Vec<(AssertKind, Option<usize>, Outcome, Option<usize>)> = s
            .lines
            .iter()
            .filter_map(|l| match &l.item {
                Item::Assert {
                    kind,
                    session,
                    outcome,
                    at_line,
                } => Some((*kind, *session, *outcome, *at_line)),
                _ => None,
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (AssertKind::Eventually, Some(0), Outcome::Granted, None),
                (AssertKind::Bounded(2), Some(0), Outcome::Granted, Some(1)),
                (AssertKind::Sometimes, Some(0), Outcome::Granted, Some(1)),
            ]
        );
    }

    #[test]
    fn mariadb_backup_and_defaults() {
        let s =
            ok("dialect mariadb\ns1: acquire BACKUP - BACKUP_DML\ns1: acquire BACKUP - ftwrl1\n");
        assert_eq!(s.settings.dialect, "mariadb");
        assert_eq!(s.settings.max_write_lock_count, u64::MAX);
        let s = ok("s1: commit\n");
        assert_eq!(s.settings, Settings::default());
        // A known type the namespace does not take is left to run time.
        ok("s1: acquire TABLE a.b IX\ns1: acquire GLOBAL - SR\n");
        // CRLF line ends.
        ok("s1: acquire TABLE a.b SR\r\ns1: commit\r\n");
    }

    #[test]
    fn sessions_in_order_of_first_step() {
        let s = ok("expect b ok\na: commit\nb: commit\na: commit\nkill a\n");
        assert_eq!(s.sessions, vec!["a", "b"]);
        assert!(matches!(s.lines[0].item, Item::Expect { session: 1, .. }));
    }

    #[test]
    fn errors() {
        let mut bad_cases = Vec::new();
        let mut at = |t: &str, l: usize, c: usize, n: &str| bad_cases.extend(at_check(t, l, c, n));
        at(
            "s1: acquire TABLE a.b Q\n",
            1,
            23,
            "expected a lock type, found `Q`",
        );
        at(
            "s1: acquire TABLE a.b\n",
            1,
            22,
            "expected a lock type, found end of line",
        );
        at(
            "s1: acquire NOPE a.b SR\n",
            1,
            13,
            "expected a namespace of mysql-8.0",
        );
        at("s1: acquire TABLE t1 SR\n", 1, 19, "takes a key `db.name`");
        at("s1: acquire GLOBAL x IX\n", 1, 20, "takes the key `-`");
        at("s1: acquire TABLE `a.b SR\n", 1, 19, "unclosed backtick");
        at("s1: acquire TABLE\n", 1, 18, "expected a key");
        at(
            "s1: acquire TABLE a.b SR forever\n",
            1,
            26,
            "expected a duration",
        );
        at(
            "s1: acquire TABLE a.b SR timeout=x\n",
            1,
            34,
            "milliseconds after `timeout=`",
        );
        at(
            "s1: acquire TABLE a.b SR nowait nowait\n",
            1,
            33,
            "given twice",
        );
        at(
            "s1: acquire TABLE a.b SR explicit statement\n",
            1,
            35,
            "given twice",
        );
        at("s1: frobnicate\n", 1, 5, "expected a command");
        at("s1:\n", 1, 4, "expected a command");
        at("1x: commit\n", 1, 1, "not a session name");
        at(": commit\n", 1, 1, "expected a session name");
        at("hello world\n", 1, 1, "expected `SESSION: COMMAND`");
        at(
            "s1: commit now\n",
            1,
            12,
            "expected end of line, found `now`",
        );
        at(
            "s1: acquire_all TABLE a.b SR TABLE a.c SR\n",
            1,
            30,
            "expected `,`",
        );
        at(
            "s1: acquire_all TABLE a.b SR,\n",
            1,
            30,
            "expected a namespace",
        );
        at("s1: acquire_all\n", 1, 16, "expected a namespace");
        at(
            "s1: acquire_all nowait TABLE a.b Q\n",
            1,
            34,
            "expected a lock type",
        );
        at(
            "s1: upgrade TABLE a.b X explicit\n",
            1,
            25,
            "expected a wait option",
        );
        at("s1: downgrade TABLE a.b\n", 1, 24, "expected a lock type");
        at(
            "s1: clone TABLE a.b Z\n",
            1,
            21,
            "expected a lock type, a duration",
        );
        at("s1: clone TABLE a.b SR SW\n", 1, 24, "given twice");
        at("s1: release TABLE a.b Q\n", 1, 23, "expected a lock type");
        at("s1: savepoint\n", 1, 14, "savepoint name");
        at("s1: rollback_to\n", 1, 16, "savepoint name");
        at("s1: set_duration forever\n", 1, 18, "expected a duration");
        at(
            "s1: force_dml_weight maybe\n",
            1,
            22,
            "expected `on` or `off`",
        );
        at("s1: sql   # nothing\n", 1, 8, "SQL statement");
        at(
            "s1: disconnect\ns1: commit\n",
            2,
            1,
            "disconnected at line 1",
        );
        at(
            "s1: commit\ndialect mariadb\n",
            2,
            1,
            "before the first step",
        );
        at("dialect oracle\n", 1, 9, "expected a dialect");
        at("dialect\n", 1, 8, "expected a dialect");
        at(
            "dialect mariadb\ndialect mariadb\n",
            2,
            1,
            "already set at line 1",
        );
        at("max_write_lock_count lots\n", 1, 22, "expected a count");
        at("max_write_lock_count 0\n", 1, 22, "must be at least 1");
        at("lock_wait_timeout -1\n", 1, 19, "milliseconds");
        at("lock_wait_timeout 5 6\n", 1, 21, "expected end of line");
        at("s1: commit\nkill s9\n", 2, 6, "unknown session `s9`");
        at("s1: commit\nkill\n", 2, 5, "expected a session name");
        at("s1: commit\nkill 9x\n", 2, 6, "expected a session name");
        at("s1: commit\nadvance soon\n", 2, 9, "milliseconds");
        at(
            "s1: commit\nexpect s1 happy\n",
            2,
            11,
            "expected an outcome",
        );
        at("s1: commit\nexpect s1\n", 2, 10, "expected an outcome");
        at(
            "s1: commit\nexpect s1 holds TABLE a.b\n",
            2,
            26,
            "expected a lock type",
        );
        at(
            "s1: commit\nexpect s1 not-holds TABLE a.b Q\n",
            2,
            31,
            "expected a lock type",
        );
        at(
            "s1: commit\nassert always s1 ok\n",
            2,
            8,
            "expected `never`, `sometimes`, `eventually` or `bounded`",
        );
        at(
            "s1: commit\nassert eventually * granted\n",
            2,
            19,
            "expected a session name, found `*`",
        );
        at(
            "s1: commit\nassert eventually s1 waiting\n",
            2,
            22,
            "expected `granted`",
        );
        at(
            "s1: commit\nassert bounded s1 many\n",
            2,
            19,
            "expected a number of grants",
        );
        at(
            "s1: commit\nassert never s1 ok at 3\n",
            2,
            23,
            "expected `line` after `at`",
        );
        at(
            "s1: commit\nassert never s1 ok at line\n",
            2,
            27,
            "expected a line number",
        );
        at(
            "s1: commit\nassert never s1 fine\n",
            2,
            17,
            "expected an outcome",
        );
        at(
            "s1: commit\nassert never * ok extra\n",
            2,
            19,
            "expected end of line",
        );
        at(
            "dialect mariadb\ns1: acquire GLOBAL - S\n",
            2,
            13,
            "namespace of mariadb",
        );
        assert!(bad_cases.is_empty(), "{}", bad_cases.join("\n"));
    }

    #[test]
    fn columns_count_characters() {
        // Two-byte characters before the error: the column counts characters.
        at("s1: acquire TABLE `é`.`ü` Q\n", 1, 27, "found `Q`");
        at("s1: acquire TABLE é.ü Q\n", 1, 23, "found `Q`");
    }

    #[test]
    fn never_panics_on_odd_input() {
        let odd = [
            "",
            "\n\n",
            "#",
            "`",
            "s1: `",
            ":",
            "::",
            "s1::",
            "s1: acquire `",
            "s1: acquire TABLE ``.`` SR",
            "s1: acquire_all ,",
            "s1: acquire_all TABLE a.b SR,,",
            "\u{0}: x",
            "é: commit",
            "s1: acquire TABLE a.b SR timeout=",
            "s1: acquire TABLE a.b SR timeout=é",
            "expect",
            "assert",
            "assert never",
            "assert never *",
            "s1 : ",
            "s1 :acquire",
            "s1: sql '",
            "s1: clone",
            "s1: release",
            "s1: acquire TABLE a.`b`c SR",
            "\u{feff}s1: commit",
            "s1:\u{3000}commit",
            "s1: acquire TABLE `a`.`b",
            "timeout=é",
            "kill é",
            "s1: acquire TABLE a.b SR timeout=99999999999999999999999",
        ];
        for t in odd {
            let _ = parse("odd.mdl", t);
        }
        // Every prefix of a valid file at every character boundary.
        let full = "dialect mariadb\ns1: acquire_all explicit nowait TABLE `é`.`#x` SR, BACKUP - DML\nexpect s1 holds TABLE `é`.`#x` SR\n";
        for (i, _) in full.char_indices() {
            let _ = parse("p.mdl", &full[..i]);
        }
    }

    #[test]
    fn version_2_additions() {
        // `max_search_depth N` (before the first step, once, a number from 1).
        let s = parse("t.mdl", "max_search_depth 32\ns1: commit\n").expect("parses");
        assert_eq!(s.settings.max_search_depth, Some(32));
        assert_eq!(
            parse("t.mdl", "s1: commit\n")
                .expect("parses")
                .settings
                .max_search_depth,
            None
        );
        at("max_search_depth 0\n", 1, 18, "max_search_depth must be");
        at("max_search_depth deep\n", 1, 18, "max_search_depth must be");
        at("max_search_depth\n", 1, 17, "expected a search depth");
        at("max_search_depth 3 4\n", 1, 20, "expected end of line");
        at(
            "s1: commit\nmax_search_depth 3\n",
            2,
            1,
            "before the first step",
        );
        at(
            "max_search_depth 3\nmax_search_depth 4\ns1: commit\n",
            2,
            1,
            "already set",
        );
        // `deadlock_resolution victim|soft_edges` (issue 19).
        let s = parse("t.mdl", "deadlock_resolution soft_edges\ns1: commit\n").expect("parses");
        assert_eq!(s.settings.soft_edges, Some(true));
        let s = parse("t.mdl", "deadlock_resolution victim\ns1: commit\n").expect("parses");
        assert_eq!(s.settings.soft_edges, Some(false));
        at(
            "deadlock_resolution soft\n",
            1,
            21,
            "deadlock_resolution must be",
        );
        at(
            "deadlock_resolution\n",
            1,
            20,
            "expected `victim` or `soft_edges`",
        );
        assert!(crate::print::settings_text(
            &parse("t.mdl", "deadlock_resolution soft_edges\ns1: commit\n")
                .unwrap()
                .settings
        )
        .contains("deadlock_resolution soft_edges\n"));
        // `expect SESSION tickets [NS KEY] N`.
        let s = parse(
            "t.mdl",
            "s1: commit\nexpect s1 tickets 0\nexpect s1 tickets TABLE a.b 2\n",
        )
        .expect("parses");
        let ex: Vec<&Expectation> = s
            .lines
            .iter()
            .filter_map(|l| match &l.item {
                Item::Expect { what, .. } => Some(what),
                _ => None,
            })
            .collect();
        assert!(matches!(ex[0], Expectation::Tickets { key: None, n: 0 }));
        assert!(matches!(ex[1], Expectation::Tickets { key: Some(_), n: 2 }));
        at(
            "s1: commit\nexpect s1 tickets\n",
            2,
            18,
            "expected a number of tickets",
        );
        at(
            "s1: commit\nexpect s1 tickets x\n",
            2,
            19,
            "expected a number of tickets",
        );
        at(
            "s1: commit\nexpect s1 tickets TABLE a.b\n",
            2,
            19,
            "a number of tickets",
        );
        at(
            "s1: commit\nexpect s1 tickets NOPE a.b 1\n",
            2,
            19,
            "expected a namespace",
        );
        at(
            "s1: commit\nexpect s1 tickets TABLE a.b 1 2\n",
            2,
            31,
            "expected end of line",
        );
        at("s1: commit\nexpect s1 ticket 1\n", 2, 11, "`tickets`");
    }

    proptest::proptest! {
        #[test]
        fn never_panics_on_word_soup(
            s in "(s1: |s2:|acquire |acquire_all |upgrade |clone |release |expect |assert \
                  |kill |advance |dialect |mariadb |TABLE |GLOBAL |BACKUP |- |a.b |`x`.`y` \
                  |`é#`.z |SR |X |DML |, |,|nowait |timeout=|statement |[0-9]{1,3}|#|`|:| \
                  |\t|\n|\r|é|holds |never |\\* |[\\PC]){0,40}"
        ) {
            let _ = parse("p.mdl", &s);
        }

        #[test]
        fn never_panics_on_lossy_bytes(b in proptest::collection::vec(proptest::num::u8::ANY, 0..200)) {
            let _ = parse("p.mdl", &String::from_utf8_lossy(&b));
        }
    }
    #[test]
    fn version_5_error_codes() {
        // `expect SESSION error N`: the server's error code; `error` alone any code.
        let s = ok("s1: sql SELECT 1\nexpect s1 error 1064\nexpect s1 error\n");
        let ex: Vec<&Expectation> = s
            .lines
            .iter()
            .filter_map(|l| match &l.item {
                Item::Expect { what, .. } => Some(what),
                _ => None,
            })
            .collect();
        assert!(matches!(ex[0], Expectation::ErrorCode(1064)));
        assert!(matches!(ex[1], Expectation::Outcome(Outcome::Error)));
        at(
            "s1: sql SELECT 1\nexpect s1 error x\n",
            2,
            17,
            "expected an error code after `error`",
        );
        at(
            "s1: sql SELECT 1\nexpect s1 error 1064 2\n",
            2,
            22,
            "expected end of line",
        );
        at(
            "s1: sql SELECT 1\nexpect s1 error 99999999999\n",
            2,
            28,
            "error code too large",
        );
    }

    #[test]
    fn server_options_version_5() {
        let s = ok("dialect mariadb\n\
                    server_option max_write_lock_count 1\n\
                    server_option LOCK_WAIT_TIMEOUT 5\n\
                    server_option innodb_lock_wait_timeout 2\n\
                    s1: sql SELECT 1\n");
        let got: Vec<_> = s
            .server_options
            .iter()
            .map(|o| (o.name, o.value, o.pos.line))
            .collect();
        assert_eq!(
            got,
            vec![
                (ServerOptionName::MaxWriteLockCount, 1, 2),
                (ServerOptionName::LockWaitTimeout, 5, 3),
                (ServerOptionName::InnodbLockWaitTimeout, 2, 4),
            ]
        );
        // The model runs with the same values.
        assert_eq!(s.settings.max_write_lock_count, 1);
        assert_eq!(s.settings.lock_wait_timeout, Some(5000));
        assert_eq!(s.lines.len(), 1);
        // Without the lines, nothing changes (earlier files keep their meaning).
        let s = ok("s1: sql SELECT 1\n");
        assert!(s.server_options.is_empty());
        assert_eq!(s.settings.max_write_lock_count, u64::MAX);
        // `server_option:` is a step of a session of that name, as before version 5.
        let s = ok("server_option: acquire TABLE db.t SR\n");
        assert_eq!(s.sessions, vec!["server_option".to_string()]);
    }

    #[test]
    fn server_option_errors() {
        at("server_option\n", 1, 14, "expected a server option");
        at(
            "server_option sort_buffer_size 1\n",
            1,
            15,
            "found `sort_buffer_size`",
        );
        at(
            "server_option max_write_lock_count\n",
            1,
            35,
            "expected a number",
        );
        at("server_option max_write_lock_count 0\n", 1, 36, "from 1 to");
        at(
            "server_option lock_wait_timeout 31536001\n",
            1,
            33,
            "from 0 to 31536000",
        );
        at(
            "server_option lock_wait_timeout 1 2\n",
            1,
            35,
            "expected end of line",
        );
        at(
            "server_option lock_wait_timeout 1\nserver_option lock_wait_timeout 2\n",
            2,
            15,
            "already set at line 1",
        );
        at(
            "max_write_lock_count 2\nserver_option max_write_lock_count 1\n",
            2,
            15,
            "not both",
        );
        at(
            "s1: sql SELECT 1\nserver_option lock_wait_timeout 1\n",
            2,
            1,
            "before the first step (line 1)",
        );
    }
}
