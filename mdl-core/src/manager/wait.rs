//! Waits: the wait slot (MySQL's `MDL_wait`), parking, timeouts and kills, and what a
//! context does when its wait starts and ends.
//!
//! # Invariants
//!
//! - (waits) A waiting ticket's owner has `slot.waiting` set and `slot.status` `None`
//!   until the first status is set (`Granted` by a reschedule through
//!   `CtxShared::try_grant`, `Deadlock` by the detector, `Timeout` by the clock, `Killed`
//!   by [`ContextHandle::kill`]); later ones are refused. The slot is prepared under the
//!   lock's state mutex, right after the step layer queued the ticket, so no grant comes
//!   before it is ready.
//! - (leaving) A waiter whose status is not `Granted` stays queued until it removes its
//!   own ticket, under the state mutex, with the step layer's `Lock::abandon` (which
//!   reschedules).
//! - `slot` is last in the lock order; `parked` is set only while the waiter is in
//!   `CtxShared::park` (its deadlock search is over), or while an async waiter's
//!   future (`wait_async.rs`) is registered in `waker` after its search.
//! - (wake-ups) Whoever sets the status notifies `cv` and takes `waker` in the same hold
//!   of `slot`, and wakes it after letting go of `slot`. An async waiter checks `status`
//!   and registers its `waker` in one hold of `slot` ([`CtxShared::poll_status`]), so a
//!   status set after the check finds the waker (no lost wake-up); `Waker::wake` is never
//!   called under `slot` (it may be called under a lock's state mutex: a waker must only
//!   schedule its task, as every executor's does).

use super::context::Context;
use super::map::try_grant;
use super::types::{
    ContextHandle, CtxShared, LockInner, LockObj, Meta, Pins, SlotState, StartWaits, WaitFor,
};
use super::Manager;
use crate::decide::lock::{OwnerId, Ticket};
use crate::decide::types::{LockDuration, WaitStatus};
use crate::sync::clock::Clock;
use crate::sync::spin::SpinLock;
use crate::sync::{Arc, Condvar, Mutex};
use std::task::Waker;
use tracing::debug;

impl SlotState {
    /// Sets `status` and notifies a parked thread; returns the async waiter's waker, to
    /// be woken (with [`wake`]) once `slot` is let go.
    pub(super) fn decide(&mut self, status: WaitStatus, cv: &Condvar) -> Option<Waker> {
        self.status = Some(status);
        cv.notify_all();
        self.waker.take()
    }

    /// Consumes a decided status: the wait is over (the caller drops the returned
    /// `WaitFor` after letting go of `slot`).
    fn consume(&mut self) -> Option<(WaitStatus, Option<WaitFor>)> {
        let st = self.status.take()?;
        self.parked = false;
        self.waker = None;
        Some((st, self.waiting.take()))
    }

    /// With the system clock, the wait's deadline has passed (the manual clock's
    /// deadlines are the business of [`Manager::advance_clock`]).
    fn expired(&self, clock: &Clock) -> bool {
        let deadline = self.waiting.as_ref().and_then(|w| w.deadline);
        matches!((clock, deadline), (Clock::System, Some(dl)) if clock.now_ms() >= dl)
    }
}

/// Wakes an async waiter's task (after the slot's mutex was let go).
pub(super) fn wake(w: Option<Waker>) {
    if let Some(w) = w {
        w.wake();
    }
}

impl CtxShared {
    pub(super) fn new(id: OwnerId) -> CtxShared {
        CtxShared {
            id,
            locks: SpinLock::new(Pins::default()),
            slot: Mutex::new(SlotState::default()),
            cv: Condvar::new(),
        }
    }

    /// Sets `status` if the context waits with no status yet; wakes it.
    pub(super) fn try_end(&self, status: WaitStatus) -> bool {
        let mut s = self.slot.lock();
        if s.status.is_some() || s.waiting.is_none() {
            return false;
        }
        let w = s.decide(status, &self.cv);
        drop(s);
        wake(w);
        true
    }

