//! The per-lock decision state machine (`MDL_lock` without its latch): granted and
//! waiting tickets, the priority matrix in force, hog and piglet counters.
//!
//! Everything here is deterministic and clonable. The concurrent manager keeps one
//! [`LockState`] per lock object behind that object's mutex; the stateright model and the
//! sequential [`crate::table::LockTable`] keep them in plain maps. Both call the same
//! [`LockState::can_grant`], [`LockState::reschedule`] and [`LockState::blockers`].

use crate::decide::dialect::{Starvation, Strategy};
use crate::decide::types::{LockType, TypeSet};

/// A lock owner: one context (session, connection).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct OwnerId(pub u32);

/// A ticket (`MDL_ticket`): one granted or pending request. Unique within a manager.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct TicketId(pub u64);

/// A request on one lock, granted or waiting.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Ticket {
    pub id: TicketId,
    pub owner: OwnerId,
    pub ty: LockType,
}

/// The rules that apply to one lock: its strategy and, for namespaces affected by
/// `max_write_lock_count`, the dialect's starvation rule.
#[derive(Clone, Copy, Debug)]
pub struct Rules<'a> {
    pub strategy: &'a Strategy,
    /// `None` when the namespace is not affected by `max_write_lock_count`.
    pub starvation: Option<Starvation>,
    /// `max_write_lock_count`; `u64::MAX` is unlimited (the servers' default).
    pub max_write_lock_count: u64,
}

/// The state of one lock. Invariants (checked by [`LockState::check`]):
/// - no two granted tickets of different owners exclude each other (granted matrix: each
///   pair could have been granted in one order or the other; `granted` is in the
///   servers' list order: grants, clones and retyped tickets go to the back);
/// - every waiting ticket's owner has no other waiting ticket here;
/// - `idx` is 0 unless the rules are MySQL's starvation rule, and then it is the index
///   that the counters select, or 0 after a reset (see `reschedule`).
#[derive(Clone, Default, PartialEq, Eq, Hash, Debug)]
pub struct LockState {
    /// Granted tickets, in the order of `MDL_lock::m_granted`: each grant or clone at the
    /// back, a retyped ticket (upgrade, downgrade) moved to the back.
    granted: Vec<Ticket>,
    /// Waiting tickets, in arrival order (FIFO within priority).
    waiting: Vec<Ticket>,
    /// Successive grants of "hog" types while lower-priority requests waited.
    hog_count: u32,
    /// Successive grants of "piglet" (SW) while SRO waited.
    piglet_count: u32,
    /// The pending matrix in force (MySQL's `m_current_waiting_incompatible_idx`).
    idx: u8,
    /// Soft-edge resolution (`deadlock_resolution soft_edges`, see [`crate::decide::step`]):
    /// pairs (a, b) of waiting tickets where a was moved ahead of b to break a deadlock
    /// cycle, so a no longer yields to b's pending request. Invariant: both are waiting
    /// tickets here, of different owners; a pair leaves with either ticket. Empty unless
    /// the option is on.
    ahead: Vec<(TicketId, TicketId)>,
    /// Per waiting ticket that some reordering passed over: how many times (a reordering
    /// passes a ticket over at most `max_write_lock_count` times). Invariant: each is a
    /// waiting ticket here; an entry leaves with its ticket.
    jumped: Vec<(TicketId, u32)>,
    /// Granted tickets that the server would still count in its fast path (MySQL:
    /// `m_fast_path_state`), not yet in its granted list: granted by the fast path and not
    /// yet materialised by their owner (`MDL_context::materialize_fast_path_locks`).
    /// Their place in `granted` is provisional; [`LockState::place_own`] moves them to
    /// the back when their owner materialises them. Their owners do not wait (a wait
    /// materialises first), so the deadlock search, which enters waiting owners only,
    /// never depends on that place. Invariant: each is a granted ticket here. Empty unless
    /// the strategy has the fast path ([`Strategy::fast_path`]).
    unplaced: Vec<TicketId>,
}

