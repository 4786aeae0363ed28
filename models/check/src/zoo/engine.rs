//! The zoo's small modelling engine: a few sessions, each running a fixed program of
//! steps against the real [`LockTable`] and against small foreign subsystems (a table-level
//! lock manager, a storage engine's row locks, a table definition cache, a purge thread's
//! table objects) kept next to it in the state.
//!
//! One action is "session `s` takes its next step" (or retries a step it is blocked on in a
//! foreign subsystem). Metadata-lock decisions are `LockTable`'s; foreign waits are either
//! registered with the MDL detector (`LockTable::foreign_wait`, the *new* designs) or kept
//! invisible to it (the *old* designs). The properties are computed from the ground-truth
//! wait-for graph (MDL waits plus every foreign wait, registered or not), so a cycle that
//! the detector cannot see is a violation.

use mdl_core::dialect::Dialect;
use mdl_core::key::MdlKey;
use mdl_core::lock::{OwnerId, Ticket, TicketId};
use mdl_core::table::{BulkReq, Config, LockTable};
use mdl_core::types::{Duration, LockType, Outcome, WaitOption};
use stateright::{Model, Property};
use std::collections::{BTreeMap, BTreeSet};

/// A foreign subsystem's resource kind: decides which modes are compatible.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// MySQL's THR_LOCK on one table: modes [`READ`], [`WRITE_ALLOW_WRITE`],
    /// [`WRITE_ALLOW_READ`], [`WRITE`].
    ThrLock,
    /// A row lock (or any reader/writer lock): [`SHARED`] and [`EXCL`].
    Row,
    /// A table share in the table definition cache: mode [`OPEN`]; may carry holders of an
    /// old version that new opens and flushes wait for.
    Share,
    /// A server-wide read lock outside MDL: [`PROTECT`] (writers) and [`READ_LOCK`].
    Global,
}

pub const READ: u8 = 0;
pub const WRITE_ALLOW_WRITE: u8 = 1;
pub const WRITE_ALLOW_READ: u8 = 2;
pub const WRITE: u8 = 3;
pub const SHARED: u8 = 0;
pub const EXCL: u8 = 1;
pub const OPEN: u8 = 0;
pub const PROTECT: u8 = 0;
pub const READ_LOCK: u8 = 1;

impl Kind {
    /// A granted `held` of another owner lets a request `req` in.
    pub fn compatible(self, held: u8, req: u8) -> bool {
        match self {
            Kind::ThrLock => matches!(
                (held, req),
                (READ, READ)
                    | (READ, WRITE_ALLOW_WRITE)
                    | (READ, WRITE_ALLOW_READ)
                    | (WRITE_ALLOW_WRITE, READ)
                    | (WRITE_ALLOW_WRITE, WRITE_ALLOW_WRITE)
                    | (WRITE_ALLOW_READ, READ)
            ),
            Kind::Row => held == SHARED && req == SHARED,
            Kind::Share => true,
            Kind::Global => held == req,
        }
    }

    pub fn mode_name(self, m: u8) -> &'static str {
        match (self, m) {
            (Kind::ThrLock, READ) => "TL_READ",
            (Kind::ThrLock, WRITE_ALLOW_WRITE) => "TL_WRITE_ALLOW_WRITE",
            (Kind::ThrLock, WRITE_ALLOW_READ) => "TL_WRITE_ALLOW_READ",
            (Kind::ThrLock, _) => "TL_WRITE",
            (Kind::Row, SHARED) => "S",
            (Kind::Row, _) => "X",
            (Kind::Share, _) => "open",
            (Kind::Global, PROTECT) => "protection",
            (Kind::Global, _) => "read lock",
        }
    }
}

/// A foreign resource in the model.
#[derive(Clone, Debug)]
pub struct ResDef {
    pub name: &'static str,
    pub kind: Kind,
    /// The subsystem (a participant of the sequence diagrams).
    pub subsystem: &'static str,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Hold {
    pub s: u8,
    pub mode: u8,
    pub dur: Duration,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Res {
    pub holders: Vec<Hold>,
    /// Sessions still using an old version (the share was marked old while they had it open).
    pub old: Vec<u8>,
}

/// A table object of the storage engine (the purge entries).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Obj {
    pub name: u8,
    pub exists: bool,
    pub n_ref: u8,
    /// Committed undo log records exist for it (purge may process them).
    pub undo: bool,
}

