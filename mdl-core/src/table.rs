//! The whole lock manager as one deterministic, clonable, hashable state machine: every
//! lock's [`LockState`], every session's [`TicketBook`] and wait. No threads, no clock:
//! a step is a method call, and waits are state (`Session::wait`) that later steps of
//! other sessions (releases, timeouts, kills, deadlock aborts) resolve.
//!
//! This is what the stateright model explores and what the `sequence` fuzzer and the
//! proptest state machine drive against the reference oracle. It makes the same decisions
//! as the concurrent [`crate::Manager`], with the same code: the step layer
//! ([`crate::decide::step`]: grants, queues, reschedules, the victim loop), `TicketBook` for what a
//! context holds. This file only carries the plans out: books, waits, events.

use crate::decide::book::{AcquirePlan, TicketBook, UpgradePlan};
use crate::decide::deadlock::{self, Deadlock, WaitGraph};
use crate::decide::dialect::Dialect;
use crate::decide::error::MdlError;
use crate::decide::key::MdlKey;
use crate::decide::lock::{LockState, OwnerId, Rules, Ticket, TicketId};
use crate::decide::step::{self, Abort, DeadlockShell, Decision, Grant, Lock, Resolved, WaitedFor};
use crate::decide::types::{LockDuration, LockType, Outcome, WaitOption};
use crate::sync::DataArc as Arc;
use std::collections::BTreeMap;

/// The settings of a lock table and the rules they give, from the step layer.
pub use crate::decide::step::{rules, Config};

/// A table's dialect: shared between the clones of a table (the model checker keeps
/// millions), and the same for every state of one model, so `Hash` and `Eq` skip it.
#[derive(Clone, Debug)]
struct TableDialect(Arc<Dialect>);

impl PartialEq for TableDialect {
    fn eq(&self, _: &TableDialect) -> bool {
        true
    }
}

impl Eq for TableDialect {}

impl std::hash::Hash for TableDialect {
    fn hash<H: std::hash::Hasher>(&self, _: &mut H) {}
}

impl std::ops::Deref for TableDialect {
    type Target = Dialect;
    fn deref(&self) -> &Dialect {
        &self.0
    }
}

/// One request of a bulk acquire.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BulkReq {
    /// The key to lock.
    pub key: MdlKey,
    /// The type asked for.
    pub ty: LockType,
}

/// Sorts bulk requests as MySQL does: by key, and for one key the stronger type (higher
/// enum value) first.
pub fn sort_bulk(reqs: &mut [BulkReq]) {
    reqs.sort_by(|a, b| a.key.cmp(&b.key).then(b.ty.cmp(&a.ty)));
}

