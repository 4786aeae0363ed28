//! The context (MySQL's `MDL_context`): one per connection, used by its own thread.
//! Acquire, bulk acquire, upgrade, downgrade and clone: each asks the context's
//! [`TicketBook`] for a plan, then the step layer ([`Lock::request`], [`Lock::retype`])
//! under the lock object's mutex, after the fast path (`fast.rs`) when the type allows
//! it; a request that is queued waits (`wait.rs`). Releases are in `release.rs`.
//!
//! # Invariants
//!
//! - `book` is the context's own and is changed only by its thread: it lists exactly the
//!   context's granted tickets (fast-path ones included), each counted as a use of its
//!   pin.
//! - Ticket ids come from the context's block `next_id..end_id` of `ID_BLOCK` ids, taken
//!   from the manager's counter: unique in the manager, increasing in the context.
//! - `slow` is empty between calls (scratch space of `release_ids`).

use super::fast::{stripe_of, try_fast};
use super::map::try_grant;
use super::types::{ContextHandle, CtxShared, FastGrant, LockInner, LockObj, Meta, Pin};
use super::{Manager, Shared};
use crate::decide::book::{AcquirePlan, Held, TicketBook, UpgradePlan};
use crate::decide::error::{AcquireError, Granted, MdlError};
use crate::decide::key::MdlKey;
use crate::decide::lock::{OwnerId, Ticket, TicketId};
use crate::decide::step::Decision;
use crate::decide::types::{LockDuration, LockType, Outcome, WaitOption, WaitStatus};
use crate::sync::{Arc, DataArc};
use crate::table;
use crate::table::BulkReq;
use tracing::debug;

/// A request after its grant decision: decided, or queued with its wait slot ready.
pub(super) enum Begun {
    /// The outcome, and the ticket added, if any.
    Done(Outcome, Option<TicketId>),
    /// Boxed: the fast path returns `Done` through several calls, and keeps it small.
    Queued(Box<Queued>),
}

/// A queued request: what its wait needs, and what to do when it ends.
pub(super) struct Queued {
    pub(super) obj: Arc<LockObj>,
    /// The waiting ticket.
    pub(super) t: Ticket,
    pub(super) dur: LockDuration,
    /// For an upgrade: the held ticket it upgrades, and that ticket's type before.
    pub(super) upgrade: Option<(TicketId, LockType)>,
}

/// A bulk request under way: the tickets it took so far, given back (latest first) when
/// it fails or is dropped before it is kept (MySQL: sql/mdl.cc,
/// `MDL_context::acquire_locks`: rollback, latest first).
pub(super) struct Bulk<'a> {
    pub(super) ctx: &'a mut Context,
    taken: Vec<TicketId>,
}

impl<'a> Bulk<'a> {
    pub(super) fn new(ctx: &'a mut Context) -> Bulk<'a> {
        Bulk {
            ctx,
            taken: Vec::new(),
        }
    }

    /// The next element, up to its wait.
    pub(super) fn begin(
        &mut self,
        r: &BulkReq,
        dur: LockDuration,
        wait: WaitOption,
    ) -> Result<Begun, MdlError> {
        self.ctx.waited = false;
        self.ctx.begin_acquire(&r.key, r.ty, dur, wait)
    }

    /// An element's outcome: `Some` when the bulk request fails with it.
    pub(super) fn took(&mut self, o: Outcome, new: Option<TicketId>) -> Option<Outcome> {
        self.taken.extend(new);
        (o != Outcome::Granted).then_some(o)
    }

    /// Every element was granted: keep them.
    pub(super) fn keep(mut self) -> Outcome {
        self.taken.clear();
        Outcome::Granted
    }
}

impl Drop for Bulk<'_> {
    fn drop(&mut self) {
        self.taken.reverse();
        self.ctx.release_ids(&self.taken);
    }
}

/// Ticket ids a context takes from the manager's counter at a time.
#[cfg(not(any(loom, feature = "shuttle")))]
pub(super) const ID_BLOCK: u64 = 1024;
#[cfg(any(loom, feature = "shuttle"))]
pub(super) const ID_BLOCK: u64 = 2;

