//! The stateright model of a scenario: every interleaving of the sessions' steps, plus
//! timeouts of timed waits and kills of waiters that a `kill` line names.
//!
//! The state is the real deterministic [`LockTable`] (the same decision code as the
//! concurrent manager) plus each session's program counter and latest outcome; the model
//! only drives it. The properties are checked with code of the model's own: the granted
//! matrix of the dialect for conflicts, [`LockTable::grantable_waiters`] for lost
//! wakeups, the absence of enabled actions for stuck states, and a brute-force cycle
//! search ([`graph`]) for false deadlocks.

mod build;
pub mod check;
pub mod cycle;
pub mod encode;
pub mod engine_model;
#[cfg(feature = "stateright")]
pub mod explore;
pub mod graph;
pub mod keys;
pub mod lock_model;
pub mod mem;
pub mod model_space;
pub mod por;
pub mod quiet;
pub mod reference;
pub mod report;
pub mod result;
pub mod sample;
pub mod search;
pub mod simulate;

use mdl_core::key::MdlKey;
use mdl_core::lock::{Ticket, TicketId};
use mdl_core::table::{Config, LockTable, Wait};
use mdl_core::{Dialect, LockType, Outcome, OwnerId, WaitOption};
use mdl_scenario::{ApplyError, AssertKind, Command, Pos, Scenario};
use smallvec::SmallVec;
use std::sync::Arc;

/// A per-session vector of the state: inline up to 8 sessions (no allocation to clone).
pub type PerSession<T> = SmallVec<[T; 8]>;

/// At most this many `assert` lines per file (each is a property with a function of its
/// own in the Explorer, see [`explore`]).
pub const MAX_ASSERTS: usize = 64;
/// At most this many sessions per file: what the model's state can represent (a bit
/// per session in [`State::starved`]). `mdl run` takes files up to the reader's limit
/// ([`mdl_scenario::read::MAX_SESSIONS`]).
pub const MAX_SESSIONS: usize = 64;
/// The largest N of `assert bounded SESSION N`.
pub const MAX_BOUND: u32 = 200;

/// One step of a session's program.
#[derive(Clone, Debug)]
pub struct StepSpec {
    pub cmd: Command,
    pub pos: Pos,
    /// The wait option in force (for requests): the given one or `lock_wait_timeout`.
    pub wait: WaitOption,
    /// An `expect SESSION error` line follows the step (before the session's next step):
    /// the misuse is deliberate, so no warning when the step gives `error` on every path.
    pub expects_error: bool,
}

/// An `assert` line.
#[derive(Clone, Debug)]
pub struct AssertSpec {
    pub kind: AssertKind,
    pub session: Option<usize>,
    pub outcome: Outcome,
    /// `at line N`: only the outcome of the step at that index of the session's program
    /// counts (the line was checked to be a step of the session).
    pub at_step: Option<(usize, usize)>,
    pub pos: Pos,
    pub name: &'static str,
}

impl AssertSpec {
    /// Is this an `eventually` or `bounded` assert (about waits, with the passed-over
    /// counter)?
    pub fn is_liveness(&self) -> bool {
        matches!(self.kind, AssertKind::Eventually | AssertKind::Bounded(_))
    }
    /// Does the property hold when some reachable state has its predicate
    /// ([`MdlModel::assert_occurs`]) true (`sometimes`), rather than none (the others)?
    pub fn is_sometimes(&self) -> bool {
        self.kind == AssertKind::Sometimes
    }
}

/// Which built-in property or assert a result is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PropKind {
    NoConflict,
    NoLostWakeup,
    NoStuck,
    NoFalseDeadlock,
    /// Soft-edge resolution on: no state has a cycle in its wait-for graph.
    NoCycle,
    /// Soft-edge resolution on: every reordering moves a waiter of the cycle being
    /// resolved ahead of another waiter of that cycle.
    ReorderOnCycle,
    /// Soft-edge resolution on: reorderings pass a wait over at most
    /// `max_write_lock_count` times.
    ReorderBounded,
    Assert(usize),
}

