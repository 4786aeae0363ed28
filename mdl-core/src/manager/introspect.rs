//! Introspection rows. (API contract.)
use crate::key::MdlKey;
use crate::lock::OwnerId;
use crate::types::{Duration, LockType};

/// One row of the lock snapshot, as `performance_schema.metadata_locks`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockRow {
    pub key: MdlKey,
    pub ty: LockType,
    /// `None` for a pending request.
    pub duration: Option<Duration>,
    pub granted: bool,
    pub owner: OwnerId,
    /// How long it has waited (pending) or waited before its grant, in ms of the clock.
    pub waited_ms: u64,
    /// Granted by the fast path and not yet materialised.
    pub fast_path: bool,
}

/// A real conflict: `waiter` waits for `blocker` on `key`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockWait {
    pub key: MdlKey,
    pub waiter: OwnerId,
    pub waiting_type: LockType,
    pub blocker: OwnerId,
    pub blocking_type: LockType,
    /// true: the blocker's lock is granted; false: it is a pending request with priority.
    pub blocker_granted: bool,
    pub waited_ms: u64,
}