/// One connection's locks. Not shared between threads; dropping it releases everything
/// and wakes whoever waited on it.
pub struct Context {
    pub(super) mgr: Manager,
    pub(super) sh: DataArc<CtxShared>,
    pub(super) book: TicketBook,
    /// The next ticket id of this context's block, and the block's end.
    pub(super) next_id: u64,
    pub(super) end_id: u64,
    /// Reused by [`Context::release_ids`]'s callers (no allocation per commit).
    pub(super) scratch: Vec<TicketId>,
    /// Reused by [`Context::release_ids`]: empty between calls.
    pub(super) slow: Vec<(Arc<LockObj>, TicketId)>,
    /// The last request waited before it was granted (read by
    /// [`Context::acquire_all_paced`]).
    pub(super) waited: bool,
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("id", &self.sh.id)
            .field("held", &self.book.held().len())
            .finish_non_exhaustive()
    }
}

impl Context {
    /// The context's owner id (as in [`LockRow::owner`](crate::LockRow::owner) and the
    /// wait-for edges).
    pub fn id(&self) -> OwnerId {
        self.sh.id
    }

    /// A handle other threads may use to kill this context's wait or see whether it
    /// waits.
    pub fn handle(&self) -> ContextHandle {
        ContextHandle {
            sh: self.sh.clone(),
        }
    }

    /// The manager this context belongs to.
    pub fn manager(&self) -> &Manager {
        &self.mgr
    }

    pub(super) fn m(&self) -> &Shared {
        &self.mgr.sh
    }

    /// A new ticket id: unique in the manager, increasing within the context.
    #[inline]
    pub(super) fn new_ticket(&mut self) -> TicketId {
        let id = self.next_ticket();
        self.next_id += 1;
        id
    }

    /// The id [`Context::new_ticket`] will give next (a new block taken if need be).
    #[inline]
    pub(super) fn next_ticket(&mut self) -> TicketId {
        if self.next_id == self.end_id {
            self.next_id = self.mgr.sh.ticket_block();
            self.end_id = self.next_id + ID_BLOCK;
        }
        TicketId(self.next_id)
    }

    /// Acquires a lock of type `ty` on `key`, held for `dur`, blocking the thread while
    /// it waits (as `wait` allows). MySQL: sql/mdl.cc, `MDL_context::acquire_lock`.
    ///
    /// A lock the context holds already that is as strong (of any duration) covers the
    /// request. When the wait closes a cycle of waiters, the deadlock search picks a
    /// victim (the lightest waiter; not necessarily this context), whose request fails
    /// with [`AcquireError::Deadlock`].
    ///
    /// ```
    /// use mdl_core::{Clock, Config, Dialect, LockDuration, LockType, Manager, WaitOption};
    /// let mgr = Manager::new(Dialect::mysql80(), Config::default(), Clock::System);
    /// let mut ctx = mgr.context();
    /// let t1 = mgr.dialect().table("test", "t1").expect("mysql-8.0 has TABLE");
    /// let granted = ctx.acquire(&t1, LockType::SR,
    ///     LockDuration::Transaction, WaitOption::Timeout(std::time::Duration::from_secs(50)))?;
    /// assert!(granted.ticket.is_some());
    /// # Ok::<(), mdl_core::AcquireError>(())
    /// ```
    ///
    /// `#[inline]` (as `acquire_outcome`): out of line, the outcome came back through
    /// memory, written with narrower stores than the caller's loads (failed
    /// store-to-load forwarding), and the call saved and restored six registers: 41 ->
    /// 33 ns per SR acquire + commit (models/BENCH.md, issue 30, fourth round). The
    /// rare parts stay out of line (`request_slow`, `wait_queued`, `pin_new`).
    #[inline]
    pub fn acquire(
        &mut self,
        key: &MdlKey,
        ty: LockType,
        dur: LockDuration,
        wait: WaitOption,
    ) -> Result<Granted, AcquireError> {
        let b = self.begin_acquire(key, ty, dur, wait)?;
        let (o, id) = self.wait_sync(b);
        Granted::result(o, id)
    }

