//! # mdl-scenario
//!
//! The scenario language (`.mdl` files: [`ast`], [`parse`], [`print`]), the engines that
//! play a scenario in written order ([`runner`]: `mdl run`), and the independent
//! reference oracle ([`oracle`]) that proptest and cargo-fuzz compare the lock core with.
//! The light part of the tool: no model checker, no server harness.
pub mod apply;
pub mod ast;
pub mod oracle;
pub mod parse;
pub mod print;
pub mod read;
pub mod runner;
pub use apply::ApplyError;
pub use ast::*;
