//! A writer-preferring reader-writer latch, built from the facade's [`Mutex`] and
//! [`Condvar`] so that loom and shuttle schedule it. Compiled only with the seeded bug
//! `detector_nested_read` (the old design of MySQL bug #56405, see
//! `manager/detect.rs`): it is then the latch of every lock object's state, as
//! `MDL_lock::m_rwlock` was before that fix, a platform read-write lock, which on
//! Windows and Solaris (and std's futex `RwLock`) does not prefer readers.
//!
//! A writer-preferring latch makes a reader wait while a writer *waits*, not only while
//! one holds the latch. So a thread that holds the latch for read and asks for it again
//! for read blocks behind a writer that queued in between, and that writer waits for the
//! first read to end: a deadlock on the latch. MySQL's fix (5.5.8) added a portable
//! reader-preferring lock, `rw_pr_lock_t` (mysys/thr_rwlock.c, `rw_pr_rdlock`: nested
//! reads allowed), and made `MDL_lock::m_rwlock` one (`mysql_prlock_t`, sql/mdl.cc, whose
//! comment says the deadlock detector relies on readers being preferred).

use super::{Condvar, Mutex};
use std::cell::UnsafeCell;
use std::ops::{Deref, DerefMut};

#[derive(Default)]
struct LatchState {
    readers: usize,
    writer: bool,
    writers_waiting: usize,
}

/// Writer-preferring: `read` waits while a writer holds or waits for the latch.
pub struct WriterPreferring<T> {
    st: Mutex<LatchState>,
    cv: Condvar,
    data: UnsafeCell<T>,
}

// SAFETY: `data` is read only under a read hold and written only under the write hold,
// which `st` makes exclusive of every read hold.
unsafe impl<T: Send> Send for WriterPreferring<T> {}
unsafe impl<T: Send + Sync> Sync for WriterPreferring<T> {}

impl<T> WriterPreferring<T> {
    pub fn new(v: T) -> Self {
        WriterPreferring {
            st: Mutex::new(LatchState::default()),
            cv: Condvar::new(),
            data: UnsafeCell::new(v),
        }
    }

    /// The write hold (the name is `Mutex::lock`'s, so that the lock objects' code is
    /// the same with either latch).
    pub fn lock(&self) -> WriteGuard<'_, T> {
        let mut s = self.st.lock();
        s.writers_waiting += 1;
        if s.writer || s.readers > 0 {
            tracing::debug!(
                held_by_writer = s.writer,
                readers = s.readers,
                "latch: a writer waits"
            );
        }
        while s.writer || s.readers > 0 {
            s = self.cv.wait(s);
        }
        s.writers_waiting -= 1;
        s.writer = true;
        WriteGuard { l: self }
    }

    /// Takes a read hold and keeps it until [`WriterPreferring::unlock_read`]: the data
    /// is readable until then.
    pub fn read_hold(&self) -> &T {
        let mut s = self.st.lock();
        if s.writer || s.writers_waiting > 0 {
            tracing::debug!(
                readers = s.readers,
                writers_waiting = s.writers_waiting,
                "latch: a read waits behind a writer"
            );
        }
        while s.writer || s.writers_waiting > 0 {
            s = self.cv.wait(s);
        }
        s.readers += 1;
        tracing::debug!(readers = s.readers, "latch: read hold taken");
        // SAFETY: a read hold is taken; no writer until it is given back.
        unsafe { &*self.data.get() }
    }

    /// Gives back one read hold taken by [`WriterPreferring::read_hold`].
    pub fn unlock_read(&self) {
        let mut s = self.st.lock();
        s.readers -= 1;
        tracing::debug!(readers = s.readers, "latch: read hold given back");
        if s.readers == 0 {
            self.cv.notify_all();
        }
    }
}

impl<T: Default> Default for WriterPreferring<T> {
    fn default() -> Self {
        WriterPreferring::new(T::default())
    }
}

/// The write hold of a [`WriterPreferring`] latch.
pub struct WriteGuard<'a, T> {
    l: &'a WriterPreferring<T>,
}

impl<T> Deref for WriteGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the write hold is exclusive.
        unsafe { &*self.l.data.get() }
    }
}

impl<T> DerefMut for WriteGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the write hold is exclusive.
        unsafe { &mut *self.l.data.get() }
    }
}

impl<T> Drop for WriteGuard<'_, T> {
    fn drop(&mut self) {
        let mut s = self.l.st.lock();
        s.writer = false;
        self.l.cv.notify_all();
    }
}
