//! The learned statement table (`models/conformance/statements.tsv`): its rows as types
//! and their look-ups here; the file's reader and writer in `mapping/read.rs`, the
//! statement kinds the learner measures in `mapping/kinds.rs`, the fixture they are
//! measured on in `mapping/fixture.rs`. The file format:
//!
//! Three kinds of rows, tab-separated:
//!
//! ```text
//! kind  NAME  IMPLICIT_COMMIT(yes|no)  SQL
//! op    NAME  SEQ  acquire|bulk|backoff|upgrade|release  NAMESPACE  KEY  TYPE  DURATION  EVIDENCE
//! rule  STATE  NAME  RESULT  ADDED  REMOVED
//! ```
//!
//! An `op` row's `KEY` is a template over the objects a statement names (bound by
//! [`crate::classify`]): `-` (BACKUP), `$db` (the schema of each table the statement
//! names), `$t` / `$t2` (its first / second table), `$n` / `$n2` (a new table name: CREATE
//! TABLE's, RENAME's targets), `$v` (a view), `$tr` (a trigger), `$s` (a schema named by
//! CREATE / DROP DATABASE), `$s.*` (every table of that schema), `$lock` (a user lock), or
//! a literal `db.name`. `bulk` ops are taken together by one `acquire_locks` call in key
//! order and given back by the `backoff` op that follows them (see [`crate::compose`]).
//!
//! A `rule` row says what the server answers when a session in `STATE` (its own LOCK
//! TABLES, FTWRL, BACKUP STAGE, HANDLER) runs kind `NAME`: `ok` or `E<code>`, and which of
//! the session's locks the statement added and removed (templates, `,`-separated, `-` for
//! none). See `mdl_conform::learn` for how both are measured.
//!
//! Kind names ending in `.myisam` are the same statement on MyISAM tables (`m1`, `m2`);
//! the model uses them for tables of that engine. Kinds marked `check` in [`KINDS`] (the
//! statements with several tables) are learned to check the composition rule
//! ([`crate::compose`]) against the server, not to be played.

mod fixture;
mod kinds;
mod read;

pub use fixture::{FIXTURE, FIXTURE_TABLES};
pub use kinds::{kind_def, matrix_kinds, KindDef, KINDS};
pub use read::{statements_file, STATEMENTS_FILE, STATEMENTS_FILE_MYSQL80};

use crate::kind::{Kind, RowVariant};
use mdl_core::{Duration, LockType};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OpKind {
    /// Take the lock, waiting if needed.
    Acquire,
    /// One of a group taken by one `acquire_locks` call (in key order); the `backoff` op
    /// after the group gives the group back on a conflict.
    Bulk,
    /// Take the lock without waiting; on a conflict give back the `bulk` group before it,
    /// wait for this lock alone, give it back and start the group again (MariaDB's
    /// `lock_table_names`).
    Backoff,
    /// A later type on a key the statement (or the session) holds.
    Upgrade,
    Release,
}

impl OpKind {
    pub fn name(self) -> &'static str {
        match self {
            OpKind::Acquire => "acquire",
            OpKind::Bulk => "bulk",
            OpKind::Backoff => "backoff",
            OpKind::Upgrade => "upgrade",
            OpKind::Release => "release",
        }
    }
    pub(crate) fn parse(s: &str) -> Option<OpKind> {
        Some(match s {
            "acquire" => OpKind::Acquire,
            "bulk" => OpKind::Bulk,
            "backoff" => OpKind::Backoff,
            "upgrade" => OpKind::Upgrade,
            "release" => OpKind::Release,
            _ => return None,
        })
    }
}

/// One lock operation of a statement kind, with a key template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Op {
    pub op: OpKind,
    pub ns: String,
    pub key: String,
    pub ty: LockType,
    pub dur: Duration,
    pub evidence: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KindRow {
    /// The row's name (`select`, `select.myisam`): data, the key of the rules.
    pub name: String,
    /// The row's statement kind, parsed once from its name.
    pub kind: Kind,
    /// The base row or its MyISAM variant.
    pub variant: RowVariant,
    pub implicit_commit: bool,
    pub sql: String,
    pub ops: Vec<Op>,
}

/// A lock of a session, as a template (`TABLE $t SR`), in a rule row.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct LockTemplate {
    pub ns: String,
    pub key: String,
    pub ty: LockType,
}

impl std::fmt::Display for LockTemplate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {} {}", self.ns, self.key, self.ty.abbrev())
    }
}

/// What the server answers when a session in a state runs a kind (see `mdl_conform::learn`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleRow {
    pub state: String,
    pub kind: String,
    /// `None`: the statement succeeds; `Some(code)`: it fails with that error.
    pub error: Option<u32>,
    pub added: Vec<LockTemplate>,
    pub removed: Vec<LockTemplate>,
}

/// The learned table.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Mapping {
    /// The header comment lines (server version, how to regenerate).
    pub header: Vec<String>,
    pub kinds: Vec<KindRow>,
    pub rules: Vec<RuleRow>,
}

impl Mapping {
    pub fn kind(&self, name: &str) -> Option<&KindRow> {
        self.kinds.iter().find(|k| k.name == name)
    }

    pub fn rule(&self, state: &str, kind: &str) -> Option<&RuleRow> {
        self.rules
            .iter()
            .find(|r| r.state == state && r.kind == kind)
    }
}
