//! A context's pins: one reference per lock object it uses, by key, each with the
//! context's fast-path grants on that lock and its number of uses (MySQL keeps a ticket
//! per lock; we keep one reference per lock object in use, whatever the number of
//! tickets on it).
//!
//! A pin with no use stays as a cache of the map lookup (as many as the context's last
//! round used, at least `IDLE_PINS` = 64, at most `MAX_IDLE_PINS` = 16,384): a
//! connection that keeps reading the same tables finds their objects without touching
//! the map.
//!
//! # Invariants
//!
//! - (pins) Every held ticket, fast grant and request in progress counts as a use of its
//!   context's pin of the lock (`Pin::uses`), and the pin holds a reference to the
//!   object; so a lock in use is referenced. A pin's object is the map's object for its
//!   key.
//! - (counts) `PinCounts::idle` + `in_use` is the number of pins in `Pins::map`;
//!   `in_use` counts the pins with `uses > 0`.
//! - The pins live in `CtxShared::locks` (lock order: after `registry`); other threads
//!   take it only to materialise, check or introspect.

use super::*;

/// Idle pins (lock objects a context keeps a reference to while it holds no ticket on
/// them: a cache of map lookups) kept per context at least (see `PinCounts`).
#[cfg(not(any(loom, feature = "shuttle")))]
pub(super) const IDLE_PINS: usize = 64;
#[cfg(any(loom, feature = "shuttle"))]
pub(super) const IDLE_PINS: usize = 1;
/// However big the last round, at most this many idle pins are kept per context (a
/// connection that once locked a million tables does not keep their objects).
#[cfg(not(any(loom, feature = "shuttle")))]
pub(super) const MAX_IDLE_PINS: usize = 16_384;
#[cfg(any(loom, feature = "shuttle"))]
pub(super) const MAX_IDLE_PINS: usize = 4;

/// A fast-path grant, in its owner's pin until released or materialised.
#[derive(Clone, Copy)]
pub(super) struct FastGrant {
    pub(super) id: TicketId,
    pub(super) ty: LockType,
    pub(super) dur: Duration,
}

/// A context's reference to one lock object (MySQL keeps a ticket per lock; we keep one
/// reference per lock object in use, whatever the number of tickets on it).
pub(super) struct Pin {
    pub(super) obj: Arc<LockObj>,
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
}

/// The lock objects a context uses, by key.
#[derive(Default)]
pub(super) struct Pins {
    pub(super) map: HashMap<MdlKey, Pin, KeyHashBuilder>,
    pub(super) n: PinCounts,
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
}

impl Default for PinCounts {
    fn default() -> PinCounts {
        PinCounts {
            idle: 0,
            in_use: 0,
            peak: 0,
            cap: IDLE_PINS,
        }
    }
}

impl PinCounts {
    /// One more use of `p`.
    pub(super) fn use_pin(&mut self, p: &mut Pin) {
        if p.uses == 0 {
            self.idle -= 1;
        }
        p.uses += 1;
        self.in_use += 1;
        self.peak = self.peak.max(self.in_use);
    }

    /// One use of `p` fewer: true when it fell idle and must go (the idle pins kept are
    /// at the cap).
    pub(super) fn release_pin(&mut self, p: &mut Pin) -> bool {
        p.uses = p.uses.saturating_sub(1);
        if p.uses != 0 {
            return false;
        }
        self.in_use -= 1;
        if self.idle >= self.cap {
            return true;
        }
        self.idle += 1;
        false
    }
}

impl Pins {
    /// One more use of the pin of `key`, if there is one.
    pub(super) fn take(&mut self, key: &MdlKey) -> Option<&mut Pin> {
        let p = self.map.get_mut(key)?;
        self.n.use_pin(p);
        Some(p)
    }

    /// Adds a pin of `obj` for `key` with one use (or one more use of the pin there is).
    pub(super) fn add(&mut self, key: &MdlKey, obj: Arc<LockObj>) -> &mut Pin {
        let p = match self.map.entry(key.clone()) {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => {
                // A new pin starts idle; its first use follows.
                self.n.idle += 1;
                e.insert(Pin {
                    obj,
                    fast: SmallVec::new(),
                    uses: 0,
                    spare: None,
                })
            }
        };
        self.n.use_pin(p);
        p
    }

    /// One use of the pin of `key` fewer.
    pub(super) fn put(&mut self, key: &MdlKey) {
        let Some(p) = self.map.get_mut(key) else {
            return;
        };
        if self.n.release_pin(p) {
            self.map.remove(key);
        }
        self.end_round_if();
    }

    /// With no pin in use, a round ends: the idle pins to keep are those the round
    /// needed (at least `IDLE_PINS`); the surplus goes.
    pub(super) fn end_round_if(&mut self) {
        if self.n.in_use != 0 {
            return;
        }
        self.n.cap = self.n.peak.clamp(IDLE_PINS, MAX_IDLE_PINS);
        self.n.peak = 0;
        if self.n.idle > self.n.cap {
            let mut keep = self.n.cap;
            self.map.retain(|_, p| {
                if p.uses > 0 || keep > 0 {
                    keep = keep.saturating_sub(usize::from(p.uses == 0));
                    true
                } else {
                    false
                }
            });
            self.n.idle = self.n.cap;
        }
        // Give back the table's room after a round much bigger than the ones now.
        if self.map.capacity() > 4 * (self.map.len() + IDLE_PINS) {
            self.map.shrink_to(2 * (self.map.len() + IDLE_PINS));
        }
    }
}

impl Context {
    /// Runs `f` on our pin of `key` (made if missing) with one more use counted.
    pub(super) fn pin_with<R>(&self, key: &MdlKey, f: impl FnOnce(&mut Pin) -> R) -> R {
        let mut p = self.sh.locks.lock();
        if let Some(pin) = p.take(key) {
            return f(pin);
        }
        drop(p);
        // The map's shard lock comes before our `locks` lock in the lock order.
        let obj = self.m().lookup(key);
        f(self.sh.locks.lock().add(key, obj))
    }

    /// One use of our pin of `key` fewer (a request that was not granted).
    pub(super) fn unpin(&self, key: &MdlKey) {
        self.sh.locks.lock().put(key);
    }

    /// The object of a key we hold a ticket on (no new use).
    pub(super) fn pinned(&self, key: &MdlKey) -> Option<Arc<LockObj>> {
        self.sh.locks.lock().map.get(key).map(|p| p.obj.clone())
    }
}
