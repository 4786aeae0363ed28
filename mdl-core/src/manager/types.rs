//! The shell's shared data types: a lock object (MySQL's `MDL_lock`) with its state and
//! counters, and a context's shared part (its pins and its wait slot, `MDL_wait`), with
//! the handle other threads hold on it. They refer to each other (a waiting ticket's
//! `Meta` holds its context's shared part, whose pins hold lock objects), so they are
//! declared together here, below every file that uses them; what each does is in the file
//! named by its job (`map.rs`, `fast.rs`, `pins.rs`, `wait.rs`), whose invariants govern
//! these fields.

use crate::decide::key::{KeyHashBuilder, MdlKey};
use crate::decide::lock::{OwnerId, Ticket, TicketId};
use crate::decide::step::Lock;
use crate::decide::types::{LockDuration, LockType, WaitStatus};
use crate::sync::atomic::AtomicU64;
use crate::sync::spin::SpinLock;
use crate::sync::{Arc, Condvar, DataArc, Mutex};
use smallvec::SmallVec;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::task::Waker;

// The lock object (`map.rs`, `fast.rs`).

/// Hashes a [`TicketId`] (sequential `u64`s) with one multiplication, so that both the
/// low bits (bucket) and the top bits (control byte) of the map's hash vary.
#[derive(Default)]
pub(super) struct IdHash(u64);

