//! The fast path: unobtrusive requests granted without the lock's mutex (MySQL: sql/mdl.cc,
//! `MDL_context::try_acquire_lock_impl` with `m_fast_path_state`, and
//! `MDL_lock::materialize_fast_path_locks`).
//!
//! `LockObj::fast` is an `AtomicU64` holding the flag `SLOW` (bit 63: an obtrusive ticket
//! is granted or waiting), as MySQL's `MDL_lock::m_fast_path_state`. The number of
//! fast-path grants not yet materialised (MySQL keeps it in the same word) is split into
//! `STRIPES` counters, `LockObj::counts`, each on a cache line of its own: a context
//! counts its grants in the stripe of its owner id (`stripe_of`). So two connections
//! with different stripes that take compatible locks on one table write no common cache
//! line (`models/BENCH.md`, "Issue 30": the one shared word was the line two cores passed
//! back and forth). The grants themselves are in their owners' pins (`pins.rs`).
//!
//! # Invariants
//!
//! - (fast path) While `SLOW` is clear, no obtrusive ticket is granted or waiting on the
//!   lock, so an unobtrusive request (pairwise compatible with every other unobtrusive
//!   type in every matrix) can be granted without asking the lock state. The requester
//!   holds its own `locks` lock while it adds one to its stripe (a read-modify-write),
//!   then reads `fast`: `SLOW` clear, it pushes the grant into its pin; set, it takes the
//!   one back and goes the slow way (`try_fast`).
//! - (count) Outside the `locks` lock of the contexts of a stripe, the stripe's counter is
//!   the number of fast-path grants in those contexts' pins of the lock: one is added
//!   with each grant and taken off, under the same `locks` lock, when the grant leaves
//!   its pin (released there, or materialised). So a reader that holds every registered
//!   context's `locks` (`check_invariants`) sees every stripe exact.
//! - (materialisation) Whoever sets `SLOW` (`ensure_slow`, under the lock's state mutex:
//!   a read-modify-write of `fast`) then reads every stripe by a read-modify-write (it
//!   reads the newest value in the stripe's modification order) and visits the
//!   registered contexts of the stripes found non-zero, each under that context's
//!   `locks`, moving their fast grants into the lock state as ordinary granted tickets,
//!   until every stripe reads zero. A fast-path requester's addition to its stripe is
//!   either before the materialiser's read of that stripe in the stripe's modification
//!   order (so the read counts it, and the visits go on until its grant is moved: its
//!   `locks` is held from the addition to the push) or after it: then the addition
//!   (acquire) reads from the materialiser's read-modify-write (release) or from a later
//!   one in its release sequence, so the setting of `SLOW` happens before the
//!   requester's read of `fast`, which sees it and goes the slow way. (The same holds
//!   with every access `SeqCst`, as they are.) A stripe read zero after `SLOW` is set
//!   stays zero but for the passing one of a requester that will see `SLOW`. So once
//!   anyone holds the state mutex with `SLOW` set, the lock state holds every grant on
//!   the lock and every decision sees them. All stripes zero means no fast grant exists:
//!   nothing is visited, so the first obtrusive request after fast-path grants that were
//!   all released costs the same with ten connections as with ten thousand. `SLOW` is
//!   cleared (under the state mutex) when no obtrusive ticket is granted or waiting
//!   (`clear_slow_if`).
//! - (fast release) A fast grant still in its owner's pin is released by removing it
//!   and taking one off the owner's stripe under the owner's `locks` lock; one that is
//!   gone was materialised and is released through the state mutex, with a reschedule
//!   (`release.rs`).
//!
//! # Costs
//!
//! An uncontended fast-path acquire + commit does no allocation once the context's
//! vectors and maps have grown, and writes no memory that a context of another stripe
//! writes: it takes its own `locks` spin lock ([`crate::sync::spin`]) once to acquire
//! (find the pin by the key's precomputed hash, add to its stripe, read the lock's flag,
//! push the grant) and once to release (take one off its stripe); ticket ids come from a
//! per-context block of `ID_BLOCK`; the lock object's reference count is not written.
//! `fast` is written only when an obtrusive request comes or goes: the fast path reads
//! it (a line every core may keep shared). Contexts whose owner ids are equal modulo
//! `STRIPES` share their stripe's line (MySQL: every context writes
//! `m_fast_path_state`). What else it pays: the two holds of its spin lock (a
//! compare-and-swap each, the unlock a plain store, on a line of its own context) and
//! the search of its pin each way: one key comparison when the pin is the one found last
//! (`pins.rs`, `Pins`: a slab with that hint) or one beside it (a transaction taken
//! again in its order), else one probe of the slab's index (the
//! book scans its tickets while it holds a few, `book.rs`, `SCAN`; a commit of a
//! one-list book pops them, `TicketBook::pop_latest`). The book's copy of the key is recycled
//! through the pin (`Pin::spare`), so the key's reference count is not touched either.
//! A request for a key not pinned adds the shard's read lock and one lock-object
//! reference. A release of n tickets is linear.
//!
//! The first obtrusive request after fast-path use reads the `STRIPES` counters: all
//! zero (the usual case for a DDL: the readers have committed) costs nothing more,
//! whatever the number of connections that used the lock; otherwise it visits the
//! registered contexts of the non-zero stripes until the grants counted are all
//! materialised (linear in the contexts visited; MySQL instead leaves other contexts'
//! grants in its counters and has each context materialise its own before it waits:
//! `MDL_context::materialize_fast_path_locks`). A deliberate difference
//! (mdl-core/FIDELITY.md, fast-path row): our grant decisions and deadlock search read
//! the lock state's granted list only.
//!
//! An obtrusive request and a wait first place the context's own fast-path grants in
//! the server's list order (`Shared::place_own`, FIDELITY.md fast-path row): a scan of
//! the context's pins (in use and idle: about the working set of its recent rounds, as
//! MySQL's `materialize_fast_path_locks` scans the context's tickets), then one hold of
//! each lock's state mutex where a grant of ours is still in our pin or was moved by
//! another context's obtrusive request. Nothing on the fast path itself.

