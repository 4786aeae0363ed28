//! # mdl-check
//!
//! The stateright model of a scenario and its checker ([`model`]: `mdl check`,
//! `mdl explore`), and the bug zoo ([`zoo`]: historical designs, each caught in its old
//! form and proven in its new one).
pub mod model;
#[cfg(feature = "sql")]
pub mod sql;
#[cfg(feature = "stateright")]
pub mod zoo;