    /// [`Context::acquire`] with the step outcome (the scenario vocabulary).
    #[doc(hidden)]
    #[inline]
    pub fn acquire_outcome(
        &mut self,
        key: &MdlKey,
        ty: LockType,
        dur: LockDuration,
        wait: WaitOption,
    ) -> Result<Outcome, MdlError> {
        match self.begin_acquire(key, ty, dur, wait)? {
            // Decided at once (the fast path among others): no wait to end.
            Begun::Done(o, _) => Ok(o),
            b => Ok(self.wait_sync(b).0),
        }
    }

    /// An acquire up to its wait, if it has one (inlined into each caller: the
    /// uncontended fast path is all of it).
    #[inline(always)]
    pub(super) fn begin_acquire(
        &mut self,
        key: &MdlKey,
        ty: LockType,
        dur: LockDuration,
        wait: WaitOption,
    ) -> Result<Begun, MdlError> {
        if !self.book.is_small() {
            // Many tickets held: the pins tell whether the key is held (`fold.rs`).
            TicketBook::check_type(&self.mgr.sh.dialect, key, ty)?;
            if let Some(b) = self.request_unheld(key, ty, dur, wait) {
                return Ok(b);
            }
            self.book.index_now();
        }
        let plan = self.book.plan_acquire(&self.mgr.sh.dialect, key, ty, dur)?;
        Ok(self.begin_planned(key, ty, dur, wait, plan))
    }

    /// Carries out an acquire plan up to its wait, if it has one.
    #[inline(always)]
    pub(super) fn begin_planned(
        &mut self,
        key: &MdlKey,
        ty: LockType,
        dur: LockDuration,
        wait: WaitOption,
        plan: AcquirePlan,
    ) -> Begun {
        match plan {
            // Seeded bug `reentrant_request_queued`: the old design of THR_LOCK's lost
            // wakeup (mysys/thr_lock.c, `thr_lock`: a read request is granted beside a
            // waiting writer only when `has_old_lock` finds the thread's own read lock;
            // without that, it queues behind the writer that waits for it). Here a
            // request that what the context holds already covers goes to the lock as a
            // new ticket, so it queues behind a pending conflicting request. MySQL's MDL
            // never asks the lock: sql/mdl.cc, `MDL_context::try_acquire_lock_impl`
            // (`find_ticket`, then `clone_ticket` for another duration).
            AcquirePlan::Reuse(_) | AcquirePlan::CloneOf(_)
                if cfg!(mdl_bug = "reentrant_request_queued") =>
            {
                let id = self.new_ticket();
                self.request(key, id, ty, dur, wait)
            }
            AcquirePlan::Reuse(_) => Begun::Done(Outcome::Granted, None),
            AcquirePlan::CloneOf(_) => {
                let id = self.new_ticket();
                self.grant_unchecked(key, id, ty, dur);
                Begun::Done(Outcome::Granted, Some(id))
            }
            AcquirePlan::New => {
                let id = self.new_ticket();
                self.request(key, id, ty, dur, wait)
            }
        }
    }

    /// Ends a request that began: blocks in its wait, if it has one.
    #[inline(always)]
    pub(super) fn wait_sync(&mut self, b: Begun) -> (Outcome, Option<TicketId>) {
        match b {
            Begun::Done(o, id) => (o, id),
            Begun::Queued(q) => self.wait_queued(*q),
        }
    }

    /// [`Context::wait_sync`] of a queued request (out of line: the decided request is
    /// the common case).
    #[inline(never)]
    fn wait_queued(&mut self, q: Queued) -> (Outcome, Option<TicketId>) {
        let st = self.wait_ending(&q.obj, q.t);
        self.end_wait(q, st)
    }

