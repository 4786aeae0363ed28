//! The per-lock step layer: every decision about one lock object, as a plan the shell
//! carries out (sans I/O, the way quinn-proto's connection state machine is driven).
//!
//! A [`Lock`] is one lock object's decision state ([`LockState`]) plus the upgrades waiting
//! on it. Its methods take a request, a release, a retype or the end of a wait, decide
//! with [`LockState`]'s rules, and return what the shell must do: a [`Decision`] for a
//! request (granted now, refused, or queued), and the list of waiters granted as a
//! consequence ([`Grant`]: whom to wake, and which held ticket an upgrade retyped). The
//! deadlock side is here as well: the weight of a wait ([`wait_weight`]), a waiter's
//! edges ([`Lock::wait_for`]) and the servers' victim loop ([`resolve`]) over a
//! [`DeadlockShell`].
//!
//! Two shells carry the plans out: the sequential [`crate::table::LockTable`] (books,
//! events, waits as state) and the concurrent [`crate::Manager`] (latches, wait slots,
//! the fast path). Neither decides: no grant rule, no no-wait or zero-timeout rule, no
//! reschedule loop and no victim loop is written outside this file, [`crate::decide::lock`] and
//! [`crate::decide::deadlock`].
//!
//! A shell that races its waiters against timeouts (the manager) passes `try_grant` to
//! the methods that reschedule: asked, in queue order, for each grantable waiter, it
//! returns false when that waiter already has another outcome (it then stays queued until
//! it leaves with [`Lock::abandon`]). The sequential table passes `|_| true`.

use crate::decide::deadlock::{self, Deadlock, WaitGraph};
use crate::decide::dialect::Dialect;
use crate::decide::key::MdlKey;
use crate::decide::lock::{LockState, OwnerId, Priority, Rules, Ticket, TicketId};
use crate::decide::types::{LockType, Outcome, WaitOption};

/// The settings the step layer's rules read (a lock table's settings; the manager's
/// part of [`crate::Config`]). The shells keep one and pass it to [`rules`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Config {
    /// `max_write_lock_count`; `u64::MAX` is unlimited.
    pub max_write_lock_count: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_write_lock_count: u64::MAX,
        }
    }
}

/// The rules for a key under a config: the namespace's strategy and, for namespaces that
/// `max_write_lock_count` affects, the dialect's starvation rule.
pub fn rules<'d>(d: &'d Dialect, c: Config, key: &MdlKey) -> Rules<'d> {
    let info = d.namespace(key.namespace());
    Rules {
        strategy: d.strategy(key.namespace()),
        starvation: info.starvation.then_some(d.starvation),
        max_write_lock_count: c.max_write_lock_count,
    }
}

/// One lock object (`MDL_lock` without its latch): the decision state and the upgrades
/// waiting on it.
///
/// Invariants: every pair in `upgrades` is (a ticket waiting in `state`, a ticket of the
/// same owner granted in `state`); at most one pair per owner (a context waits for one
/// ticket at a time).
#[derive(Clone, Default, PartialEq, Eq, Hash, Debug)]
pub struct Lock {
    state: LockState,
    /// Upgrades waiting here: (the waiting upgrade ticket, the held ticket it upgrades),
    /// in the order they were queued.
    upgrades: Vec<(TicketId, TicketId)>,
}

/// Reading the decision state needs no step: a [`Lock`] reads as its [`LockState`]. Every
/// change goes through the step methods.
impl std::ops::Deref for Lock {
    type Target = LockState;
    fn deref(&self) -> &LockState {
        &self.state
    }
}

/// A waiting request granted by a reschedule: the shell books it and wakes its owner.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Grant {
    pub ticket: Ticket,
    /// For an upgrade: the held ticket that took the new type (the upgrade ticket itself
    /// is gone from the lock).
    pub upgraded: Option<TicketId>,
}

/// What becomes of a request for a new ticket (an acquire, or the new type of an upgrade).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Decision {
    /// Granted now. `woken`: waiters granted as a consequence (a switch of the priority
    /// matrix, or the merge of an upgrade), in order.
    Granted { woken: Vec<Grant> },
    /// Neither granted nor queued: `Busy` (no wait) or `Timeout` (a zero timeout). The
    /// lock is as it was.
    Refused(Outcome),
    /// Queued: the shell starts the wait and runs the deadlock search ([`resolve`]).
    Queued,
}

