//! The reference oracle: a deliberately naive, independent model of the lock manager
//! for differential testing (proptest `tests/prop_sequence.rs`, cargo-fuzz `fuzz/`).
//!
//! It must not call the decision code it checks (`mdl_core::lock`, `book`, `deadlock`,
//! `table`, nor `Dialect`'s parsed matrices): [`tables`] parses the raw dialect text
//! itself, [`model`] keeps plain lists and recomputes grantability, wait-for edges and
//! cycles from scratch, [`brute`] finds cycles by enumerating simple paths. [`program`]
//! holds the random programs and the runner that compares the oracle with
//! `mdl_core::table::LockTable` after every step.

pub mod brute;
pub mod model;
pub mod program;
pub mod tables;

pub use model::{Cmd, Oracle, ReleaseMode};
pub use program::{run, run_with, Op, Program};
