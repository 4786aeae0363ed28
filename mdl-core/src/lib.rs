//! # mdl-core
//!
//! A metadata lock manager in the manner of MySQL's MDL subsystem (`sql/mdl.cc`), with
//! the `mysql-8.0` and `mariadb` lock strategies as data (and dialects of your own,
//! loaded from a folder with [`Dialect::from_dir`]).
//!
//! One [`Manager`] per server; one [`Context`] per connection. A context acquires locks
//! ([`Context::acquire`], [`Context::upgrade`], [`Context::acquire_all`]), blocking its
//! thread while it waits, or as futures ([`Context::acquire_async`] and its kin,
//! executor-agnostic; a dropped future withdraws the request as a kill does). A request
//! that is not granted is an [`AcquireError`] (busy, timeout, deadlock victim, killed, or
//! a misuse), so `?` stops on it. Other threads see the locks and who waits for whom
//! ([`Manager::snapshot`], [`Manager::lock_waits`], [`Manager::wait_edges`]) and may kill
//! a wait through a [`ContextHandle`].
//!
//! ```
//! use mdl_core::{Clock, Config, Dialect, LockDuration, LockType, Manager, WaitOption};
//! use std::time::Duration;
//! let mgr = Manager::new(Dialect::mysql80(), Config::default(), Clock::System);
//! let mut ctx = mgr.context(); // one per connection
//! let t1 = mgr.dialect().table("test", "t1").expect("mysql-8.0 has TABLE");
//! ctx.acquire(&t1, LockType::SR, LockDuration::Transaction, WaitOption::Timeout(Duration::from_secs(50)))?;
//! ctx.commit(); // statement and transaction locks go; dropping the context releases the rest
//! # Ok::<(), mdl_core::AcquireError>(())
//! ```
//!
//! The decisions (which request is granted, who waits for whom, who is the deadlock
//! victim) are deterministic state machines shared with the model checker of the
//! workspace this crate comes from; the modules that hold them are not part of the
//! stable API (they are `#[doc(hidden)]`).
#![deny(missing_docs)]

mod config;
mod decide;
#[doc(hidden)]
pub mod manager;
#[doc(hidden)]
pub mod sync;
#[doc(hidden)]
pub mod table;

#[doc(hidden)]
pub use decide::{book, deadlock, dialect, key, lock, step, types};

pub use book::Held;
pub use config::{Config, ConfigBuilder, DeadlockResolution};
pub use deadlock::ForeignWaits;
pub use decide::error::{AcquireError, Granted, MdlError};
pub use dialect::{Dialect, DialectError, Namespace, WeightRule};
pub use key::MdlKey;
pub use lock::{OwnerId, TicketId};
pub use manager::introspect::{LockRow, LockWait};
pub use manager::{Context, ContextHandle, Manager};
pub use sync::clock::{Clock, ManualClock};
pub use table::BulkReq;
#[doc(hidden)]
pub use types::{Duration, Outcome, WaitStatus};
pub use types::{LockDuration, LockType, WaitOption};