/// Whether waiting requests' priority (the pending matrix) can hold a grant back:
/// [`Priority::Ignored`] for MariaDB's pass with `ignore_lock_priority` (sql/mdl.cc,
/// `MDL_lock::reschedule_waiters`' `skip_high_priority`, past `max_write_lock_count`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Priority {
    /// A waiting request of another owner that takes priority holds the grant back.
    Honoured,
    /// Only granted tickets can hold the grant back.
    Ignored,
}

impl Priority {
    /// [`Priority::Ignored`] when `skip_high` (MariaDB's pass past the limit).
    pub fn ignored_if(skip_high: bool) -> Priority {
        if skip_high {
            Priority::Ignored
        } else {
            Priority::Honoured
        }
    }
}

impl LockState {
    pub fn new() -> LockState {
        LockState::default()
    }

    /// A lock state from its parts, as [`LockState::granted`], [`LockState::waiting`],
    /// [`LockState::hog_count`], [`LockState::piglet_count`] and
    /// [`LockState::pending_index`] return them (for the model checker, which stores
    /// states compactly and rebuilds them to take a step).
    pub fn from_parts(
        granted: Vec<Ticket>,
        waiting: Vec<Ticket>,
        hog_count: u32,
        piglet_count: u32,
        pending_index: u8,
    ) -> LockState {
        LockState {
            granted,
            waiting,
            hog_count,
            piglet_count,
            idx: pending_index,
            ahead: Vec::new(),
            jumped: Vec::new(),
            unplaced: Vec::new(),
        }
    }

    /// The same state with `unplaced` as [`LockState::unplaced`] (for the model
    /// checker's decoder).
    pub fn with_unplaced(mut self, unplaced: Vec<TicketId>) -> LockState {
        self.unplaced = unplaced;
        self
    }

    /// Granted tickets not yet in the server's granted list (fast-path grants that their
    /// owner has not materialised).
    pub fn unplaced(&self) -> &[TicketId] {
        &self.unplaced
    }

    /// Granted ticket `id` (not yet marked) is a fast-path grant of the server: not in
    /// its list until its owner materialises it.
    pub fn mark_unplaced(&mut self, id: TicketId) {
        self.unplaced.push(id);
    }

    /// `owner` materialises its fast-path grants here (MySQL: sql/mdl.cc,
    /// `MDL_context::materialize_fast_path_locks`, `MDL_lock::Ticket_list::add_ticket`):
    /// its unplaced tickets go to the back of the granted list, in their order.
    pub fn place_own(&mut self, owner: OwnerId) {
        if self.unplaced.is_empty() {
            return;
        }
        // Linear in the list plus, per ticket of `owner`, the unplaced ones: a lock where
        // a DDL materialised n connections' grants is not quadratic per owner.
        let mut moved = Vec::new();
        let mut i = 0;
        while i < self.granted.len() {
            let t = self.granted[i];
            if t.owner == owner {
                if let Some(k) = self.unplaced.iter().position(|u| *u == t.id) {
                    // `remove`, not `swap_remove`: the table keeps `unplaced` in list
                    // order (the model checker's decoder rebuilds it so).
                    self.unplaced.remove(k);
                    moved.push(self.granted.remove(i));
                    continue;
                }
            }
            i += 1;
        }
        self.granted.extend(moved);
    }

    /// The same state with the soft-edge reorderings in force, as [`LockState::ahead`]
    /// and [`LockState::jumped`] return them (for the model checker's decoder).
    pub fn with_reorders(
        mut self,
        ahead: Vec<(TicketId, TicketId)>,
        jumped: Vec<(TicketId, u32)>,
    ) -> LockState {
        self.ahead = ahead;
        self.jumped = jumped;
        self
    }

    /// The reorderings in force: (a, b) when waiting ticket a was moved ahead of waiting
    /// ticket b (a no longer yields to b).
    pub fn ahead(&self) -> &[(TicketId, TicketId)] {
        &self.ahead
    }

    /// Waiting tickets that reorderings passed over, with how many times.
    pub fn jumped(&self) -> &[(TicketId, u32)] {
        &self.jumped
    }

    /// How many times reorderings passed waiting ticket `id` over.
    pub fn times_jumped(&self, id: TicketId) -> u32 {
        self.jumped
            .iter()
            .find(|(t, _)| *t == id)
            .map_or(0, |(_, n)| *n)
    }

