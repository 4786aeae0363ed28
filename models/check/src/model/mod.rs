//! The stateright model of a scenario: every interleaving of the sessions' steps, plus
//! timeouts of timed waits and kills of waiters that a `kill` line names.
//!
//! The state is the real deterministic [`LockTable`] (the same decision code as the
//! concurrent manager) plus each session's program counter and latest outcome; the model
//! only drives it. The properties are checked with code of the model's own: the granted
//! matrix of the dialect for conflicts, [`LockTable::grantable_waiters`] for lost
//! wakeups, the absence of enabled actions for stuck states, and a brute-force cycle
//! search ([`graph`]) for false deadlocks.

pub mod check;
pub mod graph;
pub mod report;

use mdl_core::key::MdlKey;
use mdl_core::lock::{Ticket, TicketId};
use mdl_core::table::{BulkReq, Config, LockTable};
use mdl_core::{Dialect, LockType, Outcome, OwnerId, WaitOption};
use mdl_scenario::{AssertKind, Command, Item, ParseError, Pos, Scenario};
#[cfg(feature = "stateright")]
use stateright::{Model, Property};
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// At most this many `assert` lines per file (each is a property with a function of its
/// own, see [`NEVER`] and [`SOMETIMES`]).
pub const MAX_ASSERTS: usize = 64;
/// At most this many sessions per file.
pub const MAX_SESSIONS: usize = 32;

/// One step of a session's program.
#[derive(Clone, Debug)]
pub struct StepSpec {
    pub cmd: Command,
    pub pos: Pos,
    /// The wait option in force (for requests): the given one or `lock_wait_timeout`.
    pub wait: WaitOption,
}

/// An `assert` line.
#[derive(Clone, Debug)]
pub struct AssertSpec {
    pub kind: AssertKind,
    pub session: Option<usize>,
    pub outcome: Outcome,
    pub pos: Pos,
    pub name: &'static str,
}

/// Which built-in property or assert a result is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PropKind {
    NoConflict,
    NoLostWakeup,
    NoStuck,
    NoFalseDeadlock,
    Assert(usize),
}

pub const NO_CONFLICT: &str = "no conflicting grants";
pub const NO_LOST_WAKEUP: &str = "no lost wakeup";
pub const NO_STUCK: &str = "no stuck state";
pub const NO_FALSE_DEADLOCK: &str = "no false deadlock";

/// The session classes for symmetry reduction, carried in the state for the
/// representative function (a plain `fn`). Not part of the state's identity.
#[derive(Clone, Debug)]
pub struct Classes(pub Arc<[u8]>);

impl PartialEq for Classes {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}
impl Eq for Classes {}
impl Hash for Classes {
    fn hash<H: Hasher>(&self, _: &mut H) {}
}

/// A model state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    pub table: LockTable,
    /// Index of each session's next step.
    pub pc: Vec<u16>,
    /// Each session's latest outcome (of its own step, or of its wait ending).
    pub last: Vec<Option<Outcome>>,
    /// Kills still to come per session (one per `kill` line naming it).
    pub kills_left: Vec<u8>,
    /// A session that the last action gave `deadlock` without a cycle through it.
    pub bad_deadlock: Option<u8>,
    /// A grant the last action made against the granted matrix: the key, the holder
    /// and its type, the session granted and the type it got.
    pub bad_grant: Option<Conflict>,
    pub classes: Classes,
}

/// Two sessions' conflicting granted locks on one key: (key, holder, its type, the
/// session granted, the type granted).
pub type Conflict = (MdlKey, usize, LockType, usize, LockType);

/// An action of the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// The session's next step.
    Step(u8),
    /// The session's bulk acquire goes on after the element it waited for was granted.
    Resume(u8),
    /// The session's timed wait times out.
    Timeout(u8),
    /// The session's wait is killed.
    Kill(u8),
}

impl Action {
    pub fn session(self) -> usize {
        match self {
            Action::Step(s) | Action::Resume(s) | Action::Timeout(s) | Action::Kill(s) => {
                s as usize
            }
        }
    }
}