/// How the purge thread picks the metadata lock for a table object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PurgeRule {
    /// Locks the name it read; does not check it again once the lock is granted.
    Stale,
    /// Like `Stale`, and skips MDL for names starting with `#sql-` ("internal tables are
    /// protected by their ALTER").
    PrefixSkip,
    /// Locks the name it read, then checks the object still has that name; if not,
    /// releases and tries again with the new name.
    Exact,
}

/// One step of a session's program.
#[derive(Clone, Debug)]
pub enum Op {
    Acq(MdlKey, LockType, Duration),
    Upg(MdlKey, LockType),
    Bulk(Vec<(MdlKey, LockType)>, Duration),
    /// End of statement: statement-duration MDL and foreign holds are released.
    EndStmt,
    /// Commit: statement and transaction MDL and foreign holds are released.
    Commit,
    /// `UNLOCK TABLES` / `HANDLER ... CLOSE` / `RELEASE_ALL_LOCKS()`: explicit ones.
    Unlock,
    /// A foreign lock on resource `r` with mode and duration.
    Take(u8, u8, Duration),
    /// The table share of resource `r` is marked old (flush); does not wait.
    MarkOld(u8),
    /// Waits until nobody else uses an old version of resource `r`.
    WaitFlush(u8),
    /// A step with no lock effect (shown in the diagrams).
    Note,
    /// Dictionary metadata kept in resource `r` (a `Share`) is rewritten; statements
    /// that hold `r` open are using it.
    WriteMeta(u8),
    /// Table object `o` is created with name `n`.
    Create(u8, u8),
    /// Undo log records of object `o` are committed (purgeable).
    Publish(u8),
    /// The object named `from` is renamed `to`; asserts `n_ref_count == 0`.
    Rename(u8, u8),
    /// Purge: waits for purgeable undo.
    PurgeWait,
    /// Purge: reads the name of the object it purges.
    PurgeResolve,
    /// Purge: takes MDL SR (statement) on the name read.
    PurgeLock,
    /// Purge: checks the name again (with [`PurgeRule::Exact`]; a no-op otherwise).
    PurgeRecheck,
    /// Purge: pins the object (`n_ref_count++`).
    Pin,
    /// Purge: unpins (`n_ref_count--`), the undo is purged.
    Unpin,
}

/// What a session does after it was chosen as a deadlock victim.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnAbort {
    /// Rolls back, gives up everything and ends.
    End,
    /// Rolls back, gives up everything and starts the program again (at most `retries`
    /// times; then ends).
    Restart,
    /// The statement fails, the transaction rolls back; explicit locks stay; goes on at
    /// this step.
    Skip(u8),
}

#[derive(Clone, Debug)]
pub struct Prog {
    pub name: &'static str,
    pub ops: Vec<(Op, &'static str)>,
    /// How many times the program runs.
    pub rounds: u8,
    pub on_abort: OnAbort,
    pub retries: u8,
}

impl Prog {
    pub fn new(name: &'static str, ops: Vec<(Op, &'static str)>) -> Prog {
        Prog {
            name,
            ops,
            rounds: 1,
            on_abort: OnAbort::End,
            retries: 0,
        }
    }
}

/// The properties an entry checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// always: no cycle in the ground-truth wait-for graph (a cycle left standing is only
    /// ever broken by a lock wait timeout).
    NoStuckCycle,
    /// always: every deadlock error was given to a session on a real wait-for cycle.
    NoFalseDeadlock,
    /// always: the watched request is granted within `starve_bound` grants to others.
    BoundedWait,
    /// always: no new reader waits for an old reader when no exclusive MDL is requested.
    NoFlushPileUp,
    /// always: `n_ref_count == 0` at every rename.
    RefCount,
    /// always: dictionary metadata is never rewritten while another statement uses it.
    NoStaleMeta,
    /// always: the pairs in `never_waits` never wait for each other.
    ExactKeys,
    /// always: deadlock victims are spread: no session is a victim twice more than another.
    FairVictims,
    /// always: a state where no session can step is one where every session finished
    /// (nobody is left waiting for ever: no lost wakeup, no wait nobody will end).
    NoStuckState,
    /// sometimes: every session finished.
    AllDone,
    /// sometimes: a deadlock was reported (at once, by the detector).
    DeadlockReported,
    /// sometimes: the watched session was granted after it had waited.
    WatchedGranted,
}

