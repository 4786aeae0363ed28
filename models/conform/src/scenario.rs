//! SQL scenarios: `.mdl` files whose steps are `SESSION: sql STATEMENT` (plus `kill`,
//! `advance MS`, `expect SESSION OUTCOME`, `expect SESSION holds|not-holds NS KEY TYPE`),
//! optionally preceded by `setup: sql STATEMENT` lines (run first, not compared) and a
//! `server VERSION` line (the version the file was checked against). They run on the real
//! server (one connection per session) and on our model ([`SqlModel`]). After every step
//! both sides' outcomes (with the error code of a failed statement), the outcomes of waits
//! the step ended, and every session's granted and pending locks are compared.
//!
//! When the two sides disagree on whether a session is still busy (the next step of a
//! session that one side still runs), the file stops there: the report holds every
//! difference seen so far and the divergence itself.

mod play;

use super::client::{Conn, Reply};
use super::learn::{cleanup, fresh};
use super::server::Server;
use super::ConformError;
use mdl_core::Outcome;
use mdl_scenario::ServerOptionName;
use mdl_scenario::{Command, Item};
use mdl_sql::mapping::Mapping;
use mdl_sql::model::SqlModel;
use std::io::Write;
use std::path::Path;

/// A server-side outcome: an outcome word (with the error code of a failed statement), or
/// blocked outside MDL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SrvOutcome {
    Out(Outcome, Option<u32>),
    /// Running, but waiting for no metadata lock (a row lock, a table flush).
    Blocked,
}

impl std::fmt::Display for SrvOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SrvOutcome::Out(o, Some(c)) if *o == Outcome::Error => write!(f, "{o} {c}"),
            SrvOutcome::Out(o, _) => write!(f, "{o}"),
            SrvOutcome::Blocked => f.write_str("blocked (not on a metadata lock)"),
        }
    }
}

/// The outcome of a finished statement: its error; for GET_LOCK its result (`0` timed
/// out, `NULL` killed); for an admin statement its `Error` row.
pub fn outcome_of(sql: &str, r: &Reply) -> (Outcome, Option<u32>) {
    let code = r.error.as_ref().map(|e| e.0).or_else(|| r.admin_error());
    match code {
        None => {}
        Some(1213) => return (Outcome::Deadlock, None),
        Some(1205) => return (Outcome::Timeout, None),
        Some(1317) => return (Outcome::Killed, None),
        Some(c) => return (Outcome::Error, Some(c)),
    }
    let l = sql.to_ascii_lowercase();
    if let Some(cols) = mdl_sql::classify::get_lock_columns(sql) {
        // The GET_LOCK columns (model/user_locks.rs): a NULL is a kill, else a 0 a
        // timeout (a GET_LOCK of a bad timeout, NULL too, is no column of these).
        let row = r.rows.first().cloned().unwrap_or_default();
        let vals: Vec<&str> = cols
            .iter()
            .filter_map(|c| row.get(*c))
            .map(String::as_str)
            .collect();
        if vals.contains(&"NULL") {
            return (Outcome::Killed, None);
        }
        if vals.contains(&"0") {
            return (Outcome::Timeout, None);
        }
        return (Outcome::Ok, None);
    }
    if l.contains("get_lock") {
        match r.rows.first().and_then(|x| x.first()).map(String::as_str) {
            Some("0") => return (Outcome::Timeout, None),
            Some("NULL") => return (Outcome::Killed, None),
            _ => {}
        }
    }
    (Outcome::Ok, None)
}

#[derive(Debug, Default, Clone)]
pub struct Report {
    pub file: String,
    pub steps: usize,
    /// Steps where the server and our model differ.
    pub diffs: Vec<String>,
    /// `expect` lines that failed on either side.
    pub expect_failures: Vec<String>,
    /// The two sides disagreed on whether a session is busy: the file stopped here.
    pub diverged: Option<String>,
    /// The file became invalid midway (a step for a session both sides still run): the
    /// file stopped here.
    pub invalid: Option<ConformError>,
    /// Warnings (a server version other than the file's `server` line).
    pub warnings: Vec<String>,
    /// The server version the file ran against.
    pub server_version: String,
    /// Every step with both outcomes (`-v`).
    pub transcript: Vec<String>,
}

