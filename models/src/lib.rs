//! # mdl-models
//!
//! The scenario language, the `mdl` command-line tool and the stateright models of the
//! MDL protocol.
pub mod cmd;
pub mod scenario;