    /// Adds a granted ticket without asking the lock (a clone of a held one; MySQL:
    /// sql/mdl.cc, `MDL_context::clone_ticket`: not counted, no reschedule).
    pub(super) fn grant_unchecked(
        &mut self,
        key: &MdlKey,
        id: TicketId,
        ty: LockType,
        dur: LockDuration,
    ) {
        let me = self.id();
        let obj = self.pin_with(key, |pin| pin.obj.clone());
        {
            let m = &self.mgr.sh;
            let mut g = obj.state.lock();
            if !m.strategy(&obj.key).is_unobtrusive(ty) {
                m.ensure_slow(&obj, &mut g);
            }
            g.st.grant_unchecked(Ticket { id, owner: me, ty });
            g.meta.insert(id, Meta::granted(dur));
        }
        self.book.add(id, key.clone(), ty, dur);
    }

    /// A new ticket `id` on `key`: fast path, immediate grant, or queued (its wait is
    /// the caller's: [`Context::wait_sync`] or the async waiter).
    #[inline(always)]
    pub(super) fn request(
        &mut self,
        key: &MdlKey,
        id: TicketId,
        ty: LockType,
        dur: LockDuration,
        wait: WaitOption,
    ) -> Begun {
        // The fast path, or the object to ask (our pin counts the request as a use).
        let slow = self.pin_with(key, self.fast_or_obj(key, id, ty, dur));
        self.request_pinned(key, id, ty, dur, wait, slow)
    }

    /// What [`Context::request`] runs on the pin of the key: the fast path when the type
    /// is unobtrusive and it succeeds (the key value to record in the book, if the pin
    /// kept one), else the lock object to ask.
    #[inline(always)]
    pub(super) fn fast_or_obj(
        &self,
        key: &MdlKey,
        id: TicketId,
        ty: LockType,
        dur: LockDuration,
    ) -> impl FnOnce(&mut Pin) -> Result<Option<MdlKey>, Arc<LockObj>> {
        let unobtrusive = self.m().strategy(key).is_unobtrusive(ty);
        let fast = FastGrant { id, ty, dur };
        let stripe = stripe_of(self.id());
        move |pin| {
            if unobtrusive && try_fast(pin, stripe, fast) {
                Ok(pin.spare.take())
            } else {
                Err(pin.obj.clone())
            }
        }
    }

    /// [`Context::request`] once the pin answered ([`Context::fast_or_obj`]): a fast
    /// grant goes into the book, else the lock state decides.
    #[inline(always)]
    pub(super) fn request_pinned(
        &mut self,
        key: &MdlKey,
        id: TicketId,
        ty: LockType,
        dur: LockDuration,
        wait: WaitOption,
        slow: Result<Option<MdlKey>, Arc<LockObj>>,
    ) -> Begun {
        let me = self.id();
        debug!(owner = me.0, key = ?key, ty = %ty, ?dur, ?wait, "mdl request");
        let obj = match slow {
            Ok(spare) => {
                self.book
                    .add(id, spare.unwrap_or_else(|| key.clone()), ty, dur);
                debug!(owner = me.0, key = ?key, ty = %ty, "mdl grant (fast path)");
                return Begun::Done(Outcome::Granted, Some(id));
            }
            Err(obj) => obj,
        };
        self.request_slow(key, obj, id, ty, dur, wait)
    }

