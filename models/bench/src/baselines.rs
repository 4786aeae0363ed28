//! The baselines the manager is measured against, in the same run:
//!
//! - [`floor_op`]: a `parking_lot::RwLock` read + unlock on a lock already looked up
//!   (the floor: no map, no bookkeeping);
//! - [`DashRw`]: the same behind a `DashMap` lookup (a sharded map of reader-writer
//!   locks, with no reclamation and no lock semantics beyond shared/exclusive);
//! - [`Naive`]: the design to beat, one global `Mutex<HashMap<key, state>>` plus one
//!   `Condvar`, the state being reader and writer counts.
//!
//! This file is shared by `mdl bench` (models) and the criterion benches
//! (`models/bench/benches/`, through `#[path]`), so both measure the very same baselines.
//! It depends only on std, `parking_lot`, `dashmap` and `mdl_core`'s key and type names.

use dashmap::DashMap;
use mdl_core::{LockType, MdlKey};
use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex};

/// The floor: read-lock and unlock a `parking_lot::RwLock` already at hand.
#[inline]
pub fn floor_op(l: &parking_lot::RwLock<()>) {
    drop(std::hint::black_box(l.read()));
}

/// Shared or exclusive: all the naive designs know of lock types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Shared,
    Exclusive,
}

impl Mode {
    /// The naive reading of a lock type: the types that forbid concurrent writes or reads
    /// of the object (SRO, SNW, SNRW, X and the BACKUP types) are exclusive; the rest
    /// (IX, S, SH, SR, SW, SWLP, SU) shared. Generous to the baselines: SR and SW, and SU,
    /// never wait for each other here, as in the real matrices.
    pub fn of(ty: LockType) -> Mode {
        if ty.0 <= LockType::SU.0 {
            Mode::Shared
        } else {
            Mode::Exclusive
        }
    }
}

/// A `DashMap` of `parking_lot` reader-writer locks, keyed by [`MdlKey`]. Objects are
/// created on first use and never reclaimed (a floor for the sharded design).
#[derive(Default)]
pub struct DashRw {
    map: DashMap<MdlKey, parking_lot::RwLock<()>>,
}

impl DashRw {
    pub fn new() -> DashRw {
        DashRw::default()
    }

    /// Makes sure the object for `key` exists (outside the timed loop).
    pub fn insert(&self, key: &MdlKey) {
        self.map.entry(key.clone()).or_default();
    }

    /// Looks `key` up and read-locks + unlocks its lock (one acquire + release).
    #[inline]
    pub fn op(&self, key: &MdlKey) {
        if let Some(l) = self.map.get(key) {
            drop(std::hint::black_box(l.read()));
        } else {
            // Slow path once per key: create, then lock.
            let l = self.map.entry(key.clone()).or_default();
            drop(std::hint::black_box(l.read()));
        }
    }

    /// Runs `f` under `key`'s lock, shared or exclusive (the object made if missing).
    #[inline]
    pub fn with<R>(&self, key: &MdlKey, mode: Mode, f: impl FnOnce() -> R) -> R {
        let l = match self.map.get(key) {
            Some(l) => l,
            None => {
                self.insert(key);
                return self.with(key, mode, f);
            }
        };
        match mode {
            Mode::Shared => {
                let _g = l.read();
                f()
            }
            Mode::Exclusive => {
                let _g = l.write();
                f()
            }
        }
    }

    /// Objects in the map.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

#[derive(Default, Debug, Clone, Copy)]
struct Counts {
    readers: u32,
    writers: u32,
}

#[derive(Default)]
struct NaiveState {
    locks: HashMap<MdlKey, Counts>,
    /// Threads parked on the condvar (so that a release only notifies when needed).
    waiters: usize,
}

/// The naive manager: one global mutex over a map of reader/writer counts, one condvar
/// for every wait. Lock objects are removed when their counts fall to zero.
#[derive(Default, Clone)]
pub struct Naive {
    inner: Arc<(Mutex<NaiveState>, Condvar)>,
}

/// A naive context: what it holds, for its commit.
#[derive(Default, Debug)]
pub struct NaiveCtx {
    held: Vec<(MdlKey, Mode)>,
}

impl NaiveCtx {
    pub fn held(&self) -> usize {
        self.held.len()
    }
}

impl Naive {
    pub fn new() -> Naive {
        Naive::default()
    }

    pub fn context(&self) -> NaiveCtx {
        NaiveCtx::default()
    }

    fn state(&self) -> std::sync::MutexGuard<'_, NaiveState> {
        // A poisoned mutex only means another bench thread panicked; the counts are
        // still consistent (every update is a single statement).
        self.inner.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Acquires `key` in `mode`, waiting as long as it takes.
    pub fn acquire(&self, ctx: &mut NaiveCtx, key: &MdlKey, mode: Mode) {
        let mut g = self.state();
        loop {
            let c = g.locks.entry(key.clone()).or_default();
            let ok = match mode {
                Mode::Shared => c.writers == 0,
                Mode::Exclusive => c.writers == 0 && c.readers == 0,
            };
            if ok {
                match mode {
                    Mode::Shared => c.readers += 1,
                    Mode::Exclusive => c.writers += 1,
                }
                break;
            }
            g.waiters += 1;
            g = self.inner.1.wait(g).unwrap_or_else(|e| e.into_inner());
            g.waiters -= 1;
        }
        drop(g);
        ctx.held.push((key.clone(), mode));
    }

    /// Acquires without waiting; false when it would have to wait.
    pub fn try_acquire(&self, ctx: &mut NaiveCtx, key: &MdlKey, mode: Mode) -> bool {
        let mut g = self.state();
        let c = g.locks.entry(key.clone()).or_default();
        let ok = match mode {
            Mode::Shared => c.writers == 0,
            Mode::Exclusive => c.writers == 0 && c.readers == 0,
        };
        if ok {
            match mode {
                Mode::Shared => c.readers += 1,
                Mode::Exclusive => c.writers += 1,
            }
        } else if c.readers == 0 && c.writers == 0 {
            g.locks.remove(key);
        }
        drop(g);
        if ok {
            ctx.held.push((key.clone(), mode));
        }
        ok
    }

    /// Releases everything `ctx` holds (one critical section) and wakes the waiters.
    pub fn commit(&self, ctx: &mut NaiveCtx) {
        if ctx.held.is_empty() {
            return;
        }
        let mut g = self.state();
        for (k, m) in ctx.held.drain(..) {
            let gone = match g.locks.get_mut(&k) {
                Some(c) => {
                    match m {
                        Mode::Shared => c.readers -= 1,
                        Mode::Exclusive => c.writers -= 1,
                    }
                    c.readers == 0 && c.writers == 0
                }
                None => false,
            };
            if gone {
                g.locks.remove(&k);
            }
        }
        let wake = g.waiters > 0;
        drop(g);
        if wake {
            self.inner.1.notify_all();
        }
    }

    /// Lock objects in the map.
    pub fn lock_object_count(&self) -> usize {
        self.state().locks.len()
    }
}
