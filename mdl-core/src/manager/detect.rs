//! Deadlock detection over the live state: the wait-for graph (`LiveGraph`, MDL and
//! [`ForeignWaits`]) and the manager's side of the step layer's victim loop
//! (`LiveShell`: the validation of a cycle and the abort of its victim).
//!
//! # Invariants
//!
//! - (deadlocks) The detector runs under `Shared::detector` (first in the lock order),
//!   from a waiter that has just started to wait, over the live graph (each waiter's
//!   lock's blockers, waiters with a decided status having no edges, plus
//!   [`ForeignWaits`]). Before it acts it re-checks every edge of the cycle found while
//!   holding the state mutexes of all the cycle's locks (in address order: the only code
//!   that holds more than one), so a graph that changed during the search never yields a
//!   false deadlock.
//! - (latches) The search holds no lock's state mutex across a visit: it reads a waiter's
//!   blockers and lets go; only the validation holds several, each once, in address
//!   order. (MySQL 5.5's search held each lock's latch for read over the visit of the
//!   subgraph behind it, which deadlocked on a latch that does not prefer readers: bug
//!   #56405, the seeded bug `detector_nested_read`. The status check above is what
//!   `MDL_lock::visit_subgraph` adds against a grant published before the waiter clears
//!   `m_waiting_for`: the seeded bug `detector_trusts_waiting_for`.)
//! - (one victim) One search aborts one victim; the loop ([`step::resolve`]) searches
//!   again only when that victim was not the requester.

use super::map::try_grant;
use super::types::{CtxShared, LockInner, LockObj, StartWaits};
use super::wait::wake;
use super::{Manager, Shared};
use crate::decide::deadlock::{ForeignWaits, WaitGraph};
use crate::decide::lock::{OwnerId, Ticket};
use crate::decide::step::{Abort, DeadlockShell, Resolved, WaitedFor};
use crate::decide::types::WaitStatus;
use crate::decide::{deadlock, step};
use crate::sync::{Arc, DataArc};
use tracing::debug;

/// How a wait ended, as seen by the validation of a cycle.
pub(super) enum Validation {
    /// The cycle was real; this node was chosen and aborted (`true`: in a foreign
    /// subsystem).
    Victim(OwnerId, bool),
    /// The graph changed during the search, or the MDL waiter chosen as the victim left
    /// its wait after the validation: search again.
    Stale,
    /// The victim is a foreign waiter that its subsystem would not abort.
    ForeignRefused,
    /// Soft-edge resolution reordered a wait queue of the validated cycle: no victim.
    Reordered,
}

impl Shared {
    /// Sets the victim's status (or aborts its foreign wait).
    pub(super) fn abort_victim(
        &self,
        v: OwnerId,
        start: OwnerId,
        foreign_start: StartWaits,
        foreign: &Option<DataArc<dyn ForeignWaits>>,
    ) -> bool {
        if let Some(cs) = self.ctx(v) {
            let mut s = cs.slot.lock();
            s.victim_count += 1;
            if s.waiting.is_some() {
                // An MDL wait: abort it, unless it has just ended some other way (then
                // the cycle is gone all the same).
                if s.status.is_none() {
                    let w = s.decide(WaitStatus::Deadlock, &cs.cv);
                    drop(s);
                    wake(w);
                    debug!(victim = v.0, requester = start.0, "mdl deadlock victim");
                }
                return true;
            }
        }
        if v == start && foreign_start == StartWaits::Foreign {
            debug!(victim = v.0, "mdl deadlock victim (foreign requester)");
            return true;
        }
        match foreign {
            Some(f) => {
                let ok = f.abort_wait(v);
                debug!(
                    victim = v.0,
                    requester = start.0,
                    aborted = ok,
                    "mdl deadlock victim (foreign wait)"
                );
                ok
            }
            None => false,
        }
    }

    /// Runs the victim loop ([`step::resolve`]) from `start` under `detector`. Returns
    /// true when `start` itself was chosen.
    pub(super) fn detect(&self, start: OwnerId, foreign_start: StartWaits) -> bool {
        let _d = self.detector.lock();
        let mut shell = LiveShell {
            g: LiveGraph::new(self),
            foreign_start,
            foreign_victims: Vec::new(),
        };
        step::resolve(&mut shell, start) == Resolved::StartIsVictim
    }