    /// [`Context::request`] past the fast path: the lock state decides, under the lock
    /// object's mutex (kept out of line: the fast path is the common case).
    #[inline(never)]
    fn request_slow(
        &mut self,
        key: &MdlKey,
        obj: Arc<LockObj>,
        id: TicketId,
        ty: LockType,
        dur: LockDuration,
        wait: WaitOption,
    ) -> Begun {
        let me = self.id();
        let unobtrusive = self.m().strategy(key).is_unobtrusive(ty);
        // Borrows `self.mgr` only: no reference count traffic on the manager.
        let m: &Shared = &self.mgr.sh;
        let t = Ticket { id, owner: me, ty };
        let r = m.rules(key);
        if !unobtrusive {
            // MySQL: try_acquire_lock_impl materialises our fast-path grants first.
            m.place_own(&self.sh);
        }
        let mut g = obj.state.lock();
        if !unobtrusive {
            m.ensure_slow(&obj, &mut g);
        }
        // (A fast-path grant is never counted as a hog or piglet, as in the servers: it
        // happens only while nothing obtrusive, hence no SRO or hog, is granted or
        // waiting.)
        let LockInner { st, meta } = &mut *g;
        match st.request(&r, t, None, wait, try_grant(meta)) {
            Decision::Granted { woken } => {
                g.meta.insert(id, Meta::granted(dur));
                m.granted(&obj, &mut g.meta, woken);
                drop(g);
                self.book.add(id, key.clone(), ty, dur);
                debug!(owner = me.0, key = ?key, ty = %ty, "mdl grant");
                return Begun::Done(Outcome::Granted, Some(id));
            }
            Decision::Refused(out) => {
                m.clear_slow_if(&obj, &g);
                drop(g);
                self.unpin(key);
                return Begun::Done(out, None);
            }
            Decision::Queued => {}
        }
        self.enqueue(&obj, &mut g, t, dur, wait.timeout_ms());
        drop(g);
        self.waited = true;
        Begun::Queued(Box::new(Queued {
            obj,
            t,
            dur,
            upgrade: None,
        }))
    }

    /// Acquires every request or none, in key order and the stronger type first on one
    /// key, as the servers sort them (MySQL: sql/mdl.cc, `MDL_context::acquire_locks`);
    /// on failure the locks it took are given back, latest first.
    pub fn acquire_all(
        &mut self,
        reqs: &[BulkReq],
        dur: LockDuration,
        wait: WaitOption,
    ) -> Result<Granted, AcquireError> {
        let o = self.acquire_all_paced(reqs, dur, wait, &mut || {})?;
        Granted::result(o, None)
    }

    /// [`Context::acquire_all`] with the step outcome.
    #[doc(hidden)]
    pub fn acquire_all_outcome(
        &mut self,
        reqs: &[BulkReq],
        dur: LockDuration,
        wait: WaitOption,
    ) -> Result<Outcome, MdlError> {
        self.acquire_all_paced(reqs, dur, wait, &mut || {})
    }

    /// [`Context::acquire_all`], calling `pause` whenever an element was granted after
    /// a wait and more elements remain, before the next one is requested. A driver that
    /// must decide the order in which woken bulk requests go on (the scenario runner:
    /// two bulk requests woken by one release would otherwise race for their next keys)
    /// blocks in `pause` until it is this context's turn. It changes no decision.
    #[doc(hidden)]
    pub fn acquire_all_paced(
        &mut self,
        reqs: &[BulkReq],
        dur: LockDuration,
        wait: WaitOption,
        pause: &mut dyn FnMut(),
    ) -> Result<Outcome, MdlError> {
        let sorted = self.bulk_sorted(reqs)?;
        let mut bulk = Bulk::new(self);
        for (i, r) in sorted.iter().enumerate() {
            let b = bulk.begin(r, dur, wait)?;
            let (o, new) = bulk.ctx.wait_sync(b);
            if let Some(failed) = bulk.took(o, new) {
                return Ok(failed);
            }
            if bulk.ctx.waited && i + 1 < sorted.len() {
                pause();
            }
        }
        Ok(bulk.keep())
    }

    /// A bulk request checked (every type is one of its key's) and sorted: key order,
    /// stronger type first on one key.
    pub(super) fn bulk_sorted(&self, reqs: &[BulkReq]) -> Result<Vec<BulkReq>, MdlError> {
        if reqs.is_empty() {
            return Err(MdlError::EmptyBulk);
        }
        let d = &self.mgr.sh.dialect;
        for r in reqs {
            TicketBook::check_type(d, &r.key, r.ty)?;
        }
        let mut sorted = reqs.to_vec();
        table::sort_bulk(&mut sorted);
        Ok(sorted)
    }

