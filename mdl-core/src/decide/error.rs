//! Errors are values: every misuse of the API is an [`MdlError`], and a call that returns
//! one has changed nothing.

use crate::decide::lock::TicketId;
use crate::decide::types::{LockType, Outcome};

/// A call that was refused because of how it was made (nothing changed).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MdlError {
    /// The session holds no such lock.
    #[error("the session holds no such lock")]
    NotHeld,
    /// The key's namespace does not take this lock type.
    #[error("lock type {ty} is not taken by namespace {namespace}")]
    TypeNotInNamespace {
        /// The type asked for.
        ty: LockType,
        /// The key's namespace.
        namespace: String,
    },
    /// An upgrade to a type weaker than the one held.
    #[error("upgrade from {held} to the weaker type {requested}")]
    UpgradeToWeaker {
        /// The type held.
        held: LockType,
        /// The type asked for.
        requested: LockType,
    },
    /// The type held cannot be downgraded (only `X`, `SNW`, `SNRW` can).
    #[error("a lock of type {held} cannot be downgraded")]
    DowngradeFrom {
        /// The type held.
        held: LockType,
    },
    /// A clone stronger than the lock it clones.
    #[error("a clone of type {requested} is stronger than the lock held ({held})")]
    CloneStronger {
        /// The type held.
        held: LockType,
        /// The type asked for.
        requested: LockType,
    },
    /// No savepoint of that name.
    #[error("unknown savepoint `{0}`")]
    UnknownSavepoint(String),
    /// The session is waiting; it can take no other step until the wait ends.
    #[error("the session is waiting; it can take no other step until the wait ends")]
    Busy,
    /// The session has disconnected.
    #[error("the session has disconnected")]
    Disconnected,
    /// Unknown session.
    #[error("unknown session")]
    UnknownSession,
    /// An empty bulk request.
    #[error("an empty bulk request")]
    EmptyBulk,
}

/// Why [`Context::acquire`](crate::Context::acquire) (or an upgrade, a bulk acquire, or
/// their async twins) did not grant the request. A request that fails leaves the context
/// holding what it held before (a failed bulk request gives back what it took).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AcquireError {
    /// A conflicting lock is held or pending and the request asked not to wait
    /// ([`WaitOption::NoWait`](crate::WaitOption::NoWait)).
    #[error("the lock is busy and the request does not wait")]
    Busy,
    /// The wait's timeout passed (MySQL's `ER_LOCK_WAIT_TIMEOUT`).
    #[error("lock wait timeout exceeded")]
    Timeout,
    /// The context was chosen as a deadlock victim (MySQL's `ER_LOCK_DEADLOCK`): roll
    /// the transaction back (or commit what it did) and retry.
    #[error("deadlock found; this context was chosen as the victim")]
    Deadlock,
    /// The wait was killed ([`ContextHandle::kill`](crate::ContextHandle::kill)) or its
    /// future dropped.
    #[error("the wait was killed")]
    Killed,
    /// The call was refused before anything changed (a misuse: see [`MdlError`]).
    #[error(transparent)]
    Misuse(#[from] MdlError),
}

impl AcquireError {
    /// The error of a step outcome other than `Granted` (`None` for `Granted`).
    #[doc(hidden)]
    pub fn from_outcome(o: Outcome) -> Option<AcquireError> {
        match o {
            Outcome::Granted | Outcome::Ok => None,
            Outcome::Busy | Outcome::Waiting => Some(AcquireError::Busy),
            Outcome::Timeout => Some(AcquireError::Timeout),
            Outcome::Deadlock => Some(AcquireError::Deadlock),
            Outcome::Killed | Outcome::Error => Some(AcquireError::Killed),
        }
    }

    /// The error as a step outcome (`Error` for a misuse).
    #[doc(hidden)]
    pub fn outcome(&self) -> Outcome {
        match self {
            AcquireError::Busy => Outcome::Busy,
            AcquireError::Timeout => Outcome::Timeout,
            AcquireError::Deadlock => Outcome::Deadlock,
            AcquireError::Killed => Outcome::Killed,
            AcquireError::Misuse(_) => Outcome::Error,
        }
    }
}

/// A granted request: what [`Context::acquire`](crate::Context::acquire) and its kin
/// return on success.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Granted {
    /// The ticket the request added, if it added one: `None` when a lock the context
    /// held already covered it, for an upgrade (the held ticket takes the new type), and
    /// for a bulk request (its tickets are in [`Context::held`](crate::Context::held)).
    pub ticket: Option<TicketId>,
}

impl Granted {
    /// A step outcome and the ticket it added as the public result.
    #[doc(hidden)]
    pub fn result(o: Outcome, ticket: Option<TicketId>) -> Result<Granted, AcquireError> {
        match AcquireError::from_outcome(o) {
            None => Ok(Granted { ticket }),
            Some(e) => Err(e),
        }
    }
}
