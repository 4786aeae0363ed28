//! Errors are values: every misuse of the API is an [`MdlError`], and a call that returns
//! one has changed nothing.

use crate::types::LockType;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MdlError {
    #[error("the session holds no such lock")]
    NotHeld,
    #[error("lock type {ty} is not taken by namespace {namespace}")]
    TypeNotInNamespace { ty: LockType, namespace: String },
    #[error("upgrade from {held} to the weaker type {requested}")]
    UpgradeToWeaker { held: LockType, requested: LockType },
    #[error("a lock of type {held} cannot be downgraded")]
    DowngradeFrom { held: LockType },
    #[error("a clone of type {requested} is stronger than the lock held ({held})")]
    CloneStronger { held: LockType, requested: LockType },
    #[error("unknown savepoint `{0}`")]
    UnknownSavepoint(String),
    #[error("the session is waiting; it can take no other step until the wait ends")]
    Busy,
    #[error("the session has disconnected")]
    Disconnected,
    #[error("unknown session")]
    UnknownSession,
    #[error("an empty bulk request")]
    EmptyBulk,
}