impl Check {
    pub fn name(self) -> &'static str {
        match self {
            Check::NoStuckCycle => "no deadlock left to a timeout",
            Check::NoFalseDeadlock => "no deadlock error without a real cycle",
            Check::BoundedWait => "FTWRL granted within 2 other grants",
            Check::NoFlushPileUp => "no reader waits for an old reader without an X request",
            Check::RefCount => "n_ref_count == 0 at rename",
            Check::NoStaleMeta => "FK metadata never changes under a statement using it",
            Check::ExactKeys => "keys are exact: unrelated objects never wait for each other",
            Check::FairVictims => "no session is chosen as victim twice more than another",
            Check::NoStuckState => "no session is left waiting with nothing to wake it",
            Check::AllDone => "every session finishes",
            Check::DeadlockReported => "a deadlock is reported at once",
            Check::WatchedGranted => "FTWRL is granted after waiting",
        }
    }
    pub fn is_always(self) -> bool {
        !matches!(
            self,
            Check::AllDone | Check::DeadlockReported | Check::WatchedGranted
        )
    }
}

/// One design (old or new) of one entry: a stateright model.
#[derive(Clone)]
pub struct Design {
    pub d: Dialect,
    pub progs: Vec<Prog>,
    pub res: Vec<ResDef>,
    /// Foreign waits are registered with the MDL detector.
    pub visible: bool,
    /// The deadlock weight of foreign waits.
    pub fweight: u32,
    /// Old deadlock avoidance: a request on a lock that has a waiting DDL from another
    /// session, by a session that already holds locks, fails with a deadlock error.
    pub suspicion: bool,
    pub purge: PurgeRule,
    pub names: Vec<&'static str>,
    pub objs: Vec<Obj>,
    /// (session, key): count grants to others on `key` while the session waits for it.
    pub watch: Option<(u8, MdlKey)>,
    pub starve_bound: u8,
    /// Table keys of `Share` resources (res index, key), for [`Check::NoFlushPileUp`].
    pub share_keys: Vec<(u8, MdlKey)>,
    pub never_waits: Vec<(u8, u8)>,
    pub checks: Vec<Check>,
}

impl Design {
    pub fn new(d: Dialect, progs: Vec<Prog>) -> Design {
        Design {
            d,
            progs,
            res: Vec::new(),
            visible: false,
            fweight: 100,
            suspicion: false,
            purge: PurgeRule::Exact,
            names: Vec::new(),
            objs: Vec::new(),
            watch: None,
            starve_bound: 2,
            share_keys: Vec::new(),
            never_waits: Vec::new(),
            checks: vec![
                Check::NoStuckCycle,
                Check::NoStuckState,
                Check::NoFalseDeadlock,
                Check::AllDone,
            ],
        }
    }

    pub fn table_key(&self, name: &str) -> MdlKey {
        let ns = self.d.namespace_by_name("TABLE").expect("TABLE namespace");
        MdlKey::new(ns, "test", name)
    }
}

/// The state of a design.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct St {
    pub t: LockTable,
    pub pc: Vec<u8>,
    pub round: Vec<u8>,
    pub aborts: Vec<u8>,
    /// Blocked in a foreign subsystem at `pc`.
    pub cw: Vec<bool>,
    pub done: Vec<bool>,
    pub res: Vec<Res>,
    pub objs: Vec<Obj>,
    /// The purge thread's object and the name it read.
    pub purge_obj: Option<u8>,
    pub purge_name: Option<u8>,
    /// The first failed assertion of a component.
    pub bad: Option<&'static str>,
    pub false_deadlock: bool,
    /// Metadata was rewritten while another statement used it.
    pub stale_meta: bool,
    pub deadlocks: u8,
    pub starve: u8,
    pub watched_granted: bool,
}

/// What happened in one step, for traces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepInfo {
    pub session: usize,
    pub label: &'static str,
    pub target: &'static str,
    pub outcome: String,
    /// Other sessions' waits ended by the step.
    pub events: Vec<(usize, Outcome)>,
}

enum Try {
    Done,
    Blocked(Vec<OwnerId>),
}

fn o(s: usize) -> OwnerId {
    OwnerId(s as u32)
}

impl Design {
    pub fn init(&self) -> St {
        let mut t = LockTable::new(Config::default());
        for _ in &self.progs {
            t.add_session();
        }
        let n = self.progs.len();
        St {
            t,
            pc: vec![0; n],
            round: vec![0; n],
            aborts: vec![0; n],
            cw: vec![false; n],
            done: vec![false; n],
            res: vec![Res::default(); self.res.len()],
            objs: self.objs.clone(),
            purge_obj: None,
            purge_name: None,
            bad: None,
            false_deadlock: false,
            stale_meta: false,
            deadlocks: 0,
            starve: 0,
            watched_granted: false,
        }
    }

    fn op(&self, st: &St, s: usize) -> Option<&(Op, &'static str)> {
        self.progs[s].ops.get(st.pc[s] as usize)
    }