    /// A reschedule grants this context's waiting ticket: true when it was still
    /// undecided (it is then granted), false to leave it queued.
    pub(super) fn try_grant(&self) -> bool {
        let mut s = self.slot.lock();
        if cfg!(mdl_bug = "grant_after_timeout") {
            // Seeded bug: the grant goes ahead even when a timeout or kill came first.
            let w = match s.status {
                None => s.decide(WaitStatus::Granted, &self.cv),
                Some(_) => {
                    self.cv.notify_all();
                    s.waker.take()
                }
            };
            drop(s);
            wake(w);
            return true;
        }
        // `waiting` is gone once the waiter has consumed a status: it is on its way out
        // and will remove its ticket itself.
        if s.status.is_some() || s.waiting.is_none() {
            return false;
        }
        if cfg!(mdl_bug = "lost_wakeup") {
            // Seeded bug: the status is set, nobody is told.
            s.status = Some(WaitStatus::Granted);
            return true;
        }
        let w = s.decide(WaitStatus::Granted, &self.cv);
        drop(s);
        wake(w);
        true
    }

    /// Parks until the wait has a status; consumes it.
    pub(super) fn park(&self, clock: &Clock) -> WaitStatus {
        let mut s = self.slot.lock();
        s.parked = true;
        loop {
            if let Some((st, w)) = s.consume() {
                drop(s);
                drop(w);
                return st;
            }
            if s.expired(clock) {
                s.status = Some(WaitStatus::Timeout);
                debug!(owner = self.id.0, "mdl wait timed out");
                continue;
            }
            match s.waiting.as_ref().and_then(|w| w.deadline) {
                Some(dl) if !clock.is_manual() => {
                    s = self
                        .cv
                        .wait_timeout_ms(s, dl.saturating_sub(clock.now_ms()));
                }
                _ => s = self.cv.wait(s),
            }
        }
    }

    /// The async form of [`CtxShared::park`]: the wait's status if it is decided
    /// (consumed: the wait is over), else `None` with `waker` registered, in the same
    /// hold of `slot` as the check, so that whoever decides later wakes it.
    pub(super) fn poll_status(&self, clock: &Clock, waker: &Waker) -> Option<WaitStatus> {
        let mut s = self.slot.lock();
        if s.status.is_none() && s.expired(clock) {
            s.status = Some(WaitStatus::Timeout);
            debug!(owner = self.id.0, "mdl wait timed out");
        }
        if let Some((st, w)) = s.consume() {
            drop(s);
            drop(w);
            return Some(st);
        }
        if cfg!(mdl_bug = "async_waker_after_check") {
            // Seeded bug: the waker is registered in a second hold of the slot, after
            // the check: a status set in between finds no waker (a lost wake-up).
            drop(s);
            s = self.slot.lock();
        }
        match &s.waker {
            Some(w) if w.will_wake(waker) => {}
            _ => s.waker = Some(waker.clone()),
        }
        s.parked = true;
        None
    }

    /// Ends an undecided wait with `Killed` (a dropped future) and consumes whatever
    /// status the wait has now: `Killed`, or the one that came first.
    pub(super) fn withdraw(&self) -> WaitStatus {
        self.try_end(WaitStatus::Killed);
        let mut s = self.slot.lock();
        let (st, w) = s.consume().unwrap_or((WaitStatus::Killed, None));
        drop(s);
        drop(w);
        st
    }
}

impl std::fmt::Debug for ContextHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ContextHandle")
            .field("id", &self.sh.id)
            .finish_non_exhaustive()
    }
}

impl ContextHandle {
    /// The context's owner id.
    pub fn id(&self) -> OwnerId {
        self.sh.id
    }
    /// Aborts the context's pending wait (its outcome becomes `Killed`). Returns false
    /// when it was not waiting (or its wait had already ended).
    pub fn kill(&self) -> bool {
        let ok = self.sh.try_end(WaitStatus::Killed);
        if ok {
            debug!(owner = self.sh.id.0, "mdl wait killed");
        }
        ok
    }
    /// Ends the context's pending wait with `Timeout` now, whatever its deadline. Returns
    /// false when it was not waiting (or its wait had already ended). For a driver that
    /// orders timeouts itself with a manual clock (the scenario runner times out the waits
    /// an `advance` passes one at a time, in a fixed order: [`Manager::advance_clock`]
    /// ends them all at once, and their wake-ups then race).
    pub fn time_out(&self) -> bool {
        let ok = self.sh.try_end(WaitStatus::Timeout);
        if ok {
            debug!(owner = self.sh.id.0, "mdl wait timed out (by the driver)");
        }
        ok
    }
    /// The deadline (a clock reading) of the context's undecided wait, if it waits with
    /// a timeout.
    pub fn wait_deadline(&self) -> Option<u64> {
        self.sh.deadline()
    }
    /// The context is parked in a wait whose outcome is not decided yet. (Parked: the
    /// deadlock search its wait started is over, and every outcome that search decided
    /// for others is set.)
    pub fn is_waiting(&self) -> bool {
        let s = self.sh.slot.lock();
        s.parked && s.status.is_none() && s.waiting.is_some()
    }
}

