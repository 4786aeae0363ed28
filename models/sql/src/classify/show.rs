//! SHOW statements of their own that open no table through MDL (the others are in
//! [`crate::classify`]'s `session.rs`):
//!
//! - `SHOW CREATE PROCEDURE | FUNCTION name` (sql/sp.cc,
//!   `Sp_handler::sp_show_create_routine`: "a dirty read of the data dictionary, i.e.
//!   takes no metadata locks"; it reads `mysql.proc` through `sp_cache_routine`, a system
//!   table the comparison ignores): no lock, ER_SP_DOES_NOT_EXIST when the routine does
//!   not exist. Measured on 10.11.19: nothing held after it in a transaction, and it runs
//!   under LOCK TABLES (suite/show-create-routine.mdl);
//! - `SHOW CREATE EVENT name` (sql/events.cc, `Events::show_create_event`: the event is
//!   loaded from `mysql.event` by `Event_db_repository::load_named_event`, no MDL on the
//!   event): no lock, ER_EVENT_DOES_NOT_EXIST when it does not exist;
//! - `SHOW TABLE STATUS [FROM db] [LIKE ... | WHERE ...]` (sql/sql_show.cc,
//!   `get_all_tables` → `fill_schema_table_by_open`, the same path as SHOW TABLES: each
//!   table opened for a moment with MDL_SHARED_HIGH_PRIO, nothing kept; measured).
//!
//! None of them commits (no CF_AUTO_COMMIT_TRANS in sql_parse.cc's `sql_command_flags`).

use super::super::catalog::Catalog;
use super::super::catalog::ER_BAD_DB;
use super::super::routines::{RoutineKind, ER_EVENT_DOES_NOT_EXIST, ER_SP_DOES_NOT_EXIST};
use crate::stmt::{SessionStmt, Stmt};

/// The statement if it is one of this file's SHOW forms (`w[i]` is the word after SHOW
/// [FULL | EXTENDED]), else None.
pub(crate) fn classify_show(
    sql: &str,
    w: &[String],
    i: usize,
    db: &str,
    cat: &Catalog,
) -> Option<Result<Stmt, String>> {
    let at = |j: usize| w.get(j).map(String::as_str).unwrap_or("");
    if let Some(st) = super::show_status::classify(sql, w, i) {
        return Some(st);
    }
    if let Some(st) = super::package::show(sql, w, i, db, cat) {
        return Some(st);
    }
    if let Some(d) = schema_named(w, i) {
        if !cat.has_schema(&d) && !crate::objects::is_system_schema(&d) {
            return Some(Ok(Stmt::Fails(ER_BAD_DB)));
        }
    }
    match (at(i), at(i + 1)) {
        ("create", "procedure" | "function" | "event") => {
            let kind = match at(i + 1) {
                "procedure" => RoutineKind::Procedure,
                "function" => RoutineKind::Function,
                _ => RoutineKind::Event,
            };
            Some(show_create_routine(sql, w, i + 2, db, cat, kind))
        }
        ("table", "status") => Some(Ok(Stmt::NoLocks)),
        _ => None,
    }
}

/// `SHOW CREATE PROCEDURE | FUNCTION | EVENT [db.]name`: no lock; the error when it does
/// not exist.
fn show_create_routine(
    sql: &str,
    w: &[String],
    i: usize,
    db: &str,
    cat: &Catalog,
    kind: RoutineKind,
) -> Result<Stmt, String> {
    let r = crate::words::table_at(w, i, db).ok_or_else(|| format!("`{sql}`: expected a name"))?;
    if w.len() != i + 1 {
        return Err(format!("`{sql}`: unexpected words after the name"));
    }
    // Both read their system table with the open tables' state backed up
    // (`open_proc_table_for_read` through `sp_cache_routine`; `load_named_event`'s
    // `start_new_trans`), where `mysql_ha_flush` (sql/sql_handler.cc) returns at once
    // (`BACKUPS_AVAIL`): the session's HANDLERs another session waits for stay open, the
    // routine there or not (measured: suite/handler-kept-no-open.mdl). (A failed
    // one is played as a session statement: `Stmt::Fails(1305)` is CALL's, which flushes.)
    if cat.routines.get(kind, &r).is_some() {
        return Ok(Stmt::Session(SessionStmt::OpensNothing));
    }
    Ok(match kind {
        RoutineKind::Event => Stmt::Fails(ER_EVENT_DOES_NOT_EXIST),
        _ => Stmt::Session(SessionStmt::Fail(ER_SP_DOES_NOT_EXIST)),
    })
}

/// The schema a SHOW names for its own reading: `SHOW CREATE DATABASE | SCHEMA db`,
/// `SHOW [FULL] TABLES | TRIGGERS FROM | IN db`, `SHOW TABLE STATUS FROM | IN db`. A
/// missing one is ER_BAD_DB_ERROR before any table is looked at (sql_show.cc:
/// `mysqld_show_create_db` and `get_all_tables` → `make_db_list`/`check_db_dir_existence`;
/// main/ctype_create.test, main/information_schema.test, main/mysqldump.test).
fn schema_named(w: &[String], i: usize) -> Option<String> {
    let at = |j: usize| w.get(j).map(String::as_str).unwrap_or("");
    let j = match (at(i), at(i + 1)) {
        ("create", "database" | "schema") if at(i + 2) == "if" => i + 5,
        ("create", "database" | "schema") => i + 2,
        ("tables" | "triggers", "from" | "in") => i + 2,
        ("table", "status") if matches!(at(i + 2), "from" | "in") => i + 3,
        _ => return None,
    };
    w.get(j)
        .filter(|d| !d.is_empty() && *d != "like" && *d != "where")
        .cloned()
}
