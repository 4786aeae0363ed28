//! A context's pins: one reference per lock object it uses, by key, each with the
//! context's fast-path grants on that lock and its number of uses (MySQL keeps a ticket
//! per lock; we keep one reference per lock object in use, whatever the number of
//! tickets on it).
//!
//! A pin with no use stays as a cache of the map lookup (as many as the context's last
//! round used, at least `IDLE_PINS` = 64, at most `MAX_IDLE_PINS` = 16,384): a
//! connection that keeps reading the same tables finds their objects without touching
//! the map. When more pins are idle than that, the least recently used go: each pin
//! carries the tick at which it last fell idle, and once the idle pins exceed the cap
//! by a quarter, those beyond the cap with the oldest ticks are dropped in one pass
//! (`Pins::evict_lru`; amortised constant time per release).
//!
//! # Invariants
//!
//! - (pins) Every held ticket, fast grant and request in progress counts as a use of its
//!   context's pin of the lock (`Pin::uses`), and the pin holds a reference to the
//!   object; so a lock in use is referenced. A pin's object is the map's object for its
//!   key.
//! - (counts) `PinCounts::idle` + `in_use` is the number of pins in `Pins::slots`;
//!   `in_use` counts the pins with `uses > 0`.
//! - (LRU) An idle pin's `last` is the value of `PinCounts::tick` when it fell idle;
//!   ticks only grow, so no two idle pins share one, and the idle pins kept by an
//!   eviction are exactly the `cap` most recently released.
//! - The pins live in `CtxShared::locks` (lock order: after `registry`); other threads
//!   take it only to materialise, check or introspect.

use super::context::Context;
use super::types::{LockObj, Pin, PinCounts, Pins};
use crate::decide::key::MdlKey;
use crate::sync::Arc;
use smallvec::SmallVec;

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

impl Default for PinCounts {
    fn default() -> PinCounts {
        PinCounts {
            idle: 0,
            in_use: 0,
            peak: 0,
            cap: IDLE_PINS,
            evict_at: IDLE_PINS + IDLE_PINS / 4,
            tick: 0,
        }
    }
}

impl PinCounts {
    /// One more use of `p`.
    #[inline]
    pub(super) fn use_pin(&mut self, p: &mut Pin) {
        if p.uses == 0 {
            self.idle -= 1;
        }
        p.uses += 1;
        self.in_use += 1;
        self.peak = self.peak.max(self.in_use);
    }

    /// One use of `p` fewer; a pin that falls idle is stamped as the most recently
    /// used. True when the idle pins are so many that the least recently used must go
    /// (`Pins::evict_lru`).
    #[inline]
    pub(super) fn release_pin(&mut self, p: &mut Pin) -> bool {
        p.uses = p.uses.saturating_sub(1);
        if p.uses != 0 {
            return false;
        }
        self.in_use -= 1;
        self.idle += 1;
        self.tick += 1;
        p.last = self.tick;
        self.over()
    }

    /// The idle pins exceed the cap by more than a quarter: time to evict.
    #[inline]
    pub(super) fn over(&self) -> bool {
        self.idle > self.evict_at
    }

    /// The idle pins to keep from now on.
    #[inline]
    fn set_cap(&mut self, cap: usize) {
        self.cap = cap;
        self.evict_at = cap + cap / 4;
    }
}

impl Pins {
    /// The slot of `key`'s pin: the one found last if its key is `key`, else by the
    /// index (and it becomes the one found last).
    #[inline(always)]
    pub(super) fn find(&mut self, key: &MdlKey) -> Option<usize> {
        if let Some(p) = self.slots.get(self.mru) {
            if p.key == *key {
                return Some(self.mru);
            }
        }
        // The slots beside it, by the key's allocation only (no read of a key's data):
        // a transaction taken again in the same order finds its pins in slot order on
        // acquire and in reverse order on commit, without a probe of the index.
        for i in [self.mru.wrapping_add(1), self.mru.wrapping_sub(1)] {
            if self.slots.get(i).is_some_and(|p| p.key.same_value(key)) {
                self.mru = i;
                return Some(i);
            }
        }
        let i = *self.index.get(key)? as usize;
        self.mru = i;
        Some(i)
    }

    /// The pin of `key`, if there is one.
    pub(super) fn get(&self, key: &MdlKey) -> Option<&Pin> {
        match self.slots.get(self.mru) {
            Some(p) if p.key == *key => Some(p),
            _ => self.index.get(key).map(|&i| &self.slots[i as usize]),
        }
    }

    /// The pin of `key`, if there is one, to change.
    #[inline]
    pub(super) fn get_mut(&mut self, key: &MdlKey) -> Option<&mut Pin> {
        let i = self.find(key)?;
        Some(&mut self.slots[i])
    }

    /// The pin of `key` and the counts (to release a use without a second search).
    #[inline]
    pub(super) fn get_counted(&mut self, key: &MdlKey) -> Option<(&mut Pin, &mut PinCounts)> {
        let i = self.find(key)?;
        Some((&mut self.slots[i], &mut self.n))
    }