    fn purge_key(&self, st: &St) -> Option<MdlKey> {
        st.purge_name
            .map(|n| self.table_key(self.names[n as usize]))
    }

    /// May session `s` take a step?
    pub fn enabled(&self, st: &St, s: usize) -> bool {
        if st.done[s] {
            return false;
        }
        let Some(x) = st.t.session(o(s)) else {
            return false;
        };
        if x.wait.is_some() {
            return false;
        }
        if st.cw[s] || matches!(self.op(st, s), Some((Op::PurgeWait, _))) {
            let mut c = st.clone();
            return matches!(self.try_foreign(&mut c, s), Some(Try::Done));
        }
        true
    }

    /// Tries a foreign step of `s` (None: the step is not a foreign one).
    fn try_foreign(&self, st: &mut St, s: usize) -> Option<Try> {
        let (op, _) = self.op(st, s)?;
        let s8 = s as u8;
        Some(match op {
            Op::Take(r, mode, dur) => {
                let kind = self.res[*r as usize].kind;
                let res = &mut st.res[*r as usize];
                let mut b: Vec<OwnerId> = res
                    .holders
                    .iter()
                    .filter(|h| h.s != s8 && !kind.compatible(h.mode, *mode))
                    .map(|h| o(h.s as usize))
                    .collect();
                b.extend(res.old.iter().filter(|x| **x != s8).map(|x| o(*x as usize)));
                b.sort();
                b.dedup();
                if b.is_empty() {
                    res.holders.push(Hold {
                        s: s8,
                        mode: *mode,
                        dur: *dur,
                    });
                    Try::Done
                } else {
                    Try::Blocked(b)
                }
            }
            Op::WaitFlush(r) => {
                let res = &st.res[*r as usize];
                let b: Vec<OwnerId> = res
                    .old
                    .iter()
                    .filter(|x| **x != s8)
                    .map(|x| o(*x as usize))
                    .collect();
                if b.is_empty() {
                    Try::Done
                } else {
                    Try::Blocked(b)
                }
            }
            Op::PurgeWait => match st.objs.iter().position(|x| x.undo && x.exists) {
                Some(i) => {
                    st.purge_obj = Some(i as u8);
                    Try::Done
                }
                None => Try::Blocked(Vec::new()),
            },
            _ => return None,
        })
    }

    /// The foreign blockers of a session blocked at its step.
    fn foreign_blockers(&self, st: &St, s: usize) -> Vec<OwnerId> {
        let mut c = st.clone();
        match self.try_foreign(&mut c, s) {
            Some(Try::Blocked(b)) => b,
            _ => Vec::new(),
        }
    }

    /// The ground-truth wait-for graph: MDL waits (from the lock table) and every foreign
    /// wait, whether or not it was registered with the detector.
    pub fn edges(&self, st: &St) -> BTreeSet<(usize, usize)> {
        let mut e = BTreeSet::new();
        for (a, b) in st.t.wait_edges(&self.d) {
            let a = a.0 as usize;
            if st.t.session(o(a)).is_some_and(|x| x.wait.is_some()) {
                e.insert((a, b.0 as usize));
            }
        }
        for s in 0..self.progs.len() {
            if st.cw[s] {
                for b in self.foreign_blockers(st, s) {
                    e.insert((s, b.0 as usize));
                }
            }
        }
        e
    }

    /// The sessions that `s`'s next MDL request would wait for (hypothetically).
    fn hyp_blockers(&self, st: &St, s: usize) -> Vec<OwnerId> {
        let reqs: Vec<(MdlKey, LockType)> = match self.op(st, s) {
            Some((Op::Acq(k, ty, _), _)) | Some((Op::Upg(k, ty), _)) => vec![(k.clone(), *ty)],
            Some((Op::Bulk(v, _), _)) => v.clone(),
            Some((Op::PurgeLock, _)) => self
                .purge_key(st)
                .map(|k| vec![(k, LockType::SR)])
                .unwrap_or_default(),
            _ => return self.foreign_blockers(st, s),
        };
        let mut out = Vec::new();
        for (k, ty) in reqs {
            if st.t.owns_equal_or_stronger(&self.d, o(s), &k, ty) {
                continue;
            }
            if let Some(l) = st.t.lock(&k) {
                let r = st.t.rules(&self.d, &k);
                let tk = Ticket {
                    id: TicketId(u64::MAX),
                    owner: o(s),
                    ty,
                };
                out.extend(l.blockers(&r, &tk));
            }
        }
        out
    }

