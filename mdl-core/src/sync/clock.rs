//! The clock that times lock waits. (API contract; implementation pending.)
//! `System` uses real time; `Manual` only moves when told (tests, scenarios, loom and
//! shuttle, which have no time).

use super::DataArc;

#[derive(Clone)]
pub enum Clock {
    System,
    Manual(DataArc<ManualClock>),
}

pub struct ManualClock {}

impl Clock {
    pub fn manual() -> Clock {
        todo!()
    }
    /// Milliseconds since the clock's start.
    pub fn now_ms(&self) -> u64 {
        todo!()
    }
}
