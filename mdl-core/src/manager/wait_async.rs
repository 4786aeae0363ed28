//! Async waits: [`Context::acquire_async`], [`Context::upgrade_async`] and
//! [`Context::acquire_all_async`], futures that resolve to the outcomes of the blocking
//! calls, for engines whose sessions are tasks (a blocking wait would stall every other
//! task of the executor's worker thread).
//!
//! The request, its grant decision, its queueing, the deadlock search and the end of the
//! wait are the blocking calls' own code (`Context::request`, `upgrade_begin`,
//! `Shared::detect`, `Context::wait_ended`, `Context::end_wait`); only the wait itself
//! differs: instead of parking the thread on the slot's condition variable
//! ([`CtxShared::park`]), the future registers its task's `Waker` in the wait slot
//! ([`CtxShared::poll_status`]), and whoever decides the wait (a grant, the deadlock
//! detector, a timeout, a kill) wakes it. The core names no executor.
//!
//! # The contract
//!
//! - The request is made when the future is first polled, as the blocking call would
//!   make it, and its deadlock search runs there, on the polling thread (it takes mutexes
//!   for short sections, as the blocking call does, and never waits). A request that is
//!   decided at once (granted, `Busy`, a deadlock) resolves in that first poll.
//! - A waiting future returns `Pending` and is woken once, when its wait is decided.
//! - Timeouts: the deadline is a reading of the manager's [`Clock`], as for the blocking
//!   call. With the manual clock, [`Manager::advance_clock`] times out every wait whose
//!   deadline it passes and wakes it (tests, scenarios, loom, shuttle). With the system
//!   clock the manager's timer (`sync/timer.rs`: one thread per manager, started by the
//!   first timed async wait) times the wait out at its deadline and wakes it, so no
//!   ticker is needed; the future also times out when it is polled at or after its
//!   deadline. The timer entry is cancelled when the wait ends first. A driver may still
//!   end a wait early with
//!   [`ContextHandle::time_out`]. Wrapping the future in an executor's timeout (e.g.
//!   `tokio::time::timeout`) drops it: the request is then withdrawn as a kill, not a
//!   timeout.
//! - Dropping the future before it resolves withdraws the request exactly as a kill
//!   does (MySQL: sql/mdl.cc, `MDL_wait::timed_wait` ends with `KILLED` when the
//!   connection is killed, and `MDL_context::acquire_lock` then removes the ticket from
//!   the waiting queue, which reschedules): its status becomes `Killed` unless another
//!   came first, and its ticket leaves the queue with the step layer's `Lock::abandon`,
//!   so the waiters behind it are granted. When the grant came first (the future was
//!   woken but dropped before it was polled again), nobody saw it: a dropped acquire
//!   releases the ticket it was granted, and a dropped upgrade retypes its ticket back
//!   to the type it had (each rescheduling the lock, as a release or downgrade does).
//!   A dropped bulk request also gives back the elements it was granted (as its failure
//!   does).
//! - `Waker::wake` is called after the slot's mutex is let go, but possibly under a
//!   lock object's state mutex (a grant by a reschedule): a waker must only schedule its
//!   task (as every executor's does), never poll it in place.
//!
//! # Invariants
//!
//! - `q` is `Some` until the wait is over: consumed by `poll`, or withdrawn by `drop`.
//!   The wait's ticket is in its lock's queue (with the slot's `waiting` set) exactly
//!   while `q` is `Some` and its status is not consumed.

use super::context::{Begun, Bulk, Context, Queued};
use super::types::StartWaits;
use super::Shared;
use crate::decide::error::{AcquireError, Granted, MdlError};
use crate::decide::key::MdlKey;
use crate::decide::lock::TicketId;
use crate::decide::types::{LockDuration, LockType, Outcome, WaitOption};
use crate::sync::clock::Clock;
use crate::sync::timer::TimerKey;
use crate::sync::DataArc;
use crate::table::BulkReq;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context as TaskCx, Poll};
use tracing::debug;

