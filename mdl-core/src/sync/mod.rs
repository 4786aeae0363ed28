//! The synchronisation facade: std by default, loom under `--cfg loom`, shuttle with the
//! `shuttle` feature. Nothing else in mdl-core names std's primitives (a test checks it),
//! so loom and shuttle explore the very code that ships.
//!
//! The wrappers hide poisoning: a panic while a lock is held is a bug in mdl-core, and
//! the data behind the lock is only ever changed by complete steps, so a poisoned lock is
//! taken over as it is (`into_inner`). `Condvar::wait_timeout_ms` times out only with std;
//! loom and shuttle have no time, and there only the manual clock
//! ([`clock::Clock::Manual`]) ends waits.
//!
//! `DataArc` is always std's `Arc`: it shares immutable data (keys, the dialect) whose
//! reference count decides nothing, and keeping it out of the models keeps them small.
//! [`Arc`] is the facade's: its reference count decides when a lock object is reclaimed.
//!
//! The async waits need no primitive of their own: a task's `std::task::Waker` is plain
//! data kept in the wait slot under the facade's [`Mutex`] (registered in the same hold
//! as the status check, taken in the same hold as the status is set), so loom and shuttle
//! see its registration and its wake-up as the shared state they are, and their own
//! executors (`loom::future::block_on`, `shuttle::future`) drive the futures.

pub use std::sync::Arc as DataArc;

#[cfg(all(not(loom), not(feature = "shuttle")))]
mod imp {
    pub use std::sync::atomic;
    pub use std::sync::{
        Arc, Condvar, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard,
    };
    pub use std::thread;
}

#[cfg(loom)]
mod imp {
    pub use loom::sync::atomic;
    pub use loom::sync::{
        Arc, Condvar, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard,
    };
    pub use loom::thread;
}

#[cfg(all(feature = "shuttle", not(loom)))]
mod imp {
    pub use shuttle::sync::atomic;
    pub use shuttle::sync::{
        Arc, Condvar, Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard,
    };
    pub use shuttle::thread;
}

pub use imp::{atomic, thread, Arc, MutexGuard, RwLockReadGuard, RwLockWriteGuard};

/// A mutex whose `lock` never reports poisoning.
#[derive(Debug, Default)]
pub struct Mutex<T>(imp::Mutex<T>);

impl<T> Mutex<T> {
    pub fn new(v: T) -> Mutex<T> {
        Mutex(imp::Mutex::new(v))
    }
    pub fn lock(&self) -> MutexGuard<'_, T> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A reader-writer lock whose `read`/`write` never report poisoning.
#[derive(Debug, Default)]
pub struct RwLock<T>(imp::RwLock<T>);

impl<T> RwLock<T> {
    pub fn new(v: T) -> RwLock<T> {
        RwLock(imp::RwLock::new(v))
    }
    pub fn read(&self) -> RwLockReadGuard<'_, T> {
        self.0.read().unwrap_or_else(|e| e.into_inner())
    }
    pub fn write(&self) -> RwLockWriteGuard<'_, T> {
        self.0.write().unwrap_or_else(|e| e.into_inner())
    }
}

/// A condition variable over [`Mutex`] guards.
#[derive(Debug, Default)]
pub struct Condvar(imp::Condvar);

impl Condvar {
    pub fn new() -> Condvar {
        Condvar(imp::Condvar::new())
    }
    /// Releases the guard's mutex, parks until notified (or spuriously), re-takes it.
    pub fn wait<'a, T>(&self, g: MutexGuard<'a, T>) -> MutexGuard<'a, T> {
        self.0.wait(g).unwrap_or_else(|e| e.into_inner())
    }
    /// As [`Condvar::wait`], for at most `ms` milliseconds of real time (std only; under
    /// loom and shuttle this is [`Condvar::wait`]: time does not exist there).
    pub fn wait_timeout_ms<'a, T>(&self, g: MutexGuard<'a, T>, ms: u64) -> MutexGuard<'a, T> {
        #[cfg(all(not(loom), not(feature = "shuttle")))]
        {
            match self.0.wait_timeout(g, std::time::Duration::from_millis(ms)) {
                Ok((g, _)) => g,
                Err(e) => e.into_inner().0,
            }
        }
        #[cfg(any(loom, feature = "shuttle"))]
        {
            let _ = ms;
            self.wait(g)
        }
    }
    pub fn notify_one(&self) {
        self.0.notify_one()
    }
    pub fn notify_all(&self) {
        self.0.notify_all()
    }
}

pub mod clock;
#[cfg(mdl_bug = "detector_nested_read")]
pub mod latch;
pub mod spin;
pub mod timer;
