//! Conformance with a real MariaDB server.
//!
//! - [`server`]: a throwaway `mariadbd` on a fresh datadir, stopped in `Drop`;
//! - [`client`]: one connection per session (the client/server protocol, over the socket);
//! - [`locks`]: the server's lock tables as lock rows;
//! - [`learn`]: `mdl conform --learn`, which measures the statement table of `mdl-sql`
//!   (`models/conformance/statements.tsv`) on the server;
//! - [`scenario`]: SQL scenarios (`SESSION: sql STATEMENT`) run on both and compared;
//! - [`matrix`]: the statement compatibility matrix, measured and predicted;
//! - [`corpus`]: MariaDB's own test suite, statement by statement (`mdl conform --corpus`).
//!
//! The SQL model these compare with the server (classifier, mapping, model) is `mdl-sql`.

pub mod client;
pub mod corpus;
pub mod learn;
pub mod locks;
pub mod matrix;
pub mod random;
pub mod scenario;
pub mod server;

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

impl From<mdl_sql::SqlError> for ConformError {
    fn from(e: mdl_sql::SqlError) -> Self {
        match e {
            mdl_sql::SqlError::Data {
                file,
                line,
                col,
                msg,
            } => ConformError::Scenario {
                file,
                line,
                col,
                msg,
            },
            mdl_sql::SqlError::Io(msg) => ConformError::Io(msg),
        }
    }
}

/// `models/conformance/`, the committed data and SQL scenarios.
pub fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../conformance")
}
