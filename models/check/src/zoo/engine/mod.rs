//! The zoo's designs: their semantics, not a search (a design is a stateright `Model`
//! with our extension trait, searched by the checker's one engine, `crate::zoo::check`,
//! its starving runs found by the same engine's graph mode and cycle search). A design is
//! a few sessions, each running a fixed program of steps against the real [`LockTable`] and against small foreign subsystems (a table-level
//! lock manager, a storage engine's row locks, a table definition cache, a purge thread's
//! table objects) kept next to it in the state.
//!
//! One action is "session `s` takes its next step" (or retries a step it is blocked on in a
//! foreign subsystem). Metadata-lock decisions are `LockTable`'s; foreign waits are either
//! registered with the MDL detector (`LockTable::foreign_wait`, the *new* designs) or kept
//! invisible to it (the *old* designs). The properties are computed from the ground-truth
//! wait-for graph (MDL waits plus every foreign wait, registered or not), so a cycle that
//! the detector cannot see is a violation.
//!
//! Some old designs differ from the real manager in a way that is not data (the core has
//! no switch for it); the engine models those in its own terms, each behind one flag of
//! [`Design`]: a detector that searches once ([`Design::one_pass`]), a statement that
//! gives back its transaction's locks when a DDL waits for it ([`Design::backoff`]), an
//! INFORMATION_SCHEMA open that does not wait ([`Design::show_no_wait`]).
//!
//! States are compared up to the renaming of ticket ids ([`canon_table`], a
//! bisimulation): that merges states which differ only in how tickets were numbered, and
//! makes the state space of a program that runs for ever (`rounds == 0`) finite, so that a
//! starving run is a cycle of states ([`super::check::starving_lasso`]).

use mdl_core::deadlock::{self, WaitGraph};
use mdl_core::dialect::{Dialect, WeightRule};
use mdl_core::key::MdlKey;
use mdl_core::lock::{OwnerId, Ticket, TicketId};
use mdl_core::table::{BulkReq, Config, LockTable, WaitKind};
use mdl_core::types::{Duration, LockType, Outcome, WaitOption};
use stateright::{Model, Property};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::hash::{Hash, Hasher};

mod canon;
mod foreign;
mod graph;
mod step;

pub use canon::canon_table;
pub use graph::on_cycle;
use graph::EdgeGraph;

/// A foreign subsystem's resource kind: decides which modes are compatible.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// MySQL's THR_LOCK on one table (`mysys/thr_lock.c`): modes [`READ`],
    /// [`READ_NO_INSERT`], [`WRITE_ALLOW_WRITE`], [`WRITE_ALLOW_READ`], [`WRITE`]. A read
    /// request also waits, when no write lock is held, for a pending [`WRITE`] ("no
    /// important write-locks" in `thr_lock()`).
    ThrLock,
    /// THR_LOCK before the fix of MySQL bug #50821: a [`READ_NO_INSERT`] request is not
    /// let in beside a granted [`WRITE_ALLOW_READ`] (the opposite was already allowed).
    ThrLockOld,
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
pub const READ_NO_INSERT: u8 = 4;
pub const SHARED: u8 = 0;
pub const EXCL: u8 = 1;
pub const OPEN: u8 = 0;
pub const PROTECT: u8 = 0;
pub const READ_LOCK: u8 = 1;

impl Kind {
    /// A granted `held` of another owner lets a request `req` in.
    pub fn compatible(self, held: u8, req: u8) -> bool {
        match self {
            Kind::ThrLock | Kind::ThrLockOld => {
                matches!(
                    (held, req),
                    (READ, READ)
                        | (READ, WRITE_ALLOW_WRITE)
                        | (READ, WRITE_ALLOW_READ)
                        | (WRITE_ALLOW_WRITE, READ)
                        | (WRITE_ALLOW_WRITE, WRITE_ALLOW_WRITE)
                        | (WRITE_ALLOW_READ, READ)
                        | (READ, READ_NO_INSERT)
                        | (READ_NO_INSERT, READ)
                        | (READ_NO_INSERT, READ_NO_INSERT)
                        | (READ_NO_INSERT, WRITE_ALLOW_READ)
                        // thr_lock.c grants TL_READ_NO_INSERT beside TL_WRITE_ALLOW_WRITE
                        // (its comment: else LOCK TABLES READ starves, bug #42147).
                        | (WRITE_ALLOW_WRITE, READ_NO_INSERT)
                ) || (self == Kind::ThrLock && (held, req) == (WRITE_ALLOW_READ, READ_NO_INSERT))
            }
            Kind::Row => held == SHARED && req == SHARED,
            Kind::Share => true,
            Kind::Global => held == req,
        }
    }

