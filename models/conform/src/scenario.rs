//! SQL scenarios: `.mdl` files whose steps are `SESSION: sql STATEMENT` (plus `kill`,
//! `expect SESSION OUTCOME`, `expect SESSION holds|not-holds NS KEY TYPE`), run on the
//! real server (one connection per session) and on our engine through the mapping. After
//! every step both sides' outcomes, the outcomes of waits the step ended, and every
//! session's granted and pending locks are compared.

use super::client::{Conn, Reply};
use super::learn::{cleanup, fresh, settle_all, Settled};
use super::locks::Snapshot;
use super::mapping::Mapping;
use super::model::SqlModel;
use super::server::Server;
use super::ConformError;
use mdl_core::Outcome;
use mdl_scenario::{Command, Expectation, Item};
use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;

/// A server-side outcome: an outcome word, or blocked outside MDL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SrvOutcome {
    Out(Outcome),
    /// Running, but waiting for no metadata lock (a row lock, a table flush).
    Blocked,
}

impl std::fmt::Display for SrvOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SrvOutcome::Out(o) => write!(f, "{o}"),
            SrvOutcome::Blocked => f.write_str("blocked (not on a metadata lock)"),
        }
    }
}

/// The outcome word of a finished statement.
pub fn outcome_of(r: &Reply) -> Outcome {
    match r.error.as_ref().map(|e| e.0) {
        None => Outcome::Ok,
        Some(1213) => Outcome::Deadlock,
        Some(1205) => Outcome::Timeout,
        Some(1317) => Outcome::Killed,
        Some(_) => Outcome::Error,
    }
}

fn of_settled(s: &Settled) -> SrvOutcome {
    match s {
        Settled::Done(r) => SrvOutcome::Out(outcome_of(r)),
        Settled::Waiting => SrvOutcome::Out(Outcome::Waiting),
        Settled::Blocked => SrvOutcome::Blocked,
    }
}

#[derive(Debug, Default)]
pub struct Report {
    pub file: String,
    pub steps: usize,
    /// Steps where the server and our manager differ.
    pub diffs: Vec<String>,
    /// `expect` lines that failed on either side.
    pub expect_failures: Vec<String>,
}