    /// Was `owner`'s waiting ticket moved ahead of waiting ticket `other`?
    fn is_ahead(&self, owner: OwnerId, other: TicketId) -> bool {
        !self.ahead.is_empty()
            && self.ahead.iter().any(|(a, b)| {
                *b == other && self.waiting.iter().any(|w| w.id == *a && w.owner == owner)
            })
    }

    /// Moves waiting ticket `a` ahead of waiting ticket `b`: `a` no longer yields to `b`'s
    /// pending request, and `b` counts one more pass. The caller reschedules. False (and
    /// nothing changes) when either is not waiting or they have one owner.
    pub fn put_ahead(&mut self, a: TicketId, b: TicketId) -> bool {
        let (Some(ta), Some(tb)) = (
            self.waiting.iter().find(|t| t.id == a),
            self.waiting.iter().find(|t| t.id == b),
        ) else {
            return false;
        };
        if ta.owner == tb.owner {
            return false;
        }
        if !self.ahead.contains(&(a, b)) {
            self.ahead.push((a, b));
        }
        match self.jumped.iter_mut().find(|(t, _)| *t == b) {
            Some((_, n)) => *n = n.saturating_add(1),
            None => self.jumped.push((b, 1)),
        }
        true
    }

    /// A waiting ticket left the queue: its reorderings go.
    fn forget_reorders(&mut self, id: TicketId) {
        if !self.ahead.is_empty() {
            self.ahead.retain(|(a, b)| *a != id && *b != id);
        }
        if !self.jumped.is_empty() {
            self.jumped.retain(|(t, _)| *t != id);
        }
    }

    pub fn granted(&self) -> &[Ticket] {
        &self.granted
    }
    pub fn waiting(&self) -> &[Ticket] {
        &self.waiting
    }
    pub fn hog_count(&self) -> u32 {
        self.hog_count
    }
    pub fn piglet_count(&self) -> u32 {
        self.piglet_count
    }
    /// The pending matrix in force.
    pub fn pending_index(&self) -> usize {
        self.idx as usize
    }
    /// No ticket granted or waiting (the counters are then zero as well).
    pub fn is_idle(&self) -> bool {
        self.granted.is_empty() && self.waiting.is_empty()
    }

    pub fn granted_types(&self) -> TypeSet {
        self.granted.iter().map(|t| t.ty).collect()
    }
    pub fn waiting_types(&self) -> TypeSet {
        self.waiting.iter().map(|t| t.ty).collect()
    }

    /// Granted and waiting tickets of obtrusive (non-fast-path) types.
    pub fn obtrusive_count(&self, s: &Strategy) -> usize {
        self.granted
            .iter()
            .chain(&self.waiting)
            .filter(|t| !s.is_unobtrusive(t.ty))
            .count()
    }

    /// Can `owner` be granted `ty` now? Yes when no waiting request of another owner takes
    /// priority over it (the pending matrix in force, unless [`Priority::Ignored`]) and no
    /// granted ticket of another owner conflicts with it.
    /// MySQL: sql/mdl.cc, `MDL_lock::can_grant_lock` (its waiting test reads the bitmap of
    /// all waiting tickets, the requester's own included; no pending matrix of either
    /// dialect has a type yield to itself, and a context waits for one ticket at a time,
    /// so leaving out the requester's own changes nothing). MariaDB: the same, with
    /// `ignore_lock_priority`.
    pub fn can_grant(&self, r: &Rules, ty: LockType, owner: OwnerId, priority: Priority) -> bool {
        let s = r.strategy;
        // Seeded bug `mdl_bug="no_pending_priority"`: waiting requests never hold back a
        // new one (the pending matrices are ignored), as before MySQL's fix of bug #54673:
        // a stream of DML starves FLUSH TABLES WITH READ LOCK.
        #[cfg(mdl_bug = "no_pending_priority")]
        let priority = Priority::Ignored;
        if priority == Priority::Honoured {
            let yields = s.pending[self.idx as usize][ty.0 as usize];
            if self
                .waiting
                .iter()
                .any(|w| w.owner != owner && yields.contains(w.ty) && !self.is_ahead(owner, w.id))
            {
                return false;
            }
        }
        let incompatible = s.granted[ty.0 as usize];
        // Seeded bug `mdl_bug="grant_ignores_conflict"`: a SHARED_READ request ignores
        // granted conflicts (two sessions end up holding SR and X on one key).
        #[cfg(mdl_bug = "grant_ignores_conflict")]
        if ty == LockType::SR {
            return true;
        }
        !self
            .granted
            .iter()
            .any(|g| g.owner != owner && incompatible.contains(g.ty))
    }

