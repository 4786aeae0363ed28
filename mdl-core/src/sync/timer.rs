//! The system clock's timer: runs a callback at a deadline (a reading of
//! [`Clock::System`](super::clock::Clock)), so that an async wait times out on its own
//! without the engine running a ticker and without the core naming an executor. One
//! thread per manager, started by the first timed async wait, sleeping until the earliest
//! deadline; it ends when the manager is dropped. Under loom and shuttle time does not
//! exist (only the manual clock ends waits) and the timer never fires.

/// A scheduled callback, to cancel it: its deadline and a sequence number.
pub type TimerKey = (u64, u64);

type Callback = Box<dyn FnOnce() + Send>;

#[cfg(all(not(loom), not(feature = "shuttle")))]
mod imp {
    use super::*;
    use std::collections::BTreeMap;
    use std::sync::{Arc, Condvar, Mutex};

    #[derive(Default)]
    struct State {
        due: BTreeMap<TimerKey, Callback>,
        next: u64,
        started: bool,
        stop: bool,
    }

    #[derive(Default)]
    pub(super) struct Inner {
        state: Mutex<State>,
        cv: Condvar,
    }

    /// The timer (see the module's docs).
    #[derive(Default)]
    pub struct Timer(Arc<Inner>);

    impl Timer {
        /// Runs `f` on the timer's thread once the system clock reads `deadline` or
        /// later (unless cancelled first).
        pub fn schedule(&self, deadline: u64, f: Callback) -> TimerKey {
            let mut s = self.0.state.lock().unwrap_or_else(|e| e.into_inner());
            s.next += 1;
            let key = (deadline, s.next);
            s.due.insert(key, f);
            if !s.started {
                s.started = true;
                let inner = self.0.clone();
                let spawned = std::thread::Builder::new()
                    .name("mdl-timer".into())
                    .spawn(move || run(&inner));
                // Without a thread the waits still time out when polled after their
                // deadline (as with a ticker); a later wait tries again.
                s.started = spawned.is_ok();
            }
            drop(s);
            self.0.cv.notify_one();
            key
        }

        /// Forgets a scheduled callback (its wait ended first).
        pub fn cancel(&self, key: TimerKey) {
            let mut s = self.0.state.lock().unwrap_or_else(|e| e.into_inner());
            s.due.remove(&key);
        }
    }

    impl Drop for Timer {
        fn drop(&mut self) {
            let mut s = self.0.state.lock().unwrap_or_else(|e| e.into_inner());
            s.stop = true;
            s.due.clear();
            drop(s);
            self.0.cv.notify_one();
        }
    }

    fn run(inner: &Inner) {
        let mut s = inner.state.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if s.stop {
                return;
            }
            let now = super::super::clock::Clock::System.now_ms();
            let Some((&(deadline, _), _)) = s.due.first_key_value() else {
                s = inner.cv.wait(s).unwrap_or_else(|e| e.into_inner());
                continue;
            };
            // The clock reads whole milliseconds, floored: a wait asked at x.9 ms with a
            // deadline of x + 30 reaches it 29.1 ms later. Firing once the clock has passed
            // the deadline (reads deadline + 1) keeps every timeout at least as long as asked.
            if deadline >= now {
                let wait = std::time::Duration::from_millis((deadline - now).saturating_add(1));
                s = match inner.cv.wait_timeout(s, wait) {
                    Ok((g, _)) => g,
                    Err(e) => e.into_inner().0,
                };
                continue;
            }
            let later = s.due.split_off(&(now, 0));
            let fire = std::mem::replace(&mut s.due, later);
            drop(s);
            fire.into_values().for_each(|f| f());
            s = inner.state.lock().unwrap_or_else(|e| e.into_inner());
        }
    }
}

#[cfg(any(loom, feature = "shuttle"))]
mod imp {
    use super::*;

    /// The timer (see the module's docs): never fires here.
    #[derive(Default)]
    pub struct Timer;

    impl Timer {
        /// Never runs `f` (there is no time under loom and shuttle).
        pub fn schedule(&self, deadline: u64, f: Callback) -> TimerKey {
            drop(f);
            (deadline, 0)
        }
        /// Nothing to cancel.
        pub fn cancel(&self, _key: TimerKey) {}
    }
}

pub use imp::Timer;
