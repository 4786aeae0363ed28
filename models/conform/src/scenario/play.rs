//! Playing a SQL scenario on both sides, line by line: a step runs on its server
//! connection and on our model, the server settles (every busy session done or waiting on
//! a metadata lock), then the step's outcome, the waits that ended, the rows and every
//! session's locks are compared; `expect` lines are checked on both sides.

use super::{kill_sql, outcome_of, rows_agree, serr, show_ours, Report, Sides, SrvOutcome};
use crate::client::Conn;
use crate::learn::{settle_all, Settled};
use crate::locks::Snapshot;
use crate::server::Server;
use crate::ConformError;
use mdl_core::Outcome;
use mdl_scenario::{Command, Expectation, Item, Line, Scenario};
use mdl_sql::model::SqlModel;
use std::collections::BTreeSet;

/// Both sides of a scenario being played, and what the comparison has found.
pub(super) struct Play<'a> {
    pub server: &'a Server,
    pub mon: &'a mut Conn,
    pub model: &'a mut SqlModel,
    pub sc: &'a Scenario,
    pub x: &'a mut Sides,
    pub rep: &'a mut Report,
    pub verbose: bool,
}

/// The step a line started: its session, our outcome and its label.
struct Started {
    session: Option<usize>,
    ours: Option<(Outcome, Option<u32>)>,
    label: String,
}

/// What the server did while it settled after a step.
struct Settle {
    /// Waits of other sessions that ended (or went on outside MDL).
    events: BTreeSet<(usize, String)>,
    /// The step's own outcome.
    step: Option<SrvOutcome>,
    /// The first row of each statement that finished.
    rows: Vec<(usize, Vec<String>)>,
}