    /// Renames every ticket's owner (for the model checker's symmetry reduction, which
    /// permutes sessions with identical programs).
    pub fn map_owners(&mut self, f: impl Fn(OwnerId) -> OwnerId) {
        for t in self.granted.iter_mut().chain(self.waiting.iter_mut()) {
            t.owner = f(t.owner);
        }
    }

    /// Adds a granted ticket (after `can_grant`, or for a clone of a held lock) at the
    /// back of the granted list (MySQL: sql/mdl.cc, `MDL_lock::Ticket_list::add_ticket`).
    pub fn grant(&mut self, t: Ticket) {
        self.granted.push(t);
    }

    /// Adds a ticket granted without waiting after `can_grant`, and counts it as MySQL
    /// does (sql/mdl.cc, `MDL_context::try_acquire_lock_impl`: "If we have acquired an
    /// higher-prio "piglet" or "hog" lock while there are pending lower priority locks,
    /// we need to increment the appropriate counter"). Returns true when the priority
    /// matrix changed: the caller must then reschedule the waiters (the server calls
    /// `reschedule_waiters` at once). MariaDB counts hogs only when it grants a waiter
    /// (its `try_acquire_lock_impl` does not count), so under its rule this only grants.
    pub fn grant_counted(&mut self, r: &Rules, t: Ticket) -> bool {
        self.granted.push(t);
        r.starvation == Some(Starvation::Mysql) && self.count_piglets_and_hogs(r, t.ty)
    }

    /// Adds a granted ticket where a grant in ticket order would have put it: before the
    /// first granted ticket with a higher id. (The concurrent manager's materialised
    /// fast-path grants take the place they would have had in grant order.)
    pub fn grant_in_id_order(&mut self, t: Ticket) {
        let i = self
            .granted
            .iter()
            .position(|g| g.id > t.id)
            .unwrap_or(self.granted.len());
        self.granted.insert(i, t);
    }

    /// [`LockState::grant_in_id_order`] of every ticket of `ts` (emptied; ids distinct),
    /// as one merge: each goes before the first granted ticket with a higher id, which
    /// is where inserting them one by one, in any order, puts them.
    pub fn grant_all_in_id_order(&mut self, ts: &mut Vec<Ticket>) {
        ts.sort_unstable_by_key(|t| t.id);
        let old = std::mem::take(&mut self.granted);
        self.granted.reserve(old.len() + ts.len());
        let mut new = ts.drain(..).peekable();
        for g in old {
            while let Some(t) = new.next_if(|t| t.id < g.id) {
                self.granted.push(t);
            }
            self.granted.push(g);
        }
        self.granted.extend(new);
    }

    /// Appends a waiting ticket at the back of the queue.
    pub fn enqueue(&mut self, t: Ticket) {
        self.waiting.push(t);
    }

    pub fn find_granted(&self, id: TicketId) -> Option<&Ticket> {
        self.granted.iter().find(|t| t.id == id)
    }

    pub fn is_waiting(&self, id: TicketId) -> bool {
        self.waiting.iter().any(|t| t.id == id)
    }

    /// Removes a granted ticket. The caller reschedules afterwards.
    pub fn remove_granted(&mut self, id: TicketId) -> Option<Ticket> {
        let i = self.granted.iter().position(|t| t.id == id)?;
        if !self.unplaced.is_empty() {
            self.unplaced.retain(|u| *u != id);
        }
        Some(self.granted.remove(i))
    }

    /// Removes a waiting ticket (timeout, kill, victim). The caller reschedules.
    pub fn remove_waiting(&mut self, id: TicketId) -> Option<Ticket> {
        let i = self.waiting.iter().position(|t| t.id == id)?;
        self.forget_reorders(id);
        Some(self.waiting.remove(i))
    }