    fn is_thr_lock(self) -> bool {
        matches!(self, Kind::ThrLock | Kind::ThrLockOld)
    }

    pub fn mode_name(self, m: u8) -> &'static str {
        match (self, m) {
            (Kind::ThrLock | Kind::ThrLockOld, READ) => "TL_READ",
            (Kind::ThrLock | Kind::ThrLockOld, READ_NO_INSERT) => "TL_READ_NO_INSERT",
            (Kind::ThrLock | Kind::ThrLockOld, WRITE_ALLOW_WRITE) => "TL_WRITE_ALLOW_WRITE",
            (Kind::ThrLock | Kind::ThrLockOld, WRITE_ALLOW_READ) => "TL_WRITE_ALLOW_READ",
            (Kind::ThrLock | Kind::ThrLockOld, _) => "TL_WRITE",
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
pub struct ResourceDef {
    pub name: &'static str,
    pub kind: Kind,
    /// The subsystem (a participant of the sequence diagrams).
    pub subsystem: &'static str,
}

/// One session's hold on a foreign resource: its mode and how long it keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ResourceHold {
    pub s: u8,
    pub mode: u8,
    pub dur: Duration,
}

/// A foreign resource's state: who holds it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Resource {
    pub holders: Vec<ResourceHold>,
    /// Sessions still using an old version (the share was marked old while they had it open).
    pub old: Vec<u8>,
}