    /// Upgrades the lock held on `key` to the stronger type `ty` (e.g. `SU` to `X` for
    /// an `ALTER TABLE`), waiting as `wait` allows; on failure the lock keeps its type.
    /// MySQL: sql/mdl.cc, `MDL_context::upgrade_shared_lock`.
    pub fn upgrade(
        &mut self,
        key: &MdlKey,
        ty: LockType,
        wait: WaitOption,
    ) -> Result<Granted, AcquireError> {
        let b = self.upgrade_begin(key, ty, wait)?;
        let (o, id) = self.wait_sync(b);
        Granted::result(o, id)
    }

    /// [`Context::upgrade`] with the step outcome.
    #[doc(hidden)]
    pub fn upgrade_outcome(
        &mut self,
        key: &MdlKey,
        ty: LockType,
        wait: WaitOption,
    ) -> Result<Outcome, MdlError> {
        let b = self.upgrade_begin(key, ty, wait)?;
        Ok(self.wait_sync(b).0)
    }

    /// An upgrade up to its wait, if it has one.
    pub(super) fn upgrade_begin(
        &mut self,
        key: &MdlKey,
        ty: LockType,
        wait: WaitOption,
    ) -> Result<Begun, MdlError> {
        self.book.index_now();
        let old = match self.book.plan_upgrade(&self.mgr.sh.dialect, key, ty)? {
            UpgradePlan::NoOp(_) => return Ok(Begun::Done(Outcome::Granted, None)),
            UpgradePlan::Retype(old) => {
                // MySQL: sql/mdl.cc, MDL_context::upgrade_shared_lock: the acquire found a
                // covering ticket (no grant decision); the merge retypes `old`.
                self.retype(key, old, ty)?;
                return Ok(Begun::Done(Outcome::Granted, None));
            }
            UpgradePlan::Upgrade(old) => old,
        };
        let obj = self.pinned(key).ok_or(MdlError::NotHeld)?;
        let (dur, from) = self
            .book
            .get(old)
            .map_or((LockDuration::Transaction, ty), |h| (h.dur, h.ty));
        let id = self.new_ticket();
        let m: &Shared = &self.mgr.sh;
        let me = self.id();
        let t = Ticket { id, owner: me, ty };
        let r = m.rules(key);
        debug!(owner = me.0, key = ?key, ty = %ty, ?wait, "mdl upgrade request");
        if !m.strategy(key).is_unobtrusive(ty) {
            m.place_own(&self.sh);
        }
        let mut g = obj.state.lock();
        if !m.strategy(key).is_unobtrusive(ty) || g.st.find_granted(old).is_none() {
            m.ensure_slow(&obj, &mut g);
        }
        let LockInner { st, meta } = &mut *g;
        match st.request(&r, t, Some(old), wait, try_grant(meta)) {
            Decision::Granted { woken } => {
                m.granted(&obj, meta, woken);
                m.clear_slow_if(&obj, &g);
                drop(g);
                self.book.set_type(old, ty);
                debug!(owner = me.0, key = ?key, ty = %ty, "mdl grant (upgrade)");
                return Ok(Begun::Done(Outcome::Granted, None));
            }
            Decision::Refused(out) => {
                m.clear_slow_if(&obj, &g);
                return Ok(Begun::Done(out, None));
            }
            Decision::Queued => {}
        }
        self.enqueue(&obj, &mut g, t, dur, wait.timeout_ms());
        drop(g);
        Ok(Begun::Queued(Box::new(Queued {
            obj,
            t,
            dur,
            upgrade: Some((old, from)),
        })))
    }

    /// What a request whose wait ended with `st` leaves behind: a granted acquire joins
    /// the book, a granted upgrade retypes its held ticket, a failed acquire lets go of
    /// its pin. Returns the outcome and the ticket added, if any.
    pub(super) fn end_wait(&mut self, q: Queued, st: WaitStatus) -> (Outcome, Option<TicketId>) {
        let Queued {
            obj,
            t,
            dur,
            upgrade,
        } = q;
        match (upgrade, st) {
            (None, WaitStatus::Granted) => {
                self.book.add(t.id, obj.key.clone(), t.ty, dur);
                (Outcome::Granted, Some(t.id))
            }
            (None, other) => {
                let key = obj.key.clone();
                drop(obj);
                self.unpin(&key);
                (other.outcome(), None)
            }
            (Some((old, _)), WaitStatus::Granted) => {
                self.book.set_type(old, t.ty);
                (Outcome::Granted, None)
            }
            (Some(_), other) => (other.outcome(), None),
        }
    }