impl Report {
    pub fn agrees(&self) -> bool {
        self.diffs.is_empty()
            && self.expect_failures.is_empty()
            && self.diverged.is_none()
            && self.invalid.is_none()
    }
    pub fn summary(&self) -> String {
        if self.agrees() {
            format!("agree ({} steps)", self.steps)
        } else {
            format!(
                "{} differences, {} failed expects{} ({} steps)",
                self.diffs.len(),
                self.expect_failures.len(),
                if self.diverged.is_some() {
                    ", stopped at a divergence"
                } else {
                    ""
                },
                self.steps
            )
        }
    }
}

fn serr(file: &str, line: usize, col: usize, msg: String) -> ConformError {
    ConformError::Scenario {
        file: file.into(),
        line,
        col,
        msg,
    }
}

/// Reads a conformance scenario with the one scenario reader of every command and checks,
/// before any server runs, that every `setup` line and every statement is one the model
/// knows (played on the model in file order).
pub fn load_text(
    file: &str,
    text: &str,
    map: &Mapping,
) -> Result<mdl_scenario::Scenario, ConformError> {
    let sc = mdl_scenario::read::read_bytes(file, text.as_bytes())
        .map_err(read_error)?
        .scenario;
    model_only_limit(file, text, &sc)?;
    check_known(file, sc, map)
}

/// A `max_write_lock_count` setting would set the model's limit and not the server's:
/// refused, at the setting's line, in favour of `server_option` (which sets both).
fn model_only_limit(
    file: &str,
    text: &str,
    sc: &mdl_scenario::Scenario,
) -> Result<(), ConformError> {
    let by_option = sc
        .server_options
        .iter()
        .any(|o| o.name == ServerOptionName::MaxWriteLockCount);
    if sc.settings.max_write_lock_count == u64::MAX || by_option {
        return Ok(());
    }
    let line = text
        .lines()
        .position(|l| l.trim_start().starts_with("max_write_lock_count"))
        .map_or(1, |i| i + 1);
    Err(serr(
        file,
        line,
        1,
        "`max_write_lock_count` sets the model's limit only: write `server_option \
         max_write_lock_count N`, which starts the server with it too"
            .into(),
    ))
}

/// A read error as conform's error: a position makes it a scenario error.
fn read_error(e: mdl_scenario::read::ReadError) -> ConformError {
    match e.pos {
        Some(p) => ConformError::Scenario {
            file: e.file,
            line: p.line,
            col: p.col,
            msg: e.msg,
        },
        None => ConformError::Io(e.to_string()),
    }
}

/// The checks of [`load_text`] on a scenario read.
fn check_known(
    file: &str,
    sc: mdl_scenario::Scenario,
    map: &Mapping,
) -> Result<mdl_scenario::Scenario, ConformError> {
    if sc.settings.dialect != "mariadb" || sc.settings.dialect_path.is_some() {
        return Err(serr(
            file,
            1,
            1,
            "a conformance scenario needs `dialect mariadb`: `mdl conform` compares with a \
             MariaDB server (a `dialect mysql-8.0` SQL file is checked offline by `mdl \
             check`, `run` and `explore`, with the MySQL 8.0 table written from source)"
                .into(),
        ));
    }
    let mut model = SqlModel::new(map.clone());
    model.set_max_write_lock_count(sc.settings.max_write_lock_count);
    for (pos, q) in &sc.setup {
        model
            .setup(q)
            .map_err(|m| serr(file, pos.line, pos.col, m))?;
    }
    for _ in &sc.sessions {
        model.add_session();
    }
    model.name_sessions(&sc.sessions);
    for l in &sc.lines {
        match &l.item {
            Item::Step { session, cmd } => {
                let Command::Sql(q) = cmd else {
                    return Err(serr(
                        file,
                        l.pos.line,
                        l.pos.col,
                        "a conformance scenario takes only `sql` steps".into(),
                    ));
                };
                if model.is_waiting(*session) {
                    // The run decides what happens here; only the statement is checked.
                    let has = |r: &str| map.kind(r).is_some();
                    let db = model.session(*session).db.clone();
                    mdl_sql::classify::classify(q, &db, &model.catalog, &has)
                        .map_err(|m| serr(file, l.pos.line, l.pos.col, m))?;
                    continue;
                }
                model
                    .step(*session, q)
                    .map_err(|m| serr(file, l.pos.line, l.pos.col, m))?;
            }
            Item::Kill { session } => {
                model.kill(*session);
            }
            Item::Advance { ms } => model.advance(*ms),
            Item::Assert { .. } => {
                return Err(serr(
                    file,
                    l.pos.line,
                    l.pos.col,
                    "`assert` is for model checking; a conformance scenario takes `expect`".into(),
                ))
            }
            Item::Expect { .. } => {}
        }
    }
    Ok(sc)
}

