//! The clock that times lock waits.
//! `System` uses real time; `Manual` only moves when told (tests, scenarios, loom and
//! shuttle, which have no time).
//!
//! Deadlines are absolute readings of the clock: a wait of `n` ms that starts at `t`
//! ends at `t + n`. With the system clock the waiter itself notices (its condition
//! variable wait has a timeout); with the manual clock only
//! [`crate::Manager::advance_clock`] moves time, and it then times out every wait whose
//! deadline has passed.

use super::atomic::{AtomicU64, Ordering};
use super::DataArc;

/// The clock that times lock waits: the system's, or a manual one for tests.
#[derive(Clone)]
pub enum Clock {
    /// Real milliseconds since the first reading of any system clock in this process.
    System,
    /// A counter moved only by [`ManualClock::advance`].
    Manual(DataArc<ManualClock>),
}

/// A clock that only moves when told. The counter is the facade's atomic, so loom and
/// shuttle see its readings as the shared state they are.
pub struct ManualClock {
    ms: AtomicU64,
}

impl ManualClock {
    /// A manual clock reading 0.
    pub fn new() -> ManualClock {
        ManualClock {
            ms: AtomicU64::new(0),
        }
    }
    pub fn now_ms(&self) -> u64 {
        self.ms.load(Ordering::SeqCst)
    }
    /// Moves time forward by `ms`; returns the new reading.
    pub fn advance(&self, ms: u64) -> u64 {
        let mut cur = self.ms.load(Ordering::SeqCst);
        loop {
            let new = cur.saturating_add(ms);
            match self
                .ms
                .compare_exchange(cur, new, Ordering::SeqCst, Ordering::SeqCst)
            {
                Ok(_) => return new,
                Err(c) => cur = c,
            }
        }
    }
}

impl Default for ManualClock {
    fn default() -> Self {
        ManualClock::new()
    }
}

fn system_ms() -> u64 {
    // The start instant is plain process-wide data (never used under loom or shuttle,
    // where only the manual clock exists).
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    let start = *START.get_or_init(std::time::Instant::now);
    u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX)
}

impl Clock {
    /// A new manual clock reading 0.
    pub fn manual() -> Clock {
        Clock::Manual(DataArc::new(ManualClock::new()))
    }
    /// Milliseconds since the clock's start.
    pub fn now_ms(&self) -> u64 {
        match self {
            Clock::System => system_ms(),
            Clock::Manual(m) => m.now_ms(),
        }
    }
    pub fn is_manual(&self) -> bool {
        matches!(self, Clock::Manual(_))
    }
}

impl std::fmt::Debug for Clock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Clock::System => f.write_str("Clock::System"),
            Clock::Manual(m) => write!(f, "Clock::Manual({} ms)", m.now_ms()),
        }
    }
}