impl Lock {
    pub fn new() -> Lock {
        Lock::default()
    }

    /// A lock from its decision state and the upgrades waiting on it, (waiting upgrade
    /// ticket, held ticket) in queue order (for [`crate::table::LockTable::from_parts`]).
    pub fn from_parts(state: LockState, upgrades: Vec<(TicketId, TicketId)>) -> Lock {
        Lock { state, upgrades }
    }

    /// The decision state (granted and waiting tickets, counters).
    pub fn state(&self) -> &LockState {
        &self.state
    }

    /// A grant decided elsewhere joins the lock: a fast-path grant that the manager
    /// materialises (it was granted while nothing obtrusive was granted or waiting, so no
    /// decision here could differ), placed by its ticket id
    /// ([`LockState::grant_in_id_order`]). No reschedule: nothing waits.
    pub fn materialise(&mut self, r: &Rules, t: Ticket) {
        self.state.grant_in_id_order(t);
        if r.strategy.fast_path {
            self.state.mark_unplaced(t.id);
        }
    }

    /// [`Lock::materialise`] of every ticket of `ts` (emptied), in one pass over the
    /// granted list ([`LockState::grant_all_in_id_order`]): a DDL that materialises the
    /// fast-path grants of n connections pays O(n log n), not O(n²).
    pub fn materialise_all(&mut self, r: &Rules, ts: &mut Vec<Ticket>) {
        if ts.is_empty() {
            return;
        }
        if r.strategy.fast_path {
            // Still the server's fast-path grants: their owners have not materialised them.
            for t in ts.iter() {
                self.state.mark_unplaced(t.id);
            }
        }
        self.state.grant_all_in_id_order(ts);
    }

    /// Would the server grant `ty` by its fast path here now (MySQL: sql/mdl.cc,
    /// `MDL_context::try_acquire_lock_impl`: an unobtrusive type while
    /// `MDL_lock::HAS_OBTRUSIVE` is clear, i.e. nothing obtrusive granted or waiting)?
    /// Such a grant enters the server's granted list only when its owner materialises it
    /// ([`Lock::place_own`]). Always false for a dialect without the fast path.
    pub fn is_fast_path(&self, r: &Rules, ty: LockType) -> bool {
        r.strategy.fast_path
            && r.strategy.is_unobtrusive(ty)
            && self.state.obtrusive_count(r.strategy) == 0
    }

    /// `owner` materialises its fast-path grants on this lock: they enter the granted
    /// list at its back (MySQL: sql/mdl.cc, `MDL_context::materialize_fast_path_locks`,
    /// which `try_acquire_lock_impl` runs before an obtrusive request and
    /// `MDL_context::will_wait_for` before a wait; `MDL_lock::Ticket_list::add_ticket`
    /// appends). `ts`: grants still outside the lock state (the manager's pins),
    /// appended after the owner's unplaced ones (one owner's order among its own tickets
    /// is no edge order). The shells call this for every lock the owner holds grants on,
    /// at the two moments above.
    pub fn place_own(&mut self, owner: OwnerId, ts: &mut Vec<Ticket>) {
        self.state.place_own(owner);
        for t in ts.drain(..) {
            self.state.grant(t);
        }
    }

    /// A request for a new ticket `t`; `upgrade` names the held ticket of `t`'s owner that
    /// takes `t`'s type once it is granted (an upgrade), `None` for an acquire.
    ///
    /// MySQL: sql/mdl.cc, `MDL_context::try_acquire_lock_impl`: granted at once when
    /// `can_grant_lock` allows, counted as a hog or piglet, and a switch of the priority
    /// matrix reschedules at once. Otherwise `MDL_context::try_acquire_lock` (no wait) and
    /// `acquire_lock` with a zero timeout give up without waiting and without a deadlock
    /// search; any other wait queues the ticket. An upgrade
    /// (`MDL_context::upgrade_shared_lock`) is an `acquire_lock` of the new type followed
    /// by the merge that gives the type to the held ticket and drops the new one.
    pub fn request(
        &mut self,
        r: &Rules,
        t: Ticket,
        upgrade: Option<TicketId>,
        wait: WaitOption,
        mut try_grant: impl FnMut(&Ticket) -> bool,
    ) -> Decision {
        if self.state.can_grant(r, t.ty, t.owner, Priority::Honoured) {
            let fast = upgrade.is_none() && self.is_fast_path(r, t.ty);
            let mut woken = Vec::new();
            let switched = self.state.grant_counted(r, t);
            if fast {
                self.state.mark_unplaced(t.id);
            }
            if switched {
                woken = self.reschedule(r, &mut try_grant);
            }
            if let Some(old) = upgrade {
                self.state.finish_upgrade(old, t.id);
                // Deliberate (mdl-core/FIDELITY.md): the servers do not reschedule after
                // the merge; a higher-ranked type need not conflict with all that the old
                // one did (SU -> SRO), and a waiter the old type held back is let in now.
                woken.extend(self.reschedule(r, &mut try_grant));
            }
            return Decision::Granted { woken };
        }
        match wait {
            WaitOption::NoWait => Decision::Refused(Outcome::Busy),
            _ if wait.timeout_ms() == Some(0) => Decision::Refused(Outcome::Timeout),
            WaitOption::Timeout(_) | WaitOption::Forever => {
                self.state.enqueue(t);
                if let Some(old) = upgrade {
                    self.upgrades.push((t.id, old));
                }
                Decision::Queued
            }
        }
    }

