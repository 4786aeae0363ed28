//! A test-and-set lock for data that one thread (its owner) takes on every operation and
//! other threads take rarely and briefly: a context's pins. Uncontended, `lock` is one
//! compare-and-swap and the unlock one release *store*, where std's mutex pays a second
//! read-modify-write (`swap`) to learn whether to wake a sleeper. A waiter spins a little
//! and then yields; nothing here ever sleeps, so hold it only for short, non-blocking
//! work.
//!
//! Built on the facade's atomics and, under loom, on loom's `UnsafeCell`, so loom checks
//! the exclusion itself (a second access while a guard lives is reported as a race).

use super::atomic::{AtomicBool, Ordering};
use std::ops::{Deref, DerefMut};

#[cfg(loom)]
type Cell<T> = loom::cell::UnsafeCell<T>;
#[cfg(not(loom))]
type Cell<T> = std::cell::UnsafeCell<T>;

/// What loom tracks as a live mutable access (nothing outside loom).
#[cfg(loom)]
type Track<T> = loom::cell::MutPtr<T>;
#[cfg(not(loom))]
type Track<T> = std::marker::PhantomData<*mut T>;

/// A lock over `T` (see the module doc).
pub struct SpinLock<T> {
    locked: AtomicBool,
    data: Cell<T>,
}

// SAFETY: the data is reached only through a `SpinGuard`, and at most one guard exists at
// a time: a guard is made only after `locked` went from false to true by our
// compare-and-swap, and `locked` becomes false again only in that guard's drop. The
// `Acquire` of the swap synchronises with the `Release` store of the previous guard's
// drop, so every access through one guard happens before every access through the next.
// Sharing `&SpinLock<T>` between threads therefore only hands exclusive access to `T`
// from one thread to another: `T: Send` suffices, as for `std::sync::Mutex`.
unsafe impl<T: Send> Sync for SpinLock<T> {}

impl<T: Default> Default for SpinLock<T> {
    fn default() -> SpinLock<T> {
        SpinLock::new(T::default())
    }
}

impl<T> SpinLock<T> {
    pub fn new(v: T) -> SpinLock<T> {
        SpinLock {
            locked: AtomicBool::new(false),
            data: Cell::new(v),
        }
    }

    pub fn lock(&self) -> SpinGuard<'_, T> {
        let mut spins = 0u32;
        if cfg!(mdl_bug = "spin_check_then_set") {
            // Seeded bug: test, then set, as two steps: two threads can both see it free
            // and both enter (loom reports the concurrent access to the cell).
            while self.locked.load(Ordering::Acquire) {
                spins = spins.saturating_add(1);
                pause(spins);
            }
            self.locked.store(true, Ordering::Relaxed);
            return self.guard();
        }
        while self
            .locked
            .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            // Wait until it looks free before the next read-modify-write.
            while self.locked.load(Ordering::Relaxed) {
                spins = spins.saturating_add(1);
                pause(spins);
            }
        }
        self.guard()
    }

    /// The guard of a lock just taken.
    fn guard(&self) -> SpinGuard<'_, T> {
        #[cfg(loom)]
        let (track, ptr) = {
            let t = self.data.get_mut();
            let p = t.with(|p| p);
            (t, p)
        };
        #[cfg(not(loom))]
        let (track, ptr) = (std::marker::PhantomData, self.data.get());
        SpinGuard {
            lock: self,
            ptr,
            track: Some(track),
        }
    }
}

/// Spins a little, then yields (under loom and shuttle: always yields, so that their
/// schedulers run the holder).
fn pause(spins: u32) {
    #[cfg(any(loom, feature = "shuttle"))]
    {
        let _ = spins;
        super::thread::yield_now();
    }
    #[cfg(not(any(loom, feature = "shuttle")))]
    {
        if spins < 64 {
            std::hint::spin_loop();
        } else {
            super::thread::yield_now();
        }
    }
}

/// Exclusive access to a [`SpinLock`]'s data; unlocks when dropped.
pub struct SpinGuard<'a, T> {
    lock: &'a SpinLock<T>,
    ptr: *mut T,
    /// Ended (under loom: the tracked access closed) before the unlock.
    track: Option<Track<T>>,
}

impl<T> Deref for SpinGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: `ptr` points into the `SpinLock` borrowed for the guard's lifetime, and
        // while this guard lives no other guard exists (see `Sync` above); every
        // reference to the data comes from this guard, and the borrow of `self` keeps a
        // shared one from meeting the unique one `deref_mut` gives.
        unsafe { &*self.ptr }
    }
}

impl<T> DerefMut for SpinGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as in `deref`; `&mut self` makes this the only reference.
        unsafe { &mut *self.ptr }
    }
}

impl<T> Drop for SpinGuard<'_, T> {
    fn drop(&mut self) {
        // Under loom this closes the tracked access before another thread may open one.
        let _ = self.track.take();
        self.lock.locked.store(false, Ordering::Release);
    }
}