/// What one action did: for traces, replays and reports.
#[derive(Clone, Debug)]
pub struct Record {
    pub action: Action,
    /// The step (index into the session's program) for `Step`.
    pub step: Option<usize>,
    /// The acting session's own outcome (`Step`, `Resume`); for `Timeout`/`Kill` it is
    /// among the events.
    pub outcome: Option<Outcome>,
    /// Waits that this action ended (session, outcome), in order. A bulk element that was
    /// granted while more elements remain is listed with `Granted` and `partial` true.
    pub events: Vec<(usize, Outcome, bool)>,
    /// When the action gave a `deadlock` outcome: the wait-for edges of the step (before
    /// it, the new request's, after it) that the false-deadlock check searched.
    pub step_edges: Option<Vec<(usize, usize)>>,
}

/// The model of one scenario.
#[derive(Clone, Debug)]
pub struct MdlModel {
    pub scenario: Scenario,
    pub dialect: Dialect,
    pub config: Config,
    pub programs: Vec<Vec<StepSpec>>,
    pub kills: Vec<u8>,
    pub asserts: Vec<AssertSpec>,
    pub classes: Arc<[u8]>,
}

fn err(s: &Scenario, pos: Pos, msg: impl Into<String>) -> ParseError {
    ParseError {
        file: s.file.clone(),
        pos,
        msg: msg.into(),
    }
}

