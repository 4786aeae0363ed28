//! The synchronisation facade: std by default, loom under `--cfg loom`, shuttle with the
//! `shuttle` feature. Nothing else in mdl-core names std's primitives (a test checks it),
//! so loom and shuttle explore the very code that ships.
//!
//! `DataArc` is always std's `Arc`: it shares immutable data (keys, the dialect) whose
//! reference count decides nothing, and keeping it out of the models keeps them small.

pub use std::sync::Arc as DataArc;

#[cfg(all(not(loom), not(feature = "shuttle")))]
mod imp {
    pub use std::sync::atomic;
    pub use std::sync::{Arc, Condvar, Mutex, MutexGuard, RwLock};
    pub use std::thread;
}

#[cfg(loom)]
mod imp {
    pub use loom::sync::atomic;
    pub use loom::sync::{Arc, Condvar, Mutex, MutexGuard, RwLock};
    pub use loom::thread;
}

#[cfg(all(feature = "shuttle", not(loom)))]
mod imp {
    pub use shuttle::sync::atomic;
    pub use shuttle::sync::{Arc, Condvar, Mutex, MutexGuard, RwLock};
    pub use shuttle::thread;
}

pub use imp::*;

pub mod clock;