use super::types::{CtxShared, FastGrant, LockInner, LockObj, Meta, Pin, Stripe, STRIPES};
use super::Shared;
use crate::decide::lock::{OwnerId, Ticket};
use crate::sync::atomic::Ordering;
use crate::sync::Arc;
use tracing::debug;

/// `LockObj::fast`: an obtrusive ticket is granted or waiting (or being decided). Set and
/// cleared only under the lock's state mutex.
pub(super) const SLOW: u64 = 1 << 63;

/// The stripe a context counts its fast-path grants in.
#[inline]
pub(super) fn stripe_of(owner: OwnerId) -> usize {
    owner.0 as usize % STRIPES
}

/// Reads a stripe by a read-modify-write that changes nothing: it reads the newest value
/// in the stripe's modification order and, being a release, orders the caller's setting
/// of `SLOW` before any later addition (see "(materialisation)").
fn read_stripe(c: &Stripe) -> u64 {
    c.0.fetch_add(0, Ordering::SeqCst)
}

/// Tries the fast path on a pinned lock: one more in our stripe, then `SLOW` read clear,
/// then the grant is recorded in the pin. The caller (of stripe `stripe`) holds its
/// `locks` lock throughout, so a materialisation (which sets `SLOW` first, then reads the
/// stripes and visits pins under their `locks`) either counts and moves the grant or
/// makes this call see `SLOW`.
#[inline]
pub(super) fn try_fast(pin: &mut Pin, stripe: usize, grant: FastGrant) -> bool {
    let obj = &*pin.obj;
    if obj.fast.load(Ordering::SeqCst) & SLOW != 0 {
        return false;
    }
    // Seeded bug: the grant is not counted, so an obtrusive request that finds the
    // stripes at zero skips the materialisation.
    let one = u64::from(!cfg!(mdl_bug = "used_not_set"));
    let count = &obj.counts[stripe].0;
    count.fetch_add(one, Ordering::SeqCst);
    if obj.fast.load(Ordering::SeqCst) & SLOW != 0 {
        // `SLOW` came meanwhile: take the one back (a materialisation that read it only
        // visits more pins) and go the slow way.
        count.fetch_sub(one, Ordering::SeqCst);
        return false;
    }
    pin.fast.push(grant);
    true
}

/// Takes `n` fast-path grants that left their pins (released or materialised) off the
/// lock's counter of stripe `stripe`. The caller holds the `locks` lock of the pins'
/// context.
#[inline]
pub(super) fn uncount_fast(obj: &LockObj, stripe: usize, n: usize) {
    if n == 0 || cfg!(mdl_bug = "count_not_decremented") {
        return;
    }
    obj.counts[stripe].0.fetch_sub(n as u64, Ordering::SeqCst);
}