    /// Changes the type of a granted ticket and moves it to the back of the granted list
    /// (MySQL and MariaDB: sql/mdl.cc, `MDL_ticket::downgrade_lock` removes the ticket and
    /// adds it again). The caller reschedules.
    pub fn set_type(&mut self, id: TicketId, ty: LockType) -> bool {
        self.upgrade_in_place(id, ty)
    }

    /// An upgrade waits as a ticket of its own (`upgrade_ticket`); once that is granted the
    /// old ticket takes the new type and the upgrade ticket disappears.
    pub fn finish_upgrade(&mut self, old: TicketId, upgrade_ticket: TicketId) -> bool {
        match self.remove_granted(upgrade_ticket) {
            Some(t) => self.upgrade_in_place(old, t.ty),
            None => false,
        }
    }

    /// Gives a granted ticket another type. The ticket moves to the end of the granted
    /// list, as the servers' merge of an upgrade does (sql/mdl.cc,
    /// `MDL_context::upgrade_shared_lock`: `m_granted.remove_ticket`, then `add_ticket`).
    pub fn upgrade_in_place(&mut self, id: TicketId, ty: LockType) -> bool {
        match self.granted.iter().position(|t| t.id == id) {
            Some(i) => {
                let mut t = self.granted.remove(i);
                t.ty = ty;
                self.granted.push(t);
                // Back in the list, where a retype puts it (an upgrade's obtrusive
                // request materialised the owner's fast-path grants first).
                if !self.unplaced.is_empty() {
                    self.unplaced.retain(|u| *u != id);
                }
                true
            }
            None => false,
        }
    }

    /// Grants every waiting request that has become grantable (`reschedule_waiters`).
    /// `try_grant` is asked, in queue order, for each grantable request; it returns
    /// false when the waiter already has another outcome (timed out, killed, victim), in
    /// which case the request stays queued until its owner removes it. Returns the
    /// tickets granted, in order.
    pub fn reschedule(
        &mut self,
        r: &Rules,
        mut try_grant: impl FnMut(&Ticket) -> bool,
    ) -> Vec<Ticket> {
        // Seeded bug `mdl_bug="fifo"`: the queue is served from the back (latest arrival
        // first), breaking FIFO among requests of equal priority.
        #[cfg(mdl_bug = "fifo")]
        self.waiting.reverse();
        let out = match r.starvation {
            Some(Starvation::Mariadb) => self.reschedule_mariadb(r, &mut try_grant),
            Some(Starvation::MariadbRepass) => {
                // The design variant: one more pass whenever the pass changed its own
                // decision (the count reset after skipped hogs, or a hog granted in the
                // pass reached the limit). Each change needs a grant: it ends.
                let mut out = Vec::new();
                loop {
                    let skip = self.mariadb_skips(r);
                    out.extend(self.reschedule_mariadb(r, &mut try_grant));
                    if self.waiting.is_empty() || self.mariadb_skips(r) == skip {
                        break out;
                    }
                }
            }
            _ => self.reschedule_mysql(r, &mut try_grant),
        };
        #[cfg(mdl_bug = "fifo")]
        self.waiting.reverse();
        out
    }