    /// Downgrades the lock held on `key` to the weaker type `ty` (an `X`, `SNW` or `SNRW`
    /// after the work that needed it), waking the requests it no longer blocks. MySQL:
    /// sql/mdl.cc, `MDL_ticket::downgrade_lock`.
    pub fn downgrade(&mut self, key: &MdlKey, ty: LockType) -> Result<(), MdlError> {
        self.book.index_now();
        let Some(id) = self.book.plan_downgrade(&self.mgr.sh.dialect, key, ty)? else {
            // MySQL: sql/mdl.cc, MDL_ticket::downgrade_lock: "Do nothing if already
            // downgraded".
            return Ok(());
        };
        self.retype(key, id, ty)?;
        debug!(owner = self.sh.id.0, key = ?key, ty = %ty, "mdl downgrade");
        Ok(())
    }

    /// Gives held ticket `id` the type `ty` (to the back of the granted list) and
    /// reschedules: a downgrade (MySQL: sql/mdl.cc, `MDL_ticket::downgrade_lock`), or the
    /// merge of an upgrade that found a covering ticket.
    pub(super) fn retype(
        &mut self,
        key: &MdlKey,
        id: TicketId,
        ty: LockType,
    ) -> Result<(), MdlError> {
        let obj = self.pinned(key).ok_or(MdlError::NotHeld)?;
        let m = &self.mgr.sh;
        {
            let mut g = obj.state.lock();
            if g.st.find_granted(id).is_none() || !m.strategy(key).is_unobtrusive(ty) {
                // A fast grant (to be retyped in the lock state), or an obtrusive type.
                m.ensure_slow(&obj, &mut g);
            }
            let LockInner { st, meta } = &mut *g;
            let woken = st.retype(&m.rules(key), id, ty, try_grant(meta));
            m.granted(&obj, meta, woken);
            m.clear_slow_if(&obj, &g);
        }
        self.book.set_type(id, ty);
        Ok(())
    }

    /// A new ticket of type `ty` (as strong as the lock held on `key` at most) and
    /// duration `dur`, granted without asking the lock. MySQL: sql/mdl.cc,
    /// `MDL_context::clone_ticket`.
    pub fn clone_ticket(
        &mut self,
        key: &MdlKey,
        ty: Option<LockType>,
        dur: LockDuration,
    ) -> Result<TicketId, MdlError> {
        self.book.index_now();
        let (_src, ty) = self.book.plan_clone(&self.mgr.sh.dialect, key, ty)?;
        let id = self.new_ticket();
        self.grant_unchecked(key, id, ty, dur);
        Ok(id)
    }

    /// Makes the context weigh as DML in the deadlock victim choice whatever it holds
    /// (MySQL's `MDL_context::set_force_dml_deadlock_weight`).
    pub fn force_dml_weight(&mut self, on: bool) {
        self.sh.slot.lock().force_dml = on;
    }

    /// MySQL: sql/mdl.cc, `MDL_context::owns_equal_or_stronger_lock` (MariaDB:
    /// `is_lock_owner`).
    pub fn owns_equal_or_stronger(&self, key: &MdlKey, ty: LockType) -> bool {
        // With many tickets held, a key whose pin has no use is not held ("(fold)",
        // `fold.rs`): no walk of the book, whose filter may not be built.
        if !self.book.is_small() && self.sh.locks.lock().get(key).is_none_or(|p| p.uses == 0) {
            return false;
        }
        let s = self.mgr.sh.strategy(key);
        self.book.on_key(key).any(|h| s.covers(h.ty, ty))
    }

    /// The locks the context holds (granted tickets), in the order they were granted.
    pub fn held(&self) -> &[Held] {
        self.book.held()
    }
}