pub const NO_CONFLICT: &str = "no conflicting grants";
pub const NO_LOST_WAKEUP: &str = "no lost wakeup";
pub const NO_STUCK: &str = "no stuck state";
pub const NO_FALSE_DEADLOCK: &str = "no false deadlock";
pub const NO_CYCLE: &str = "no wait-for cycle";
pub const REORDER_ON_CYCLE: &str = "reorderings stay on the cycle";
pub const REORDER_BOUNDED: &str = "reorderings pass a waiter at most max_write_lock_count times";

/// A model state. Stored compactly by the search ([`encode`]); this is the form a step
/// is taken in.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    pub table: LockTable,
    /// Index of each session's next step.
    pub pc: PerSession<u16>,
    /// Each session's latest outcome (of its own step, or of its wait ending).
    pub last: PerSession<Option<Outcome>>,
    /// Kills still to come per session (one per `kill` line naming it).
    pub kills_left: PerSession<u8>,
    /// For sessions that an `eventually` or `bounded` assert names (0 for the others):
    /// grants to other sessions on the key the session waits for while it waits, during
    /// its current request, counted up to [`MdlModel::passed_cap`] (see
    /// [`MdlModel::later_grants`]).
    pub passed: PerSession<u8>,
    /// For the same sessions while they wait: the configuration of the lock they wait
    /// for ([`MdlModel::lock_shape`]) when the wait began.
    pub shape0: PerSession<u64>,
    /// Sessions (bit per session) whose lock, after another session was granted it,
    /// came back to the configuration it had when their wait began: the others can
    /// repeat that for ever, a starvation for `eventually`. Set by the action, like
    /// `bad_deadlock`.
    pub starved: u64,
    /// A session that the last action gave `deadlock` without a cycle through it.
    pub bad_deadlock: Option<u8>,
    /// A grant the last action made against the granted matrix: the key, the holder
    /// and its type, the session granted and the type it got.
    pub bad_grant: Option<Conflict>,
    /// Soft-edge resolution: per session, the reorderings that passed its current wait
    /// over (counted by the model from the locks' reorderings, up to 255).
    pub jumps: PerSession<u8>,
    /// Soft-edge resolution: a session on a wait-for cycle after the last action.
    pub bad_cycle: Option<u8>,
    /// Soft-edge resolution: a session that a reordering of the last action moved ahead
    /// in a queue, or passed over, off the cycle being resolved.
    pub bad_reorder: Option<u8>,
    /// Soft-edge resolution: a session whose wait reorderings passed over more than
    /// `max_write_lock_count` times.
    pub bad_jumps: Option<u8>,
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
    /// The same action of another session.
    pub fn with_session(self, s: usize) -> Action {
        let s = s as u8;
        match self {
            Action::Step(_) => Action::Step(s),
            Action::Resume(_) => Action::Resume(s),
            Action::Timeout(_) => Action::Timeout(s),
            Action::Kill(_) => Action::Kill(s),
        }
    }

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
    /// Why a step's outcome is `error`.
    pub error: Option<mdl_core::MdlError>,
    /// Soft-edge reorderings the action made: (the session moved ahead, the session whose
    /// pending request it passed).
    pub reorders: Vec<(usize, usize)>,
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
    /// Symmetry classes: sessions with one class number have identical programs and
    /// kill counts and no assert or kill names them.
    pub classes: Arc<[u8]>,
    /// Per session: the most the passed-over counter needs to count (0: not watched).
    pub passed_cap: Vec<u8>,
    /// Some assert is `eventually`.
    pub has_eventually: bool,
}

impl MdlModel {
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
        let mut table = LockTable::new(std::sync::Arc::new(self.dialect.clone()), self.config);
        for _ in 0..n {
            table.add_session();
        }
        State {
            table,
            pc: smallvec::smallvec![0; n],
            last: smallvec::smallvec![None; n],
            kills_left: self.kills.iter().copied().collect(),
            passed: smallvec::smallvec![0; n],
            shape0: smallvec::smallvec![0; n],
            starved: 0,
            bad_deadlock: None,
            bad_grant: None,
            jumps: smallvec::smallvec![0; n],
            bad_cycle: None,
            bad_reorder: None,
            bad_jumps: None,
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
        if self.dialect.soft_edges {
            v.push((PropKind::NoCycle, NO_CYCLE));
            v.push((PropKind::ReorderOnCycle, REORDER_ON_CYCLE));
            v.push((PropKind::ReorderBounded, REORDER_BOUNDED));
        }
        for (i, a) in self.asserts.iter().enumerate() {
            v.push((PropKind::Assert(i), a.name));
        }
        v
    }

