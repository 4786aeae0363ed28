//! The `mdl` subcommands, one module each: `pub struct Args` (clap) and
//! `pub fn main(Args) -> i32` (the exit code).
pub mod bench;
pub mod check;
pub mod conform;
pub mod explore;
pub mod matrix;
pub mod run;
pub mod zoo;
