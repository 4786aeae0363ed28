//! Reclamation on demand and the shell's invariants, checked against the live state (for
//! the loom and shuttle harnesses in `proofs/`, and for engines that want a sweep now).
//!
//! [`Manager::check_invariants`] follows the documented lock order: it takes one lock
//! object's state mutex at a time, then the registry (read), then every registered
//! context's `locks` (all at once, in owner-id order: nobody else ever holds two
//! contexts' `locks`, so this cannot deadlock), then each waiter's `slot`, one at a time.
//! While those are held, no fast-path grant on that lock can come or go (they change
//! only under their owner's `locks`) and `SLOW` cannot move (it changes only under the
//! state mutex), so every check below is exact, not a racy estimate.

use super::fast::{stripe_of, SLOW};
use super::map::{reclaimable, SWEEP_MIN};
use super::types::{Pins, STRIPES};
use super::Manager;
use crate::decide::lock::{OwnerId, Ticket};
use crate::sync::atomic::Ordering;
use crate::sync::spin::SpinGuard;
use crate::sync::Arc;

impl Manager {
    /// Sweeps every shard now: removes each lock object nobody refers to (the rule the
    /// manager's own sweep uses: only the map holds it, no fast-path grant, its state
    /// idle). Never removes a lock in use.
    pub fn reclaim(&self) {
        for shard in &self.sh.shards {
            let mut w = shard.write();
            w.map.retain(|_, o| !reclaimable(o));
            w.sweep_at = 2 * w.map.len() + SWEEP_MIN;
        }
    }

