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
//! - `SHOW EXPLAIN | ANALYZE [FORMAT=...] FOR id` (SQLCOM_SHOW_EXPLAIN / _ANALYZE, a SHOW
//!   of the information_schema table SCH_EXPLAIN_TABULAR filled by `fill_show_explain`,
//!   sql_show.cc): an id that names no connection is ER_NO_SUCH_THREAD, a name instead of
//!   a constant ER_SET_CONSTANTS_ONLY, no id ER_PARSE_ERROR (main/show_explain.result,
//!   main/show_analyze.result);
//! - `SHOW SLAVE HOSTS` (`show_slave_hosts`, sql_repl.cc): no table;
//! - words the 10.11 parser no longer has (`SHOW PLUGIN`, `SHOW TABLE TYPES`, `SHOW
//!   MUTEX STATUS`, `SHOW INNODB STATUS`, `SHOW STATISTICS`): ER_PARSE_ERROR.

use super::ER_PARSE_ERROR;
use crate::effect::Effect;
use crate::kind::Kind;
use crate::stmt::{Bind, Plan, SessionStmt, Stmt};

/// ER_NO_SUCH_THREAD.
const ER_NO_SUCH_THREAD: u32 = 1094;
/// ER_SET_CONSTANTS_ONLY.
const ER_SET_CONSTANTS_ONLY: u32 = 1204;

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
        // SHOW PROFILE reads information_schema.PROFILING (a SELECT: `open_tables`).
        ("profile", _) => Stmt::NoLocks,
        // These never reach `open_tables`, whose `mysql_ha_flush` closes the session's
        // HANDLERs another session waits for (measured: suite/handler-kept-no-open.mdl):
        // SQLCOM_SHOW_PROFILES (`PROFILING::show_profiles`, sql/sql_profile.cc), SHOW
        // BINLOG | RELAYLOG EVENTS (`mysql_show_binlog_events`, sql/sql_repl.cc), SHOW
        // AUTHORS / CONTRIBUTORS (`mysqld_show_authors`, `mysqld_show_contributors`,
        // sql/sql_show.cc).
        ("profiles", _) | ("binlog" | "relaylog", "events") | ("authors" | "contributors", "") => {
            Stmt::Session(SessionStmt::OpensNothing)
        }
        (s, "") if STATISTICS.contains(&s) => Stmt::NoLocks,
        ("count", "(") if w[i + 1..].join(" ").starts_with("( * )") => match &w[i + 4..] {
            [x] if x == "warnings" || x == "errors" => Stmt::NoLocks,
            _ => return None,
        },
        ("storage", "engines") => Stmt::NoLocks,
        ("explain" | "analyze", _) => return Some(explain_for(sql, w, i + 1)),
        // SQLCOM_SHOW_SLAVE_HOSTS (sql_parse.cc → `show_slave_hosts`, sql_repl.cc): the
        // list of registered replicas, no table opened.
        ("slave", "hosts") if w.len() == i + 2 => Stmt::Session(SessionStmt::OpensNothing),
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

/// `SHOW EXPLAIN | ANALYZE [FORMAT = name] FOR id` from `w[i..]`. The statement opens its
/// information_schema table (no MDL: `open_tables` of a schema table; the session's
/// HANDLERs are flushed, so it is played on the learned `set_global` row, which takes
/// nothing and commits nothing) and fails in `fill_show_explain`. The model knows no
/// connection id: an id of 1000 or more (those of mysql-test) names no connection of the
/// harness's throwaway server, a smaller one is refused.
fn explain_for(sql: &str, w: &[String], mut i: usize) -> Result<Stmt, String> {
    let at = |j: usize| w.get(j).map(String::as_str).unwrap_or("");
    if at(i) == "format" && at(i + 1) == "=" {
        i += 3;
    }
    if at(i) != "for" {
        return Ok(Stmt::Fails(ER_PARSE_ERROR));
    }
    let fail = |code| {
        let kind = Kind::SetGlobal;
        Ok(Stmt::Learned(Plan::single(
            kind,
            Bind::default(),
            Effect::Fail(code),
        )))
    };
    match &w[(i + 1).min(w.len())..] {
        [] => Ok(Stmt::Fails(ER_PARSE_ERROR)),
        [n] if n.parse::<u64>().is_ok_and(|n| n >= 1000) => fail(ER_NO_SUCH_THREAD),
        [n] if n.chars().all(|c| c.is_alphanumeric() || c == '_')
            && !n.chars().all(|c| c.is_ascii_digit()) =>
        {
            fail(ER_SET_CONSTANTS_ONLY)
        }
        _ => Err(format!(
            "`{sql}`: SHOW EXPLAIN / ANALYZE of a connection id the model cannot know, or of \
             a subquery, is not modelled"
        )),
    }
}