    // MySQL: sql/mdl.cc, MDL_lock::reschedule_waiters: grant in queue order; a grant that
    // switches the priority matrix restarts the pass ("it.rewind()"); at the end reset
    // the counters whose waiting condition is gone (from matrix 3 straight to 0).
    fn reschedule_mysql(
        &mut self,
        r: &Rules,
        try_grant: &mut dyn FnMut(&Ticket) -> bool,
    ) -> Vec<Ticket> {
        let s = r.strategy;
        let affected = r.starvation == Some(Starvation::Mysql);
        let mut out = Vec::new();
        let mut i = 0;
        while i < self.waiting.len() {
            let t = self.waiting[i];
            if !bug_skip_grant(i)
                && self.can_grant(r, t.ty, t.owner, Priority::Honoured)
                && try_grant(&t)
            {
                self.waiting.remove(i);
                self.forget_reorders(t.id);
                self.granted.push(t);
                out.push(t);
                if affected && self.count_piglets_and_hogs(r, t.ty) {
                    // The priority matrix changed: lower-priority requests may be
                    // grantable now; start over.
                    i = 0;
                }
                continue;
            }
            i += 1;
        }
        if affected {
            let w = self.waiting_types();
            if self.idx == 3 {
                // From matrix 3 straight to 0, never 3 -> 2 (see mdl.cc).
                let mut ignore = s.hogs.0 | s.piglet.0;
                if s.allowed.contains(LockType::SWLP) {
                    ignore |= LockType::SWLP.bit();
                }
                if w.0 & !ignore == 0 {
                    self.piglet_count = 0;
                    self.hog_count = 0;
                    self.idx = 0;
                }
            } else {
                if w.0 & !s.hogs.0 == 0 {
                    self.hog_count = 0;
                    self.idx &= !2;
                }
                if !w.intersects(s.piglet_waiter) {
                    self.piglet_count = 0;
                    self.idx &= !1;
                }
            }
        }
        out
    }

    /// True when the priority matrix changed.
    /// MySQL: sql/mdl.cc, `MDL_lock::count_piglets_and_hogs`: a hog granted while a
    /// non-hog waits, or SW granted while SRO waits, counts; then
    /// `switch_incompatible_waiting_types_bitmap_if_needed`.
    fn count_piglets_and_hogs(&mut self, r: &Rules, ty: LockType) -> bool {
        let s = r.strategy;
        let w = self.waiting_types();
        if s.hogs.contains(ty) {
            // Seeded bug `mdl_bug="hog_count_off"`: hog grants are not counted, so
            // `max_write_lock_count` never lets a waiting reader in ahead of a stream of
            // SNRW/X requests.
            #[cfg(mdl_bug = "hog_count_off")]
            return false;
            #[allow(unreachable_code)]
            if w.0 & !s.hogs.0 != 0 {
                self.hog_count = self.hog_count.saturating_add(1);
                return self.switch_matrix(r);
            }
        } else if s.piglet.contains(ty) && w.intersects(s.piglet_waiter) {
            self.piglet_count = self.piglet_count.saturating_add(1);
            return self.switch_matrix(r);
        }
        false
    }

    fn switch_matrix(&mut self, r: &Rules) -> bool {
        let mut new = 0u8;
        if u64::from(self.piglet_count) >= r.max_write_lock_count {
            new += 1;
        }
        if u64::from(self.hog_count) >= r.max_write_lock_count {
            new += 2;
        }
        let new = new.min(r.strategy.pending.len() as u8 - 1);
        if new == self.idx {
            return false;
        }
        self.idx = new;
        true
    }

    // MariaDB: sql/mdl.cc, MDL_lock::reschedule_waiters: past max_write_lock_count with a
    // non-hog waiting (decided once, before the pass) skip hog waiters and ignore the
    // pending matrix; every hog granted counts; reset when no non-hog waits.
    fn reschedule_mariadb(
        &mut self,
        r: &Rules,
        try_grant: &mut dyn FnMut(&Ticket) -> bool,
    ) -> Vec<Ticket> {
        let s = r.strategy;
        let mut out = Vec::new();
        // Past the limit, give way to low-priority (non-hog) requests if any wait.
        let skip_high = self.mariadb_skips(r);
        let mut i = 0;
        while i < self.waiting.len() {
            let t = self.waiting[i];
            if skip_high && s.hogs.contains(t.ty) {
                i += 1;
                continue;
            }
            if !bug_skip_grant(i)
                && self.can_grant(r, t.ty, t.owner, Priority::ignored_if(skip_high))
                && try_grant(&t)
            {
                self.waiting.remove(i);
                self.forget_reorders(t.id);
                self.granted.push(t);
                out.push(t);
                if s.hogs.contains(t.ty) {
                    self.hog_count = self.hog_count.saturating_add(1);
                }
                continue;
            }
            i += 1;
        }
        if self.waiting_types().0 & !s.hogs.0 == 0 {
            self.hog_count = 0;
        }
        out
    }

