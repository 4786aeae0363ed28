//! The fast path: unobtrusive requests granted without the lock's mutex (MySQL:
//! sql/mdl.cc, `MDL_context::try_acquire_lock_impl` with `m_fast_path_state`, and
//! `MDL_lock::materialize_fast_path_locks`).
//!
//! `LockObj::fast` is an `AtomicU64` holding a flag and a counter, as MySQL's
//! `MDL_lock::m_fast_path_state`: `SLOW` (bit 63: an obtrusive ticket is granted or
//! waiting) and, in the bits below, the number of fast-path grants not yet materialised
//! (`COUNT`). The grants themselves are in their owners' pins (`pins.rs`).
//!
//! # Invariants
//!
//! - (fast path) While `SLOW` is clear, no obtrusive ticket is granted or waiting on the
//!   lock, so an unobtrusive request (pairwise compatible with every other unobtrusive
//!   type in every matrix) can be granted without asking the lock state. The requester
//!   holds its own `locks` lock while it adds one to `fast` (a read-modify-write whose
//!   result must show `SLOW` clear; otherwise it takes the one back and goes the slow
//!   way) and pushes the grant into its pin (`try_fast`).
//! - (count) Outside the `locks` lock of the context that changes it, `COUNT` is the
//!   number of fast-path grants in the pins of the lock: one is added with each grant
//!   and taken off, under the same `locks` lock, when the grant leaves its pin (released
//!   there, or materialised). So a reader of `fast` that holds every registered
//!   context's `locks` (`check_invariants`) sees it exact.
//! - (materialisation) Whoever sets `SLOW` (`ensure_slow`, under the lock's state mutex)
//!   and finds `COUNT` non-zero in the result visits the registered contexts' pins of the
//!   lock, each under that context's `locks` lock, and moves their fast grants into the
//!   lock state as ordinary granted tickets, until `COUNT` falls to zero (MySQL reads
//!   its counters the same way: sql/mdl.cc, `MDL_context::try_acquire_lock_impl`, "fast
//!   path" check of `m_fast_path_state`). A fast-path requester either added to `COUNT`
//!   before `SLOW` was set (so `COUNT` shows it and the visits go on until its grant is
//!   moved: its `locks` is held from the addition to the push) or after (so it sees
//!   `SLOW` and goes the slow way). So once anyone holds the state mutex with `SLOW`
//!   set, the lock state holds every grant on the lock and every decision sees them.
//!   `COUNT` zero when `SLOW` is set means no fast grant exists: nothing is visited, so
//!   the first obtrusive request after fast-path grants that were all released costs
//!   the same with ten connections as with ten thousand. `SLOW` is cleared (under the
//!   state mutex) when no obtrusive ticket is granted or waiting (`clear_slow_if`).
//! - (fast release) A fast grant still in its owner's pin is released by removing it
//!   and taking one off `COUNT` under the owner's `locks` lock; one that is gone was
//!   materialised and is released through the state mutex, with a reschedule
//!   (`release.rs`).
//!
//! # Costs
//!
//! An uncontended fast-path acquire + commit does no allocation once the context's
//! vectors and maps have grown, and writes no memory that another context writes: it
//! takes its own `locks` spin lock ([`crate::sync::spin`]) once to acquire (find the pin
//! by the key's precomputed hash, read the lock's flags, push the grant) and once to
//! release; ticket ids come from a per-context block of `ID_BLOCK`; the lock object's
//! reference count is not written. The one line it shares with other connections on
//! the same lock is `fast`: one atomic add at the grant and one subtraction at the
//! release (MySQL: the compare-and-swaps on `m_fast_path_state`). What else it pays:
//! the two holds of its spin lock (a compare-and-swap each, the unlock a plain store,
//! on a line of its own context) and a few hash-map probes (book filter, pin). The
//! book's copy of the key is recycled through the pin (`Pin::spare`), so the key's
//! reference count is not touched either. A request for a key not pinned adds the
//! shard's read lock and one lock-object reference. A release of n tickets is linear.
//!
//! The first obtrusive request after fast-path use reads `COUNT`: zero (the usual case
//! for a DDL: the readers have committed) costs nothing more, whatever the number of
//! connections that used the lock; otherwise it visits registered contexts until the
//! grants counted are all materialised (linear in the contexts visited; MySQL instead
//! leaves other contexts' grants in its counters and has each context materialise its
//! own before it waits: `MDL_context::materialize_fast_path_locks`). A deliberate
//! difference (mdl-core/FIDELITY.md, fast-path row): our grant decisions and deadlock
//! search read the lock state's granted list only.