/// What a waiting session waits for.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum WaitKind {
    Acquire {
        dur: LockDuration,
    },
    /// The held ticket that takes the new type once the wait is granted.
    Upgrade {
        old: TicketId,
    },
    /// A bulk acquire: the element waited for (duration `dur`), the ones still to do.
    Bulk {
        dur: LockDuration,
        rest: Vec<BulkReq>,
        taken: Vec<TicketId>,
        wait: WaitOption,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Wait {
    pub key: MdlKey,
    pub ticket: Ticket,
    pub kind: WaitKind,
    /// The request has a finite timeout (and so may time out).
    pub timed: bool,
}

/// A bulk acquire that was granted the element it waited for and goes on with the rest
/// at the session's next step ([`LockTable::resume_bulk`]); no event is emitted for such a
/// partial grant. A session with `resume` set takes no other step until it resumes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BulkResume {
    pub dur: LockDuration,
    pub rest: Vec<BulkReq>,
    pub taken: Vec<TicketId>,
    pub wait: WaitOption,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Session {
    pub book: TicketBook,
    pub wait: Option<Wait>,
    pub resume: Option<BulkResume>,
    pub force_dml: bool,
    /// Times this session was chosen as a deadlock victim (MariaDB's overweight).
    pub victim_count: u32,
    pub gone: bool,
    /// A foreign subsystem's wait: the owners waited for and the weight.
    pub foreign: Option<(Vec<OwnerId>, u32)>,
}

/// A wait that ended during some step: the session and its outcome.
pub type Event = (OwnerId, Outcome);

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LockTable {
    /// The dialect the table decides by (left out of `Hash` and `Eq`).
    dialect: TableDialect,
    locks: BTreeMap<MdlKey, Lock>,
    sessions: Vec<Session>,
    next_ticket: u64,
    config: Config,
    /// Outcomes of other sessions' waits decided by the last call; drained by
    /// [`LockTable::take_events`].
    events: Vec<Event>,
    /// Soft-edge reorderings made by the last call (key, the waiter moved ahead, the
    /// owner of the request it passed); drained by [`LockTable::take_reorders`].
    reorders: Vec<Reorder>,
}

/// A soft-edge reordering: on `key`, the waiting request of `.1` was moved ahead of the
/// pending request of `.2`.
pub type Reorder = (MdlKey, OwnerId, OwnerId);

impl LockTable {
    /// An empty table deciding by `dialect` under `config`.
    pub fn new(dialect: Arc<Dialect>, config: Config) -> LockTable {
        LockTable {
            dialect: TableDialect(dialect),
            locks: BTreeMap::new(),
            sessions: Vec::new(),
            next_ticket: 1,
            config,
            events: Vec::new(),
            reorders: Vec::new(),
        }
    }

    pub fn config(&self) -> Config {
        self.config
    }

    pub fn dialect(&self) -> &Dialect {
        &self.dialect
    }

    /// The dialect, shared (for a table or manager of the same dialect).
    pub fn dialect_arc(&self) -> &Arc<Dialect> {
        &self.dialect.0
    }

    /// A table from its parts (for the model checker, which stores states compactly and
    /// rebuilds them to take a step): the locks that are not idle, the sessions, and the
    /// id the next ticket gets (greater than every id in use). No pending events. The
    /// upgrades waiting on each lock are read from the sessions' waits.
    pub fn from_parts(
        dialect: Arc<Dialect>,
        locks: impl IntoIterator<Item = (MdlKey, LockState)>,
        sessions: Vec<Session>,
        next_ticket: u64,
        config: Config,
    ) -> LockTable {
        let locks = locks
            .into_iter()
            .map(|(k, st)| {
                let upgrades = st
                    .waiting()
                    .iter()
                    .filter_map(|t| {
                        let w = sessions.get(t.owner.0 as usize)?.wait.as_ref()?;
                        match w.kind {
                            WaitKind::Upgrade { old } if w.ticket.id == t.id && w.key == k => {
                                Some((t.id, old))
                            }
                            _ => None,
                        }
                    })
                    .collect();
                (k, Lock::from_parts(st, upgrades))
            })
            .collect();
        LockTable {
            dialect: TableDialect(dialect),
            locks,
            sessions,
            next_ticket,
            config,
            events: Vec::new(),
            reorders: Vec::new(),
        }
    }

    /// The id the next ticket gets.
    pub fn next_ticket(&self) -> u64 {
        self.next_ticket
    }

    /// Adds a session; returns its owner id (0, 1, 2, ... in order).
    pub fn add_session(&mut self) -> OwnerId {
        self.sessions.push(Session::default());
        OwnerId(self.sessions.len() as u32 - 1)
    }

    pub fn session(&self, s: OwnerId) -> Option<&Session> {
        self.sessions.get(s.0 as usize)
    }

    pub fn sessions(&self) -> &[Session] {
        &self.sessions
    }

    pub fn locks(&self) -> impl Iterator<Item = (&MdlKey, &LockState)> {
        self.locks.iter().map(|(k, l)| (k, l.state()))
    }

    pub fn lock(&self, key: &MdlKey) -> Option<&LockState> {
        self.locks.get(key).map(Lock::state)
    }

    pub fn is_waiting(&self, s: OwnerId) -> bool {
        self.session(s)
            .is_some_and(|x| x.wait.is_some() || x.foreign.is_some())
    }

    /// Outcomes of waits that other steps ended, in the order they were decided.
    pub fn take_events(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.events)
    }

    /// Soft-edge reorderings that the last calls made, in order (see [`Reorder`]).
    pub fn take_reorders(&mut self) -> Vec<Reorder> {
        std::mem::take(&mut self.reorders)
    }

    pub fn rules(&self, key: &MdlKey) -> Rules<'_> {
        rules(&self.dialect, self.config, key)
    }

    fn live(&self, s: OwnerId) -> Result<(), MdlError> {
        let x = self.session(s).ok_or(MdlError::UnknownSession)?;
        if x.gone {
            return Err(MdlError::Disconnected);
        }
        if x.wait.is_some() || x.foreign.is_some() || x.resume.is_some() {
            return Err(MdlError::Busy);
        }
        Ok(())
    }

    fn sess(&mut self, s: OwnerId) -> &mut Session {
        &mut self.sessions[s.0 as usize]
    }

    fn new_ticket(&mut self) -> TicketId {
        let t = TicketId(self.next_ticket);
        self.next_ticket += 1;
        t
    }

    /// Does `s` own a granted lock on `key` at least as strong as `ty`? (MySQL: sql/mdl.cc,
    /// `MDL_context::owns_equal_or_stronger_lock`; MariaDB: `is_lock_owner`: `find_ticket`
    /// over every duration.)
    pub fn owns_equal_or_stronger(&self, s: OwnerId, key: &MdlKey, ty: LockType) -> bool {
        self.session(s).is_some_and(|x| {
            let st = self.dialect.strategy(key.namespace());
            x.book.on_key(key).any(|h| st.covers(h.ty, ty))
        })
    }

    // --- acquire ----------------------------------------------------------------------

    /// `acquire NS KEY TYPE [DURATION] [WAIT]`.
    pub fn acquire(
        &mut self,
        s: OwnerId,
        key: &MdlKey,
        ty: LockType,
        dur: LockDuration,
        wait: WaitOption,
    ) -> Result<Outcome, MdlError> {
        self.live(s)?;
        let plan = self.sessions[s.0 as usize]
            .book
            .plan_acquire(&self.dialect, key, ty, dur)?;
        Ok(self.acquire_planned(s, key, ty, dur, wait, plan, || WaitKind::Acquire { dur }))
    }

    #[allow(clippy::too_many_arguments)]
    fn acquire_planned(
        &mut self,
        s: OwnerId,
        key: &MdlKey,
        ty: LockType,
        dur: LockDuration,
        wait: WaitOption,
        plan: AcquirePlan,
        // Built only when the request waits: a bulk request's wait carries the rest of
        // the bulk, and building it for every element made a bulk of n keys cost n².
        kind: impl FnOnce() -> WaitKind,
    ) -> Outcome {
        match plan {
            AcquirePlan::Reuse(_) => Outcome::Granted,
            AcquirePlan::CloneOf(_) => {
                let id = self.new_ticket();
                self.locks
                    .entry(key.clone())
                    .or_default()
                    .grant_unchecked(Ticket { id, owner: s, ty });
                self.sess(s).book.add(id, key.clone(), ty, dur);
                Outcome::Granted
            }
            AcquirePlan::New => {
                let t = Ticket {
                    id: self.new_ticket(),
                    owner: s,
                    ty,
                };
                if !self.dialect.strategy(key.namespace()).is_unobtrusive(ty) {
                    self.place_own(s);
                }
                let r = rules(&self.dialect, self.config, key);
                let decision =
                    self.locks
                        .entry(key.clone())
                        .or_default()
                        .request(&r, t, None, wait, |_| true);
                if let Decision::Granted { .. } = decision {
                    self.sess(s).book.add(t.id, key.clone(), ty, dur);
                }
                self.carry_out(s, key, t, wait, decision, kind)
            }
        }
    }

    /// Carries out the step layer's decision on `s`'s request `t` on `key`.
    #[allow(clippy::too_many_arguments)]
    fn carry_out(
        &mut self,
        s: OwnerId,
        key: &MdlKey,
        t: Ticket,
        wait: WaitOption,
        decision: Decision,
        kind: impl FnOnce() -> WaitKind,
    ) -> Outcome {
        match decision {
            Decision::Granted { woken } => {
                self.finish_grants(key, woken);
                Outcome::Granted
            }
            Decision::Refused(out) => {
                self.drop_if_idle(key);
                out
            }
            Decision::Queued => {
                self.place_own(s);
                self.sess(s).wait = Some(Wait {
                    key: key.clone(),
                    ticket: t,
                    kind: kind(),
                    timed: matches!(wait, WaitOption::Timeout(_)),
                });
                self.detect(s)
            }
        }
    }

    /// `acquire_all [DURATION] [WAIT] NS KEY TYPE, ...`: in key order, stronger type first
    /// on one key; all or nothing.
    pub fn acquire_all(
        &mut self,
        s: OwnerId,
        reqs: &[BulkReq],
        dur: LockDuration,
        wait: WaitOption,
    ) -> Result<Outcome, MdlError> {
        self.live(s)?;
        if reqs.is_empty() {
            return Err(MdlError::EmptyBulk);
        }
        for r in reqs {
            TicketBook::check_type(&self.dialect, &r.key, r.ty)?;
        }
        let mut sorted = reqs.to_vec();
        sort_bulk(&mut sorted);
        Ok(self.run_bulk(s, sorted, Vec::new(), dur, wait))
    }

    /// Goes on with a bulk acquire whose last wait was granted.
    pub fn resume_bulk(&mut self, s: OwnerId) -> Result<Outcome, MdlError> {
        let x = self.session(s).ok_or(MdlError::UnknownSession)?;
        if x.wait.is_some() {
            return Err(MdlError::Busy);
        }
        let r = self.sess(s).resume.take().ok_or(MdlError::NotHeld)?;
        Ok(self.run_bulk(s, r.rest, r.taken, r.dur, r.wait))
    }

    fn run_bulk(
        &mut self,
        s: OwnerId,
        rest: Vec<BulkReq>,
        mut taken: Vec<TicketId>,
        dur: LockDuration,
        wait: WaitOption,
    ) -> Outcome {
        let mut it = rest.into_iter();
        while let Some(r) = it.next() {
            let plan = self.sessions[s.0 as usize]
                .book
                .plan_acquire(&self.dialect, &r.key, r.ty, dur)
                .expect("types checked");
            let before = self.next_ticket;
            let kind = || WaitKind::Bulk {
                dur,
                rest: it.clone().collect(),
                taken: taken.clone(),
                wait,
            };
            let out = self.acquire_planned(s, &r.key, r.ty, dur, wait, plan, kind);
            match out {
                Outcome::Granted => {
                    if self.next_ticket != before {
                        taken.push(TicketId(before));
                    }
                }
                Outcome::Waiting => return Outcome::Waiting,
                failed => {
                    // MySQL: sql/mdl.cc, MDL_context::acquire_locks: rollback_to_savepoint
                    // (and the explicit tickets stored before the old front): the
                    // tickets this call took, latest first.
                    taken.reverse();
                    self.release_ids(s, &taken);
                    return failed;
                }
            }
        }
        Outcome::Granted
    }

    // --- upgrade, downgrade, clone ----------------------------------------------------

    /// `upgrade NS KEY TYPE [WAIT]`.
    pub fn upgrade(
        &mut self,
        s: OwnerId,
        key: &MdlKey,
        ty: LockType,
        wait: WaitOption,
    ) -> Result<Outcome, MdlError> {
        self.live(s)?;
        let old = match self.sessions[s.0 as usize]
            .book
            .plan_upgrade(&self.dialect, key, ty)?
        {
            UpgradePlan::NoOp(_) => return Ok(Outcome::Granted),
            UpgradePlan::Retype(old) => {
                // MySQL: sql/mdl.cc, MDL_context::upgrade_shared_lock: the acquire found a
                // covering ticket (no grant decision); the merge retypes `old`.
                self.retype(s, key, old, ty);
                return Ok(Outcome::Granted);
            }
            UpgradePlan::Upgrade(old) => old,
        };
        let t = Ticket {
            id: self.new_ticket(),
            owner: s,
            ty,
        };
        if !self.dialect.strategy(key.namespace()).is_unobtrusive(ty) {
            self.place_own(s);
        }
        let r = rules(&self.dialect, self.config, key);
        let decision = self.locks.get_mut(key).expect("held lock exists").request(
            &r,
            t,
            Some(old),
            wait,
            |_| true,
        );
        if let Decision::Granted { .. } = decision {
            self.sess(s).book.set_type(old, ty);
        }
        Ok(self.carry_out(s, key, t, wait, decision, || WaitKind::Upgrade { old }))
    }

    /// `downgrade NS KEY TYPE`.
    pub fn downgrade(
        &mut self,
        s: OwnerId,
        key: &MdlKey,
        ty: LockType,
    ) -> Result<Outcome, MdlError> {
        self.live(s)?;
        let Some(id) = self.sessions[s.0 as usize]
            .book
            .plan_downgrade(&self.dialect, key, ty)?
        else {
            return Ok(Outcome::Ok);
        };
        // MySQL: sql/mdl.cc, MDL_ticket::downgrade_lock: retype (to the back of the
        // granted list), then reschedule_waiters.
        self.retype(s, key, id, ty);
        Ok(Outcome::Ok)
    }

    /// Gives `s`'s held ticket `id` the type `ty`, in the book and on the lock.
    fn retype(&mut self, s: OwnerId, key: &MdlKey, id: TicketId, ty: LockType) {
        self.sess(s).book.set_type(id, ty);
        let r = rules(&self.dialect, self.config, key);
        if let Some(l) = self.locks.get_mut(key) {
            let woken = l.retype(&r, id, ty, |_| true);
            self.finish_grants(key, woken);
        }
        self.drop_if_idle(key);
    }

    /// `clone NS KEY [TYPE] [DURATION]`.
    pub fn clone_ticket(
        &mut self,
        s: OwnerId,
        key: &MdlKey,
        ty: Option<LockType>,
        dur: LockDuration,
    ) -> Result<Outcome, MdlError> {
        self.live(s)?;
        let (_, ty) = self.sessions[s.0 as usize]
            .book
            .plan_clone(&self.dialect, key, ty)?;
        let id = self.new_ticket();
        self.locks
            .entry(key.clone())
            .or_default()
            .grant_unchecked(Ticket { id, owner: s, ty });
        self.sess(s).book.add(id, key.clone(), ty, dur);
        Ok(Outcome::Ok)
    }

    // --- releases ---------------------------------------------------------------------

    /// `release NS KEY [TYPE]`.
    pub fn release(
        &mut self,
        s: OwnerId,
        key: &MdlKey,
        ty: Option<LockType>,
    ) -> Result<Outcome, MdlError> {
        self.live(s)?;
        let ids = self.sessions[s.0 as usize].book.plan_release(key, ty)?;
        self.release_ids(s, &ids);
        Ok(Outcome::Ok)
    }

    /// Gives back one ticket by its id (MySQL and MariaDB: sql/mdl.cc,
    /// `MDL_context::release_lock(MDL_ticket *)`, which is given the ticket itself: a
    /// HANDLER closes its own explicit ticket, not a transaction's ticket of the same type
    /// on the same name, `mysql_ha_close_table`). `NotHeld` when the session has no such
    /// ticket (nothing changes).
    pub fn release_ticket(&mut self, s: OwnerId, id: TicketId) -> Result<Outcome, MdlError> {
        self.live(s)?;
        if self.sessions[s.0 as usize].book.get(id).is_none() {
            return Err(MdlError::NotHeld);
        }
        self.release_ids(s, &[id]);
        Ok(Outcome::Ok)
    }

    /// MySQL: sql/mdl.cc, `MDL_context::release_statement_locks`.
    pub fn end_statement(&mut self, s: OwnerId) -> Result<Outcome, MdlError> {
        self.live(s)?;
        self.release_durations(s, &[LockDuration::Statement]);
        Ok(Outcome::Ok)
    }

    /// Gives back every ticket of `durs`, each list from its front.
    fn release_durations(&mut self, s: OwnerId, durs: &[LockDuration]) {
        let ids = self.sessions[s.0 as usize].book.of_durations(durs);
        self.release_ids(s, &ids);
    }

    /// `commit` / `rollback` (MySQL: sql/mdl.cc, `MDL_context::release_transactional_locks`:
    /// the statement list, then the transaction list).
    pub fn commit(&mut self, s: OwnerId) -> Result<Outcome, MdlError> {
        self.live(s)?;
        self.release_durations(s, &[LockDuration::Statement, LockDuration::Transaction]);
        self.sess(s).book.clear_savepoints();
        Ok(Outcome::Ok)
    }

    /// MySQL: sql/mdl.cc, `release_locks_stored_before(MDL_EXPLICIT, nullptr)`; MariaDB:
    /// `MDL_context::release_explicit_locks`.
    pub fn release_explicit(&mut self, s: OwnerId) -> Result<Outcome, MdlError> {
        self.live(s)?;
        self.release_durations(s, &[LockDuration::Explicit]);
        Ok(Outcome::Ok)
    }

    pub fn savepoint(&mut self, s: OwnerId, name: &str) -> Result<Outcome, MdlError> {
        self.live(s)?;
        self.sess(s).book.savepoint(name);
        Ok(Outcome::Ok)
    }

    /// MySQL: sql/mdl.cc, `MDL_context::rollback_to_savepoint`.
    pub fn rollback_to(&mut self, s: OwnerId, name: &str) -> Result<Outcome, MdlError> {
        self.live(s)?;
        let ids = self.sessions[s.0 as usize].book.plan_rollback_to(name)?;
        self.release_ids(s, &ids);
        self.sess(s).book.forget_savepoints_after(name);
        Ok(Outcome::Ok)
    }

    /// MySQL: sql/mdl.cc, `MDL_context::set_explicit_duration_for_all_locks` and
    /// `set_transaction_duration_for_all_locks` (list order: `TicketBook::set_duration_all`).
    pub fn set_duration(&mut self, s: OwnerId, dur: LockDuration) -> Result<Outcome, MdlError> {
        self.live(s)?;
        self.sess(s).book.set_duration_all(dur);
        Ok(Outcome::Ok)
    }

    pub fn force_dml_weight(&mut self, s: OwnerId, on: bool) -> Result<Outcome, MdlError> {
        self.live(s)?;
        self.sess(s).force_dml = on;
        Ok(Outcome::Ok)
    }

    /// `disconnect`: releases everything; the session takes no further steps.
    pub fn disconnect(&mut self, s: OwnerId) -> Result<Outcome, MdlError> {
        self.live(s)?;
        let ids = self.sessions[s.0 as usize].book.all();
        self.release_ids(s, &ids);
        let x = self.sess(s);
        x.book = TicketBook::new();
        x.gone = true;
        Ok(Outcome::Ok)
    }

    /// Gives back tickets one at a time, in the order given, rescheduling the lock after
    /// each (MySQL: sql/mdl.cc, `MDL_context::release_lock` -> `MDL_lock::remove_ticket`
    /// -> `reschedule_waiters`; `release_locks_stored_before` walks a list from its
    /// front).
    fn release_ids(&mut self, s: OwnerId, ids: &[TicketId]) {
        for id in ids {
            if let Some(h) = self.sess(s).book.remove(*id) {
                let r = rules(&self.dialect, self.config, &h.key);
                if let Some(l) = self.locks.get_mut(&h.key) {
                    let woken = l.release(&r, *id, |_| true);
                    self.finish_grants(&h.key, woken);
                }
                self.drop_if_idle(&h.key);
            }
        }
    }

    // --- waits ending -----------------------------------------------------------------

    /// A timeout of `s`'s wait (any moment, for a wait with a finite timeout). Returns
    /// false when `s` does not wait with a finite timeout.
    pub fn timeout(&mut self, s: OwnerId) -> bool {
        match self.session(s).and_then(|x| x.wait.as_ref()) {
            Some(w) if w.timed => {
                self.end_wait(s, Outcome::Timeout);
                true
            }
            _ => false,
        }
    }

    /// A kill of `s`'s wait (`KILL QUERY`). Returns false when `s` does not wait.
    pub fn kill(&mut self, s: OwnerId) -> bool {
        if self.session(s).is_some_and(|x| x.wait.is_some()) {
            self.end_wait(s, Outcome::Killed);
            true
        } else if self.session(s).is_some_and(|x| x.foreign.is_some()) {
            self.sess(s).foreign = None;
            self.events.push((s, Outcome::Killed));
            true
        } else {
            false
        }
    }

    /// Ends `s`'s MDL wait without a grant; a failed bulk gives back what it took.
    fn end_wait(&mut self, s: OwnerId, out: Outcome) {
        let Some(w) = self.sess(s).wait.take() else {
            return;
        };
        let r = rules(&self.dialect, self.config, &w.key);
        if let Some(l) = self.locks.get_mut(&w.key) {
            let woken = l.abandon(&r, w.ticket.id, |_| true);
            self.finish_grants(&w.key, woken);
        }
        self.drop_if_idle(&w.key);
        if let WaitKind::Bulk { taken, .. } = &w.kind {
            // acquire_locks' rollback: latest first.
            let latest_first: Vec<TicketId> = taken.iter().rev().copied().collect();
            self.release_ids(s, &latest_first);
        }
        self.events.push((s, out));
    }

    /// Books the waits that the step layer granted, and reports them as events.
    fn finish_grants(&mut self, key: &MdlKey, granted: Vec<Grant>) {
        for Grant { ticket: t, .. } in granted {
            let x = &mut self.sessions[t.owner.0 as usize];
            let Some(w) = x.wait.take() else {
                continue;
            };
            debug_assert_eq!(w.ticket.id, t.id);
            match w.kind {
                WaitKind::Acquire { dur } => x.book.add(t.id, key.clone(), t.ty, dur),
                WaitKind::Upgrade { old } => x.book.set_type(old, t.ty),
                WaitKind::Bulk {
                    dur,
                    rest,
                    mut taken,
                    wait,
                } => {
                    x.book.add(t.id, key.clone(), t.ty, dur);
                    taken.push(t.id);
                    if !rest.is_empty() {
                        // Not done yet: no event; the session goes on with
                        // `resume_bulk` at its next step.
                        x.resume = Some(BulkResume {
                            dur,
                            rest,
                            taken,
                            wait,
                        });
                        continue;
                    }
                }
            }
            self.events.push((t.owner, Outcome::Granted));
        }
    }

    /// `s` materialises its fast-path grants: before an obtrusive request and before a
    /// wait (MySQL: sql/mdl.cc, `MDL_context::materialize_fast_path_locks`, from
    /// `try_acquire_lock_impl` and `MDL_context::will_wait_for`); each lock it holds
    /// grants on places them ([`Lock::place_own`]). Nothing without the fast path.
    fn place_own(&mut self, s: OwnerId) {
        if !self.dialect.strategies.iter().any(|st| st.fast_path) {
            return;
        }
        let Self {
            locks, sessions, ..
        } = self;
        let mut none = Vec::new();
        for h in sessions[s.0 as usize].book.held() {
            if let Some(l) = locks.get_mut(&h.key) {
                l.place_own(s, &mut none);
            }
        }
    }

    fn drop_if_idle(&mut self, key: &MdlKey) {
        if self.locks.get(key).is_some_and(|l| l.is_idle()) {
            self.locks.remove(key);
        }
    }

    // --- deadlocks --------------------------------------------------------------------

    /// Runs the victim loop ([`step::resolve`]) from `s`, which has just started to wait.
    /// Returns `s`'s outcome (`Waiting`, `Deadlock`, or `Granted` when a victim's abort let
    /// its request in).
    fn detect(&mut self, s: OwnerId) -> Outcome {
        match step::resolve(&mut TableShell { table: self }, s) {
            Resolved::StartIsVictim => {
                // Our own outcome is the step's result, not an event.
                self.events.retain(|e| *e != (s, Outcome::Deadlock));
                Outcome::Deadlock
            }
            Resolved::Ended => {
                // Rescheduling after the victim's abort granted our request: that is this
                // step's outcome, not an event; a bulk goes on in the caller's loop.
                self.events.retain(|e| *e != (s, Outcome::Granted));
                self.sess(s).resume = None;
                Outcome::Granted
            }
            Resolved::NoCycle | Resolved::Stopped => Outcome::Waiting,
        }
    }

    /// Runs the deadlock search from `s`, which waits, as if its wait had just begun: a
    /// design variant (the zoo's `mysql-switch-cycle`, models/FINDINGS.md finding 2: a
    /// search when a switch of pending matrix adds wait-for edges; the servers search only
    /// when a wait begins). Returns `s`'s outcome (`Waiting` when it still waits or does
    /// not wait); other victims are events. Changes nothing when there is no cycle.
    pub fn search_from(&mut self, s: OwnerId) -> Outcome {
        if !self.is_waiting(s) {
            return Outcome::Waiting;
        }
        self.detect(s)
    }

    /// Soft-edge resolution of the edge `a -> b`: when `a` waits on an MDL lock behind
    /// `b`'s pending request only (a soft edge) and the step layer finds the reordering
    /// safe, `a` goes ahead of `b`; the grants it makes are booked. False when nothing
    /// changed.
    fn reorder(&mut self, a: OwnerId, b: OwnerId) -> bool {
        let Some(w) = self.session(a).and_then(|x| x.wait.clone()) else {
            return false;
        };
        let r = rules(&self.dialect, self.config, &w.key);
        let Some(l) = self.locks.get_mut(&w.key) else {
            return false;
        };
        let Some(bt) = l.soft_blocker(&r, &w.ticket, b) else {
            return false;
        };
        match l.reorder(&r, w.ticket.id, bt, |_| true) {
            Some(woken) => {
                self.reorders.push((w.key.clone(), a, b));
                self.finish_grants(&w.key, woken);
                true
            }
            None => false,
        }
    }

    /// Starts a wait of `s` in a foreign subsystem (for the bug zoo): `s` waits for
    /// `holders` with `weight`. Runs the detector; returns `Waiting` or `Deadlock`.
    pub fn foreign_wait(
        &mut self,
        s: OwnerId,
        holders: Vec<OwnerId>,
        weight: u32,
    ) -> Result<Outcome, MdlError> {
        self.live(s)?;
        self.place_own(s);
        self.sess(s).foreign = Some((holders, weight));
        Ok(match step::resolve(&mut TableShell { table: self }, s) {
            Resolved::StartIsVictim => {
                self.events.retain(|e| *e != (s, Outcome::Deadlock));
                Outcome::Deadlock
            }
            _ => Outcome::Waiting,
        })
    }

    /// Ends a foreign wait of `s` with a grant (the foreign subsystem let it in).
    pub fn foreign_granted(&mut self, s: OwnerId) -> bool {
        self.sess(s).foreign.take().is_some()
    }

    /// The wait-for edges of the current state: (waiter, holder) pairs, MDL and foreign.
    pub fn wait_edges(&self) -> Vec<(OwnerId, OwnerId)> {
        let nodes = (0..self.sessions.len()).map(|i| OwnerId(i as u32));
        deadlock::edges(&TableGraph { table: self }, nodes)
    }

    /// The weight of `s`'s current wait, as the detector sees it.
    pub fn wait_weight(&self, s: OwnerId) -> u32 {
        TableGraph { table: self }.weight(s)
    }

    /// Waiting requests that the rules would grant now (there should be none: a lost
    /// wakeup otherwise). Mirrors `LockState::reschedule`'s choice.
    pub fn grantable_waiters(&self) -> Vec<(OwnerId, MdlKey, LockType)> {
        let mut out = Vec::new();
        for (k, l) in &self.locks {
            let r = rules(&self.dialect, self.config, k);
            for w in l.state().waiting() {
                if l.state().could_grant_waiter(&r, w) {
                    out.push((w.owner, k.clone(), w.ty));
                }
            }
        }
        out
    }

    /// The same table with its sessions reordered: session `i` of the result is session
    /// `order[i]` of `self` (`order` is a permutation of `0..sessions().len()`). Every
    /// owner id in locks, waits and foreign waits is renamed to match. For the model
    /// checker's symmetry reduction; `None` when `order` is not a permutation.
    pub fn permute_sessions(&self, order: &[usize]) -> Option<LockTable> {
        let n = self.sessions.len();
        let mut new_of_old = vec![usize::MAX; n];
        for (new, &old) in order.iter().enumerate() {
            if old >= n || new_of_old[old] != usize::MAX {
                return None;
            }
            new_of_old[old] = new;
        }
        if order.len() != n {
            return None;
        }
        let map = |o: OwnerId| match new_of_old.get(o.0 as usize) {
            Some(&i) => OwnerId(i as u32),
            None => o,
        };
        let mut t = self.clone();
        for l in t.locks.values_mut() {
            l.map_owners(map);
        }
        t.sessions = order
            .iter()
            .map(|&old| {
                let mut x = self.sessions[old].clone();
                if let Some(w) = &mut x.wait {
                    w.ticket.owner = map(w.ticket.owner);
                }
                if let Some((h, _)) = &mut x.foreign {
                    for o in h.iter_mut() {
                        *o = map(*o);
                    }
                }
                x
            })
            .collect();
        for e in &mut t.events {
            e.0 = map(e.0);
        }
        for r in &mut t.reorders {
            r.1 = map(r.1);
            r.2 = map(r.2);
        }
        Some(t)
    }

    /// Checks every lock's invariants and the agreement between books and locks.
    pub fn check(&self) -> Result<(), String> {
        for (k, l) in &self.locks {
            l.check(&rules(&self.dialect, self.config, k))?;
            if l.is_idle() {
                return Err(format!("idle lock {k:?} kept"));
            }
        }
        for (i, x) in self.sessions.iter().enumerate() {
            for h in x.book.held() {
                let ok = self
                    .locks
                    .get(&h.key)
                    .and_then(|l| l.state().find_granted(h.id))
                    .is_some_and(|t| t.ty == h.ty && t.owner.0 as usize == i);
                if !ok {
                    return Err(format!(
                        "session {i} holds {:?} {} but the lock disagrees",
                        h.key, h.ty
                    ));
                }
            }
        }
        Ok(())
    }
}