    fn suspect(&self, st: &St, s: usize, k: &MdlKey) -> bool {
        let holds =
            st.t.session(o(s))
                .is_some_and(|x| !x.book.held().is_empty());
        holds
            && st.t.lock(k).is_some_and(|l| {
                l.waiting().iter().any(|w| {
                    w.owner != o(s)
                        && self.d.weight(k.namespace(), w.ty, false, 0) >= self.d.weights.ddl
                })
            })
    }

    fn release_foreign(&self, st: &mut St, s: usize, durs: &[Duration]) {
        let s8 = s as u8;
        for r in st.res.iter_mut() {
            let before: Vec<bool> = r.holders.iter().map(|h| h.s == s8).collect();
            r.holders.retain(|h| h.s != s8 || !durs.contains(&h.dur));
            let still = r.holders.iter().any(|h| h.s == s8);
            if before.iter().any(|x| *x) && !still {
                r.old.retain(|x| *x != s8);
            }
        }
    }

    fn advance(&self, st: &mut St, s: usize) {
        st.pc[s] += 1;
        if st.pc[s] as usize >= self.progs[s].ops.len() {
            st.round[s] += 1;
            if st.round[s] < self.progs[s].rounds {
                st.pc[s] = 0;
            } else {
                self.finish(st, s);
            }
        }
    }

    fn finish(&self, st: &mut St, s: usize) {
        let _ = st.t.disconnect(&self.d, o(s));
        self.release_foreign(
            st,
            s,
            &[
                Duration::Statement,
                Duration::Transaction,
                Duration::Explicit,
            ],
        );
        st.cw[s] = false;
        st.done[s] = true;
    }

    fn abort(&self, st: &mut St, s: usize) {
        st.aborts[s] = st.aborts[s].saturating_add(1);
        st.deadlocks = st.deadlocks.saturating_add(1);
        st.cw[s] = false;
        let _ = st.t.commit(&self.d, o(s));
        let p = &self.progs[s];
        match p.on_abort {
            OnAbort::Skip(pc) => {
                self.release_foreign(st, s, &[Duration::Statement, Duration::Transaction]);
                st.pc[s] = pc;
            }
            OnAbort::Restart if st.aborts[s] <= p.retries => {
                let _ = st.t.release_explicit(&self.d, o(s));
                self.release_foreign(
                    st,
                    s,
                    &[
                        Duration::Statement,
                        Duration::Transaction,
                        Duration::Explicit,
                    ],
                );
                st.pc[s] = 0;
            }
            _ => self.finish(st, s),
        }
    }