impl Report {
    pub fn agrees(&self) -> bool {
        self.diffs.is_empty() && self.expect_failures.is_empty()
    }
    pub fn summary(&self) -> String {
        if self.agrees() {
            format!("agree ({} steps)", self.steps)
        } else {
            format!(
                "{} differences, {} failed expects ({} steps)",
                self.diffs.len(),
                self.expect_failures.len(),
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

/// Reads a conformance scenario (the one scenario reader of every command; `dialect
/// mariadb` only).
pub fn load(path: &Path) -> Result<mdl_scenario::Scenario, ConformError> {
    let file = path.display().to_string();
    let sc = match mdl_scenario::read::read_file(path) {
        Ok(f) => f.scenario,
        Err(e) => {
            return Err(match e.pos {
                Some(p) => ConformError::Scenario {
                    file: e.file,
                    line: p.line,
                    col: p.col,
                    msg: e.msg,
                },
                None => ConformError::Io(e.to_string()),
            })
        }
    };
    if sc.settings.dialect != "mariadb" || sc.settings.dialect_path.is_some() {
        return Err(serr(
            &file,
            1,
            1,
            "a conformance scenario needs `dialect mariadb`".into(),
        ));
    }
    for l in &sc.lines {
        if let Item::Step { cmd, .. } = &l.item {
            if let Command::Sql(q) = cmd {
                // Refuse a statement outside the mapping before any server runs.
                super::mapping::classify(q, "test")
                    .map_err(|m| serr(&file, l.pos.line, l.pos.col, m))?;
            }
            if !matches!(cmd, Command::Sql(_)) {
                return Err(serr(
                    &file,
                    l.pos.line,
                    l.pos.col,
                    "a conformance scenario takes only `sql` steps".into(),
                ));
            }
        }
    }
    Ok(sc)
}

/// Runs one SQL scenario on the server and on our manager.
pub fn run_file(
    server: &Server,
    map: &Mapping,
    path: &Path,
    verbose: bool,
    out: &mut dyn Write,
) -> Result<Report, ConformError> {
    let sc = load(path)?;
    let file = sc.file.clone();
    let mut rep = Report {
        file: file.clone(),
        ..Report::default()
    };
    let mut mon = server.connect()?;
    fresh(&mut mon)?;
    let n = sc.sessions.len();
    let mut conns: Vec<Option<Conn>> = (0..n).map(|_| None).collect();
    let mut model = SqlModel::new(map.clone());
    for _ in 0..n {
        model.add_session();
    }
    let mut srv_last: Vec<Option<SrvOutcome>> = vec![None; n];
    let mut our_last: Vec<Option<Outcome>> = vec![None; n];
    let res = (|| -> Result<(), ConformError> {
        for l in &sc.lines {
            let line = l.pos.line;
            let mut step_sess: Option<usize> = None;
            let mut ours_step: Option<Outcome> = None;
            let label;
            match &l.item {
                Item::Step {
                    session,
                    cmd: Command::Sql(q),
                } => {
                    let s = *session;
                    if conns[s].is_none() {
                        let mut c = server.connect()?;
                        if let Some(ms) = sc.settings.lock_wait_timeout {
                            c.query(&format!(
                                "SET SESSION lock_wait_timeout = {}",
                                ms.div_ceil(1000)
                            ))?;
                            model
                                .step(s, &format!("SET lock_wait_timeout = {}", ms.div_ceil(1000)))
                                .map_err(|m| serr(&file, line, l.pos.col, m))?;
                        }
                        conns[s] = Some(c);
                    }
                    let c = conns[s].as_mut().expect("made");
                    if c.busy() {
                        return Err(serr(
                            &file,
                            line,
                            l.pos.col,
                            format!("session {} is still waiting", sc.sessions[s]),
                        ));
                    }
                    c.send(q)?;
                    let o = model
                        .step(s, q)
                        .map_err(|m| serr(&file, line, l.pos.col, m))?;
                    step_sess = Some(s);
                    ours_step = Some(o);
                    label = format!("{}: sql {q}", sc.sessions[s]);
                }
                Item::Kill { session } => {
                    let s = *session;
                    if let Some(c) = &conns[s] {
                        mon.query(&format!("KILL QUERY {}", c.id))?;
                    }
                    model.kill(s);
                    label = format!("kill {}", sc.sessions[s]);
                }
                Item::Expect { session, what } => {
                    let s = *session;
                    let name = &sc.sessions[s];
                    match what {
                        Expectation::Outcome(o) => {
                            if srv_last[s] != Some(SrvOutcome::Out(*o)) {
                                rep.expect_failures.push(format!(
                                    "{file}:{line}: expected {name} {o}, the server gave {}",
                                    srv_last[s]
                                        .map(|x| x.to_string())
                                        .unwrap_or("nothing".into())
                                ));
                            }
                            if our_last[s] != Some(*o) {
                                rep.expect_failures.push(format!(
                                    "{file}:{line}: expected {name} {o}, ours gave {}",
                                    our_last[s]
                                        .map(|x| x.to_string())
                                        .unwrap_or("nothing".into())
                                ));
                            }
                        }
                        Expectation::Holds { key, ty } | Expectation::NotHolds { key, ty } => {
                            let want = matches!(what, Expectation::Holds { .. });
                            let d = &model.d;
                            let ns = &d.namespace(key.namespace()).name;
                            let text = format!(
                                "{ns} {} {}",
                                super::locks::key_text(ns, key.db(), key.name()),
                                ty
                            );
                            let snap = Snapshot::take(&mut mon)?;
                            let srv = conns[s]
                                .as_ref()
                                .map(|c| snap.set_of(c.id).contains(&text))
                                .unwrap_or(false);
                            let ours = model.locks_of(s).contains(&text);
                            for (side, has) in [("the server", srv), ("ours", ours)] {
                                if has != want {
                                    rep.expect_failures.push(format!(
                                        "{file}:{line}: expected {name} {} {text} on {side}",
                                        if want { "holds" } else { "not-holds" }
                                    ));
                                }
                            }
                        }
                        Expectation::Tickets { .. } => {
                            // The servers' lock tables show locks, not how the session
                            // holds them: fail closed rather than pass unchecked.
                            rep.expect_failures.push(format!(
                                "{file}:{line}: `expect {name} tickets` is not compared with \
                                 a server (mdl run checks it)"
                            ));
                        }
                    }
                    continue;
                }
                _ => continue,
            }
            rep.steps += 1;
            // Let the server settle: every busy session done or waiting on a metadata lock.
            let was_busy: Vec<bool> = conns
                .iter()
                .map(|c| c.as_ref().is_some_and(|c| c.busy()))
                .collect();
            let mut idx = Vec::new();
            let mut refs: Vec<&mut Conn> = Vec::new();
            for (i, c) in conns.iter_mut().enumerate() {
                if let Some(c) = c.as_mut() {
                    if c.busy() {
                        idx.push(i);
                        refs.push(c);
                    }
                }
            }
            let st = settle_all(&mut mon, &mut refs)?;
            drop(refs);
            let mut srv_events: BTreeSet<(usize, String)> = BTreeSet::new();
            let mut srv_step: Option<SrvOutcome> = None;
            for (k, i) in idx.iter().enumerate() {
                let Some(x) = &st[k] else { continue };
                let o = of_settled(x);
                if Some(*i) == step_sess {
                    srv_step = Some(o);
                } else if was_busy[*i] && !matches!(x, Settled::Waiting | Settled::Blocked) {
                    srv_events.insert((*i, o.to_string()));
                }
                srv_last[*i] = Some(o);
            }
            let mut our_events: BTreeSet<(usize, String)> = BTreeSet::new();
            for (i, o) in model.take_events() {
                our_last[i] = Some(o);
                if Some(i) != step_sess {
                    our_events.insert((i, o.to_string()));
                }
            }
            if let (Some(s), Some(o)) = (step_sess, ours_step) {
                // A step's own outcome may have been decided by a later event of ours
                // (granted after a victim's abort): the latest wins.
                if our_last[s].is_none() || !our_events.iter().any(|(i, _)| *i == s) {
                    our_last[s] = Some(o);
                }
                if srv_step != Some(SrvOutcome::Out(o)) {
                    rep.diffs.push(format!(
                        "{file}:{line}: {label}: the server gave {}, ours {o}",
                        srv_step.map(|x| x.to_string()).unwrap_or("nothing".into())
                    ));
                }
            }
            if srv_events != our_events {
                let show = |e: &BTreeSet<(usize, String)>| {
                    e.iter()
                        .map(|(i, o)| format!("{} {o}", sc.sessions[*i]))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                rep.diffs.push(format!(
                    "{file}:{line}: {label}: waits ended on the server: [{}], ours: [{}]",
                    show(&srv_events),
                    show(&our_events)
                ));
            }
            let snap = Snapshot::take(&mut mon)?;
            for (s, conn) in conns.iter().enumerate() {
                let srv = conn.as_ref().map(|c| snap.set_of(c.id)).unwrap_or_default();
                let ours = model.locks_of(s);
                if srv != ours {
                    rep.diffs.push(format!(
                        "{file}:{line}: {label}: {} holds on the server {:?}, ours {:?}",
                        sc.sessions[s], srv, ours
                    ));
                }
            }
            if verbose {
                let _ = writeln!(
                    out,
                    "{file}:{line}: {label} -> server {}, ours {}",
                    srv_step.map(|x| x.to_string()).unwrap_or("-".into()),
                    ours_step.map(|x| x.to_string()).unwrap_or("-".into())
                );
            }
        }
        Ok(())
    })();
    for c in conns.into_iter().flatten() {
        let _ = cleanup(&mut mon, c);
    }
    res?;
    for d in rep.diffs.iter().chain(&rep.expect_failures) {
        let _ = writeln!(out, "{d}");
    }
    Ok(rep)
}