/// The wait of a queued request, as a future.
pub(super) struct WaitFuture<'a> {
    ctx: &'a mut Context,
    q: Option<Queued>,
    /// The wait's deadlock search has run (in the first poll).
    searched: bool,
    /// The system clock's timer entry that times the wait out, once scheduled.
    timer: Option<TimerKey>,
}

impl<'a> WaitFuture<'a> {
    pub(super) fn new(ctx: &'a mut Context, q: Queued) -> WaitFuture<'a> {
        WaitFuture {
            ctx,
            q: Some(q),
            searched: false,
            timer: None,
        }
    }
}

/// A request begun: its outcome, waiting for it if it was queued.
async fn finish(ctx: &mut Context, b: Begun) -> (Outcome, Option<TicketId>) {
    match b {
        Begun::Done(o, id) => (o, id),
        Begun::Queued(q) => WaitFuture::new(ctx, *q).await,
    }
}

impl Future for WaitFuture<'_> {
    type Output = (Outcome, Option<TicketId>);

    fn poll(self: Pin<&mut Self>, cx: &mut TaskCx<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let Some(q) = &this.q else {
            panic!("mdl: a wait future was polled after it resolved");
        };
        let m: &Shared = &this.ctx.mgr.sh;
        if !this.searched {
            // As the blocking call: the waiter's own search, once its slot is ready.
            this.searched = true;
            m.place_own(&this.ctx.sh);
            m.detect(q.t.owner, StartWaits::Mdl);
        }
        match this.ctx.sh.poll_status(&m.clock, cx.waker()) {
            None => {
                this.schedule_timeout();
                Poll::Pending
            }
            Some(st) => {
                this.cancel_timeout();
                let q = this.q.take().expect("checked above");
                this.ctx.wait_ended(&q.obj, q.t, st);
                Poll::Ready(this.ctx.end_wait(q, st))
            }
        }
    }
}

impl WaitFuture<'_> {
    /// With the system clock: has the manager's timer time the wait out at its deadline
    /// (once per wait), so the future resolves without a ticker.
    fn schedule_timeout(&mut self) {
        let m: &Shared = &self.ctx.mgr.sh;
        // Seeded bug `async_no_timer`: no timer, so a waiting future that nobody polls
        // again never times out (the contract before issue 29: the engine's ticker).
        if self.timer.is_some() || m.clock.is_manual() || cfg!(mdl_bug = "async_no_timer") {
            return;
        }
        let Some(deadline) = self.ctx.sh.deadline() else {
            return;
        };
        let cs = DataArc::downgrade(&self.ctx.sh);
        let fire = Box::new(move || {
            if let Some(cs) = cs.upgrade() {
                cs.expire(Clock::System.now_ms());
            }
        });
        self.timer = Some(m.timer.schedule(deadline, fire));
    }

    fn cancel_timeout(&mut self) {
        if let Some(k) = self.timer.take() {
            self.ctx.mgr.sh.timer.cancel(k);
        }
    }
}

impl Drop for WaitFuture<'_> {
    fn drop(&mut self) {
        self.cancel_timeout();
        let Some(q) = self.q.take() else {
            return;
        };
        // A dropped wait is a kill (MDL_wait::KILLED), unless it was decided first.
        let st = self.ctx.sh.withdraw();
        debug!(owner = q.t.owner.0, key = ?q.obj.key, ty = %q.t.ty, ?st, "mdl wait dropped");
        self.ctx.wait_ended(&q.obj, q.t, st);
        let (id, upgrade) = (q.t.id, q.upgrade);
        let key = q.obj.key.clone();
        if self.ctx.end_wait(q, st).0 != Outcome::Granted {
            return;
        }
        // Granted, and nobody saw it: undo it.
        match upgrade {
            None => self.ctx.release_ids(&[id]),
            Some((old, from)) => {
                // The ticket is held (it was just retyped): retype cannot fail here.
                let _ = self.ctx.retype(&key, old, from);
            }
        }
    }
}