    /// Session `s` takes its step. Returns the new state and what happened.
    pub fn step(&self, st: &St, s: usize) -> (St, StepInfo) {
        let mut n = st.clone();
        let (op, label) = self.op(st, s).cloned().expect("enabled session has a step");
        let hyp = self.hyp_blockers(st, s);
        let pre_edges = self.edges(st);
        let watch_wait_before = self.watched_waiting(st);
        let d = &self.d;
        let me = o(s);
        let mut target = "MDL";
        // The step's own MDL outcome, if it made a request.
        let mut mdl: Option<Outcome> = None;
        let mut text = String::new();
        let mut deadlocked: Vec<usize> = Vec::new();
        match &op {
            Op::Acq(k, ty, dur) => {
                if self.suspicion && self.suspect(&n, s, k) {
                    mdl = Some(Outcome::Deadlock);
                    text = "ER_LOCK_DEADLOCK (a DDL waits on the table)".into();
                } else {
                    mdl = Some(
                        n.t.acquire(d, me, k, *ty, *dur, WaitOption::Forever)
                            .expect("well-formed program"),
                    );
                }
            }
            Op::Upg(k, ty) => {
                mdl = Some(
                    n.t.upgrade(d, me, k, *ty, WaitOption::Forever)
                        .expect("well-formed program"),
                );
            }
            Op::Bulk(v, dur) => {
                let out = if n.t.session(me).is_some_and(|x| x.resume.is_some()) {
                    n.t.resume_bulk(d, me)
                } else {
                    let reqs: Vec<BulkReq> = v
                        .iter()
                        .map(|(k, ty)| BulkReq {
                            key: k.clone(),
                            ty: *ty,
                        })
                        .collect();
                    n.t.acquire_all(d, me, &reqs, *dur, WaitOption::Forever)
                };
                mdl = Some(out.expect("well-formed program"));
            }
            Op::PurgeLock => {
                let name = n.purge_name.expect("resolved") as usize;
                if self.purge == PurgeRule::PrefixSkip && self.names[name].starts_with("#sql-") {
                    text = "no MDL (an internal #sql- name)".into();
                    self.advance(&mut n, s);
                } else {
                    let k = self.purge_key(&n).expect("resolved");
                    mdl = Some(
                        n.t.acquire(
                            d,
                            me,
                            &k,
                            LockType::SR,
                            Duration::Statement,
                            WaitOption::Forever,
                        )
                        .expect("well-formed program"),
                    );
                }
            }
            Op::EndStmt => {
                let _ = n.t.end_statement(d, me);
                self.release_foreign(&mut n, s, &[Duration::Statement]);
                text = "ok".into();
                self.advance(&mut n, s);
            }
            Op::Commit => {
                let _ = n.t.commit(d, me);
                self.release_foreign(&mut n, s, &[Duration::Statement, Duration::Transaction]);
                text = "ok".into();
                self.advance(&mut n, s);
            }
            Op::Unlock => {
                let _ = n.t.release_explicit(d, me);
                self.release_foreign(&mut n, s, &[Duration::Explicit]);
                text = "ok".into();
                self.advance(&mut n, s);
            }
            Op::Take(r, _, _) | Op::WaitFlush(r) => {
                target = self.res[*r as usize].subsystem;
                match self.try_foreign(&mut n, s).expect("foreign step") {
                    Try::Done => {
                        if n.cw[s] {
                            n.cw[s] = false;
                            if self.visible {
                                n.t.foreign_granted(me);
                            }
                        }
                        text = "granted".into();
                        self.advance(&mut n, s);
                    }
                    Try::Blocked(b) => {
                        n.cw[s] = true;
                        text = "waiting".into();
                        if self.visible {
                            let out =
                                n.t.foreign_wait(d, me, b, self.fweight)
                                    .expect("live session");
                            if out == Outcome::Deadlock {
                                text = "deadlock".into();
                                deadlocked.push(s);
                                self.abort(&mut n, s);
                            }
                        } else {
                            text = "waiting (invisible to the MDL detector)".into();
                        }
                    }
                }
            }
            Op::PurgeWait => {
                target = "InnoDB";
                let _ = self.try_foreign(&mut n, s);
                n.cw[s] = false;
                text = "undo to purge".into();
                self.advance(&mut n, s);
            }
            Op::MarkOld(r) => {
                target = self.res[*r as usize].subsystem;
                let s8 = s as u8;
                let mut old: Vec<u8> = n.res[*r as usize]
                    .holders
                    .iter()
                    .map(|h| h.s)
                    .filter(|x| *x != s8)
                    .collect();
                old.sort();
                old.dedup();
                n.res[*r as usize].old = old;
                text = "share marked old".into();
                self.advance(&mut n, s);
            }
            Op::WriteMeta(r) => {
                target = self.res[*r as usize].subsystem;
                let s8 = s as u8;
                let users: Vec<&'static str> = n.res[*r as usize]
                    .holders
                    .iter()
                    .filter(|h| h.s != s8)
                    .map(|h| self.progs[h.s as usize].name)
                    .collect();
                if users.is_empty() {
                    text = "ok".into();
                } else {
                    n.stale_meta = true;
                    text = format!("rewritten while {} uses it", users.join(", "));
                }
                self.advance(&mut n, s);
            }
            Op::Note => {
                target = "";
                text = "ok".into();
                self.advance(&mut n, s);
            }
            Op::Create(ob, name) => {
                target = "InnoDB";
                let x = &mut n.objs[*ob as usize];
                x.exists = true;
                x.name = *name;
                text = "ok".into();
                self.advance(&mut n, s);
            }
            Op::Publish(ob) => {
                target = "InnoDB";
                n.objs[*ob as usize].undo = true;
                text = "undo committed".into();
                self.advance(&mut n, s);
            }
            Op::Rename(from, to) => {
                target = "InnoDB";
                text = "ok".into();
                if let Some(x) = n.objs.iter_mut().find(|x| x.exists && x.name == *from) {
                    if x.n_ref != 0 {
                        n.bad.get_or_insert("n_ref_count == 0");
                        text = format!(
                            "assertion `n_ref_count == 0` fails (n_ref_count = {})",
                            x.n_ref
                        );
                    }
                    x.name = *to;
                }
                self.advance(&mut n, s);
            }
            Op::PurgeResolve => {
                target = "InnoDB";
                let ob = n.purge_obj.expect("purge object") as usize;
                n.purge_name = Some(n.objs[ob].name);
                text = format!("name is `{}`", self.names[n.objs[ob].name as usize]);
                self.advance(&mut n, s);
            }
            Op::PurgeRecheck => {
                target = "InnoDB";
                let ob = n.purge_obj.expect("purge object") as usize;
                let now = n.objs[ob].name;
                if self.purge == PurgeRule::Exact && Some(now) != n.purge_name {
                    if let Some(k) = self.purge_key(&n) {
                        let _ = n.t.release(d, me, &k, None);
                    }
                    text = format!("renamed to `{}`: release, retry", self.names[now as usize]);
                    n.pc[s] -= 2;
                } else {
                    text = "ok".into();
                    self.advance(&mut n, s);
                }
            }
            Op::Pin => {
                target = "InnoDB";
                let ob = n.purge_obj.expect("purge object") as usize;
                n.objs[ob].n_ref += 1;
                text = "n_ref_count = 1".into();
                self.advance(&mut n, s);
            }
            Op::Unpin => {
                target = "InnoDB";
                let ob = n.purge_obj.expect("purge object") as usize;
                n.objs[ob].n_ref -= 1;
                n.objs[ob].undo = false;
                text = "purged, n_ref_count = 0".into();
                self.advance(&mut n, s);
            }
        }
        if let Some(out) = mdl {
            if text.is_empty() {
                text = out.name().into();
            }
            match out {
                Outcome::Granted => {
                    if let Some((ws, key)) = &self.watch {
                        if *ws as usize != s && watch_wait_before && op_key(&op) == Some(key) {
                            n.starve = n.starve.saturating_add(1).min(self.starve_bound + 1);
                        }
                    }
                    if n.t.session(me).is_some_and(|x| x.resume.is_none()) {
                        self.advance(&mut n, s);
                    }
                }
                Outcome::Waiting => {}
                _ => {
                    deadlocked.push(s);
                    self.abort(&mut n, s);
                }
            }
        }
        // Waits of other sessions ended by this step.
        let mut events = Vec::new();
        loop {
            let ev = n.t.take_events();
            if ev.is_empty() {
                break;
            }
            for (w, out) in ev {
                let w = w.0 as usize;
                events.push((w, out));
                match out {
                    Outcome::Granted => {
                        if Some(w as u8) == self.watch.as_ref().map(|x| x.0) {
                            n.watched_granted = true;
                        }
                        if n.t.session(o(w)).is_some_and(|x| x.resume.is_none()) {
                            self.advance(&mut n, w);
                        }
                    }
                    _ => {
                        deadlocked.push(w);
                        self.abort(&mut n, w);
                    }
                }
            }
        }
        // The foreign subsystems keep their registered waits up to date.
        if self.visible {
            self.refresh_foreign(&mut n, &mut events, &mut deadlocked);
        }
        // Was every deadlock error given on a real cycle?
        if !deadlocked.is_empty() {
            let mut g = pre_edges;
            for b in &hyp {
                g.insert((s, b.0 as usize));
            }
            for v in &deadlocked {
                if !on_cycle(&g, *v) {
                    n.false_deadlock = true;
                }
            }
        }
        if !self.watched_waiting(&n) {
            n.starve = 0;
        }
        (
            n,
            StepInfo {
                session: s,
                label,
                target,
                outcome: text,
                events,
            },
        )
    }