/// A table object of the storage engine (the purge entries).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TableObject {
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
    /// A downgrade of a held lock (never waits).
    Down(MdlKey, LockType),
    /// Gives back the held lock of this type on the key.
    Release(MdlKey, LockType),
    /// All or nothing, holding nothing while it waits: tries every lock at once without
    /// waiting; on a conflict it gives back what it took and waits, holding none of them,
    /// until a try would succeed (a wait of the zoo engine, not of the lock table).
    BulkRetry(Vec<(MdlKey, LockType)>, Duration),
    /// An INFORMATION_SCHEMA / SHOW open of a table: MDL `SH` for the statement. With
    /// [`Design::show_no_wait`] a session that holds locks does not wait: on a conflict
    /// the table is skipped with a warning (sql_show.cc,
    /// `try_acquire_high_prio_shared_mdl_lock`, `can_deadlock`).
    ShowOpen(MdlKey),
    /// End of statement: statement-duration MDL and foreign holds are released.
    EndStmt,
    /// Commit: statement and transaction MDL and foreign holds are released.
    Commit,
    /// `UNLOCK TABLES` / `HANDLER ... CLOSE` / `RELEASE_ALL_LOCKS()`: explicit ones.
    Unlock,
    /// A foreign lock on resource `r` with mode and duration.
    Take(u8, u8, Duration),
    /// Gives up the session's hold on foreign resource `r` (an application's signal).
    Free(u8),
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
pub struct Program {
    pub name: &'static str,
    pub ops: Vec<(Op, &'static str)>,
    /// How many times the program runs; 0: for ever (finite thanks to [`canon_table`]).
    pub rounds: u8,
    pub on_abort: OnAbort,
    pub retries: u8,
    /// With [`Design::backoff`]: the step a statement starts over from after it backed
    /// off (gave back its metadata locks).
    pub backoff_pc: Option<u8>,
}

impl Program {
    pub fn new(name: &'static str, ops: Vec<(Op, &'static str)>) -> Program {
        Program {
            name,
            ops,
            rounds: 1,
            on_abort: OnAbort::End,
            retries: 0,
            backoff_pc: None,
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
    /// always: no session holds `X` on a tracked table that a running transaction (one
    /// not yet committed or rolled back) has used (Bug #989: a DDL must not commit under
    /// a transaction that read the table).
    Isolation,
    /// always: the protected session is never chosen as a deadlock victim.
    NoVictim,
    /// always (`assert bounded`): while the watched session waits for a lock, at most
    /// `starve_bound` requests of other sessions on that lock are granted.
    Bounded,
    /// liveness (`assert eventually`): no run in which the watched session waits for
    /// ever while the others keep taking steps: no reachable cycle of states along which
    /// it waits throughout ([`super::check::starving_lasso`]).
    Eventually,
    /// always: no waiting MDL request could be granted now (a lost wakeup otherwise:
    /// `LockTable::grantable_waiters`, the rule of the lock's own reschedule).
    NoLostWakeup,
    /// sometimes: every session finished.
    AllDone,
    /// sometimes: a deadlock was reported (at once, by the detector).
    DeadlockReported,
    /// sometimes: the watched session was granted after it had waited.
    WatchedGranted,
    /// sometimes: the watched session was granted after it had been passed over.
    GrantedAfterPassedOver,
    /// sometimes: two deadlock errors were reported.
    TwoDeadlocks,
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
            Check::Isolation => "no DDL commits under a running transaction that used the table",
            Check::NoVictim => "the protected session is never a deadlock victim",
            Check::Bounded => "bounded: the watched wait is passed over at most N times",
            Check::Eventually => "eventually: the watched wait ends while others go on",
            Check::NoLostWakeup => "no request is left waiting once it could be granted",
            Check::AllDone => "every session finishes",
            Check::DeadlockReported => "a deadlock is reported at once",
            Check::WatchedGranted => "the watched request is granted after waiting",
            Check::GrantedAfterPassedOver => {
                "the watched request is granted after being passed over"
            }
            Check::TwoDeadlocks => "two deadlock errors are reported",
        }
    }
    /// Checked on runs (cycles of states), not on single states.
    pub fn is_liveness(self) -> bool {
        self == Check::Eventually
    }
    pub fn is_always(self) -> bool {
        !matches!(
            self,
            Check::AllDone
                | Check::DeadlockReported
                | Check::WatchedGranted
                | Check::GrantedAfterPassedOver
                | Check::TwoDeadlocks
        )
    }
}

/// One design (old or new) of one entry: a stateright model.
#[derive(Clone)]
pub struct Design {
    pub d: Dialect,
    pub progs: Vec<Program>,
    pub res: Vec<ResourceDef>,
    /// Foreign waits are registered with the MDL detector.
    pub visible: bool,
    /// The deadlock weight of foreign waits.
    pub fweight: u32,
    /// Old deadlock avoidance: a request on a lock that has a waiting DDL from another
    /// session, by a session that already holds locks, fails with a deadlock error.
    pub suspicion: bool,
    pub purge: PurgeRule,
    pub names: Vec<&'static str>,
    pub objs: Vec<TableObject>,
    /// (session, key): count grants to others on `key` while the session waits for it.
    pub watch: Option<(u8, MdlKey)>,
    pub starve_bound: u8,
    /// Table keys of `Share` resources (res index, key), for [`Check::NoFlushPileUp`].
    pub share_keys: Vec<(u8, MdlKey)>,
    pub never_waits: Vec<(u8, u8)>,
    pub checks: Vec<Check>,
    /// The lock table's settings (`max_write_lock_count`).
    pub config: Config,
    /// The old detector of MySQL before the fix of bug #50998: one search when a wait
    /// starts, one victim, no second search. The core's detector always searches again,
    /// so the engine models this one itself: MDL requests are tried without waiting, and
    /// a request that cannot be granted waits in the engine (retried when it would be
    /// granted; no place in the lock's queue), after one search with
    /// `mdl_core::deadlock::detect` over the ground-truth graph.
    pub one_pass: bool,
    /// The back-off of MySQL 5.4's first MDL (bug #46273): when an MDL request starts to
    /// wait for sessions that wait in THR_LOCK, their table-lock waits are aborted and
    /// they give back every metadata lock (their transaction's too) and start the
    /// statement over ([`Program::backoff_pc`]).
    pub backoff: bool,
    /// [`Op::ShowOpen`] does not wait when the session holds locks (the fix of bug
    /// #46044).
    pub show_no_wait: bool,
    /// Tables whose use by a running transaction [`Check::Isolation`] protects.
    pub tracked: Vec<MdlKey>,
    /// Foreign resources held from the start: (resource, holder, mode, duration).
    pub init_holds: Vec<(u8, u8, u8, Duration)>,
    /// The session [`Check::NoVictim`] protects.
    pub protect: u8,
    /// A design variant (models/FINDINGS.md, finding 2): when a step switches a lock's
    /// pending matrix (MySQL's `m_current_waiting_incompatible_idx`), every session that
    /// waits on that lock is searched from again, in queue order
    /// (`LockTable::search_from`); the servers search only when a wait begins.
    pub search_on_switch: bool,
}

