//! # mdl-models
//!
//! The scenario language, the `mdl` command-line tool and the stateright models of the
//! MDL protocol.
pub mod bench;
pub mod cmd;
pub mod conform;
pub mod model;
pub mod oracle;
pub mod runner;
pub mod scenario;
pub mod zoo;