    fn waiting(st: &State, s: usize) -> bool {
        st.table.is_waiting(OwnerId(s as u32))
    }

    /// Session `s` is done: no steps left, not waiting, no bulk to resume.
    pub fn session_finished(&self, st: &State, s: usize) -> bool {
        st.pc[s] as usize >= self.programs[s].len()
            && !Self::waiting(st, s)
            && st.table.sessions()[s].resume.is_none()
    }

    /// Every session is done.
    pub fn finished(&self, st: &State) -> bool {
        (0..self.programs.len()).all(|s| self.session_finished(st, s))
    }

    /// The enabled actions of a state, in session order.
    pub fn enabled(&self, st: &State, out: &mut Vec<Action>) {
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
            .wait_edges()
            .into_iter()
            .map(|(a, b)| (a.0 as usize, b.0 as usize))
            .collect()
    }

    /// The owners a new request of `s` for `ty` on `key` would wait for in `st`.
    fn request_edges(&self, st: &State, s: usize, key: &MdlKey, ty: LockType) -> Vec<usize> {
        let Some(l) = st.table.lock(key) else {
            return Vec::new();
        };
        let r = st.table.rules(key);
        let t = Ticket {
            id: TicketId(u64::MAX),
            owner: OwnerId(s as u32),
            ty,
        };
        l.blockers(&r, &t).map(|o| o.0 as usize).collect()
    }

    /// The edges the acting session's new request(s) add mid-step: for a step's
    /// acquire, bulk acquire or upgrade, and for a bulk acquire going on.
    fn new_request_edges(
        &self,
        pre: &State,
        action: Action,
        step: Option<usize>,
    ) -> Vec<(usize, usize)> {
        let s = action.session();
        let mut out = Vec::new();
        let mut add = |key: &MdlKey, ty: LockType| {
            out.extend(
                self.request_edges(pre, s, key, ty)
                    .into_iter()
                    .map(|b| (s, b)),
            );
        };
        match (action, step) {
            (Action::Step(_), Some(i)) => match &self.programs[s][i].cmd {
                Command::Acquire { key, ty, .. } | Command::Upgrade { key, ty, .. } => {
                    add(key, *ty)
                }
                Command::AcquireAll { reqs, .. } => {
                    for (k, t) in reqs {
                        add(k, *t);
                    }
                }
                _ => {}
            },
            (Action::Resume(_), _) => {
                if let Some(r) = &pre.table.sessions()[s].resume {
                    for b in &r.rest {
                        add(&b.key, b.ty);
                    }
                }
            }
            _ => {}
        }
        out
    }