use super::*;

/// `LockObj::fast`: an obtrusive ticket is granted or waiting (or being decided). Set and
/// cleared only under the lock's state mutex.
pub(super) const SLOW: u64 = 1 << 63;
/// `LockObj::fast`: the number of fast-path grants on the lock not yet materialised
/// (see "(count)" above).
pub(super) const COUNT: u64 = SLOW - 1;

/// Tries the fast path on a pinned lock: one more in `COUNT` while `SLOW` is clear, then
/// the grant is recorded in the pin. The caller holds its `locks` lock throughout, so a
/// materialisation (which sets `SLOW` first, then visits pins under their `locks`) either
/// counts and moves the grant or makes this call see `SLOW`.
pub(super) fn try_fast(pin: &mut Pin, grant: FastGrant) -> bool {
    if pin.obj.fast.load(Ordering::SeqCst) & SLOW != 0 {
        return false;
    }
    // Seeded bug: the grant is not counted, so an obtrusive request that finds the
    // count at zero skips the materialisation.
    let one = u64::from(!cfg!(mdl_bug = "used_not_set"));
    if pin.obj.fast.fetch_add(one, Ordering::SeqCst) & SLOW != 0 {
        // `SLOW` came meanwhile: take the one back (a materialisation that read it only
        // visits more pins) and go the slow way.
        pin.obj.fast.fetch_sub(one, Ordering::SeqCst);
        return false;
    }
    pin.fast.push(grant);
    true
}

/// Takes `n` fast-path grants that left their pins (released or materialised) off the
/// lock's `COUNT`. The caller holds the `locks` lock of the pins' context.
pub(super) fn uncount_fast(obj: &LockObj, n: usize) {
    if n == 0 || cfg!(mdl_bug = "count_not_decremented") {
        return;
    }
    obj.fast.fetch_sub(n as u64, Ordering::SeqCst);
}

impl Shared {
    /// Sets SLOW; if it was clear and fast-path grants exist (`COUNT`), materialises
    /// them: visits the registered contexts' pins of this lock, moving their fast grants
    /// into the lock state, until none is left.
    pub(super) fn ensure_slow(&self, obj: &LockObj, g: &mut LockInner) {
        let prev = obj.fast.fetch_or(SLOW, Ordering::SeqCst);
        if prev & SLOW != 0 || prev & COUNT == 0 {
            return;
        }
        if cfg!(mdl_bug = "no_materialize") {
            return;
        }
        let mut moved: Vec<Ticket> = Vec::new();
        let reg = self.registry.read();
        for cs in reg.live.values() {
            // Every grant counted has been moved (or released): no new one can come
            // while SLOW is set, so the contexts not visited have none.
            if obj.fast.load(Ordering::SeqCst) & COUNT == 0 {
                break;
            }
            let mut p = cs.locks.lock();
            let Some(pin) = p.map.get_mut(&obj.key) else {
                continue;
            };
            if !std::ptr::eq(&*pin.obj, obj) {
                // Cannot happen: a pinned object stays mapped, and a key maps to one
                // object. Its grants are not on this lock.
                continue;
            }
            let n = pin.fast.len();
            for e in pin.fast.drain(..) {
                moved.push(Ticket {
                    id: e.id,
                    owner: cs.id,
                    ty: e.ty,
                });
                g.meta.insert(e.id, Meta::granted(e.dur));
                debug!(owner = cs.id.0, key = ?obj.key, ty = %e.ty, "mdl fast-path grant materialised");
            }
            uncount_fast(obj, n);
        }
        drop(reg);
        g.st.materialise_all(&mut moved);
    }

    /// Clears SLOW when nothing obtrusive is granted or waiting.
    pub(super) fn clear_slow_if(&self, obj: &LockObj, g: &LockInner) {
        if obj.fast.load(Ordering::SeqCst) & SLOW != 0
            && g.st.obtrusive_count(self.strategy(&obj.key)) == 0
        {
            obj.fast.fetch_and(!SLOW, Ordering::SeqCst);
        }
    }
}
