//! # mdl-core
//!
//! A metadata lock manager in the manner of MySQL's MDL subsystem (`sql/mdl.cc`), with
//! the `mysql-8.0` and `mariadb` lock strategies as data.
//!
//! Functional core, concurrent shell:
//! - [`dialect`], [`lock`], [`book`], [`deadlock`] are deterministic decisions: which
//!   request is granted, who waits for whom, which ticket a release gives back, who is
//!   the deadlock victim; [`step`] puts them together for one lock object and returns
//!   plans (what to grant, whom to wake, what to report);
//! - [`table::LockTable`] is the whole manager as one clonable state machine (what the
//!   model checker and the fuzzers drive), carrying the step layer's plans out;
//! - [`Manager`] and [`Context`] are the concurrent shell an engine embeds, carrying the
//!   same plans out: per-lock mutexes, a fast path on two flags of an atomic word (not a
//!   counter), wait slots, written against [`sync`]. A wait blocks the thread
//!   ([`Context::acquire`]) or is a future ([`Context::acquire_async`], executor-agnostic;
//!   a dropped future withdraws the request as a kill does).
//!
//! ```
//! use mdl_core::{Clock, Dialect, Duration, LockType, Manager, MdlKey, Outcome, WaitOption};
//! let mgr = Manager::new(Dialect::mysql80(), Default::default(), Clock::System);
//! let mut ctx = mgr.context(); // one per connection
//! let t1 = MdlKey::parse(mgr.dialect(), "TABLE", "test.t1").unwrap();
//! assert_eq!(ctx.acquire(&t1, LockType::SR, Duration::Transaction, WaitOption::Timeout(50_000)), Ok(Outcome::Granted));
//! ctx.commit(); // statement and transaction locks go; dropping the context releases the rest
//! ```

pub mod book;
pub mod deadlock;
pub mod dialect;
pub mod error;
pub mod key;
pub mod lock;
pub mod manager;
pub mod step;
pub mod sync;
pub mod table;
pub mod types;

pub use dialect::{Dialect, Namespace};
pub use error::MdlError;
pub use key::MdlKey;
pub use lock::{OwnerId, TicketId};
pub use manager::{Context, ContextHandle, Manager};
pub use sync::clock::Clock;
pub use types::{Duration, LockType, Outcome, WaitOption, WaitStatus};
