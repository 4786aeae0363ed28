//! # mdl
//!
//! The `mdl` command-line tool: one module per subcommand in [`cmd`], each a thin layer
//! over the crates that do the work (`mdl-scenario`, `mdl-check`, `mdl-sql`, `mdl-conform`,
//! `mdl-bench`).
pub mod cmd;