    /// A granted ticket without a grant decision (MySQL: sql/mdl.cc,
    /// `MDL_context::clone_ticket`: to the back of the granted list, not counted, no
    /// reschedule).
    pub fn grant_unchecked(&mut self, t: Ticket) {
        self.state.grant(t);
    }

    /// Gives back granted ticket `id` and reschedules (MySQL: sql/mdl.cc,
    /// `MDL_lock::remove_ticket` -> `reschedule_waiters`).
    pub fn release(
        &mut self,
        r: &Rules,
        id: TicketId,
        try_grant: impl FnMut(&Ticket) -> bool,
    ) -> Vec<Grant> {
        self.state.remove_granted(id);
        self.reschedule(r, try_grant)
    }

    /// Gives granted ticket `id` the type `ty` (to the back of the granted list) and
    /// reschedules: a downgrade (MySQL: sql/mdl.cc, `MDL_ticket::downgrade_lock`), or the
    /// merge of an upgrade that found a covering ticket (`upgrade_shared_lock`).
    pub fn retype(
        &mut self,
        r: &Rules,
        id: TicketId,
        ty: LockType,
        try_grant: impl FnMut(&Ticket) -> bool,
    ) -> Vec<Grant> {
        self.state.set_type(id, ty);
        self.reschedule(r, try_grant)
    }

    /// Takes waiting ticket `id` out of the queue, and its upgrade if it was one, without
    /// a reschedule (the first half of [`Lock::abandon`]).
    pub fn forget_wait(&mut self, id: TicketId) {
        self.state.remove_waiting(id);
        self.upgrades.retain(|(u, _)| *u != id);
    }

    /// A wait that ended without a grant (timeout, kill, deadlock victim) removes its
    /// ticket, and the lock reschedules (MySQL: sql/mdl.cc, `MDL_context::acquire_lock`:
    /// `MDL_lock::remove_ticket` from `m_waiting`).
    pub fn abandon(
        &mut self,
        r: &Rules,
        id: TicketId,
        try_grant: impl FnMut(&Ticket) -> bool,
    ) -> Vec<Grant> {
        self.forget_wait(id);
        self.reschedule(r, try_grant)
    }

    /// Grants every waiting request that has become grantable ([`LockState::reschedule`]),
    /// finishes the upgrades among them, and passes again while an upgrade finished (the
    /// new type need not conflict with all that the old one did: SU -> SRO).
    pub fn reschedule(
        &mut self,
        r: &Rules,
        mut try_grant: impl FnMut(&Ticket) -> bool,
    ) -> Vec<Grant> {
        let mut out = Vec::new();
        loop {
            let granted = self.state.reschedule(r, &mut try_grant);
            let mut again = false;
            for t in granted {
                let upgraded = match self.upgrades.iter().position(|(u, _)| *u == t.id) {
                    Some(i) => {
                        let (u, old) = self.upgrades.remove(i);
                        self.state.finish_upgrade(old, u);
                        again = true;
                        Some(old)
                    }
                    None => None,
                };
                out.push(Grant {
                    ticket: t,
                    upgraded,
                });
            }
            if !again {
                return out;
            }
        }
    }