pub fn load(path: &Path, map: &Mapping) -> Result<mdl_scenario::Scenario, ConformError> {
    let file = path.display().to_string();
    let sc = mdl_scenario::read::read_file(path)
        .map_err(read_error)?
        .scenario;
    check_known(&file, sc, map)
}

/// Runs one SQL scenario file on the server and on our model.
pub fn run_file(
    server: &Server,
    map: &Mapping,
    path: &Path,
    verbose: bool,
    out: &mut dyn Write,
) -> Result<Report, ConformError> {
    let sc = load(path, map)?;
    run_scenario(server, map, &sc, verbose, out)
}

/// What [`run_scenario_again_on_difference`] does with a play that differs from the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnDifference {
    /// Keep the first report (a seeded bug must show on the first play).
    Keep,
    /// Play the scenario once more and keep the second report.
    PlayAgain,
}

/// Runs a parsed SQL scenario ([`run_scenario`], not verbose); with
/// [`OnDifference::PlayAgain`], a play that differs is played once more and the second
/// report kept, and when the second agrees the first is printed on stdout as `RACE
/// (agreed when played again): FILE: SUMMARY` with its differences.
///
/// Why a second play: the harness reads the server's state by polling (`learn.rs`'s
/// `settle_all`), and on a loaded machine a statement just woken can still show its
/// pending lock for longer than the polls allow. A difference of the model repeats and
/// still fails; one that the server does not repeat is printed, so that a race that
/// recurs can be found in the log.
pub fn run_scenario_again_on_difference(
    server: &Server,
    map: &Mapping,
    sc: &mdl_scenario::Scenario,
    on_difference: OnDifference,
    out: &mut dyn Write,
) -> Result<Report, ConformError> {
    let first = run_scenario(server, map, sc, false, out)?;
    if first.agrees() || on_difference == OnDifference::Keep {
        return Ok(first);
    }
    let second = run_scenario(server, map, sc, false, out)?;
    if second.agrees() {
        println!(
            "RACE (agreed when played again): {}: {}\n  {}",
            first.file,
            first.summary(),
            first.diffs.join("\n  ")
        );
    }
    Ok(second)
}

/// Refuses a file whose `server_option` lines are not the options `server` was started
/// with (a server option is set for the whole server: [`Server::start_with`]).
fn same_options(sc: &mdl_scenario::Scenario, server: &Server) -> Result<(), ConformError> {
    let want = options_of(sc);
    if want == server.options() {
        return Ok(());
    }
    let show = |v: &[(ServerOptionName, u64)]| {
        if v.is_empty() {
            "no options".to_string()
        } else {
            v.iter()
                .map(|(n, x)| format!("--{}={x}", n.as_str()))
                .collect::<Vec<_>>()
                .join(" ")
        }
    };
    let pos = sc
        .server_options
        .iter()
        .find(|o| !server.options().contains(&(o.name, o.value)))
        .map(|o| o.pos)
        .unwrap_or(mdl_scenario::Pos { line: 1, col: 1 });
    Err(serr(
        &sc.file,
        pos.line,
        pos.col,
        format!(
            "this file needs a server started with {}, the running server has {}: run it \
             alone (`mdl conform FILE` starts a server with the file's options)",
            show(&want),
            show(server.options())
        ),
    ))
}

/// A file's `server_option` lines, sorted by name: what [`Server::start_with`] takes.
pub fn options_of(sc: &mdl_scenario::Scenario) -> Vec<(ServerOptionName, u64)> {
    let mut v: Vec<_> = sc
        .server_options
        .iter()
        .map(|o| (o.name, o.value))
        .collect();
    v.sort();
    v
}

/// The server's and our outcome of one step, for the comparison.
struct Sides {
    conns: Vec<Option<Conn>>,
    srv_last: Vec<Option<SrvOutcome>>,
    our_last: Vec<Option<(Outcome, Option<u32>)>>,
    /// The SQL each server session runs (for reading its reply).
    running: Vec<String>,
}