/// The table's side of the victim loop.
struct TableShell<'a> {
    table: &'a mut LockTable,
}

impl DeadlockShell for TableShell<'_> {
    type Graph<'g>
        = TableGraph<'g>
    where
        Self: 'g;
    fn graph(&self) -> TableGraph<'_> {
        TableGraph { table: self.table }
    }
    fn max_depth(&self) -> Option<u32> {
        self.table.dialect.max_search_depth
    }
    /// Soft-edge resolution first (when the dialect turns it on): the first edge of the
    /// cycle that is soft and safe to reverse ([`step::reorder_candidates`],
    /// [`Lock::soft_blocker`], [`Lock::reorder`]). Otherwise the victim's MDL wait ends
    /// (`Deadlock`, as an event), or its foreign wait.
    fn abort(&mut self, dl: &Deadlock<OwnerId>, _start: OwnerId) -> Abort {
        if self.table.dialect.soft_edges {
            for (a, b) in step::reorder_candidates(dl) {
                if self.table.reorder(a, b) {
                    return Abort::Reordered;
                }
            }
        }
        let v = dl.victim;
        self.table.sess(v).victim_count += 1;
        if self.table.session(v).is_some_and(|x| x.wait.is_some()) {
            self.table.end_wait(v, Outcome::Deadlock);
        } else {
            self.table.sess(v).foreign = None;
            self.table.events.push((v, Outcome::Deadlock));
        }
        Abort::Victim(v)
    }
}