    /// Applies an action: the next state and what happened. `None` when the action is not
    /// enabled.
    pub fn apply(&self, pre: &State, action: Action) -> Option<(State, Record)> {
        let s = action.session();
        let o = OwnerId(s as u32);
        let mut st = pre.clone();
        st.bad_deadlock = None;
        st.bad_grant = None;
        st.starved = 0;
        st.bad_cycle = None;
        st.bad_reorder = None;
        st.bad_jumps = None;
        let mut step = None;
        let mut own = None;
        let mut error = None;
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
                let res = spec.cmd.apply(&mut st.table, o, spec.wait);
                own = Some(match res {
                    Ok(o) => o,
                    Err(ApplyError::Mdl(e)) => {
                        error = Some(e);
                        Outcome::Error
                    }
                    // `sql` steps are rejected by `MdlModel::new`; a context is never
                    // dropped from the table.
                    Err(ApplyError::Sql | ApplyError::Disconnected) => Outcome::Error,
                });
            }
            Action::Resume(_) => {
                x.resume.as_ref()?;
                own = Some(st.table.resume_bulk(o).unwrap_or(Outcome::Error));
            }
            Action::Timeout(_) => {
                if !st.table.timeout(o) {
                    return None;
                }
            }
            Action::Kill(_) => {
                if pre.kills_left[s] == 0 || x.wait.is_none() || !st.table.kill(o) {
                    return None;
                }
                st.kills_left[s] -= 1;
            }
        }
        if let Some(out) = own {
            st.last[s] = Some(out);
        }
        let mut events = Vec::new();
        let taken = st.table.take_events();
        if !taken.is_empty() {
            events.reserve(taken.len());
        }
        for (e, out) in taken {
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
            g.extend(self.new_request_edges(pre, action, step));
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
        let reorders = if self.dialect.soft_edges {
            self.check_soft(pre, &mut st, action, step)
        } else {
            Vec::new()
        };
        if self.passed_cap.iter().any(|c| *c > 0) {
            self.track_passes(pre, &mut st, action);
        }
        let rec = Record {
            action,
            step,
            outcome: own,
            events,
            step_edges,
            error,
            reorders,
        };
        Some((st, rec))
    }

    /// Soft-edge resolution's properties for the action from `pre` into `st`, with the
    /// model's own graph code: every reordering the action made
    /// ([`LockTable::take_reorders`]: a moved ahead of b's pending request) has its two
    /// waiters on a cycle through the
    /// acting session in the step's graph (before it, plus the new request's edges) with
    /// the edge a -> b among them; it counts one pass of b's wait, at most
    /// `max_write_lock_count`; and no cycle is left in the wait-for graph after it.
    /// Returns the reorderings the table announced, as (moved, passed) sessions.
    fn check_soft(
        &self,
        pre: &State,
        st: &mut State,
        action: Action,
        step: Option<usize>,
    ) -> Vec<(usize, usize)> {
        let n = self.programs.len();
        for w in 0..n {
            let before = pre.table.sessions()[w].wait.as_ref().map(|x| x.ticket.id);
            let after = st.table.sessions()[w].wait.as_ref().map(|x| x.ticket.id);
            if after.is_none() || before != after {
                st.jumps[w] = 0;
            }
        }
        let mut g: Option<Vec<(usize, usize)>> = None;
        let s = action.session();
        let announced = st.table.take_reorders();
        // What the locks show, whatever the detector announced: each new pair (a ahead of
        // b) still in a queue, and each waiting ticket's pass count; a pass that no
        // announced reordering explains is a reordering off the cycle.
        let mut seen: Vec<(usize, usize)> = Vec::new();
        for (k, l) in st.table.locks() {
            let old = pre.table.lock(k);
            let owner = |id| {
                l.waiting()
                    .iter()
                    .find(|t| t.id == id)
                    .map(|t| t.owner.0 as usize)
            };
            for (a, b) in l.ahead() {
                if old.is_some_and(|o| o.ahead().contains(&(*a, *b))) {
                    continue;
                }
                if let (Some(oa), Some(ob)) = (owner(*a), owner(*b)) {
                    seen.push((oa, ob));
                }
            }
            for (b, times) in l.jumped() {
                let before = old.map_or(0, |o| o.times_jumped(*b));
                let Some(ob) = owner(*b) else { continue };
                let told = announced
                    .iter()
                    .filter(|(key, _, x)| key == k && x.0 as usize == ob)
                    .count() as u32;
                if times.saturating_sub(before) > told {
                    st.bad_reorder = Some(ob as u8);
                }
            }
        }
        seen.extend(
            announced
                .iter()
                .map(|(_, a, b)| (a.0 as usize, b.0 as usize)),
        );
        seen.sort_unstable();
        seen.dedup();
        for (oa, ob) in seen {
            let g = g.get_or_insert_with(|| {
                let mut g = self.edges(pre);
                g.extend(self.new_request_edges(pre, action, step));
                g
            });
            let on = |v| v == s || (graph::reaches(n, g, s, v) && graph::reaches(n, g, v, s));
            if !(g.contains(&(oa, ob)) && on(oa) && on(ob)) {
                st.bad_reorder = Some(oa as u8);
            }
            if ob < n {
                st.jumps[ob] = st.jumps[ob].saturating_add(1);
                if u64::from(st.jumps[ob]) > self.config.max_write_lock_count {
                    st.bad_jumps = Some(ob as u8);
                }
            }
        }
        st.bad_cycle = graph::any_cycle(n, &self.edges(st)).map(|v| v as u8);
        announced
            .iter()
            .map(|(_, a, b)| (a.0 as usize, b.0 as usize))
            .collect()
    }

    /// The passed-over counters and the starvation bits of the liveness asserts, for the
    /// action from `pre` into `st`.
    fn track_passes(&self, pre: &State, st: &mut State, action: Action) {
        for (w, &cap) in self.passed_cap.iter().enumerate() {
            if cap == 0 {
                continue;
            }
            if action == Action::Step(w as u8) {
                // A new request: its own count.
                st.passed[w] = 0;
            }
            let Some(qw) = &st.table.sessions()[w].wait else {
                st.shape0[w] = 0;
                continue;
            };
            match &pre.table.sessions()[w].wait {
                Some(pw) if pw.ticket.id == qw.ticket.id => {
                    let n = self.later_grants(pre, st, w, pw);
                    st.passed[w] = (st.passed[w] as usize + n).min(cap as usize) as u8;
                    if st.passed[w] > 0 {
                        // Only an action that changed the lock can bring it back.
                        let shape = self.lock_shape(st, w);
                        if shape == st.shape0[w] && (n > 0 || self.lock_shape(pre, w) != shape) {
                            st.starved |= 1u64 << w;
                        }
                    }
                }
                _ => {
                    // A wait begins (a step, or the next element of a bulk acquire).
                    st.shape0[w] = self.lock_shape(st, w);
                }
            }
        }
    }

    /// The configuration of the lock session `w` waits for, without names: the granted
    /// types (sorted), the waiting types in queue order with `w`'s own marked, the hog and
    /// piglet counters and the pending matrix in force; as a 64-bit digest. When the lock
    /// comes back to the configuration it had when `w` began to wait, after another
    /// session was granted it, the others can repeat what they did for ever.
    pub fn lock_shape(&self, st: &State, w: usize) -> u64 {
        let Some(wait) = &st.table.sessions()[w].wait else {
            return 0;
        };
        let Some(l) = st.table.lock(&wait.key) else {
            return 0;
        };
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut eat = |b: u64| {
            h ^= b;
            h = h.wrapping_mul(0x0100_0000_01b3);
        };
        let mut g: PerSession<u8> = l.granted().iter().map(|t| t.ty.0).collect();
        g.sort_unstable();
        for t in g {
            eat(u64::from(t));
        }
        eat(0xff);
        for t in l.waiting() {
            eat(u64::from(t.ty.0) | if t.id == wait.ticket.id { 0x100 } else { 0 });
        }
        eat(0xfe);
        eat(u64::from(l.hog_count()));
        eat(u64::from(l.piglet_count()));
        eat(l.pending_index() as u64);
        h | 1
    }

    /// Grants to other sessions on the key `w` waits for (`wait`, in `pre`) that the
    /// action into `post` made while `w` still waits: every new granted ticket (or
    /// granted ticket with a new type, an upgrade) of another session. Each passes `w`
    /// over, whether the other request came later (a higher-priority type, or one
    /// granted at once) or waited ahead of `w` (as the zoo's engine counts, and as
    /// `models/docs/scenario-format.md` defines it).
    pub fn later_grants(&self, pre: &State, post: &State, w: usize, wait: &Wait) -> usize {
        let Some(after) = post.table.lock(&wait.key) else {
            return 0;
        };
        let before = pre.table.lock(&wait.key);
        after
            .granted()
            .iter()
            .filter(|t| {
                t.owner.0 as usize != w
                    && !before
                        .is_some_and(|b| b.granted().iter().any(|g| g.id == t.id && g.ty == t.ty))
            })
            .count()
    }

    // --- properties -------------------------------------------------------------------

    /// A grant that `post` has and `pre` had not (a new ticket, or a ticket with a new
    /// type: an upgrade) which the dialect's granted matrix forbids next to another
    /// session's granted ticket. Checked per action, so that the asymmetric BACKUP matrix
    /// is read the right way round (a request against what was granted before it); two
    /// grants of one action are taken in queue order.
    pub fn new_conflict(&self, pre: &State, post: &State) -> Option<Conflict> {
        new_conflict_between(&self.dialect, &pre.table, &post.table)
    }

    /// The conflicting grant the action into `st` made, if any.
    pub fn conflict(&self, st: &State) -> Option<Conflict> {
        st.bad_grant.clone()
    }

    pub fn lost_wakeup(&self, st: &State) -> bool {
        !st.table.grantable_waiters().is_empty()
    }

    pub fn stuck(&self, st: &State) -> bool {
        !self.any_enabled(st) && !self.finished(st)
    }

    /// Is any action enabled? (As [`MdlModel::enabled`] is non-empty, without a list.)
    pub fn any_enabled(&self, st: &State) -> bool {
        (0..self.programs.len()).any(|s| {
            let x = &st.table.sessions()[s];
            match &x.wait {
                Some(w) => w.timed || st.kills_left[s] > 0,
                None => x.resume.is_some() || (st.pc[s] as usize) < self.programs[s].len(),
            }
        })
    }

    /// Does session `s`'s latest outcome count for the assert (its step, when the
    /// assert names a line)?
    pub fn outcome_counts(&self, a: &AssertSpec, st: &State, s: usize, o: Outcome) -> bool {
        st.last[s] == Some(o)
            && a.at_step
                .is_none_or(|(x, k)| x == s && st.pc[s] as usize == k + 1)
    }

    /// Is session `w`'s current wait one the assert watches (of its step, when it names
    /// a line)?
    fn wait_counts(&self, a: &AssertSpec, st: &State, w: usize) -> bool {
        a.at_step
            .is_none_or(|(x, k)| x == w && st.pc[w] as usize == k + 1)
    }

    /// The assert's predicate in one state: for `never`/`sometimes`, the session (any,
    /// for `*`) has the outcome; for `eventually`, the session's request ended in
    /// `deadlock`, or the action into this state starved it (see [`State::starved`]), or
    /// it waits and no action is enabled; for `bounded`, its request was passed over more
    /// than N times.
    pub fn assert_occurs(&self, i: usize, st: &State) -> bool {
        let a = &self.asserts[i];
        match a.kind {
            AssertKind::Never | AssertKind::Sometimes => match a.session {
                Some(s) => self.outcome_counts(a, st, s, a.outcome),
                None => (0..st.last.len()).any(|s| self.outcome_counts(a, st, s, a.outcome)),
            },
            AssertKind::Eventually => {
                let Some(w) = a.session else { return false };
                if self.outcome_counts(a, st, w, Outcome::Deadlock) {
                    return true;
                }
                if !self.wait_counts(a, st, w) {
                    return false;
                }
                st.starved & (1u64 << w) != 0 || (Self::waiting(st, w) && self.stuck(st))
            }
            AssertKind::Bounded(n) => {
                let Some(w) = a.session else { return false };
                self.wait_counts(a, st, w) && u32::from(st.passed[w]) > n
            }
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
            PropKind::NoCycle => st.bad_cycle.is_none(),
            PropKind::ReorderOnCycle => st.bad_reorder.is_none(),
            PropKind::ReorderBounded => st.bad_jumps.is_none(),
            PropKind::Assert(i) => {
                if self.asserts[i].is_sometimes() {
                    self.assert_occurs(i, st)
                } else {
                    !self.assert_occurs(i, st)
                }
            }
        }
    }
}

/// [`MdlModel::new_conflict`] on two lock tables: a grant `post` has and `pre` had not
/// that the dialect's granted matrix forbids next to another session's granted ticket
/// (also used by the SQL search, [`crate::sql`]).
pub fn new_conflict_between(
    dialect: &Dialect,
    pre: &LockTable,
    post: &LockTable,
) -> Option<Conflict> {
    // Both tables are in key order: walk them together (no lookups).
    let mut old_locks = pre.locks().peekable();
    for (k, l) in post.locks() {
        while old_locks.peek().is_some_and(|(ok, _)| *ok != k && *ok < k) {
            old_locks.next();
        }
        let before = match old_locks.peek() {
            Some((ok, b)) if *ok == k => Some(*b),
            _ => None,
        };
        if before.is_some_and(|b| b.granted() == l.granted()) {
            continue;
        }
        let strat = dialect.strategy(k.namespace());
        let old =
            |id, ty| before.is_some_and(|b| b.granted().iter().any(|t| t.id == id && t.ty == ty));
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
                if strat.conflicts(h.ty, t.ty) {
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