impl MdlModel {
    /// Builds the model of a parsed scenario. `sql` steps (conformance only) and files
    /// past the limits are errors at their line.
    pub fn new(sc: &Scenario) -> Result<MdlModel, ParseError> {
        // The dialect the file was read in (a built-in one or a folder), with its
        // settings applied.
        let dialect = mdl_scenario::runner::dialect_of(sc);
        let n = sc.sessions.len();
        if n > MAX_SESSIONS {
            return Err(err(
                sc,
                sc.lines.first().map(|l| l.pos).unwrap_or_default(),
                format!("mdl check takes at most {MAX_SESSIONS} sessions, the file has {n}"),
            ));
        }
        let mut programs: Vec<Vec<StepSpec>> = vec![Vec::new(); n];
        let mut kills = vec![0u8; n];
        let mut asserts = Vec::new();
        let mut named = vec![false; n];
        for l in &sc.lines {
            match &l.item {
                Item::Step { session, cmd } => {
                    if let Command::Sql(_) = cmd {
                        return Err(err(
                            sc,
                            l.pos,
                            "`sql` steps are for `mdl conform`; `mdl check` cannot model them",
                        ));
                    }
                    let wait = match cmd {
                        Command::Acquire { wait, .. }
                        | Command::AcquireAll { wait, .. }
                        | Command::Upgrade { wait, .. } => wait.resolve(&sc.settings),
                        _ => WaitOption::Forever,
                    };
                    if programs[*session].len() >= u16::MAX as usize {
                        return Err(err(sc, l.pos, "too many steps for one session"));
                    }
                    programs[*session].push(StepSpec {
                        cmd: cmd.clone(),
                        pos: l.pos,
                        wait,
                    });
                }
                Item::Kill { session } => {
                    kills[*session] = kills[*session].saturating_add(1);
                    named[*session] = true;
                }
                Item::Advance { .. } | Item::Expect { .. } => {}
                Item::Assert {
                    kind,
                    session,
                    outcome,
                } => {
                    if asserts.len() >= MAX_ASSERTS {
                        return Err(err(
                            sc,
                            l.pos,
                            format!("mdl check takes at most {MAX_ASSERTS} assert lines"),
                        ));
                    }
                    if let Some(s) = session {
                        named[*s] = true;
                    }
                    let who = session.map_or("*".to_string(), |s| sc.sessions[s].clone());
                    let k = match kind {
                        AssertKind::Never => "never",
                        AssertKind::Sometimes => "sometimes",
                    };
                    let name: &'static str = Box::leak(
                        format!("assert {k} {who} {outcome} (line {})", l.pos.line)
                            .into_boxed_str(),
                    );
                    asserts.push(AssertSpec {
                        kind: *kind,
                        session: *session,
                        outcome: *outcome,
                        pos: l.pos,
                        name,
                    });
                }
            }
        }
        // Symmetry classes: sessions with the same program (by its text) and the same
        // number of kills are interchangeable, unless an assert or kill names them.
        let mut classes = vec![0u8; n];
        let mut keys: Vec<String> = Vec::new();
        for s in 0..n {
            let key = if named[s] {
                format!("#unique {s}")
            } else {
                let mut k = format!("{}|", kills[s]);
                for st in &programs[s] {
                    k.push_str(&format!("{:?};{:?}|", st.cmd, st.wait));
                }
                k
            };
            let c = match keys.iter().position(|x| *x == key) {
                Some(c) => c,
                None => {
                    keys.push(key);
                    keys.len() - 1
                }
            };
            classes[s] = c as u8;
        }
        Ok(MdlModel {
            scenario: sc.clone(),
            dialect,
            config: Config {
                max_write_lock_count: sc.settings.max_write_lock_count,
            },
            programs,
            kills,
            asserts,
            classes: classes.into(),
        })
    }

    pub fn session_name(&self, s: usize) -> &str {
        &self.scenario.sessions[s]
    }

    /// Whether any two sessions are interchangeable (symmetry reduction can help).
    pub fn has_symmetry(&self) -> bool {
        let c = &self.classes;
        (0..c.len()).any(|i| (i + 1..c.len()).any(|j| c[i] == c[j]))
    }

    pub fn initial(&self) -> State {
        let n = self.programs.len();
        let mut table = LockTable::new(self.config);
        for _ in 0..n {
            table.add_session();
        }
        State {
            table,
            pc: vec![0; n],
            last: vec![None; n],
            kills_left: self.kills.clone(),
            bad_deadlock: None,
            bad_grant: None,
            classes: Classes(self.classes.clone()),
        }
    }

    /// Every property: the four built-in ones, then the asserts in file order.
    pub fn prop_kinds(&self) -> Vec<(PropKind, &'static str)> {
        let mut v = vec![
            (PropKind::NoConflict, NO_CONFLICT),
            (PropKind::NoLostWakeup, NO_LOST_WAKEUP),
            (PropKind::NoStuck, NO_STUCK),
            (PropKind::NoFalseDeadlock, NO_FALSE_DEADLOCK),
        ];
        for (i, a) in self.asserts.iter().enumerate() {
            v.push((PropKind::Assert(i), a.name));
        }
        v
    }

    fn waiting(st: &State, s: usize) -> bool {
        st.table.is_waiting(OwnerId(s as u32))
    }

    /// Every session is done: no steps left, not waiting, no bulk to resume.
    pub fn finished(&self, st: &State) -> bool {
        (0..self.programs.len()).all(|s| {
            st.pc[s] as usize >= self.programs[s].len()
                && !Self::waiting(st, s)
                && st.table.sessions()[s].resume.is_none()
        })
    }

    fn enabled(&self, st: &State, out: &mut Vec<Action>) {
        for s in 0..self.programs.len() {
            let x = &st.table.sessions()[s];
            let a = s as u8;
            if let Some(w) = &x.wait {
                if w.timed {
                    out.push(Action::Timeout(a));
                }
                if st.kills_left[s] > 0 {
                    out.push(Action::Kill(a));
                }
            } else if x.resume.is_some() {
                out.push(Action::Resume(a));
            } else if (st.pc[s] as usize) < self.programs[s].len() {
                out.push(Action::Step(a));
            }
        }
    }

    /// Wait-for edges of a state as plain indices.
    pub fn edges(&self, st: &State) -> Vec<(usize, usize)> {
        st.table
            .wait_edges(&self.dialect)
            .into_iter()
            .map(|(a, b)| (a.0 as usize, b.0 as usize))
            .collect()
    }

    /// The owners a new request of `s` for `ty` on `key` would wait for in `st`.
    fn request_edges(&self, st: &State, s: usize, key: &MdlKey, ty: LockType) -> Vec<usize> {
        let Some(l) = st.table.lock(key) else {
            return Vec::new();
        };
        let r = st.table.rules(&self.dialect, key);
        let t = Ticket {
            id: TicketId(u64::MAX),
            owner: OwnerId(s as u32),
            ty,
        };
        l.blockers(&r, &t).map(|o| o.0 as usize).collect()
    }

    /// Applies an action: the next state and what happened. `None` when the action is not
    /// enabled.
    pub fn apply(&self, pre: &State, action: Action) -> Option<(State, Record)> {
        let d = &self.dialect;
        let s = action.session();
        let o = OwnerId(s as u32);
        let mut st = pre.clone();
        st.bad_deadlock = None;
        st.bad_grant = None;
        let mut step = None;
        let mut own = None;
        // Edges the acting session's new request(s) add mid-step.
        let mut new_edges: Vec<(usize, usize)> = Vec::new();
        let x = pre.table.session(o)?;
        match action {
            Action::Step(_) => {
                if x.wait.is_some() || x.resume.is_some() {
                    return None;
                }
                let i = pre.pc[s] as usize;
                let spec = self.programs[s].get(i)?;
                step = Some(i);
                st.pc[s] += 1;
                let t = &mut st.table;
                let w = spec.wait;
                let res = match &spec.cmd {
                    Command::Acquire { key, ty, dur, .. } => {
                        new_edges.extend(
                            self.request_edges(pre, s, key, *ty)
                                .into_iter()
                                .map(|b| (s, b)),
                        );
                        t.acquire(d, o, key, *ty, *dur, w)
                    }
                    Command::AcquireAll { dur, reqs, .. } => {
                        let reqs: Vec<BulkReq> = reqs
                            .iter()
                            .map(|(key, ty)| BulkReq {
                                key: key.clone(),
                                ty: *ty,
                            })
                            .collect();
                        for r in &reqs {
                            new_edges.extend(
                                self.request_edges(pre, s, &r.key, r.ty)
                                    .into_iter()
                                    .map(|b| (s, b)),
                            );
                        }
                        t.acquire_all(d, o, &reqs, *dur, w)
                    }
                    Command::Upgrade { key, ty, .. } => {
                        new_edges.extend(
                            self.request_edges(pre, s, key, *ty)
                                .into_iter()
                                .map(|b| (s, b)),
                        );
                        t.upgrade(d, o, key, *ty, w)
                    }
                    Command::Downgrade { key, ty } => t.downgrade(d, o, key, *ty),
                    Command::Clone { key, ty, dur } => t.clone_ticket(d, o, key, *ty, *dur),
                    Command::Release { key, ty } => t.release(d, o, key, *ty),
                    Command::EndStatement => t.end_statement(d, o),
                    Command::Commit | Command::Rollback => t.commit(d, o),
                    Command::ReleaseExplicit => t.release_explicit(d, o),
                    Command::Savepoint(n) => t.savepoint(o, n),
                    Command::RollbackTo(n) => t.rollback_to(d, o, n),
                    Command::SetDuration(dur) => t.set_duration(o, *dur),
                    Command::ForceDmlWeight(on) => t.force_dml_weight(o, *on),
                    Command::Disconnect => t.disconnect(d, o),
                    // Rejected by `MdlModel::new`.
                    Command::Sql(_) => Ok(Outcome::Error),
                };
                own = Some(res.unwrap_or(Outcome::Error));
            }
            Action::Resume(_) => {
                let r = x.resume.as_ref()?;
                for b in &r.rest {
                    new_edges.extend(
                        self.request_edges(pre, s, &b.key, b.ty)
                            .into_iter()
                            .map(|h| (s, h)),
                    );
                }
                own = Some(st.table.resume_bulk(d, o).unwrap_or(Outcome::Error));
            }
            Action::Timeout(_) => {
                if !st.table.timeout(d, o) {
                    return None;
                }
            }
            Action::Kill(_) => {
                if pre.kills_left[s] == 0 || x.wait.is_none() || !st.table.kill(d, o) {
                    return None;
                }
                st.kills_left[s] -= 1;
            }
        }
        if let Some(out) = own {
            st.last[s] = Some(out);
        }
        let mut events = Vec::new();
        for (e, out) in st.table.take_events() {
            let e = e.0 as usize;
            let partial = out == Outcome::Granted && st.table.sessions()[e].resume.is_some();
            if !partial {
                st.last[e] = Some(out);
            }
            events.push((e, out, partial));
        }
        // No false deadlock: every deadlock outcome needs a cycle through its session in
        // the wait-for graph of the step (before, the new request's edges, after).
        let mut victims: Vec<usize> = events
            .iter()
            .filter(|e| e.1 == Outcome::Deadlock)
            .map(|e| e.0)
            .collect();
        if own == Some(Outcome::Deadlock) {
            victims.push(s);
        }
        let mut step_edges = None;
        if !victims.is_empty() {
            let mut g = self.edges(pre);
            g.extend(new_edges);
            g.extend(self.edges(&st));
            g.sort();
            g.dedup();
            let n = self.programs.len();
            // Under the servers' depth cap a deadlock may also be a walk of that many
            // waiting sessions from the one whose step searched.
            let cap = self.dialect.max_search_depth;
            if let Some(v) = victims.into_iter().find(|&v| {
                !graph::has_cycle_through(n, &g, v)
                    && !cap.is_some_and(|c| graph::on_capped_walk(n, &g, s, v, c))
            }) {
                st.bad_deadlock = Some(v as u8);
            }
            step_edges = Some(g);
        }
        st.bad_grant = self.new_conflict(pre, &st);
        let rec = Record {
            action,
            step,
            outcome: own,
            events,
            step_edges,
        };
        Some((st, rec))
    }

    // --- properties -------------------------------------------------------------------

    /// A grant that `post` has and `pre` had not (a new ticket, or a ticket with a new
    /// type: an upgrade) which the dialect's granted matrix forbids next to another
    /// session's granted ticket. Checked per action, so that the asymmetric BACKUP matrix
    /// is read the right way round (a request against what was granted before it); two
    /// grants of one action are taken in queue order.
    pub fn new_conflict(&self, pre: &State, post: &State) -> Option<Conflict> {
        for (k, l) in post.table.locks() {
            let strat = self.dialect.strategy(k.namespace());
            let before = pre.table.lock(k);
            let old = |id, ty| {
                before.is_some_and(|b| b.granted().iter().any(|t| t.id == id && t.ty == ty))
            };
            let g = l.granted();
            for (i, t) in g.iter().enumerate() {
                if old(t.id, t.ty) {
                    continue;
                }
                for (j, h) in g.iter().enumerate() {
                    if h.owner == t.owner {
                        continue;
                    }
                    // A new grant `h` after `t` in the queue is checked as the request.
                    let h_new = !old(h.id, h.ty);
                    if h_new && j > i {
                        continue;
                    }
                    if strat.conflicts_granted(t.ty, h.ty) {
                        return Some((
                            k.clone(),
                            h.owner.0 as usize,
                            h.ty,
                            t.owner.0 as usize,
                            t.ty,
                        ));
                    }
                }
            }
        }
        None
    }

    /// The conflicting grant the action into `st` made, if any.
    pub fn conflict(&self, st: &State) -> Option<Conflict> {
        st.bad_grant.clone()
    }

    pub fn lost_wakeup(&self, st: &State) -> bool {
        !st.table.grantable_waiters(&self.dialect).is_empty()
    }

    pub fn stuck(&self, st: &State) -> bool {
        let mut a = Vec::new();
        self.enabled(st, &mut a);
        a.is_empty() && !self.finished(st)
    }

    /// Does `st` give the assert's session (any, for `*`) the assert's outcome?
    pub fn assert_occurs(&self, i: usize, st: &State) -> bool {
        let a = &self.asserts[i];
        match a.session {
            Some(s) => st.last[s] == Some(a.outcome),
            None => st.last.contains(&Some(a.outcome)),
        }
    }

    /// Does the built-in property or assert hold in this single state? (For `sometimes`
    /// asserts: does the state give the outcome.)
    pub fn holds_in(&self, k: PropKind, st: &State) -> bool {
        match k {
            PropKind::NoConflict => st.bad_grant.is_none(),
            PropKind::NoLostWakeup => !self.lost_wakeup(st),
            PropKind::NoStuck => !self.stuck(st),
            PropKind::NoFalseDeadlock => st.bad_deadlock.is_none(),
            PropKind::Assert(i) => match self.asserts[i].kind {
                AssertKind::Never => !self.assert_occurs(i, st),
                AssertKind::Sometimes => self.assert_occurs(i, st),
            },
        }
    }
}