    /// Appends the owners waiting ticket `t` waits for (the detector's edges:
    /// [`LockState::blockers`]), in the servers' order: the granted list, then the
    /// waiting queue (MySQL and MariaDB: sql/mdl.cc, `MDL_lock::visit_subgraph`). The
    /// granted list is in the order tickets entered the server's `m_granted`: grants
    /// when made, fast-path grants when their owner materialises them
    /// ([`Lock::place_own`]); unplaced ones (whose owners do not wait) where they lie.
    /// The search's order picks which cycle is broken first when a wait closes several.
    /// Nothing when `t` no longer waits here.
    pub fn wait_for(&self, r: &Rules, t: &Ticket, out: &mut Vec<OwnerId>) {
        if !self.state.is_waiting(t.id) {
            return;
        }
        let from = out.len();
        out.extend(self.state.blockers(r, t));
        // Seeded bug `blockers_in_owner_order`: the old design (issue 17): blockers in
        // owner order, so a wait that closes two cycles in mysql-8.0 with fast-path
        // grants finds another cycle than MySQL and gets an extra victim.
        if cfg!(mdl_bug = "blockers_in_owner_order") {
            out[from..].sort_unstable();
        }
    }

    /// The waiting ticket that makes waiting ticket `waiter`'s edge to `blocker` *soft*:
    /// `waiter` waits for `blocker` only because it yields to `blocker`'s pending request
    /// (the pending matrix in force), not because `blocker` holds a granted ticket that
    /// conflicts with it (a *hard* edge). `None` for a hard edge or no edge.
    /// PostgreSQL: src/backend/storage/lmgr/deadlock.c, `FindLockCycleRecurseMember`: an
    /// edge to a process ahead in the wait queue whose request conflicts is soft.
    pub fn soft_blocker(&self, r: &Rules, waiter: &Ticket, blocker: OwnerId) -> Option<TicketId> {
        if !self.state.is_waiting(waiter.id) {
            return None;
        }
        let mut pending = None;
        for (t, granted) in self.state.blocking_tickets(r, waiter) {
            if t.owner != blocker {
                continue;
            }
            if granted {
                return None;
            }
            pending = Some(t.id);
        }
        pending
    }

    /// Soft-edge resolution of one edge: moves waiting ticket `a` ahead of waiting ticket
    /// `b` (`a` no longer yields to `b`'s pending request) and reschedules, when that is
    /// safe; returns the grants, or `None` (and the lock is as it was) when it is not:
    /// - `b` was passed over by reorderings `max_write_lock_count` times already (a
    ///   reordering never starves a waiter past the limit that bounds the hogs);
    /// - the reschedule would switch the pending matrix in force (new pending edges among
    ///   the other waiters could close a new cycle that no search would see). Otherwise
    ///   the reordering only removes the edge `a -> b`, and whoever it lets in stops
    ///   waiting, so no new cycle forms.
    ///
    /// PostgreSQL: src/backend/storage/lmgr/deadlock.c, `DeadLockCheckRecurse` tries
    /// reversing each soft edge of a cycle and keeps the first set of constraints under
    /// which `TestConfiguration` finds no cycle; `ExpandConstraints` and `TopoSort`
    /// rewrite the wait queues (`DS_SOFT_DEADLOCK`). Here a wait queue's order among
    /// pending requests is the pending matrix, so the rewritten order is kept as the pair
    /// (a, b) ([`LockState::ahead`]).
    pub fn reorder(
        &mut self,
        r: &Rules,
        a: TicketId,
        b: TicketId,
        try_grant: impl FnMut(&Ticket) -> bool,
    ) -> Option<Vec<Grant>> {
        #[cfg(not(mdl_bug = "soft_reorder_unbounded"))]
        if u64::from(self.state.times_jumped(b)) >= r.max_write_lock_count {
            return None;
        }
        let mut trial = self.clone();
        if !trial.state.put_ahead(a, b) {
            return None;
        }
        let idx = trial.state.pending_index();
        trial.reschedule(r, |_| true);
        if trial.state.pending_index() != idx {
            return None;
        }
        self.state.put_ahead(a, b);
        // Seeded bug `mdl_bug="soft_reorder_outside_cycle"`: every other waiter that
        // yields to `b` is moved ahead of it too, on the cycle or not.
        #[cfg(mdl_bug = "soft_reorder_outside_cycle")]
        {
            let others: Vec<Ticket> = self
                .state
                .waiting()
                .iter()
                .filter(|w| w.id != a && w.id != b)
                .copied()
                .collect();
            for w in others {
                let bt = self.state.waiting().iter().find(|t| t.id == b).copied();
                if bt.is_some_and(|bt| self.state.blockers(r, &w).any(|o| o == bt.owner)) {
                    self.state.put_ahead(w.id, b);
                }
            }
        }
        Some(self.reschedule(r, try_grant))
    }