    /// Every pin, in no particular order.
    pub(super) fn iter(&self) -> impl Iterator<Item = &Pin> {
        self.slots.iter()
    }

    /// The number of pins (in use and idle).
    #[cfg(all(test, not(any(loom, feature = "shuttle"))))]
    pub(super) fn len(&self) -> usize {
        self.slots.len()
    }

    /// One more use of the pin of `key`, if there is one.
    #[inline(always)]
    pub(super) fn take(&mut self, key: &MdlKey) -> Option<&mut Pin> {
        let i = self.find(key)?;
        let p = &mut self.slots[i];
        self.n.use_pin(p);
        Some(p)
    }

    /// Adds a pin of `obj` for `key` with one use (or one more use of the pin there is).
    pub(super) fn add(&mut self, key: &MdlKey, obj: Arc<LockObj>) -> &mut Pin {
        let i = match self.find(key) {
            Some(i) => i,
            None => {
                // A new pin starts idle; its first use follows.
                self.n.idle += 1;
                let i = self.slots.len();
                self.index.insert(key.clone(), i as u32);
                self.slots.push(Pin {
                    key: obj.key.clone(),
                    obj,
                    fast: SmallVec::new(),
                    uses: 0,
                    spare: None,
                    last: 0,
                    moved: false,
                });
                self.mru = i;
                i
            }
        };
        let p = &mut self.slots[i];
        self.n.use_pin(p);
        p
    }

    /// One use of the pin of `key` fewer.
    pub(super) fn put(&mut self, key: &MdlKey) {
        let Some((p, n)) = self.get_counted(key) else {
            return;
        };
        if n.release_pin(p) {
            self.evict_lru();
        }
        self.end_round_if();
    }

    /// Keeps the pins for which `keep` holds, and the index in step ("(slab)").
    fn retain(&mut self, keep: impl FnMut(&Pin) -> bool) {
        self.slots.retain(keep);
        self.index.clear();
        for (i, p) in self.slots.iter().enumerate() {
            self.index.insert(p.key.clone(), i as u32);
        }
    }

    /// Drops the least recently used idle pins beyond the cap: one pass to find the
    /// tick of the newest pin to drop, one to drop it and the older ones.
    pub(super) fn evict_lru(&mut self) {
        let cap = self.n.cap;
        if self.n.idle <= cap {
            return;
        }
        let mut ticks = std::mem::take(&mut self.ticks);
        ticks.clear();
        ticks.extend(self.slots.iter().filter(|p| p.uses == 0).map(|p| p.last));
        let drop_n = ticks.len() - cap.min(ticks.len());
        if drop_n > 0 {
            // The drop_n-th oldest tick: it and every older idle pin go.
            let (_, newest_dropped, _) = ticks.select_nth_unstable(drop_n - 1);
            let newest_dropped = *newest_dropped;
            self.retain(|p| p.uses > 0 || p.last > newest_dropped);
            self.n.idle -= drop_n;
        }
        // Kept for the next eviction unless a big round grew it (memory per context).
        if ticks.capacity() <= 4 * IDLE_PINS {
            ticks.clear();
            self.ticks = ticks;
        }
        // Give back the slab's and the index's room after a round much bigger than the
        // ones now (only an eviction makes the pins fewer).
        if self.slots.capacity() > 4 * (self.slots.len() + IDLE_PINS) {
            self.slots.shrink_to(2 * (self.slots.len() + IDLE_PINS));
            self.index.shrink_to(2 * (self.slots.len() + IDLE_PINS));
        }
    }

    /// With no pin in use, a round ends: the idle pins to keep are those the round
    /// needed (at least `IDLE_PINS`); the least recently used of the surplus go.
    #[inline]
    pub(super) fn end_round_if(&mut self) {
        if self.n.in_use != 0 {
            return;
        }
        let cap = self.n.peak.clamp(IDLE_PINS, MAX_IDLE_PINS);
        if cap != self.n.cap {
            self.n.set_cap(cap);
        }
        self.n.peak = 0;
        // Not at every commit past the cap: only past the quarter's slack (amortised).
        if self.n.over() {
            self.evict_lru();
        }
    }
}

impl Context {
    /// Runs `f` on our pin of `key` (made if missing) with one more use counted.
    #[inline(always)]
    pub(super) fn pin_with<R>(&self, key: &MdlKey, f: impl FnOnce(&mut Pin) -> R) -> R {
        let mut p = self.sh.locks.lock();
        if let Some(pin) = p.take(key) {
            return f(pin);
        }
        drop(p);
        self.pin_new(key, f)
    }

    /// [`Context::pin_with`] for a key not pinned (out of line: the uncommon case).
    #[inline(never)]
    pub(super) fn pin_new<R>(&self, key: &MdlKey, f: impl FnOnce(&mut Pin) -> R) -> R {
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
        self.sh.locks.lock().get(key).map(|p| p.obj.clone())
    }
}