    pub(super) fn validate_and_abort(
        &self,
        g: &LiveGraph<'_>,
        dl: &deadlock::Deadlock<OwnerId>,
        start: OwnerId,
        foreign_start: StartWaits,
        foreign: &Option<DataArc<dyn ForeignWaits>>,
    ) -> Validation {
        let cycle: &[OwnerId] = &dl.cycle;
        type NodeWait = Option<(Arc<LockObj>, Ticket, DataArc<CtxShared>)>;
        // What each node waits for, as first seen.
        let waits: Vec<NodeWait> = cycle
            .iter()
            .map(|n| {
                let cs = self.ctx(*n)?;
                let s = cs.slot.lock();
                if s.status.is_some() && !TRUSTS_WAITING_FOR {
                    return None;
                }
                let w = s.waiting.as_ref()?;
                let r = (w.lock.clone(), w.ticket, cs.clone());
                drop(s);
                Some(r)
            })
            .collect();
        let mut objs: Vec<Arc<LockObj>> = waits.iter().flatten().map(|w| w.0.clone()).collect();
        objs.sort_by_key(|o| Arc::as_ptr(o) as usize);
        objs.dedup_by(|a, b| Arc::ptr_eq(a, b));
        let mut guards: Vec<_> = objs.iter().map(|o| o.state.lock()).collect();
        for (i, a) in cycle.iter().enumerate() {
            // A path the depth cap ended has no closing edge: its last node must still
            // wait (the search entered it), for anyone.
            let b = match cycle.get(i + 1) {
                Some(b) => Some(*b),
                None if dl.capped => None,
                None => Some(cycle[0]),
            };
            let mut ok = false;
            if let Some((o, t, cs)) = &waits[i] {
                let still = {
                    let s = cs.slot.lock();
                    (s.status.is_none() || TRUSTS_WAITING_FOR)
                        && s.waiting.as_ref().is_some_and(|w| w.ticket.id == t.id)
                };
                if still {
                    let gi = objs
                        .iter()
                        .position(|x| Arc::ptr_eq(x, o))
                        .expect("locked above");
                    let r = self.rules(&o.key);
                    let st = &guards[gi].st;
                    ok = (st.is_waiting(t.id) || TRUSTS_WAITING_FOR)
                        && b.is_none_or(|b| st.blockers(&r, t).any(|x| x == b));
                }
            }
            if !ok {
                if let Some(f) = foreign {
                    ok = match b {
                        Some(b) => {
                            let mut v = Vec::new();
                            f.waits_for(*a, &mut v);
                            v.contains(&b)
                        }
                        None => f.weight(*a).is_some(),
                    };
                }
            }
            if !ok {
                return Validation::Stale;
            }
        }
        // Soft-edge resolution (dialect option): the step layer's candidates, carried out
        // on the validated cycle under the same guards.
        if self.dialect.soft_edges {
            for (a, b) in step::reorder_candidates(dl) {
                let Some(i) = cycle.iter().position(|n| *n == a) else {
                    continue;
                };
                let Some((o, t, _)) = &waits[i] else { continue };
                let gi = objs
                    .iter()
                    .position(|x| Arc::ptr_eq(x, o))
                    .expect("locked above");
                let r = self.rules(&o.key);
                let g = &mut *guards[gi];
                let LockInner { st, meta } = g;
                let Some(bt) = st.soft_blocker(&r, t, b) else {
                    continue;
                };
                if let Some(woken) = st.reorder(&r, t.id, bt, try_grant(meta)) {
                    self.granted(o, meta, woken);
                    self.clear_slow_if(o, g);
                    debug!(
                        waiter = cycle[i].0,
                        ahead_of = b.0,
                        "mdl deadlock reordered"
                    );
                    return Validation::Reordered;
                }
            }
        }
        let victim = deadlock::choose_victim(g, cycle);
        let mdl_wait = waits[cycle.iter().position(|n| *n == victim).unwrap_or(0)].is_some();
        let aborted = self.abort_victim(victim, start, foreign_start, foreign);
        if cfg!(mdl_bug = "two_victims") && victim != start {
            // Seeded bug: the requester is aborted as well.
            self.abort_victim(start, start, foreign_start, foreign);
        }
        drop(guards);
        match (aborted, mdl_wait) {
            (true, _) => Validation::Victim(victim, !mdl_wait),
            // An MDL waiter of the validated cycle that can no longer be aborted has left
            // its wait since (a timeout or kill sets its status without the lock's mutex,
            // and its weight then reads as no wait, so it may have been chosen): the
            // cycle is broken there, and another may remain through the same edge.
            // Search again, as for a graph that changed during the search.
            (false, true) => Validation::Stale,
            (false, false) => Validation::ForeignRefused,
        }
    }
}