    /// Checks, for every lock object:
    /// - no two owners hold conflicting granted tickets (fast-path grants, walked in the
    ///   contexts' pins, included): the grant order is not known here, so a pair is a
    ///   violation when no order could have granted both
    ///   ([`crate::decide::dialect::Strategy::conflicts_in_any_order`]; MariaDB's BACKUP matrix
    ///   is not symmetric);
    /// - no waiting ticket whose owner's wait is still undecided would be granted by a
    ///   reschedule now ([`crate::decide::lock::LockState::could_grant_waiter`]: a lost wakeup);
    /// - fast-path grants on the object only while `SLOW` is clear, and each of the
    ///   object's stripes equal to the number of its contexts' grants (`fast.rs`,
    ///   "(count)");
    /// - `SLOW` clear implies no obtrusive ticket is granted or waiting;
    /// - the lock state's own invariants ([`crate::decide::lock::LockState::check`]).
    ///
    /// Returns a description of the first violation. Meant to be called between steps
    /// (it takes and releases latches like any other operation, so it may run
    /// concurrently with them).
    pub fn check_invariants(&self) -> Result<(), String> {
        let m = &*self.sh;
        self.check_fast_entries_mapped()?;
        for obj in m.all_objects() {
            let g = obj.state.lock();
            let strategy = m.strategy(&obj.key);
            let rules = m.rules(&obj.key);
            // SLOW moves only under the state mutex, which we hold; the count is read
            // below, once every context's `locks` is held.
            let slow = obj.fast.load(Ordering::SeqCst) & SLOW != 0;
            let key = &obj.key;
            g.st.check(&rules).map_err(|e| format!("{key:?}: {e}"))?;
            if !slow && g.st.obtrusive_count(strategy) != 0 {
                return Err(format!(
                    "{key:?}: SLOW is clear but an obtrusive ticket is granted or waiting \
                     (granted {:?}, waiting {:?})",
                    g.st.granted(),
                    g.st.waiting()
                ));
            }
            let reg = m.registry.read();
            let lists: Vec<(OwnerId, SpinGuard<'_, Pins>)> = reg
                .live
                .values()
                .map(|cs| (cs.id, cs.locks.lock()))
                .collect();
            let mut fast: Vec<Ticket> = Vec::new();
            let mut per_stripe = [0u64; STRIPES];
            for (owner, l) in &lists {
                let Some(pin) = l.get(&obj.key) else {
                    continue;
                };
                if !Arc::ptr_eq(&pin.obj, &obj) {
                    return Err(format!(
                        "{key:?}: {owner:?} pins a lock object that is not the map's"
                    ));
                }
                per_stripe[stripe_of(*owner)] += pin.fast.len() as u64;
                for e in &pin.fast {
                    fast.push(Ticket {
                        id: e.id,
                        owner: *owner,
                        ty: e.ty,
                    });
                }
            }
            let counts: Vec<u64> = obj
                .counts
                .iter()
                .map(|c| c.0.load(Ordering::SeqCst))
                .collect();
            drop(lists);
            if counts != per_stripe {
                return Err(format!(
                    "{key:?}: the counts of fast-path grants by stripe are {counts:?} but \
                     the pins hold {per_stripe:?} ({fast:?})"
                ));
            }
            if !fast.is_empty() && slow {
                return Err(format!(
                    "{key:?}: SLOW is set but fast-path grants are not materialised ({fast:?})"
                ));
            }
            // Pairs of the lock state were checked above (`LockState::check`, which also
            // excuses clones); a fast-path grant's order against the others is not known,
            // so it conflicts only when no order could have granted both (MariaDB's
            // BACKUP matrix is not symmetric: a conflict one way is no violation).
            for (i, a) in fast.iter().enumerate() {
                for b in g.st.granted().iter().chain(&fast[i + 1..]) {
                    if a.owner != b.owner && strategy.conflicts_in_any_order(a.ty, b.ty) {
                        return Err(format!(
                            "{key:?}: conflicting grants: {:?} {} (ticket {}) and {:?} {} \
                             (ticket {})",
                            a.owner, a.ty, a.id.0, b.owner, b.ty, b.id.0
                        ));
                    }
                }
            }
            for w in g.st.waiting() {
                let Some(cs) = reg.live.get(&w.owner) else {
                    return Err(format!(
                        "{key:?}: waiting ticket {} of {:?}, which is not a live context",
                        w.id.0, w.owner
                    ));
                };
                let undecided = {
                    let s = cs.slot.lock();
                    s.status.is_none() && s.waiting.as_ref().is_some_and(|x| x.ticket.id == w.id)
                };
                if undecided && g.st.could_grant_waiter(&rules, w) {
                    return Err(format!(
                        "{key:?}: lost wakeup: {:?} waits for {} (ticket {}), which could be \
                         granted (granted {:?}, waiting {:?})",
                        w.owner,
                        w.ty,
                        w.id.0,
                        g.st.granted(),
                        g.st.waiting()
                    ));
                }
            }
            drop(reg);
            drop(g);
        }
        Ok(())
    }

    /// Every pin (and so every fast-path grant) is on the lock object that the map holds
    /// for its key (a lock object reclaimed while in use would leave its grants
    /// invisible to the next requester, who gets a fresh object). Takes every shard
    /// (read) and then every context's `locks`, as the lock order allows; nothing else
    /// ever holds two shard locks or two contexts' `locks`, so neither can change
    /// meanwhile.
    fn check_fast_entries_mapped(&self) -> Result<(), String> {
        let m = &*self.sh;
        let shards: Vec<_> = m.shards.iter().map(|s| s.read()).collect();
        let reg = m.registry.read();
        for cs in reg.live.values() {
            let p = cs.locks.lock();
            for pin in p.iter() {
                let key = &pin.obj.key;
                let shard = m.shard(key);
                let mapped = m
                    .shards
                    .iter()
                    .position(|s| std::ptr::eq(s, shard))
                    .and_then(|i| shards[i].map.get(key))
                    .is_some_and(|o| Arc::ptr_eq(o, &pin.obj));
                if !mapped {
                    return Err(format!(
                        "{key:?}: {:?} pins a lock object that is no longer in the map \
                         (fast-path grants {:?})",
                        cs.id,
                        pin.fast.iter().map(|e| (e.id.0, e.ty)).collect::<Vec<_>>()
                    ));
                }
            }
        }
        Ok(())
    }
}
