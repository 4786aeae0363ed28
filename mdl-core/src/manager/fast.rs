//! The fast path: unobtrusive requests granted without the lock's mutex (MySQL:
//! sql/mdl.cc, `MDL_context::try_acquire_lock_impl` with `m_fast_path_state`, and
//! `MDL_lock::materialize_fast_path_locks`).
//!
//! `LockObj::fast` is an `AtomicU64` holding two flags, not a counter: `SLOW` (bit 63:
//! an obtrusive ticket is granted or waiting) and `USED` (bit 62: fast-path grants may
//! exist). The grants themselves are in their owners' pins (`pins.rs`).
//!
//! # Invariants
//!
//! - (fast path) While `SLOW` is clear, no obtrusive ticket is granted or waiting on the
//!   lock, so an unobtrusive request (pairwise compatible with every other unobtrusive
//!   type in every matrix) can be granted without asking the lock state. The requester
//!   holds its own `locks` lock while it reads `fast`, sets `USED` if clear (by a
//!   read-modify-write whose result must still show `SLOW` clear) and pushes the grant
//!   into its pin (`try_fast`).
//! - (materialisation) Whoever sets `SLOW` (`ensure_slow`, under the lock's state mutex)
//!   and finds `USED` set first visits every registered context's pin of the lock, under
//!   that context's `locks` lock, and moves its fast grants into the lock state as
//!   ordinary granted tickets; then it clears `USED`, still under the state mutex. A
//!   fast-path requester either held its `locks` before the visit (so the visit sees its
//!   grant) or after it (so it sees `SLOW`, set before the visit, and goes the slow
//!   way). So once anyone holds the state mutex with `SLOW` set, the lock state holds
//!   every grant on the lock and every decision sees them. `USED` clear means no fast
//!   grant exists: every one is made after setting or seeing `USED`, and `USED` is only
//!   cleared after a visit of every context while `SLOW` forbids new ones. `SLOW` is
//!   cleared (under the state mutex) when no obtrusive ticket is granted or waiting
//!   (`clear_slow_if`).
//! - (fast release) A fast grant still in its owner's pin is released by removing it
//!   under the owner's `locks` lock; one that is gone was materialised and is released
//!   through the state mutex, with a reschedule (`release.rs`).
//!
//! # Costs
//!
//! An uncontended fast-path acquire + commit does no allocation once the context's
//! vectors and maps have grown, and writes no memory that another context writes: it
//! takes its own `locks` spin lock ([`crate::sync::spin`]) once to acquire (find the pin
//! by the key's precomputed hash, read the lock's flags, push the grant) and once to
//! release; ticket ids come from a per-context block of `ID_BLOCK`; the lock object's
//! reference count and flags are not written while `USED` stays set. So connections
//! taking SR/SW on one hot table share only cache lines that everybody reads. What it
//! still pays: the two holds of its spin lock (a compare-and-swap each, the unlock a
//! plain store, on a line of its own context) and a few hash-map probes (book filter,
//! pin). The book's copy of the key is recycled through the pin (`Pin::spare`), so the
//! key's reference count is not touched either. A request for a key not pinned adds the
//! shard's read lock and one lock-object reference. A release of n tickets is linear.
//!
//! The price is at the other end: the first obtrusive request after fast-path use
//! (`SLOW` clear -> set, with `USED`) visits every registered context's pins (one hash
//! probe each), where MySQL reads its counters of fast-path grants, packed in one word
//! per lock. DDL is rare next to DML; while obtrusive locks stay granted or queued,
//! later ones pay nothing.

use super::*;

/// `LockObj::fast`: an obtrusive ticket is granted or waiting (or being decided). Set and
/// cleared only under the lock's state mutex.
pub(super) const SLOW: u64 = 1 << 63;
/// `LockObj::fast`: fast-path grants may exist on the lock. Set by a fast-path grant that
/// finds it clear (before the grant is recorded); cleared by the materialisation, under
/// the state mutex with `SLOW` set, after it has visited every context.
pub(super) const USED: u64 = 1 << 62;

/// Tries the fast path on a pinned lock: `SLOW` clear, `USED` set (setting it if needed),
/// then the grant is recorded in the pin. The caller holds its `locks` lock throughout,
/// so a materialisation (which sets `SLOW` first, then takes that mutex) either sees the
/// grant or makes this call see `SLOW`.
pub(super) fn try_fast(pin: &mut Pin, grant: FastGrant) -> bool {
    let v = pin.obj.fast.load(Ordering::SeqCst);
    if v & SLOW != 0 {
        return false;
    }
    // `USED` clear: the first fast grant since the last materialisation. Setting it with
    // a read-modify-write tells us whether `SLOW` came meanwhile.
    if v & USED == 0
        && !cfg!(mdl_bug = "used_not_set")
        && pin.obj.fast.fetch_or(USED, Ordering::SeqCst) & SLOW != 0
    {
        return false;
    }
    pin.fast.push(grant);
    true
}

impl Shared {
    /// Sets SLOW; if it was clear and fast-path grants may exist (`USED`), materialises
    /// them: visits every registered context's pin of this lock, moves its fast grants
    /// into the lock state, then clears `USED`.
    pub(super) fn ensure_slow(&self, obj: &LockObj, g: &mut LockInner) {
        let prev = obj.fast.fetch_or(SLOW, Ordering::SeqCst);
        if prev & SLOW != 0 || prev & USED == 0 {
            return;
        }
        if cfg!(mdl_bug = "no_materialize") {
            return;
        }
        let reg = self.registry.read();
        for cs in reg.live.values() {
            let mut p = cs.locks.lock();
            let Some(pin) = p.map.get_mut(&obj.key) else {
                continue;
            };
            if !std::ptr::eq(&*pin.obj, obj) {
                // Cannot happen: a pinned object stays mapped, and a key maps to one
                // object. Its grants are not on this lock.
                continue;
            }
            for e in pin.fast.drain(..) {
                g.st.materialise(Ticket {
                    id: e.id,
                    owner: cs.id,
                    ty: e.ty,
                });
                g.meta.insert(e.id, Meta::granted(e.dur));
                debug!(owner = cs.id.0, key = ?obj.key, ty = %e.ty, "mdl fast-path grant materialised");
            }
        }
        // Every context registered now has been visited, and none can add a fast grant
        // while SLOW is set: none is left.
        obj.fast.fetch_and(!USED, Ordering::SeqCst);
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
