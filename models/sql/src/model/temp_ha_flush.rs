//! Statements on a session's temporary tables alone and the session's HANDLERs: those
//! that go through `open_tables` close the HANDLERs another session waits for
//! (`mysql_ha_flush` at its start, sql/sql_base.cc), as the statements on base tables do:
//! CREATE TEMPORARY TABLE / SEQUENCE (`mysql_create_table` calls
//! `open_and_lock_tables`, sql/sql_table.cc; also when the name exists, with or without
//! IF NOT EXISTS), DML, ALTER, TRUNCATE, CREATE / DROP INDEX and a failing ALTER ...
//! PARTITION of a temporary table. DROP [TEMPORARY] TABLE / SEQUENCE (`mysql_rm_table`)
//! and RENAME (`mysql_rename_tables`) open none and keep them. Measured on 10.11.19:
//! found/seed-430548 and its `-2`.

use crate::catalog::ER_BAD_TABLE;
use crate::classify::Stmt;
use crate::stmt::{SessionStmt, TempChange, TempOp};

/// A statement on temporary tables only that opens them with `open_tables`.
pub(super) fn opens_tables(st: &Stmt) -> bool {
    let Stmt::Session(SessionStmt::Temp(TempOp { change, .. })) = st else {
        return false;
    };
    !matches!(
        change,
        TempChange::Drop(_) | TempChange::Rename(_) | TempChange::Fail(ER_BAD_TABLE)
    )
}