/// The representative of a state's symmetry class: sessions of one class are sorted by
/// a digest of their own state, and the lock table is renamed to match.
pub fn representative(st: &State) -> State {
    let n = st.pc.len();
    let classes = &st.classes.0;
    let digest = |s: usize| {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        st.pc[s].hash(&mut h);
        st.last[s].hash(&mut h);
        st.kills_left[s].hash(&mut h);
        let x = &st.table.sessions()[s];
        x.book.hash(&mut h);
        x.resume.hash(&mut h);
        x.force_dml.hash(&mut h);
        x.victim_count.hash(&mut h);
        x.gone.hash(&mut h);
        if let Some(w) = &x.wait {
            w.key.hash(&mut h);
            w.ticket.id.hash(&mut h);
            w.ticket.ty.hash(&mut h);
            w.kind.hash(&mut h);
            w.timed.hash(&mut h);
        }
        h.finish()
    };
    let digests: Vec<u64> = (0..n).map(digest).collect();
    let mut order: Vec<usize> = (0..n).collect();
    let mut by_class: std::collections::BTreeMap<u8, Vec<usize>> = Default::default();
    for s in 0..n {
        by_class.entry(classes[s]).or_default().push(s);
    }
    for members in by_class.values() {
        if members.len() < 2 {
            continue;
        }
        let mut sorted = members.clone();
        sorted.sort_by_key(|&s| (digests[s], s));
        for (slot, old) in members.iter().zip(sorted) {
            order[*slot] = old;
        }
    }
    if order.iter().enumerate().all(|(i, o)| i == *o) {
        return st.clone();
    }
    let Some(table) = st.table.permute_sessions(&order) else {
        return st.clone();
    };
    let new_pos = |b: usize| order.iter().position(|o| *o == b).unwrap_or(0);
    let bad = st.bad_deadlock.map(|b| new_pos(b as usize) as u8);
    let bad_grant = st
        .bad_grant
        .clone()
        .map(|(k, a, ta, b, tb)| (k, new_pos(a), ta, new_pos(b), tb));
    State {
        table,
        pc: order.iter().map(|&o| st.pc[o]).collect(),
        last: order.iter().map(|&o| st.last[o]).collect(),
        kills_left: order.iter().map(|&o| st.kills_left[o]).collect(),
        bad_deadlock: bad,
        bad_grant,
        classes: st.classes.clone(),
    }
}