/// Seeded bug `detector_trusts_waiting_for`: the old design that
/// `MDL_lock::visit_subgraph` guards against (MySQL: sql/mdl.cc, the comment there on a
/// lock "already granted but m_waiting_for not updated yet", and its check of
/// `MDL_wait::get_status()` under the lock's latch). The search and the validation
/// trust the context's `waiting` without checking the wait slot's status (nor that the
/// ticket is still queued): a waiter granted by a reschedule, not yet awake, still
/// looks as waiting, and its old request's conflicts close a cycle that no longer
/// exists (a false deadlock error).
const TRUSTS_WAITING_FOR: bool = cfg!(mdl_bug = "detector_trusts_waiting_for");

/// The wait-for graph over the live state.
pub(super) struct LiveGraph<'a> {
    pub(super) m: &'a Shared,
    pub(super) foreign: Option<DataArc<dyn ForeignWaits>>,
    /// Seeded bug `detector_nested_read` (the old design of MySQL bug #56405): the lock
    /// objects whose state latch the search holds for read, from their visit until the
    /// search ends (MySQL 5.5's `MDL_lock::visit_subgraph` held `m_rwlock` for read while
    /// it visited the subgraph behind the lock, so a path that meets the lock again read-
    /// locks it again, nested).
    #[cfg(mdl_bug = "detector_nested_read")]
    held: std::cell::RefCell<Vec<Arc<LockObj>>>,
}

impl<'a> LiveGraph<'a> {
    pub(super) fn new(m: &'a Shared) -> LiveGraph<'a> {
        LiveGraph {
            m,
            foreign: m.foreign.read().clone(),
            #[cfg(mdl_bug = "detector_nested_read")]
            held: Default::default(),
        }
    }

    /// Gives back the read holds of the seeded bug `detector_nested_read` (before the
    /// validation, which write-locks, and when the search ends).
    fn release_held(&self) {
        #[cfg(mdl_bug = "detector_nested_read")]
        for o in self.held.borrow_mut().drain(..) {
            o.state.unlock_read();
        }
    }
}

impl Drop for LiveGraph<'_> {
    fn drop(&mut self) {
        self.release_held();
    }
}