    /// MariaDB's `skip_high_priority`, decided once before its pass: past the limit,
    /// with a non-hog waiting (sql/mdl.cc, `MDL_lock::reschedule_waiters`).
    fn mariadb_skips(&self, r: &Rules) -> bool {
        u64::from(self.hog_count) >= r.max_write_lock_count
            && self.waiting_types().0 & !r.strategy.hogs.0 != 0
    }

    /// Would [`LockState::reschedule`] grant this waiting ticket now? (The lost-wakeup
    /// property: after every step no waiter satisfies this.)
    pub fn could_grant_waiter(&self, r: &Rules, w: &Ticket) -> bool {
        match r.starvation {
            Some(Starvation::Mariadb | Starvation::MariadbRepass) => {
                let s = r.strategy;
                let skip_high = self.mariadb_skips(r);
                !(skip_high && s.hogs.contains(w.ty))
                    && self.can_grant(r, w.ty, w.owner, Priority::ignored_if(skip_high))
            }
            _ => self.can_grant(r, w.ty, w.owner, Priority::Honoured),
        }
    }

    /// The owners a waiting ticket waits for: other owners' granted tickets that conflict
    /// with it, and other owners' waiting tickets it yields to (the pending matrix in
    /// force). These are the wait-for edges of the deadlock detector. May repeat owners.
    /// MySQL and MariaDB: sql/mdl.cc, `MDL_lock::visit_subgraph`: the granted list, then
    /// the waiting list, each in list order (`is_incompatible_when_granted`,
    /// `is_incompatible_when_waiting`).
    pub fn blockers<'a>(
        &'a self,
        r: &'a Rules,
        waiter: &'a Ticket,
    ) -> impl Iterator<Item = OwnerId> + 'a {
        self.blocking_tickets(r, waiter).map(|(t, _)| t.owner)
    }

    /// The tickets behind [`LockState::blockers`], each with `true` when it is granted
    /// (for introspection: which lock of the blocker is in the way).
    pub fn blocking_tickets<'a>(
        &'a self,
        r: &'a Rules,
        waiter: &'a Ticket,
    ) -> impl Iterator<Item = (&'a Ticket, bool)> + 'a {
        let s = r.strategy;
        let gi = s.granted[waiter.ty.0 as usize];
        let pi = s.pending[self.idx as usize][waiter.ty.0 as usize];
        let g = self
            .granted
            .iter()
            .filter(move |g| g.owner != waiter.owner && gi.contains(g.ty))
            .map(|g| (g, true));
        let w = self
            .waiting
            .iter()
            .filter(move |w| {
                w.owner != waiter.owner
                    && w.id != waiter.id
                    && pi.contains(w.ty)
                    && !self.ahead.contains(&(waiter.id, w.id))
            })
            .map(|w| (w, false));
        g.chain(w)
    }

    /// Checks the invariants; returns a description of the first one broken.
    pub fn check(&self, r: &Rules) -> Result<(), String> {
        let s = r.strategy;
        // No two granted tickets of different owners exclude each other: for each pair,
        // one of the two, as a request, is compatible with the other as granted (the
        // order in which they could have been granted; with an asymmetric matrix such as
        // MariaDB's BACKUP one only that order works). The list order itself is not the
        // grant order: clones, downgrades and upgrades move a ticket to the back.
        // A ticket that another ticket of its owner covers may have been granted with no
        // decision at all (MySQL and MariaDB: sql/mdl.cc, `MDL_context::clone_ticket`):
        // on the BACKUP matrix a clone of START under BLOCK_DDL can exclude a FLUSH
        // granted meanwhile both ways. Such a ticket is left out when its coverer is
        // strictly stronger, or as strong and older (so two equal tickets do not excuse
        // each other); the coverer itself is checked.
        let covered = |t: &Ticket| {
            self.granted.iter().any(|o| {
                o.owner == t.owner
                    && o.id != t.id
                    && s.covers(o.ty, t.ty)
                    && (!s.covers(t.ty, o.ty) || o.id < t.id)
            })
        };
        for (i, a) in self.granted.iter().enumerate() {
            for b in &self.granted[i + 1..] {
                if a.owner != b.owner
                    && s.conflicts_in_any_order(a.ty, b.ty)
                    && !covered(a)
                    && !covered(b)
                {
                    return Err(format!(
                        "conflicting grants: {:?} {} and {:?} {}",
                        a.owner, a.ty, b.owner, b.ty
                    ));
                }
            }
        }
        for (i, a) in self.waiting.iter().enumerate() {
            if self.waiting[i + 1..].iter().any(|b| b.owner == a.owner) {
                return Err(format!("{:?} waits twice on one lock", a.owner));
            }
        }
        for u in &self.unplaced {
            if self.find_granted(*u).is_none() {
                return Err(format!("unplaced ticket {} is not granted", u.0));
            }
        }
        for (a, b) in &self.ahead {
            if !self.is_waiting(*a) || !self.is_waiting(*b) || a == b {
                return Err(format!(
                    "reordering of ticket {} ahead of ticket {}: not two waiting tickets",
                    a.0, b.0
                ));
            }
        }
        for (t, _) in &self.jumped {
            if !self.is_waiting(*t) {
                return Err(format!("pass count of ticket {}: not waiting", t.0));
            }
        }
        Ok(())
    }
}

