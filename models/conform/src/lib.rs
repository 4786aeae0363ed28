//! Conformance with a real MariaDB server.
//!
//! - [`server`]: a throwaway `mariadbd` on a fresh datadir, stopped in `Drop`;
//! - [`client`]: one connection per session (the client/server protocol, over the socket);
//! - [`locks`]: the server's lock tables as lock rows;
//! - [`mapping`]: statement kinds, the SQL classifier and the learned statement-to-lock
//!   table (`models/conformance/statements.tsv`);
//! - [`learn`]: `mdl conform --learn`, which measures that table on the server;
//! - [`model`]: SQL statements played on our deterministic engine
//!   ([`mdl_core::table::LockTable`], mariadb dialect) through the mapping;
//! - [`scenario`]: SQL scenarios (`SESSION: sql STATEMENT`) run on both and compared;
//! - [`matrix`]: the statement compatibility matrix, measured and predicted;
//! - [`corpus`]: MariaDB's own test suite, statement by statement (`mdl conform --corpus`).

pub mod accounts;
pub mod alter_algorithm;
pub mod alter_columns;
pub mod catalog;
pub mod classify;
pub mod client;
pub mod compose;
pub mod corpus;
pub mod grants;
pub mod learn;
pub mod locks;
pub mod mapping;
pub mod matrix;
pub mod model;
pub mod random;
pub mod routines;
pub mod scenario;
pub mod server;
pub mod session_stmt;

use std::path::PathBuf;

/// Everything that can go wrong in the conformance harness, as values.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConformError {
    #[error("server: {0}")]
    Server(String),
    #[error("{file}:{line}: {msg}")]
    Data {
        file: String,
        line: usize,
        msg: String,
    },
    #[error("{file}:{line}:{col}: {msg}")]
    Scenario {
        file: String,
        line: usize,
        col: usize,
        msg: String,
    },
    #[error("{0}")]
    Io(String),
}

/// `models/conformance/`, the committed data and SQL scenarios.
pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../conformance")
}