#[cfg(feature = "stateright")]
impl stateright::Representative for State {
    fn representative(&self) -> Self {
        representative(self)
    }
}

#[cfg(feature = "stateright")]
fn p_conflict(m: &MdlModel, s: &State) -> bool {
    m.holds_in(PropKind::NoConflict, s)
}
#[cfg(feature = "stateright")]
fn p_wakeup(m: &MdlModel, s: &State) -> bool {
    m.holds_in(PropKind::NoLostWakeup, s)
}
#[cfg(feature = "stateright")]
fn p_stuck(m: &MdlModel, s: &State) -> bool {
    m.holds_in(PropKind::NoStuck, s)
}
#[cfg(feature = "stateright")]
fn p_false_deadlock(m: &MdlModel, s: &State) -> bool {
    m.holds_in(PropKind::NoFalseDeadlock, s)
}
#[cfg(feature = "stateright")]
fn p_assert<const I: usize>(m: &MdlModel, s: &State) -> bool {
    m.holds_in(PropKind::Assert(I), s)
}

#[cfg(feature = "stateright")]
type PropFn = fn(&MdlModel, &State) -> bool;

#[cfg(feature = "stateright")]
macro_rules! assert_fns {
    ($($i:literal)*) => { [$(p_assert::<$i> as PropFn),*] };
}