/// Seeded bug `mdl_bug="skip_second_waiter"`: reschedule never grants the second waiter
/// in the queue in one pass (a lost wakeup when two waiters become grantable at once).
#[inline(always)]
fn bug_skip_grant(_i: usize) -> bool {
    #[cfg(mdl_bug = "skip_second_waiter")]
    {
        _i == 1
    }
    #[cfg(not(mdl_bug = "skip_second_waiter"))]
    {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::dialect::Dialect;

    fn t(id: u64, owner: u32, ty: LockType) -> Ticket {
        Ticket {
            id: TicketId(id),
            owner: OwnerId(owner),
            ty,
        }
    }

    #[test]
    fn pending_x_holds_back_sr_not_sh() {
        let d = Dialect::mysql80();
        let s = d.strategy(d.namespace_by_name("TABLE").unwrap());
        let r = Rules {
            strategy: s,
            starvation: Some(Starvation::Mysql),
            max_write_lock_count: u64::MAX,
        };
        let mut l = LockState::new();
        l.grant(t(1, 1, LockType::SR));
        assert!(!l.can_grant(&r, LockType::X, OwnerId(2), Priority::Honoured));
        l.enqueue(t(2, 2, LockType::X));
        assert!(!l.can_grant(&r, LockType::SR, OwnerId(3), Priority::Honoured));
        assert!(!l.can_grant(&r, LockType::SW, OwnerId(3), Priority::Honoured));
        assert!(l.can_grant(&r, LockType::SH, OwnerId(3), Priority::Honoured));
        assert_eq!(
            l.blockers(&r, &t(2, 2, LockType::X)).collect::<Vec<_>>(),
            vec![OwnerId(1)]
        );
        l.remove_granted(TicketId(1));
        let g = l.reschedule(&r, |_| true);
        assert_eq!(g, vec![t(2, 2, LockType::X)]);
        assert!(l.check(&r).is_ok());
    }

    #[test]
    fn hogs_give_way_after_the_limit() {
        let d = Dialect::mysql80();
        let s = d.strategy(d.namespace_by_name("TABLE").unwrap());
        let r = Rules {
            strategy: s,
            starvation: Some(Starvation::Mysql),
            max_write_lock_count: 1,
        };
        let mut l = LockState::new();
        l.grant(t(1, 1, LockType::X));
        l.enqueue(t(2, 2, LockType::SR));
        l.enqueue(t(3, 3, LockType::X));
        l.remove_granted(TicketId(1));
        // X (session 3) is granted first: SR yields to a pending X.
        let g = l.reschedule(&r, |_| true);
        assert_eq!(g, vec![t(3, 3, LockType::X)]);
        assert_eq!(l.hog_count(), 1);
        assert_eq!(l.pending_index(), 2);
        l.enqueue(t(4, 4, LockType::X));
        l.remove_granted(TicketId(3));
        // Past the limit the SR waiter goes first.
        let g = l.reschedule(&r, |_| true);
        assert_eq!(g, vec![t(2, 2, LockType::SR)]);
    }
}