impl Hasher for IdHash {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

pub(super) type IdMap<V> = HashMap<TicketId, V, BuildHasherDefault<IdHash>>;

/// One lock (`MDL_lock`).
pub(super) struct LockObj {
    pub(super) key: MdlKey,
    /// `SLOW` (`fast.rs`): an obtrusive ticket is granted or waiting (MySQL's
    /// `MDL_lock::m_fast_path_state`). Written only when obtrusive requests come and go;
    /// the fast path reads it.
    pub(super) fast: AtomicU64,
    /// The fast-path grants not yet materialised, by stripe of their owners (`fast.rs`,
    /// "(count)"): a grant adds one to its owner's stripe, its release takes one off.
    /// Each stripe on a cache line of its own, so that contexts of different stripes
    /// taking shared locks on one hot table write no line in common.
    pub(super) counts: Counts,
    pub(super) state: StateLatch<LockInner>,
}

/// The latch of a lock object's state: a mutex. (With the seeded bug
/// `detector_nested_read`, the old design of MySQL bug #56405: a writer-preferring
/// reader-writer latch, which the deadlock search holds for read; `detect.rs`.)
#[cfg(not(mdl_bug = "detector_nested_read"))]
pub(super) type StateLatch<T> = crate::sync::Mutex<T>;
#[cfg(mdl_bug = "detector_nested_read")]
pub(super) type StateLatch<T> = crate::sync::latch::WriterPreferring<T>;

#[derive(Default)]
pub(super) struct LockInner {
    /// The step layer's lock: every granted ticket except fast-path ones not yet
    /// materialised, every waiting ticket, the upgrades waiting.
    pub(super) st: Lock,
    /// Per ticket in `st` (not the upgrade tickets): duration, wait times, and the
    /// waiter's shared context while it waits (a grant sets its status).
    pub(super) meta: IdMap<Meta>,
}

pub(super) struct Meta {
    pub(super) dur: LockDuration,
    /// When the wait began (read only while the ticket waits; 0 for an immediate grant,
    /// so that no grant reads the clock).
    pub(super) since_ms: u64,
    pub(super) waited_ms: u64,
    pub(super) waiter: Option<DataArc<CtxShared>>,
}

/// The number of counters of fast-path grants per lock object (`LockObj::counts`). Two
/// contexts share one when their owner ids are equal modulo `STRIPES`. Fewer under loom
/// and shuttle, so that their few contexts share stripes too.
#[cfg(not(any(loom, feature = "shuttle")))]
pub(super) const STRIPES: usize = 8;
#[cfg(any(loom, feature = "shuttle"))]
pub(super) const STRIPES: usize = 2;

/// One counter of fast-path grants, alone on its cache line (64 bytes: the coherence
/// unit of the x86-64 and most AArch64 cores the project runs on).
#[repr(align(64))]
pub(super) struct Stripe(pub(super) AtomicU64);

impl Default for Stripe {
    fn default() -> Stripe {
        Stripe(AtomicU64::new(0))
    }
}

/// A lock object's counters of fast-path grants not yet materialised, by stripe.
pub(super) type Counts = [Stripe; STRIPES];

// A context's pins (`pins.rs`).

/// A fast-path grant, in its owner's pin until released or materialised.
#[derive(Clone, Copy)]
pub(super) struct FastGrant {
    pub(super) id: TicketId,
    pub(super) ty: LockType,
    pub(super) dur: LockDuration,
}

/// A context's reference to one lock object (MySQL keeps a ticket per lock; we keep one
/// reference per lock object in use, whatever the number of tickets on it).
pub(super) struct Pin {
    pub(super) obj: Arc<LockObj>,
    /// `obj`'s key, kept in the slot: the check of the slot found last compares it
    /// without reading the lock object, whose line holding its key the fast path does
    /// not otherwise read (with many locks that check missed the cache at every lock:
    /// models/BENCH.md, issue 30, "many locks per context").
    pub(super) key: MdlKey,
    /// Fast-path grants on `obj` not yet materialised (usually zero or one: inline, so
    /// that a pin costs no allocation of its own).
    pub(super) fast: SmallVec<[FastGrant; 1]>,
    /// The context's granted tickets on `obj` plus its request in progress, if any. An
    /// idle pin (0) is a cache entry: it keeps the object mapped and saves the next
    /// acquire its map lookup.
    pub(super) uses: u32,
    /// The key of the ticket released last on this lock, kept for the next fast-path
    /// grant's book entry: a connection that takes and releases the same lock again and
    /// again then moves one key value back and forth instead of touching its reference
    /// count (keys are values: equal keys are interchangeable).
    pub(super) spare: Option<MdlKey>,
    /// `PinCounts::tick` when the pin last fell idle (the LRU order of idle pins).
    pub(super) last: u64,
    /// Another context's obtrusive request moved fast-path grants of ours into the lock
    /// state (`Shared::ensure_slow`) since we last materialised our own: they are still
    /// unplaced there (`LockState::unplaced`) until `Shared::place_own`.
    pub(super) moved: bool,
}

/// The lock objects a context uses, by key: a slab of pins with a key -> slot index, and
/// the slot found last, checked before the index. A connection that takes and releases
/// one lock again and again (the uncontended fast path) then finds its pin by one key
/// comparison (pointer-equal keys: the book's key is the pin's, recycled through
/// `Pin::spare`) instead of a hash probe at the acquire and another at the release
/// (`models/BENCH.md`, issue 30, third round). The slots beside it come next, compared
/// by the key's allocation only: a big transaction taken again in the same order finds
/// its pins in slot order, then in reverse at its commit, without the index (sixth
/// round).
///
/// (slab) `index` maps exactly the keys of `slots`, each to its slot, and no two slots
/// have one key; a slot's key (`Pin::key`) is its object's; `mru` is any number (a
/// hint: a slot is used only when its key is the one asked for).
#[derive(Default)]
pub(super) struct Pins {
    pub(super) slots: Vec<Pin>,
    pub(super) index: HashMap<MdlKey, u32, KeyHashBuilder>,
    pub(super) mru: usize,
    pub(super) n: PinCounts,
    /// Reused by [`Pins::evict_lru`]: empty between calls.
    pub(super) ticks: Vec<u64>,
}

/// How many pins are in use and idle, and how many idle ones to keep: the most pins the
/// context had in use in its last round (from no pin in use to none again, e.g. a
/// transaction), but at least `IDLE_PINS` and at most `MAX_IDLE_PINS`. A connection
/// that runs the same big transaction again finds every lock object pinned; one that
/// goes back to small ones drops the surplus at the end of its next round.
pub(super) struct PinCounts {
    pub(super) idle: usize,
    pub(super) in_use: usize,
    /// Most pins in use in this round.
    pub(super) peak: usize,
    /// Idle pins kept.
    pub(super) cap: usize,
    /// `cap` and a quarter: more idle pins than this, and the least recently used go
    /// (amortised; kept with `cap`, see [`PinCounts::set_cap`]).
    pub(super) evict_at: usize,
    /// Counts the pins falling idle (stamped into `Pin::last`).
    pub(super) tick: u64,
}

// A context's shared part and its wait slot (`wait.rs`).

/// What a parked context waits for.
pub(super) struct WaitFor {
    pub(super) lock: Arc<LockObj>,
    pub(super) ticket: Ticket,
    pub(super) deadline: Option<u64>,
}

/// The wait slot (`MDL_wait`) and the detector's weight inputs.
#[derive(Default)]
pub(super) struct SlotState {
    /// The wait's outcome; the first one set wins.
    pub(super) status: Option<WaitStatus>,
    /// Set (under the lock's state mutex) when the ticket is enqueued; taken by the
    /// waiter when it wakes with a status.
    pub(super) waiting: Option<WaitFor>,
    pub(super) force_dml: bool,
    /// The waiter is parked in [`CtxShared::park`] (its deadlock search is over).
    pub(super) parked: bool,
    /// Times chosen as a deadlock victim (MariaDB's overweight).
    pub(super) victim_count: u32,
    /// The task of an async waiter, woken (once) by whoever sets `status`.
    pub(super) waker: Option<Waker>,
}

/// The part of a context that other threads touch.
pub(super) struct CtxShared {
    pub(super) id: OwnerId,
    /// The lock objects the context uses, with its fast-path grants not yet materialised
    /// (lock order: after `registry`). Other threads take it only to materialise, check
    /// or introspect; the owner takes it once per acquire and once per release. A spin
    /// lock: nobody holds it for long, and its unlock is a plain store.
    pub(super) locks: SpinLock<Pins>,
    /// Lock order: last.
    pub(super) slot: Mutex<SlotState>,
    pub(super) cv: Condvar,
}

/// A handle on a context that other threads may use: kill its wait, see whether it waits.
#[derive(Clone)]
pub struct ContextHandle {
    pub(super) sh: DataArc<CtxShared>,
}

// The deadlock search (`detect.rs`).

/// What the search's start waits for: an MDL ticket (its wait slot says whether it still
/// waits) or a foreign subsystem's resource (`Manager::detect_from`: a victim chosen at
/// the start is then aborted by its caller).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum StartWaits {
    Mdl,
    Foreign,
}