    /// Checks the invariants ([`LockState::check`], and the upgrades' own); returns a
    /// description of the first one broken.
    pub fn check(&self, r: &Rules) -> Result<(), String> {
        self.state.check(r)?;
        // One upgrade per owner follows from the state's own check: an owner waits once
        // on a lock.
        for (u, old) in &self.upgrades {
            let waiting = self.state.waiting().iter().find(|t| t.id == *u);
            match (waiting, self.state.find_granted(*old)) {
                (Some(w), Some(h)) if w.owner == h.owner => {}
                _ => {
                    return Err(format!(
                        "upgrade of ticket {} by ticket {}: not a waiting ticket over a held \
                         one of its owner",
                        old.0, u.0
                    ))
                }
            }
        }
        Ok(())
    }

    /// Renames every ticket's owner (the model checker's symmetry reduction).
    pub fn map_owners(&mut self, f: impl Fn(OwnerId) -> OwnerId) {
        self.state.map_owners(f);
    }
}

/// What a context waits for, as the deadlock weight sees it.
#[derive(Clone, Copy, Debug)]
pub enum WaitedFor {
    /// A ticket of type `ty` on a lock of `key`'s namespace.
    Mdl {
        key_ns: crate::decide::dialect::Namespace,
        ty: LockType,
    },
    /// A foreign subsystem's wait of this weight.
    Foreign(u32),
}

/// The deadlock weight of a context's wait: the lowest on a cycle is the victim. MySQL:
/// sql/mdl.h, `MDL_context::get_deadlock_weight`: a context forced to the DML weight
/// weighs DML whatever it waits for; otherwise the ticket's weight
/// (`MDL_ticket::get_deadlock_weight`, [`Dialect::weight`]) or the foreign wait's. MariaDB
/// adds its victim overweight for every time the context was chosen before.
pub fn wait_weight(d: &Dialect, w: WaitedFor, force_dml: bool, victim_count: u32) -> u32 {
    match w {
        WaitedFor::Mdl { key_ns, ty } => d.weight(
            key_ns,
            ty,
            crate::decide::dialect::WeightRule::forced_if(force_dml),
            victim_count,
        ),
        WaitedFor::Foreign(wt) => {
            let base = if force_dml { d.weights.dml } else { wt };
            base.saturating_add(d.weights.victim_overweight.saturating_mul(victim_count))
        }
    }
}

/// A shell's side of the victim loop: its live wait-for graph, and how it aborts a
/// victim.
pub trait DeadlockShell {
    type Graph<'a>: WaitGraph<Node = OwnerId>
    where
        Self: 'a;
    /// The wait-for graph as it is now.
    fn graph(&self) -> Self::Graph<'_>;
    /// The dialect's depth cap (`None`: the exact search).
    fn max_depth(&self) -> Option<u32>;
    /// Carries out the deadlock `dl` found from `start`: aborts its victim's wait, or
    /// (soft-edge resolution on) first tries [`reorder_candidates`] in order with
    /// [`Lock::soft_blocker`] and [`Lock::reorder`], and returns [`Abort::Reordered`] after
    /// the first that succeeds.
    fn abort(&mut self, dl: &Deadlock<OwnerId>, start: OwnerId) -> Abort;
}

/// The edges of a deadlock that soft-edge resolution tries to reverse, in order: every
/// edge of the cycle, (waiter, waited-for), from the start round to the closing edge.
/// A shell reverses the first one that is soft and safe ([`Lock::soft_blocker`],
/// [`Lock::reorder`]); only the waiter of that edge is moved, ahead of the other end's
/// pending request, both on the cycle. Nothing for a path the depth cap ended (no
/// cycle to break).
pub fn reorder_candidates(dl: &Deadlock<OwnerId>) -> Vec<(OwnerId, OwnerId)> {
    if dl.capped {
        return Vec::new();
    }
    let n = dl.cycle.len();
    (0..n)
        .map(|i| (dl.cycle[i], dl.cycle[(i + 1) % n]))
        .filter(|(a, b)| a != b)
        .collect()
}

