//! SHOW forms that open no table of the test schema and keep nothing (measured on
//! MariaDB 10.11.19: after each, in a transaction holding SR on `t1`, the session holds
//! that SR alone and is still in its transaction; each runs under LOCK TABLES;
//! `models/conformance/suite/show-status-forms.mdl`). None is in sql_parse.cc's
//! CF_AUTO_COMMIT_TRANS commands.
//!
//! - `SHOW PROCEDURE | FUNCTION STATUS`, `SHOW EVENTS`: sql_show.cc `fill_schema_proc`
//!   and `Events::fill_schema_events` read `mysql.proc` / `mysql.event` (a system
//!   schema's table, opened with `open_proc_table_for_read` / `open_system_tables_for_read`
//!   and closed at once), no MDL on the routines or events;
//! - `SHOW PROCEDURE | FUNCTION CODE`: ER_FEATURE_DISABLED on a server built without
//!   debug (sql_parse.cc, SQLCOM_SHOW_PROC_CODE under `#ifndef DBUG_OFF`), the
//!   harness's;
//! - `SHOW PROFILE[S]`, `SHOW BINLOG | RELAYLOG EVENTS`, `SHOW AUTHORS | CONTRIBUTORS`,
//!   `SHOW INDEX_STATISTICS | TABLE_STATISTICS | USER_STATISTICS | CLIENT_STATISTICS`,
//!   `SHOW COUNT(*) WARNINGS | ERRORS`, `SHOW STORAGE ENGINES`, `SHOW LOCAL VARIABLES |
//!   STATUS`: filled from the server's memory or files (sql_profile.cc,
//!   sql_repl.cc `mysql_show_binlog_events`, sql_show.cc);
//! - words the 10.11 parser no longer has (`SHOW PLUGIN`, `SHOW TABLE TYPES`, `SHOW
//!   MUTEX STATUS`, `SHOW INNODB STATUS`, `SHOW STATISTICS`): ER_PARSE_ERROR.

use super::ER_PARSE_ERROR;
use crate::stmt::Stmt;

/// ER_FEATURE_DISABLED.
const ER_FEATURE_DISABLED: u32 = 1289;
/// ER_WRONG_DB_NAME (`SHOW EVENTS FROM ``: `check_db_name`).
const ER_WRONG_DB_NAME: u32 = 1102;

const STATISTICS: &[&str] = &[
    "index_statistics",
    "table_statistics",
    "user_statistics",
    "client_statistics",
];

/// The statement if `w[i..]` (the words after SHOW [FULL]) is one of these forms.
pub(super) fn classify(sql: &str, w: &[String], i: usize) -> Option<Result<Stmt, String>> {
    let at = |j: usize| w.get(j).map(String::as_str).unwrap_or("");
    let st = match (at(i), at(i + 1)) {
        ("procedure" | "function", "status") => Stmt::NoLocks,
        ("procedure" | "function", "code") => Stmt::Fails(ER_FEATURE_DISABLED),
        ("events", _) => return Some(events(sql, w, i + 1)),
        ("profile" | "profiles", _) => Stmt::NoLocks,
        ("binlog" | "relaylog", "events") => Stmt::NoLocks,
        ("authors" | "contributors", "") => Stmt::NoLocks,
        (s, "") if STATISTICS.contains(&s) => Stmt::NoLocks,
        ("count", "(") if w[i + 1..].join(" ").starts_with("( * )") => match &w[i + 4..] {
            [x] if x == "warnings" || x == "errors" => Stmt::NoLocks,
            _ => return None,
        },
        ("storage", "engines") => Stmt::NoLocks,
        ("local", "variables" | "status") => Stmt::NoLocks,
        ("plugin" | "statistics", "") | ("table", "types") | ("mutex" | "innodb", "status") => {
            Stmt::Fails(ER_PARSE_ERROR)
        }
        _ => return None,
    };
    Some(Ok(st))
}

/// `SHOW EVENTS [FROM | IN db] [LIKE ... | WHERE ...]` from `w[i..]`: no lock; an empty
/// or over-long schema name is ER_WRONG_DB_NAME (a schema that does not exist shows no
/// row, measured).
fn events(sql: &str, w: &[String], i: usize) -> Result<Stmt, String> {
    let at = |j: usize| w.get(j).map(String::as_str).unwrap_or("");
    let rest = match at(i) {
        "from" | "in" => {
            let db = at(i + 1);
            if db.is_empty() || db == "``" || db.chars().count() > 64 {
                return Ok(Stmt::Fails(ER_WRONG_DB_NAME));
            }
            i + 2
        }
        _ => i,
    };
    match at(rest) {
        "" | "like" | "where" => Ok(Stmt::NoLocks),
        x => Err(format!("`{sql}`: SHOW EVENTS with `{x}` is not modelled")),
    }
}