/// Runs a parsed SQL scenario on the server and on our model.
pub fn run_scenario(
    server: &Server,
    map: &Mapping,
    sc: &mdl_scenario::Scenario,
    verbose: bool,
    out: &mut dyn Write,
) -> Result<Report, ConformError> {
    let file = sc.file.clone();
    let mut rep = Report {
        file: file.clone(),
        server_version: server.version().to_owned(),
        ..Report::default()
    };
    if let Some((pos, v)) = &sc.server {
        if v != server.version() {
            rep.warnings.push(format!(
                "{file}:{}: checked against MariaDB {v}, running {}",
                pos.line,
                server.version()
            ));
        }
    }
    same_options(sc, server)?;
    let mut mon = server.connect()?;
    fresh(&mut mon)?;
    let mut model = SqlModel::new(map.clone());
    model.set_max_write_lock_count(sc.settings.max_write_lock_count);
    for (pos, q) in &sc.setup {
        let r = mon.exec(q)?;
        if let Some((c, m)) = r.error {
            return Err(serr(
                &file,
                pos.line,
                pos.col,
                format!("setup failed on the server: error {c}: {m}"),
            ));
        }
        model
            .setup(q)
            .map_err(|m| serr(&file, pos.line, pos.col, m))?;
    }
    let _ = mon.exec("USE test")?;
    let n = sc.sessions.len();
    for _ in 0..n {
        model.add_session();
    }
    model.name_sessions(&sc.sessions);
    let mut sides = Sides {
        conns: (0..n).map(|_| None).collect(),
        srv_last: vec![None; n],
        our_last: vec![None; n],
        running: vec![String::new(); n],
    };
    let res = play::Play {
        server,
        mon: &mut mon,
        model: &mut model,
        sc,
        x: &mut sides,
        rep: &mut rep,
        verbose,
    }
    .run();
    for c in sides.conns.into_iter().flatten() {
        let _ = cleanup(&mut mon, c);
    }
    res?;
    for w in &rep.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    if verbose {
        for t in &rep.transcript {
            let _ = writeln!(out, "{t}");
        }
    }
    for d in rep.diffs.iter().chain(&rep.expect_failures) {
        let _ = writeln!(out, "{d}");
    }
    if let Some(d) = &rep.diverged {
        let _ = writeln!(out, "{d}");
    }
    if let Some(e) = &rep.invalid {
        let _ = writeln!(out, "{e}");
    }
    Ok(rep)
}

/// A user-lock SELECT's row (`model/user_locks.rs`): the same values, IS_USED_LOCK's
/// connection id (`id` on our side) any id.
fn rows_agree(srv: &[String], ours: &[String]) -> bool {
    srv.len() == ours.len()
        && srv
            .iter()
            .zip(ours)
            .all(|(a, b)| a == b || (b == "id" && a.parse::<u64>().is_ok()))
}

fn show_ours(o: Option<(Outcome, Option<u32>)>) -> String {
    match o {
        None => "nothing".into(),
        Some((o, Some(c))) if o == Outcome::Error => format!("{o} {c}"),
        Some((o, _)) => o.to_string(),
    }
}

/// `KILL [HARD | SOFT] QUERY NAME` of a session of the file (`None`: not such a
/// statement): the server gets `KILL QUERY` with that session's connection id (the model
/// refuses the other forms: `model::prepared`).
fn kill_sql(q: &str, sessions: &[String]) -> Option<Result<usize, String>> {
    let w: Vec<&str> = q.trim().trim_end_matches(';').split_whitespace().collect();
    if !w.first()?.eq_ignore_ascii_case("kill") {
        return None;
    }
    // A KILL that names no session of the file (an unknown id, a user variable, USER u)
    // goes to the server as written (`model::kill`); not one of root, the harness's own
    // user, which would end the server's side of the scenario.
    if !w.iter().any(|x| sessions.iter().any(|n| n == x)) {
        let root = w.windows(2).any(|x| {
            x[0].eq_ignore_ascii_case("user")
                && (x[1] == "root" || x[1].starts_with("root@") || x[1].starts_with("'root'"))
        });
        return root.then(|| Err(format!("`{q}`: KILL USER root is not modelled")));
    }
    // KILL [HARD | SOFT] [CONNECTION | QUERY] id: with no QUERY it ends the connection.
    let i = w
        .iter()
        .position(|x| x.eq_ignore_ascii_case("query"))
        .map(|i| i + 1);
    let Some(i) = i else {
        return Some(Err(format!(
            "`{q}`: KILL [CONNECTION] (the session ends) is not modelled; KILL QUERY is"
        )));
    };
    if w.len() != i + 1 {
        return Some(Err(format!(
            "`{q}`: KILL QUERY SESSION, one session's name"
        )));
    }
    Some(match sessions.iter().position(|n| n == w[i]) {
        Some(t) => Ok(t),
        None => Err(format!(
            "`{q}`: name the session to kill (its connection id is given on the server)"
        )),
    })
}
