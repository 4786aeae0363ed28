//! The pure SQL model: what MariaDB (and MySQL 8.0) do with metadata locks, statement by
//! statement, played on `mdl-core`'s deterministic engine. It starts no process and talks
//! to no server (`mdl-conform` holds it to a real MariaDB server).
//!
//! - [`catalog`]: the objects a session sees (tables, engines, views, routines, accounts);
//! - [`classify`]: a statement's text into a [`stmt::Stmt`] / [`stmt::Plan`];
//! - [`stmt`]: the statement types (at the bottom: it uses none of the files that make or
//!   read them);
//! - [`mapping`]: statement kinds and the learned statement-to-lock table
//!   (`models/conformance/statements.tsv`), the fixture;
//! - [`compose`]: the composition rule of statements with several tables;
//! - [`model`]: SQL sessions played on [`mdl_core::table::LockTable`] through the mapping;
//! - [`kind`]: statement kinds (one enum variant per kind of the tables);
//! - at the bottom, used by the classifier, the catalog and the model alike: [`objects`]
//!   (tables, engines, views, triggers, foreign keys), [`table_def`] (columns and keys),
//!   [`effect`] (what a statement changes in the catalog), [`errors`] (shared error numbers);
//! - [`key_text`]: a lock's key as scenarios write it.

pub mod accounts;
pub mod alter_algorithm;
pub mod alter_columns;
pub mod catalog;
pub mod classify;
pub mod collations;
pub mod comments;
pub mod compose;
pub mod effect;
pub mod errors;
mod grant_columns;
pub mod grant_stmt;
mod grant_users;
pub mod grants;
pub mod key_text;
pub mod kind;
pub mod mapping;
pub mod model;
pub mod objects;
pub mod packages;
mod role_names;
mod roles;
pub mod routines;
mod servers;
mod set_password;
pub mod sql_mode;
pub mod stmt;
pub mod table_def;
mod words;

use std::path::PathBuf;

/// What can go wrong loading the SQL model's data, as values.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SqlError {
    #[error("{file}:{line}:{col}: {msg}")]
    Data {
        file: String,
        line: usize,
        col: usize,
        msg: String,
    },
    #[error("{0}")]
    Io(String),
}

/// `models/conformance/`, the committed data (the learned statement tables).
pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../conformance")
}
