//! The scenario language: syntax tree, parser, printer.
pub mod ast;
pub mod parse;
pub mod print;
pub use ast::*;