#[cfg(all(test, not(any(loom, feature = "shuttle"))))]
mod tests {
    use super::*;
    use crate::decide::dialect::Dialect;
    use crate::manager::types::{Counts, LockInner, StateLatch};
    use crate::sync::atomic::AtomicU64;

    fn obj(key: &MdlKey) -> Arc<LockObj> {
        Arc::new(LockObj {
            key: key.clone(),
            fast: AtomicU64::new(0),
            counts: Counts::default(),
            state: StateLatch::new(LockInner::default()),
        })
    }

    /// The idle pins kept are the most recently released ones: a table used again
    /// survives a stream of new tables that pushes its older neighbours out.
    #[test]
    fn idle_pins_are_evicted_least_recently_used_first() {
        let d = Dialect::mysql80();
        let key = |i: usize| MdlKey::parse(&d, "TABLE", &format!("db.t{i}")).unwrap();
        let mut pins = Pins::default();
        // One round of IDLE_PINS tables, released in order t0, t1, ...: all kept.
        for i in 0..IDLE_PINS {
            pins.add(&key(i), obj(&key(i)));
        }
        for i in 0..IDLE_PINS {
            pins.put(&key(i));
        }
        assert_eq!(pins.len(), IDLE_PINS);
        // t0 is used again: now the most recently released.
        assert!(pins.take(&key(0)).is_some());
        pins.put(&key(0));
        // New tables, one at a time, until an eviction has run.
        let extra = IDLE_PINS / 4 + 1;
        for i in IDLE_PINS..IDLE_PINS + extra {
            pins.add(&key(i), obj(&key(i)));
            pins.put(&key(i));
        }
        assert_eq!(pins.len(), IDLE_PINS);
        assert_eq!(pins.n.idle, IDLE_PINS);
        // The oldest (t1 .. t_extra) went; t0, used again, and every new one stayed.
        assert!(
            pins.get(&key(0)).is_some(),
            "the table used again was evicted"
        );
        for i in 1..=extra {
            assert!(pins.get(&key(i)).is_none(), "t{i} (old) kept");
        }
        for i in extra + 1..IDLE_PINS + extra {
            assert!(pins.get(&key(i)).is_some(), "t{i} (recent) evicted");
        }
        index_follows_slots(&mut pins);
    }

    /// "(slab)": every slot is found by its key, through the index and through the
    /// hint, and the index has no other key.
    fn index_follows_slots(pins: &mut Pins) {
        assert_eq!(pins.index.len(), pins.slots.len());
        let keys: Vec<MdlKey> = pins.slots.iter().map(|p| p.obj.key.clone()).collect();
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(&pins.slots[i].key, k, "a slot's key is not its object's");
            assert_eq!(pins.index.get(k).copied(), Some(i as u32), "{k:?}");
            assert!(std::ptr::eq(pins.get(k).unwrap(), &pins.slots[i]), "{k:?}");
            assert_eq!(pins.find(k), Some(i), "{k:?}");
        }
    }

    /// The hint (the slot found last) never answers for another key: after evictions
    /// move the slots, every key still finds its own pin, and a key evicted finds none.
    #[test]
    fn the_hint_never_answers_for_another_key() {
        let d = Dialect::mysql80();
        let key = |i: usize| MdlKey::parse(&d, "TABLE", &format!("db.h{i}")).unwrap();
        let mut pins = Pins::default();
        for round in 0..6 {
            for i in round * 40..round * 40 + 60 {
                pins.add(&key(i), obj(&key(i)));
                let last = pins.mru;
                pins.put(&key(i));
                // A hint past the end after an eviction is harmless.
                pins.mru = last;
            }
            index_follows_slots(&mut pins);
            for i in 0..round * 40 + 60 {
                if let Some(p) = pins.get(&key(i)) {
                    assert_eq!(p.obj.key, key(i));
                }
                if let Some(p) = pins.get_mut(&key(i)) {
                    assert_eq!(p.obj.key, key(i));
                }
            }
        }
        assert!(pins.get(&key(0)).is_none(), "an old idle pin survived");
    }

    /// A pin in use is never evicted, however old.
    #[test]
    fn pins_in_use_are_kept() {
        let d = Dialect::mysql80();
        let key = |i: usize| MdlKey::parse(&d, "TABLE", &format!("db.u{i}")).unwrap();
        let mut pins = Pins::default();
        pins.add(&key(0), obj(&key(0)));
        for i in 1..3 * IDLE_PINS {
            pins.add(&key(i), obj(&key(i)));
            pins.put(&key(i));
        }
        assert!(pins.get(&key(0)).is_some_and(|p| p.uses == 1));
        assert!(pins.n.idle <= IDLE_PINS + IDLE_PINS / 4);
        pins.put(&key(0));
        assert_eq!(pins.n.in_use, 0);
        assert_eq!(pins.n.idle + pins.n.in_use, pins.len());
    }
}
