//! The scenario language: syntax tree, parser, printer.
pub mod ast;
pub use ast::*;