    fn refresh_foreign(&self, n: &mut St, events: &mut Vec<(usize, Outcome)>, dl: &mut Vec<usize>) {
        for w in 0..self.progs.len() {
            if !n.cw[w] {
                continue;
            }
            let b = self.foreign_blockers(n, w);
            let cur = n.t.session(o(w)).and_then(|x| x.foreign.clone());
            let same = cur.as_ref().is_some_and(|(h, _)| *h == b);
            if b.is_empty() || same {
                continue;
            }
            n.t.foreign_granted(o(w));
            if n.t.foreign_wait(&self.d, o(w), b, self.fweight) == Ok(Outcome::Deadlock) {
                events.push((w, Outcome::Deadlock));
                dl.push(w);
                self.abort(n, w);
            }
            for (v, out) in n.t.take_events() {
                let v = v.0 as usize;
                events.push((v, out));
                if out == Outcome::Granted {
                    if n.t.session(o(v)).is_some_and(|x| x.resume.is_none()) {
                        self.advance(n, v);
                    }
                } else {
                    dl.push(v);
                    self.abort(n, v);
                }
            }
        }
    }

    fn watched_waiting(&self, st: &St) -> bool {
        self.watch.as_ref().is_some_and(|(ws, key)| {
            st.t.session(o(*ws as usize))
                .and_then(|x| x.wait.as_ref())
                .is_some_and(|w| w.key == *key)
        })
    }