impl Shared {
    /// Sets SLOW; if it was clear and fast-path grants exist (a stripe is not zero),
    /// materialises them: visits the registered contexts' pins of this lock (those of
    /// the non-zero stripes), moving their fast grants into the lock state, until none
    /// is left.
    pub(super) fn ensure_slow(&self, obj: &LockObj, g: &mut LockInner) {
        let prev = obj.fast.fetch_or(SLOW, Ordering::SeqCst);
        if prev & SLOW != 0 {
            return;
        }
        let mut left = [0u64; STRIPES];
        for (l, c) in left.iter_mut().zip(&obj.counts) {
            *l = read_stripe(c);
        }
        if left.iter().all(|&l| l == 0) || cfg!(mdl_bug = "no_materialize") {
            return;
        }
        let mut moved: Vec<Ticket> = Vec::new();
        let reg = self.registry.read();
        for cs in reg.live.values() {
            // A stripe read zero stays zero while SLOW is set (no new grant can come):
            // its contexts have no grant on this lock.
            let s = stripe_of(cs.id);
            if left[s] == 0 {
                continue;
            }
            let mut p = cs.locks.lock();
            let Some(pin) = p.get_mut(&obj.key) else {
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
            uncount_fast(obj, s, n);
            pin.moved = true;
            drop(p);
            left[s] = read_stripe(&obj.counts[s]);
            if left.iter().all(|&l| l == 0) {
                break;
            }
        }
        drop(reg);
        g.st.materialise_all(&self.rules(&obj.key), &mut moved);
    }

    /// Context `cs` materialises its fast-path grants, as the server's context does before
    /// an obtrusive request and before a wait (MySQL: sql/mdl.cc,
    /// `MDL_context::materialize_fast_path_locks`, from `try_acquire_lock_impl` and
    /// `MDL_context::will_wait_for`): on each lock where it has grants in its pin, or
    /// grants another context's obtrusive request moved into the lock state (`moved`),
    /// they take their place at the back of the granted list ([`step::Lock::place_own`]),
    /// as `MDL_lock::Ticket_list::add_ticket` appends. Only the deadlock search reads that
    /// order. Like the server's, it takes each such lock's latch once; SLOW is left as it
    /// is (MySQL sets `HAS_SLOW_PATH`, not `HAS_OBTRUSIVE`: unobtrusive requests keep the
    /// fast path). Nothing for a dialect without the fast path.
    pub(super) fn place_own(&self, cs: &CtxShared) {
        if !self.dialect.strategies.iter().any(|s| s.fast_path) {
            return;
        }
        // Lock order: a lock's state before a context's `locks` (as `ensure_slow`), so
        // the objects are collected first and each visited under its state mutex.
        let objs: Vec<Arc<LockObj>> = {
            let p = cs.locks.lock();
            p.iter()
                .filter(|pin| !pin.fast.is_empty() || pin.moved)
                .map(|pin| pin.obj.clone())
                .collect()
        };
        let stripe = stripe_of(cs.id);
        let mut own: Vec<Ticket> = Vec::new();
        for obj in objs {
            let mut g = obj.state.lock();
            {
                let mut p = cs.locks.lock();
                if let Some(pin) = p.get_mut(&obj.key) {
                    if std::ptr::eq(&*pin.obj, &*obj) {
                        let n = pin.fast.len();
                        for e in pin.fast.drain(..) {
                            own.push(Ticket {
                                id: e.id,
                                owner: cs.id,
                                ty: e.ty,
                            });
                            g.meta.insert(e.id, Meta::granted(e.dur));
                        }
                        uncount_fast(&obj, stripe, n);
                        pin.moved = false;
                    }
                }
            }
            g.st.place_own(cs.id, &mut own);
        }
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

#[cfg(all(test, not(any(loom, feature = "shuttle"))))]
mod tests {
    use super::*;
    use crate::decide::key::MdlKey;
    use crate::manager::types::{Counts, StateLatch};
    use crate::sync::atomic::AtomicU64;

    /// The line of a byte address (64-byte lines).
    fn line(p: *const AtomicU64) -> usize {
        p as usize / 64
    }

    /// The fast path's writes of two contexts of different stripes land on different
    /// cache lines, neither of them the line of `fast`, which every fast path reads.
    #[test]
    fn stripes_have_lines_of_their_own() {
        let d = crate::decide::dialect::Dialect::mysql80();
        let key = MdlKey::parse(&d, "TABLE", "db.t").unwrap();
        let obj = Arc::new(LockObj {
            key,
            fast: AtomicU64::new(0),
            counts: Counts::default(),
            state: StateLatch::new(LockInner::default()),
        });
        let (a, b) = (stripe_of(OwnerId(0)), stripe_of(OwnerId(1)));
        assert_ne!(a, b);
        let la = line(&obj.counts[a].0);
        let lb = line(&obj.counts[b].0);
        assert_ne!(la, lb);
        assert_ne!(la, line(&obj.fast));
        assert_ne!(lb, line(&obj.fast));
    }
}