impl Design {
    pub fn new(d: Dialect, progs: Vec<Program>) -> Design {
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
            config: Config::default(),
            one_pass: false,
            backoff: false,
            show_no_wait: false,
            tracked: Vec::new(),
            init_holds: Vec::new(),
            protect: 0,
            search_on_switch: false,
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

/// The state of a design. Equality and hashing see the lock table up to the renaming of
/// ticket ids ([`canon_table`]).
#[derive(Clone, Debug)]
pub struct DesignState {
    pub table: LockTable,
    pub pc: Vec<u8>,
    pub round: Vec<u8>,
    pub aborts: Vec<u8>,
    /// Blocked in a foreign subsystem at `pc`.
    pub foreign_wait: Vec<bool>,
    pub done: Vec<bool>,
    pub res: Vec<Resource>,
    pub objs: Vec<TableObject>,
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
    /// The watched session was granted while `starve > 0`.
    pub passed_then_granted: bool,
    /// Per session, a bit per [`Design::tracked`] table its running transaction used.
    pub used: Vec<u8>,
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
    /// Soft-edge reorderings the step made: (the waiter moved ahead, the owner of the
    /// pending request it passed).
    pub reorders: Vec<(usize, usize)>,
}

/// What a step's own part did ([`Design::run_op`]).
struct OpOut {
    target: &'static str,
    mdl: Option<Outcome>,
    text: String,
    deadlocked: Vec<usize>,
}

enum Try {
    Done,
    Blocked(Vec<OwnerId>),
}

fn owner(s: usize) -> OwnerId {
    OwnerId(s as u32)
}

impl Design {
    pub fn init(&self) -> DesignState {
        let mut t = LockTable::new(std::sync::Arc::new(self.d.clone()), self.config);
        for _ in &self.progs {
            t.add_session();
        }
        let n = self.progs.len();
        let mut res = vec![Resource::default(); self.res.len()];
        for (r, s, mode, dur) in &self.init_holds {
            res[*r as usize].holders.push(ResourceHold {
                s: *s,
                mode: *mode,
                dur: *dur,
            });
        }
        DesignState {
            table: t,
            pc: vec![0; n],
            round: vec![0; n],
            aborts: vec![0; n],
            foreign_wait: vec![false; n],
            done: vec![false; n],
            res,
            objs: self.objs.clone(),
            purge_obj: None,
            purge_name: None,
            bad: None,
            false_deadlock: false,
            stale_meta: false,
            deadlocks: 0,
            starve: 0,
            watched_granted: false,
            passed_then_granted: false,
            used: vec![0; n],
        }
    }

    fn op(&self, st: &DesignState, s: usize) -> Option<&(Op, &'static str)> {
        self.progs[s].ops.get(st.pc[s] as usize)
    }

    fn purge_key(&self, st: &DesignState) -> Option<MdlKey> {
        st.purge_name
            .map(|n| self.table_key(self.names[n as usize]))
    }

    /// May session `s` take a step?
    pub fn enabled(&self, st: &DesignState, s: usize) -> bool {
        if st.done[s] {
            return false;
        }
        let Some(x) = st.table.session(owner(s)) else {
            return false;
        };
        if x.wait.is_some() {
            return false;
        }
        if st.foreign_wait[s] || matches!(self.op(st, s), Some((Op::PurgeWait, _))) {
            let mut c = st.clone();
            return matches!(self.try_foreign(&mut c, s), Some(Try::Done));
        }
        true
    }

    fn advance(&self, st: &mut DesignState, s: usize) {
        st.pc[s] += 1;
        if st.pc[s] as usize >= self.progs[s].ops.len() {
            if self.progs[s].rounds == 0 {
                st.pc[s] = 0;
                return;
            }
            st.round[s] += 1;
            if st.round[s] < self.progs[s].rounds {
                st.pc[s] = 0;
            } else {
                self.finish(st, s);
            }
        }
    }

    fn finish(&self, st: &mut DesignState, s: usize) {
        let _ = st.table.disconnect(owner(s));
        self.release_foreign(
            st,
            s,
            &[
                Duration::Statement,
                Duration::Transaction,
                Duration::Explicit,
            ],
        );
        st.foreign_wait[s] = false;
        st.done[s] = true;
        st.used[s] = 0;
    }

    fn abort(&self, st: &mut DesignState, s: usize) {
        st.aborts[s] = st.aborts[s].saturating_add(1);
        st.deadlocks = st.deadlocks.saturating_add(1);
        st.foreign_wait[s] = false;
        st.used[s] = 0;
        let _ = st.table.commit(owner(s));
        let p = &self.progs[s];
        match p.on_abort {
            OnAbort::Skip(pc) => {
                self.release_foreign(st, s, &[Duration::Statement, Duration::Transaction]);
                st.pc[s] = pc;
            }
            OnAbort::Restart if st.aborts[s] <= p.retries => {
                let _ = st.table.release_explicit(owner(s));
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
}

/// A bulk request's items for [`LockTable::acquire_all`].
fn bulk_reqs(v: &[(MdlKey, LockType)]) -> Vec<BulkReq> {
    v.iter()
        .map(|(k, ty)| BulkReq {
            key: k.clone(),
            ty: *ty,
        })
        .collect()
}

fn op_key(op: &Op) -> Option<&MdlKey> {
    match op {
        Op::Acq(k, _, _) | Op::Upg(k, _) => Some(k),
        _ => None,
    }
}

impl Model for Design {
    type State = DesignState;
    type Action = u8;

    fn init_states(&self) -> Vec<DesignState> {
        vec![self.init()]
    }

    fn actions(&self, st: &DesignState, out: &mut Vec<u8>) {
        for s in 0..self.progs.len() {
            if self.enabled(st, s) {
                out.push(s as u8);
            }
        }
    }

    fn next_state(&self, st: &DesignState, a: u8) -> Option<DesignState> {
        Some(self.step(st, a as usize).0)
    }

    fn format_action(&self, a: &u8) -> String {
        self.progs[*a as usize].name.to_string()
    }

    fn properties(&self) -> Vec<Property<Self>> {
        self.checks
            .iter()
            .filter(|c| !c.is_liveness())
            .map(|c| {
                macro_rules! prop {
                    ($v:ident) => {
                        if c.is_always() {
                            Property::always(Check::$v.name(), |m: &Design, s: &DesignState| {
                                m.holds(Check::$v, s)
                            })
                        } else {
                            Property::sometimes(Check::$v.name(), |m: &Design, s: &DesignState| {
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
                    Check::Isolation => prop!(Isolation),
                    Check::NoVictim => prop!(NoVictim),
                    Check::Bounded => prop!(Bounded),
                    Check::Eventually => prop!(Eventually),
                    Check::AllDone => prop!(AllDone),
                    Check::DeadlockReported => prop!(DeadlockReported),
                    Check::WatchedGranted => prop!(WatchedGranted),
                    Check::GrantedAfterPassedOver => prop!(GrantedAfterPassedOver),
                    Check::TwoDeadlocks => prop!(TwoDeadlocks),
                    Check::NoLostWakeup => prop!(NoLostWakeup),
                }
            })
            .collect()
    }
}