/// How a shell carried out a deadlock.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Abort {
    /// This node's wait was aborted.
    Victim(OwnerId),
    /// Nothing was aborted, search again (the graph changed during the search).
    Again,
    /// Nothing more can be done (a foreign victim its subsystem would not abort).
    Stop,
    /// Soft-edge resolution broke the cycle by reordering a wait queue; nobody was
    /// aborted. Search again (another cycle through the start may remain).
    Reordered,
}

/// How the victim loop ended.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Resolved {
    /// No cycle through the start is left; it still waits.
    NoCycle,
    /// The start was chosen as the victim (its wait is aborted).
    StartIsVictim,
    /// The start no longer waits (an abort let its request in).
    Ended,
    /// The shell gave up ([`Abort::Stop`]).
    Stopped,
}

/// The victim loop (MySQL and MariaDB: sql/mdl.cc, `MDL_context::find_deadlock`): search
/// from `start`, which has just started to wait; abort the victim; unless that was
/// `start`, search again (a second cycle through the new edge may remain). With
/// soft-edge resolution the shell first tries to break the cycle by a reordering
/// ([`Abort::Reordered`]); the loop ends because each reordering removes an edge for as
/// long as both its ends wait.
pub fn resolve<S: DeadlockShell>(shell: &mut S, start: OwnerId) -> Resolved {
    loop {
        let found = deadlock::detect_with(&shell.graph(), start, shell.max_depth());
        let Some(dl) = found else {
            return Resolved::NoCycle;
        };
        match shell.abort(&dl, start) {
            Abort::Victim(v) if v == start => return Resolved::StartIsVictim,
            // The victim's abort may have let the start's request in (the table
            // reschedules at once); a start that no longer waits has no cycle left.
            Abort::Victim(_) if !shell.graph().is_waiting(start) => return Resolved::Ended,
            Abort::Victim(_) | Abort::Again => {}
            Abort::Reordered if !shell.graph().is_waiting(start) => return Resolved::Ended,
            Abort::Reordered => {}
            Abort::Stop => return Resolved::Stopped,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(id: u64, owner: u32, ty: LockType) -> Ticket {
        Ticket {
            id: TicketId(id),
            owner: OwnerId(owner),
            ty,
        }
    }

    /// The #82204 lock: s1 holds SR, s2 waits SNRW (for s1), s1 waits SW (behind s2).
    fn lock_82204(r: &Rules) -> Lock {
        let mut l = Lock::new();
        let always = |_: &Ticket| true;
        assert_eq!(
            l.request(r, t(1, 1, LockType::SR), None, WaitOption::Forever, always),
            Decision::Granted { woken: vec![] }
        );
        assert_eq!(
            l.request(
                r,
                t(2, 2, LockType::SNRW),
                None,
                WaitOption::Forever,
                always
            ),
            Decision::Queued
        );
        assert_eq!(
            l.request(r, t(3, 1, LockType::SW), None, WaitOption::Forever, always),
            Decision::Queued
        );
        l
    }

    #[test]
    fn a_soft_edge_is_reversed_once_within_the_limit() {
        let d = Dialect::mysql80();
        let key = MdlKey::new(d.namespace_by_name("TABLE").unwrap(), "db", "t");
        let mut c = Config::default();
        let r = rules(&d, c, &key);
        let l = lock_82204(&r);
        // s1's SW -> s2 is soft (s2's SNRW is pending); s2's SNRW -> s1 is hard.
        assert_eq!(
            l.soft_blocker(&r, &t(3, 1, LockType::SW), OwnerId(2)),
            Some(TicketId(2))
        );
        assert_eq!(
            l.soft_blocker(&r, &t(2, 2, LockType::SNRW), OwnerId(1)),
            None
        );
        let mut a = l.clone();
        let woken = a.reorder(&r, TicketId(3), TicketId(2), |_| true);
        assert_eq!(woken.map(|w| w.len()), Some(1), "the SW is granted");
        assert_eq!(a.times_jumped(TicketId(2)), 1);
        assert!(a.ahead().is_empty(), "the pair leaves with the granted SW");
        assert!(a.check(&r).is_ok());
        // max_write_lock_count 0: the SNRW may not be passed over at all.
        c.max_write_lock_count = 0;
        let r0 = rules(&d, c, &key);
        let mut b = l.clone();
        assert_eq!(b.reorder(&r0, TicketId(3), TicketId(2), |_| true), None);
        assert_eq!(b, l, "a refused reordering changes nothing");
    }
}