    /// Evaluates one property on a state.
    pub fn holds(&self, c: Check, st: &St) -> bool {
        match c {
            Check::NoStuckCycle => {
                let g = self.edges(st);
                !(0..self.progs.len()).any(|s| on_cycle(&g, s))
            }
            Check::NoFalseDeadlock => !st.false_deadlock,
            Check::BoundedWait => st.starve <= self.starve_bound,
            Check::NoFlushPileUp => !(0..self.progs.len()).any(|s| {
                if !st.cw[s] {
                    return false;
                }
                let Some((Op::Take(r, _, _), _)) = self.op(st, s) else {
                    return false;
                };
                let waits_old = st.res[*r as usize].old.iter().any(|x| *x as usize != s);
                let x_requested = self
                    .share_keys
                    .iter()
                    .filter(|(rr, _)| rr == r)
                    .any(|(_, k)| {
                        st.t.lock(k).is_some_and(|l| {
                            l.granted()
                                .iter()
                                .chain(l.waiting())
                                .any(|t| t.ty == LockType::X)
                        })
                    });
                waits_old && !x_requested
            }),
            Check::RefCount => st.bad.is_none(),
            Check::NoStaleMeta => !st.stale_meta,
            Check::ExactKeys => {
                let g = self.edges(st);
                !self
                    .never_waits
                    .iter()
                    .any(|(a, b)| g.contains(&(*a as usize, *b as usize)))
            }
            Check::FairVictims => {
                let mx = st.aborts.iter().copied().max().unwrap_or(0);
                let mn = st.aborts.iter().copied().min().unwrap_or(0);
                mx - mn <= 1
            }
            Check::NoStuckState => {
                st.done.iter().all(|x| *x) || (0..self.progs.len()).any(|s| self.enabled(st, s))
            }
            Check::AllDone => st.done.iter().all(|x| *x),
            Check::DeadlockReported => st.deadlocks > 0,
            Check::WatchedGranted => st.watched_granted,
        }
    }
}

fn op_key(op: &Op) -> Option<&MdlKey> {
    match op {
        Op::Acq(k, _, _) | Op::Upg(k, _) => Some(k),
        _ => None,
    }
}

/// Is `v` on a cycle of the graph?
pub fn on_cycle(g: &BTreeSet<(usize, usize)>, v: usize) -> bool {
    let mut adj: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (a, b) in g {
        adj.entry(*a).or_default().push(*b);
    }
    let mut seen = BTreeSet::new();
    let mut stack: Vec<usize> = adj.get(&v).cloned().unwrap_or_default();
    while let Some(x) = stack.pop() {
        if x == v {
            return true;
        }
        if seen.insert(x) {
            stack.extend(adj.get(&x).into_iter().flatten().copied());
        }
    }
    false
}

impl Model for Design {
    type State = St;
    type Action = u8;

    fn init_states(&self) -> Vec<St> {
        vec![self.init()]
    }

    fn actions(&self, st: &St, out: &mut Vec<u8>) {
        for s in 0..self.progs.len() {
            if self.enabled(st, s) {
                out.push(s as u8);
            }
        }
    }

    fn next_state(&self, st: &St, a: u8) -> Option<St> {
        Some(self.step(st, a as usize).0)
    }

    fn format_action(&self, a: &u8) -> String {
        self.progs[*a as usize].name.to_string()
    }

    fn properties(&self) -> Vec<Property<Self>> {
        self.checks
            .iter()
            .map(|c| {
                macro_rules! prop {
                    ($v:ident) => {
                        if c.is_always() {
                            Property::always(Check::$v.name(), |m: &Design, s: &St| {
                                m.holds(Check::$v, s)
                            })
                        } else {
                            Property::sometimes(Check::$v.name(), |m: &Design, s: &St| {
                                m.holds(Check::$v, s)
                            })
                        }
                    };
                }
                match c {
                    Check::NoStuckCycle => prop!(NoStuckCycle),
                    Check::NoFalseDeadlock => prop!(NoFalseDeadlock),
                    Check::BoundedWait => prop!(BoundedWait),
                    Check::NoFlushPileUp => prop!(NoFlushPileUp),
                    Check::RefCount => prop!(RefCount),
                    Check::NoStaleMeta => prop!(NoStaleMeta),
                    Check::ExactKeys => prop!(ExactKeys),
                    Check::FairVictims => prop!(FairVictims),
                    Check::NoStuckState => prop!(NoStuckState),
                    Check::AllDone => prop!(AllDone),
                    Check::DeadlockReported => prop!(DeadlockReported),
                    Check::WatchedGranted => prop!(WatchedGranted),
                }
            })
            .collect()
    }
}
