//! A row written into a sequence by INSERT / REPLACE (MariaDB `sql/ha_sequence.cc`,
//! `ha_sequence::write_row`): a write that does not come from NEXTVAL upgrades the
//! statement's SW on the sequence to X (`upgrade_shared_lock(table->mdl_ticket,
//! MDL_EXCLUSIVE, lock_wait_timeout)`, "so that full inserts run in the same order on
//! master and slaves"; not of a temporary sequence), then checks the row
//! (`SEQUENCE::check_and_adjust`: HA_ERR_SEQUENCE_INVALID_DATA, a data error). The
//! X keeps the SW's duration: the transaction's.
//!
//! Learned on 10.11.19 as the `insert_sequence` row (`INSERT INTO t1 VALUES (...)` on
//! `t1` made a sequence): SW, BACKUP_TRANS_DML, then X (`open_select:pending`); under
//! the session's LOCK TABLES ... WRITE the SNRW becomes X (its rules); REPLACE holds X alike
//! (measured with `metadata_lock_info`). The row was
//! learned on InnoDB: an INSERT into a sequence of another engine is refused.

use super::Stmt;
use crate::catalog::{Catalog, Engine};
use crate::kind::Kind;

/// INSERT / REPLACE whose target is a sequence: its part plays the `insert_sequence` row.
pub(super) fn insert_rows(st: Stmt, cat: &Catalog) -> Result<Stmt, String> {
    let Stmt::Learned(mut p) = st else {
        return Ok(st);
    };
    if p.kind != Kind::Insert {
        return Ok(Stmt::Learned(p));
    }
    // The target is the first part (`classify_insert`); the others are read.
    let Some(part) = p.parts.first_mut() else {
        return Ok(Stmt::Learned(p));
    };
    let Some(t) = part.bind.t.as_ref().filter(|t| cat.is_sequence(t)) else {
        return Ok(Stmt::Learned(p));
    };
    if part.kind != Kind::Insert {
        return Ok(Stmt::Learned(p));
    }
    if cat.engine(t) != Some(Engine::InnoDb) {
        return Err(format!(
            "an INSERT into a sequence of another engine than InnoDB (`{t}`) is not in the \
             learned table"
        ));
    }
    // Seeded bug `sql_sequence_insert_sw`: the write keeps its SW (no upgrade to X).
    if !cfg!(mdl_bug = "sql_sequence_insert_sw") {
        part.row = Kind::InsertSequence.as_str().into();
    }
    Ok(Stmt::Learned(p))
}