impl Manager {
    /// With a manual clock: move time forward by `ms` and time out every wait whose
    /// deadline has passed (each such waiter's outcome becomes `Timeout`). With the
    /// system clock time is not moved, but expired waits are timed out all the same.
    pub fn advance_clock(&self, ms: u64) {
        if let Clock::Manual(m) = &self.sh.clock {
            m.advance(ms);
        }
        let now = self.sh.clock.now_ms();
        let reg = self.sh.registry.read();
        for cs in reg.live.values() {
            cs.expire(now);
        }
    }
}

impl CtxShared {
    /// Times the undecided wait out when its deadline is `now` or earlier (and wakes it).
    pub(super) fn expire(&self, now: u64) {
        let mut s = self.slot.lock();
        let expired = s.status.is_none()
            && s.waiting
                .as_ref()
                .and_then(|w| w.deadline)
                .is_some_and(|d| d <= now);
        if expired {
            let w = s.decide(WaitStatus::Timeout, &self.cv);
            drop(s);
            wake(w);
            debug!(owner = self.id.0, now_ms = now, "mdl wait timed out");
        }
    }

    /// The deadline of the undecided wait, if it has one.
    pub(super) fn deadline(&self) -> Option<u64> {
        let s = self.slot.lock();
        match (&s.status, &s.waiting) {
            (None, Some(w)) => w.deadline,
            _ => None,
        }
    }
}

impl Context {
    /// Prepares the wait slot of `t`, which the step layer queued (under the lock's state
    /// mutex, so no grant can come before the slot is ready).
    pub(super) fn enqueue(
        &self,
        obj: &Arc<LockObj>,
        g: &mut LockInner,
        t: Ticket,
        dur: LockDuration,
        timeout: Option<u64>,
    ) {
        let now = self.m().clock.now_ms();
        g.meta.insert(
            t.id,
            Meta {
                dur,
                since_ms: now,
                waited_ms: 0,
                waiter: Some(self.sh.clone()),
            },
        );
        let mut s = self.sh.slot.lock();
        s.status = None;
        s.waiting = Some(WaitFor {
            lock: obj.clone(),
            ticket: t,
            deadline: timeout.map(|ms| now.saturating_add(ms)),
        });
        debug!(owner = t.owner.0, key = ?obj.key, ty = %t.ty, ?timeout, "mdl wait");
    }

    /// Runs the detector, parks, and cleans up a wait that did not end in a grant.
    pub(super) fn wait_ending(&self, obj: &Arc<LockObj>, t: Ticket) -> WaitStatus {
        let m = self.m();
        // MySQL: MDL_context::will_wait_for materialises our fast-path grants first.
        m.place_own(&self.sh);
        m.detect(t.owner, StartWaits::Mdl);
        let status = self.sh.park(&m.clock);
        self.wait_ended(obj, t, status);
        status
    }

    /// After a wait that ended with `status`: one that did not end in a grant removes its
    /// ticket, which reschedules the lock.
    pub(super) fn wait_ended(&self, obj: &Arc<LockObj>, t: Ticket, status: WaitStatus) {
        let m = self.m();
        // MySQL: sql/mdl.cc, MDL_context::acquire_lock: a wait that ends without a grant
        // removes its ticket (MDL_lock::remove_ticket from m_waiting, which reschedules).
        if status != WaitStatus::Granted {
            let mut g = obj.state.lock();
            g.meta.remove(&t.id);
            let LockInner { st, meta } = &mut *g;
            if cfg!(mdl_bug = "no_reschedule_on_timeout") {
                // Seeded bug: the ticket leaves the queue but nobody reschedules.
                st.forget_wait(t.id);
            } else {
                let woken = st.abandon(&m.rules(&obj.key), t.id, try_grant(meta));
                m.granted(obj, meta, woken);
            }
            m.clear_slow_if(obj, &g);
            debug!(owner = t.owner.0, key = ?obj.key, ty = %t.ty, ?status, "mdl wait ended");
        }
    }
}