impl Context {
    /// [`Context::acquire`] as a future: the same outcomes, without blocking the thread
    /// while it waits. Dropping it before it resolves withdraws the request as a kill
    /// does; timeouts follow the manager's clock (the contract: `wait_async.rs`, and
    /// `mdl-core/FIDELITY.md`, "Async waits").
    pub async fn acquire_async(
        &mut self,
        key: &MdlKey,
        ty: LockType,
        dur: LockDuration,
        wait: WaitOption,
    ) -> Result<Granted, AcquireError> {
        let b = self.begin_acquire(key, ty, dur, wait)?;
        let (o, id) = finish(self, b).await;
        Granted::result(o, id)
    }

    /// [`Context::acquire_async`] with the step outcome.
    #[doc(hidden)]
    pub async fn acquire_outcome_async(
        &mut self,
        key: &MdlKey,
        ty: LockType,
        dur: LockDuration,
        wait: WaitOption,
    ) -> Result<Outcome, MdlError> {
        let b = self.begin_acquire(key, ty, dur, wait)?;
        Ok(finish(self, b).await.0)
    }

    /// [`Context::upgrade`] as a future (see [`Context::acquire_async`]). A dropped
    /// upgrade leaves the held ticket with the type it had.
    pub async fn upgrade_async(
        &mut self,
        key: &MdlKey,
        ty: LockType,
        wait: WaitOption,
    ) -> Result<Granted, AcquireError> {
        let b = self.upgrade_begin(key, ty, wait)?;
        let (o, id) = finish(self, b).await;
        Granted::result(o, id)
    }

    /// [`Context::upgrade_async`] with the step outcome.
    #[doc(hidden)]
    pub async fn upgrade_outcome_async(
        &mut self,
        key: &MdlKey,
        ty: LockType,
        wait: WaitOption,
    ) -> Result<Outcome, MdlError> {
        let b = self.upgrade_begin(key, ty, wait)?;
        Ok(finish(self, b).await.0)
    }

    /// [`Context::acquire_all`] as a future (see [`Context::acquire_async`]): all or
    /// nothing, in key order; a dropped bulk request gives back what it was granted.
    pub async fn acquire_all_async(
        &mut self,
        reqs: &[BulkReq],
        dur: LockDuration,
        wait: WaitOption,
    ) -> Result<Granted, AcquireError> {
        let o = self.acquire_all_outcome_async(reqs, dur, wait).await?;
        Granted::result(o, None)
    }

    /// [`Context::acquire_all_async`] with the step outcome.
    #[doc(hidden)]
    pub async fn acquire_all_outcome_async(
        &mut self,
        reqs: &[BulkReq],
        dur: LockDuration,
        wait: WaitOption,
    ) -> Result<Outcome, MdlError> {
        self.acquire_all_paced_async(reqs, dur, wait, || std::future::ready(()))
            .await
    }

    /// [`Context::acquire_all_outcome_async`], awaiting `pause()` whenever an element
    /// was granted after a wait and more elements remain, before the next one is
    /// requested: the async twin of [`Context::acquire_all_paced`] (the scenario runner
    /// decides there the order in which woken bulk requests go on). It changes no
    /// decision; dropping the future in the pause gives back what it was granted.
    #[doc(hidden)]
    pub async fn acquire_all_paced_async<P: Future<Output = ()>>(
        &mut self,
        reqs: &[BulkReq],
        dur: LockDuration,
        wait: WaitOption,
        mut pause: impl FnMut() -> P,
    ) -> Result<Outcome, MdlError> {
        let sorted = self.bulk_sorted(reqs)?;
        let mut bulk = Bulk::new(self);
        for (i, r) in sorted.iter().enumerate() {
            let b = bulk.begin(r, dur, wait)?;
            let (o, new) = finish(bulk.ctx, b).await;
            if let Some(failed) = bulk.took(o, new) {
                return Ok(failed);
            }
            if bulk.ctx.waited && i + 1 < sorted.len() {
                pause().await;
            }
        }
        Ok(bulk.keep())
    }
}