impl WaitGraph for LiveGraph<'_> {
    type Node = OwnerId;
    fn successors(&self, n: OwnerId, out: &mut Vec<OwnerId>) {
        if let Some(cs) = self.m.ctx(n) {
            let w = {
                let s = cs.slot.lock();
                match (&s.status, &s.waiting) {
                    (None, Some(w)) => Some((w.lock.clone(), w.ticket)),
                    (Some(_), Some(w)) if TRUSTS_WAITING_FOR => Some((w.lock.clone(), w.ticket)),
                    _ => None,
                }
            };
            if let Some((o, t)) = w {
                let r = self.m.rules(&o.key);
                #[cfg(mdl_bug = "detector_nested_read")]
                {
                    // Seeded bug (MySQL #56405's old design): a read hold on the state's
                    // writer-preferring latch, kept while the search goes on.
                    let inner = o.state.read_hold();
                    inner.st.wait_for(&r, &t, out);
                    self.held.borrow_mut().push(o);
                }
                #[cfg(not(mdl_bug = "detector_nested_read"))]
                {
                    let g = o.state.lock();
                    if TRUSTS_WAITING_FOR {
                        // Seeded bug: the ticket's conflicts, queued or not.
                        out.extend(g.st.blockers(&r, &t));
                    } else {
                        g.st.wait_for(&r, &t, out);
                    }
                }
            }
        }
        if let Some(f) = &self.foreign {
            f.waits_for(n, out);
        }
    }
    fn is_waiting(&self, n: OwnerId) -> bool {
        let mdl = self.m.ctx(n).is_some_and(|cs| {
            let s = cs.slot.lock();
            (s.status.is_none() || TRUSTS_WAITING_FOR) && s.waiting.is_some()
        });
        mdl || self.foreign.as_ref().is_some_and(|f| f.weight(n).is_some())
    }
    fn weight(&self, n: OwnerId) -> u32 {
        let mut victims = 0;
        let mut force_dml = false;
        if let Some(cs) = self.m.ctx(n) {
            let s = cs.slot.lock();
            victims = s.victim_count;
            force_dml = s.force_dml;
            let waits = s.status.is_none() || TRUSTS_WAITING_FOR;
            if let (true, Some(w)) = (waits, &s.waiting) {
                let mdl = WaitedFor::Mdl {
                    key_ns: w.lock.key.namespace(),
                    ty: w.ticket.ty,
                };
                return step::wait_weight(&self.m.dialect, mdl, force_dml, victims);
            }
        }
        match self.foreign.as_ref().and_then(|f| f.weight(n)) {
            Some(wt) => {
                step::wait_weight(&self.m.dialect, WaitedFor::Foreign(wt), force_dml, victims)
            }
            None => 0,
        }
    }
}

/// The manager's side of the victim loop: the live graph, and the validation of a cycle
/// before its victim is aborted.
pub(super) struct LiveShell<'a> {
    pub(super) g: LiveGraph<'a>,
    pub(super) foreign_start: StartWaits,
    /// Foreign victims already aborted: one chosen again means its subsystem still
    /// reports the wait, and aborting it again would not end the loop.
    pub(super) foreign_victims: Vec<OwnerId>,
}

impl<'a> DeadlockShell for LiveShell<'a> {
    type Graph<'g>
        = &'g LiveGraph<'a>
    where
        Self: 'g;
    fn graph(&self) -> &LiveGraph<'a> {
        &self.g
    }
    fn max_depth(&self) -> Option<u32> {
        self.g.m.dialect.max_search_depth
    }
    fn abort(&mut self, dl: &deadlock::Deadlock<OwnerId>, start: OwnerId) -> Abort {
        let m = self.g.m;
        self.g.release_held();
        match m.validate_and_abort(&self.g, dl, start, self.foreign_start, &self.g.foreign) {
            Validation::Victim(v, true) if v != start => {
                if self.foreign_victims.contains(&v) {
                    return Abort::Stop;
                }
                self.foreign_victims.push(v);
                Abort::Victim(v)
            }
            Validation::Victim(v, _) => Abort::Victim(v),
            Validation::Stale => Abort::Again,
            Validation::ForeignRefused => Abort::Stop,
            Validation::Reordered => Abort::Reordered,
        }
    }
}

impl Manager {
    /// Joins another subsystem's waits to the wait-for graph.
    pub fn set_foreign_waits(&self, f: crate::sync::DataArc<dyn ForeignWaits>) {
        *self.sh.foreign.write() = Some(f);
    }

    /// Runs the detector from `owner`, which has just started a wait in a foreign
    /// subsystem; aborts victims until no cycle through it is left. Returns true when
    /// `owner` itself is the victim (its own wait is not aborted through
    /// [`ForeignWaits::abort_wait`]: the caller ends it). Call it holding none of the
    /// locks that the [`ForeignWaits`] methods take: the search calls them.
    pub fn detect_from(&self, owner: OwnerId) -> bool {
        // MySQL: MDL_context::will_wait_for, before any wait, materialises the context's
        // fast-path grants.
        if let Some(cs) = self.sh.ctx(owner) {
            self.sh.place_own(&cs);
        }
        self.sh.detect(owner, StartWaits::Foreign)
    }
}