#[cfg(feature = "stateright")]
/// One property function per assert index (stateright takes plain `fn`s).
const ASSERT_FNS: [PropFn; MAX_ASSERTS] = assert_fns!(
    0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
    32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60
    61 62 63
);

#[cfg(feature = "stateright")]
impl Model for MdlModel {
    type State = State;
    type Action = Action;

    fn init_states(&self) -> Vec<State> {
        vec![self.initial()]
    }

    fn actions(&self, st: &State, out: &mut Vec<Action>) {
        self.enabled(st, out)
    }

    fn next_state(&self, st: &State, a: Action) -> Option<State> {
        self.apply(st, a).map(|(s, _)| s)
    }

    fn format_action(&self, a: &Action) -> String {
        report::action_text(self, *a)
    }

    fn format_step(&self, st: &State, a: Action) -> Option<String> {
        let (next, rec) = self.apply(st, a)?;
        let mut out = report::record_text(self, &rec);
        if let Some(o) = rec.outcome {
            out.push_str(&format!(" -> {o}"));
        }
        for (s, o, _) in &rec.events {
            out.push_str(&format!("\n  => {}: {o}", self.session_name(*s)));
        }
        out.push_str(&format!("\n\n{}", report::state_summary(self, &next)));
        out.push_str(&format!("\n\n{next:#?}"));
        Some(out)
    }

    fn properties(&self) -> Vec<Property<Self>> {
        let mut v = vec![
            Property::always(NO_CONFLICT, p_conflict as PropFn),
            Property::always(NO_LOST_WAKEUP, p_wakeup as PropFn),
            Property::always(NO_STUCK, p_stuck as PropFn),
            Property::always(NO_FALSE_DEADLOCK, p_false_deadlock as PropFn),
        ];
        for (i, a) in self.asserts.iter().enumerate() {
            v.push(match a.kind {
                AssertKind::Never => Property::always(a.name, ASSERT_FNS[i]),
                AssertKind::Sometimes => Property::sometimes(a.name, ASSERT_FNS[i]),
            });
        }
        v
    }
}