impl Play<'_> {
    /// Plays every line; stops early (with `rep.invalid` or `rep.diverged` set) where
    /// the two sides can no longer be compared.
    pub(super) fn run(&mut self) -> Result<(), ConformError> {
        for l in &self.sc.lines {
            let started = match &l.item {
                Item::Step {
                    session,
                    cmd: Command::Sql(q),
                } => match self.sql_step(l, *session, q)? {
                    Some(st) => st,
                    None => return Ok(()),
                },
                Item::Kill { session } => self.kill(*session)?,
                Item::Advance { ms } => {
                    std::thread::sleep(std::time::Duration::from_millis(*ms));
                    self.model.advance(*ms);
                    Started {
                        session: None,
                        ours: None,
                        label: format!("advance {ms}"),
                    }
                }
                Item::Expect { session, what } => {
                    self.expect(l.pos.line, *session, what)?;
                    continue;
                }
                _ => continue,
            };
            self.rep.steps += 1;
            let settled = self.settle(started.session)?;
            self.compare(l.pos.line, &started, settled)?;
        }
        Ok(())
    }

    /// `KILL QUERY` of a session by the monitor connection, and on our side.
    fn kill(&mut self, s: usize) -> Result<Started, ConformError> {
        if let Some(c) = &self.x.conns[s] {
            self.mon.query(&format!("KILL QUERY {}", c.id))?;
        }
        self.model.kill(s);
        Ok(Started {
            session: None,
            ours: None,
            label: format!("kill {}", self.sc.sessions[s]),
        })
    }

    /// Session `s`'s connection, made at its first step (with the file's
    /// lock_wait_timeout on both sides).
    fn connect(&mut self, l: &Line, s: usize) -> Result<(), ConformError> {
        if self.x.conns[s].is_some() {
            return Ok(());
        }
        let mut c = self.server.connect()?;
        if let Some(ms) = self.sc.settings.lock_wait_timeout {
            let secs = ms.div_ceil(1000);
            c.query(&format!("SET SESSION lock_wait_timeout = {secs}"))?;
            self.model
                .step(s, &format!("SET lock_wait_timeout = {secs}"))
                .map_err(|m| serr(&self.sc.file, l.pos.line, l.pos.col, m))?;
        }
        self.x.conns[s] = Some(c);
        Ok(())
    }

    /// A SQL step sent to session `s`'s connection and played on our model. `None`: a
    /// session still waits for its previous statement, on one side (diverged) or both
    /// (invalid), and the file stops.
    fn sql_step(&mut self, l: &Line, s: usize, q: &str) -> Result<Option<Started>, ConformError> {
        let (file, line, col) = (&self.sc.file, l.pos.line, l.pos.col);
        self.connect(l, s)?;
        let srv_busy = self.x.conns[s].as_ref().is_some_and(|c| c.busy());
        let our_busy = self.model.is_waiting(s);
        if srv_busy && our_busy {
            self.rep.invalid = Some(serr(
                file,
                line,
                col,
                format!(
                    "session {} is still waiting (on both sides): a session takes its next \
                     step only when its statement has finished",
                    self.sc.sessions[s]
                ),
            ));
            return Ok(None);
        }
        if srv_busy || our_busy {
            let side = if srv_busy {
                "the server (ours finished it)"
            } else {
                "ours (the server finished it)"
            };
            self.rep.diverged = Some(format!(
                "{file}:{line}: diverged: session {} still runs its previous statement on \
                 {side}; the file stops here",
                self.sc.sessions[s]
            ));
            return Ok(None);
        }
        let sent = match kill_sql(q, &self.sc.sessions) {
            // KILL QUERY of a session named in the file: its connection id on the
            // server; ours knows the names (`SqlModel::name_sessions`).
            Some(t) => {
                let t = t.map_err(|m| serr(file, line, col, m))?;
                let Some(tc) = &self.x.conns[t] else {
                    return Err(serr(
                        file,
                        line,
                        col,
                        format!(
                            "KILL of {}, which has not run anything",
                            self.sc.sessions[t]
                        ),
                    ));
                };
                format!("KILL QUERY {}", tc.id)
            }
            None => q.to_owned(),
        };
        self.x.conns[s].as_mut().expect("made").send(&sent)?;
        self.x.running[s] = sent;
        let o = self
            .model
            .step(s, q)
            .map_err(|m| serr(file, line, col, m))?;
        Ok(Some(Started {
            session: Some(s),
            ours: Some((o, self.model.session(s).last_error)),
            label: format!("{}: sql {q}", self.sc.sessions[s]),
        }))
    }

    /// An `expect` line, checked on the server and on ours (a failure on either side is
    /// reported).
    fn expect(&mut self, line: usize, s: usize, what: &Expectation) -> Result<(), ConformError> {
        let file = &self.sc.file;
        let name = &self.sc.sessions[s];
        let srv_last = |x: &Sides| {
            x.srv_last[s]
                .map(|v| v.to_string())
                .unwrap_or("nothing".into())
        };
        let fails = &mut self.rep.expect_failures;
        match what {
            Expectation::Outcome(o) => {
                if !matches!(self.x.srv_last[s], Some(SrvOutcome::Out(so, _)) if so == *o) {
                    fails.push(format!(
                        "{file}:{line}: expected {name} {o}, the server gave {}",
                        srv_last(self.x)
                    ));
                }
                if self.x.our_last[s].map(|v| v.0) != Some(*o) {
                    fails.push(format!(
                        "{file}:{line}: expected {name} {o}, ours gave {}",
                        show_ours(self.x.our_last[s])
                    ));
                }
            }
            Expectation::ErrorCode(c) => {
                if self.x.srv_last[s] != Some(SrvOutcome::Out(Outcome::Error, Some(*c))) {
                    fails.push(format!(
                        "{file}:{line}: expected {name} error {c}, the server gave {}",
                        srv_last(self.x)
                    ));
                }
                if self.x.our_last[s] != Some((Outcome::Error, Some(*c))) {
                    fails.push(format!(
                        "{file}:{line}: expected {name} error {c}, ours gave {}",
                        show_ours(self.x.our_last[s])
                    ));
                }
            }
            Expectation::Holds { key, ty } | Expectation::NotHolds { key, ty } => {
                let want = matches!(what, Expectation::Holds { .. });
                let ns = &self.model.dialect.namespace(key.namespace()).name;
                let text = format!(
                    "{ns} {} {}",
                    mdl_sql::key_text::key_text(ns, key.db(), key.name()),
                    ty
                );
                let snap = Snapshot::take(self.mon)?;
                let srv = self.x.conns[s]
                    .as_ref()
                    .is_some_and(|c| snap.set_of(c.id).contains(&text));
                let ours = self.model.locks_of(s).contains(&text);
                for (side, has) in [("the server", srv), ("ours", ours)] {
                    if has != want {
                        fails.push(format!(
                            "{file}:{line}: expected {name} {} {text} on {side}",
                            if want { "holds" } else { "not-holds" }
                        ));
                    }
                }
            }
            Expectation::Tickets { .. } => {
                // The servers' lock tables show locks, not how the session holds them:
                // fail closed rather than pass unchecked.
                fails.push(format!(
                    "{file}:{line}: `expect {name} tickets` is not compared with a server \
                     (mdl run checks it)"
                ));
            }
        }
        Ok(())
    }

    /// Lets the server settle: every busy session done or waiting on a metadata lock.
    fn settle(&mut self, step_sess: Option<usize>) -> Result<Settle, ConformError> {
        let x = &mut *self.x;
        let was_busy: Vec<bool> = x
            .conns
            .iter()
            .map(|c| c.as_ref().is_some_and(|c| c.busy()))
            .collect();
        let mut idx = Vec::new();
        let mut refs: Vec<&mut Conn> = Vec::new();
        for (i, c) in x.conns.iter_mut().enumerate() {
            if let Some(c) = c.as_mut().filter(|c| c.busy()) {
                idx.push(i);
                refs.push(c);
            }
        }
        let st = settle_all(self.mon, &mut refs)?;
        drop(refs);
        let mut out = Settle {
            events: BTreeSet::new(),
            step: None,
            rows: Vec::new(),
        };
        for (k, i) in idx.iter().enumerate() {
            let Some(v) = &st[k] else { continue };
            let o = match v {
                Settled::Done(r) => {
                    if r.error.is_none() {
                        out.rows
                            .push((*i, r.rows.first().cloned().unwrap_or_default()));
                    }
                    let (o, c) = outcome_of(&x.running[*i], r);
                    SrvOutcome::Out(o, c)
                }
                // Blocked outside MDL, then finished: what it did outside MDL decided it.
                Settled::DoneAfterBlock(_) => SrvOutcome::Blocked,
                Settled::Waiting => SrvOutcome::Out(Outcome::Waiting, None),
                Settled::Blocked => SrvOutcome::Blocked,
            };
            if Some(*i) == step_sess {
                out.step = Some(o);
            } else if was_busy[*i]
                && (!matches!(v, Settled::Waiting | Settled::Blocked)
                    || (matches!(v, Settled::Blocked)
                        && x.srv_last[*i] != Some(SrvOutcome::Blocked)))
            {
                // A wait that ended, or one that went on outside MDL (a statement granted
                // its metadata locks but blocked on a row or table lock).
                out.events.insert((*i, o.to_string()));
            }
            x.srv_last[*i] = Some(o);
        }
        Ok(out)
    }

    /// Our events since the step (other sessions' waits that ended), each session's
    /// last outcome noted.
    fn our_events(&mut self, step_sess: Option<usize>) -> BTreeSet<(usize, String)> {
        let mut events = BTreeSet::new();
        for (i, o) in self.model.take_events() {
            let c = self.model.session(i).last_error;
            self.x.our_last[i] = Some((o, c));
            if Some(i) != step_sess {
                let shown = SrvOutcome::Out(o, if o == Outcome::Error { c } else { None });
                events.insert((i, shown.to_string()));
            }
        }
        events
    }

    /// The step compared: its outcome, the rows, the waits that ended and every
    /// session's locks.
    fn compare(&mut self, line: usize, st: &Started, srv: Settle) -> Result<(), ConformError> {
        let file = &self.sc.file;
        let label = &st.label;
        let our_events = self.our_events(st.session);
        if let (Some(s), Some(o)) = (st.session, st.ours) {
            // A step's own outcome may have been decided by a later event of ours
            // (granted after a victim's abort): the latest wins.
            if self.x.our_last[s].is_none() || !our_events.iter().any(|(i, _)| *i == s) {
                self.x.our_last[s] = Some(o);
            }
            let ours = SrvOutcome::Out(o.0, if o.0 == Outcome::Error { o.1 } else { None });
            if srv.step != Some(ours) {
                self.rep.diffs.push(format!(
                    "{file}:{line}: {label}: the server gave {}, ours {}",
                    srv.step.map(|v| v.to_string()).unwrap_or("nothing".into()),
                    show_ours(Some(o))
                ));
            }
        }
        for (i, row) in &srv.rows {
            if let Some(ours) = &self.model.session(*i).last_row {
                if !rows_agree(row, ours) {
                    self.rep.diffs.push(format!(
                        "{file}:{line}: {label}: {}'s row on the server {row:?}, ours {ours:?}",
                        self.sc.sessions[*i]
                    ));
                }
            }
        }
        if srv.events != our_events {
            let show = |e: &BTreeSet<(usize, String)>| {
                e.iter()
                    .map(|(i, o)| format!("{} {o}", self.sc.sessions[*i]))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            self.rep.diffs.push(format!(
                "{file}:{line}: {label}: waits ended on the server: [{}], ours: [{}]",
                show(&srv.events),
                show(&our_events)
            ));
        }
        let snap = Snapshot::take(self.mon)?;
        for (s, conn) in self.x.conns.iter().enumerate() {
            let on_server = conn.as_ref().map(|c| snap.set_of(c.id)).unwrap_or_default();
            let ours = self.model.locks_of(s);
            if on_server != ours {
                self.rep.diffs.push(format!(
                    "{file}:{line}: {label}: {} holds on the server {:?}, ours {:?}",
                    self.sc.sessions[s], on_server, ours
                ));
            }
        }
        if self.verbose {
            self.rep.transcript.push(format!(
                "{file}:{line}: {label} -> server {}, ours {}",
                srv.step.map(|v| v.to_string()).unwrap_or("-".into()),
                st.ours.map(|v| show_ours(Some(v))).unwrap_or("-".into())
            ));
        }
        Ok(())
    }
}