struct TableGraph<'a> {
    table: &'a LockTable,
}

impl WaitGraph for TableGraph<'_> {
    type Node = OwnerId;
    fn successors(&self, n: OwnerId, out: &mut Vec<OwnerId>) {
        let Some(x) = self.table.session(n) else {
            return;
        };
        if let Some(w) = &x.wait {
            if let Some(l) = self.table.locks.get(&w.key) {
                l.wait_for(
                    &rules(&self.table.dialect, self.table.config, &w.key),
                    &w.ticket,
                    out,
                );
            }
        }
        if let Some((h, _)) = &x.foreign {
            out.extend(h.iter().copied());
        }
    }
    fn is_waiting(&self, n: OwnerId) -> bool {
        self.table.is_waiting(n)
    }
    fn weight(&self, n: OwnerId) -> u32 {
        let Some(x) = self.table.session(n) else {
            return 0;
        };
        let w = match (&x.wait, &x.foreign) {
            (Some(w), _) => WaitedFor::Mdl {
                key_ns: w.key.namespace(),
                ty: w.ticket.ty,
            },
            (None, Some((_, wt))) => WaitedFor::Foreign(*wt),
            (None, None) => return 0,
        };
        step::wait_weight(&self.table.dialect, w, x.force_dml, x.victim_count)
    }
}
