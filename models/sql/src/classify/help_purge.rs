//! `HELP 'topic'` and `PURGE { BINARY | MASTER } LOGS { TO 'file' | BEFORE expr }`: no lock
//! the harness compares, no implicit commit. Measured on 10.11.19
//! (suite/servers-and-help.mdl: a transaction's SR stays; neither waits for another
//! session's FTWRL nor fails under the session's own FTWRL or LOCK TABLES):
//!
//! - HELP (sql/sql_help.cc, `mysqld_help`) reads `mysql.help_topic`, `help_category`,
//!   `help_relation`, `help_keyword` with `open_system_tables_for_read` (its SR on them is
//!   of a system schema and goes with `close_system_tables` at its end; the session's
//!   LOCK TABLES state is set aside for it). SQLCOM_HELP is not CF_AUTO_COMMIT_TRANS.
//! - PURGE (sql/sql_parse.cc, SQLCOM_PURGE / SQLCOM_PURGE_BEFORE, `purge_master_logs` /
//!   `purge_master_logs_before_date`, sql/sql_repl.cc) with no binary log open (the
//!   harness's server runs with `--skip-log-bin`) answers OK at once. BEFORE's expression
//!   may hold no subquery or stored function: ER_SUBQUERIES_NOT_SUPPORTED (1970, "PURGE..
//!   BEFORE"), raised by the parser (sql/sql_yacc.yy, the PURGE rule's BEFORE branch),
//!   so before the statement runs (measured: no implicit commit).
//!
//! Neither reaches `open_tables`'s `mysql_ha_flush` for the session's HANDLERs: HELP opens
//! its tables with `open_system_tables_for_read` (sql/sql_base.cc), whose
//! `reset_n_backup_open_tables_state` sets `BACKUPS_AVAIL`, and `mysql_ha_flush`
//! (sql/sql_handler.cc) returns at once then ("Don't try to flush open HANDLERs when
//! we're working with system tables"); PURGE opens no table. Measured: a HANDLER another
//! session's ALTER waits for stays open (suite/handler-kept-no-open.mdl).

use super::function_names::{callee, Callee};
use super::{Stmt, Tok};
use crate::stmt::SessionStmt;

/// ER_NO_BINARY_LOGGING: SHOW BINARY LOGS with no binary log open (`show_binlogs`,
/// sql/sql_repl.cc).
pub const ER_NO_BINARY_LOGGING: u32 = 1381;

/// A statement that opens no table: no lock, the session's HANDLERs kept.
const NO_OPEN: Stmt = Stmt::Session(SessionStmt::OpensNothing);

/// ER_SUBQUERIES_NOT_SUPPORTED.
pub const ER_SUBQUERIES_NOT_SUPPORTED: u32 = 1970;

/// The statement if it is one of these, else None.
pub(super) fn classify(sql: &str, toks: &[Tok], words: &[String]) -> Option<Result<Stmt, String>> {
    let at = |i: usize| words.get(i).map(String::as_str).unwrap_or("");
    match at(0) {
        "help" if toks.len() == 2 => Some(Ok(NO_OPEN)),
        "help" => Some(Err(format!("`{sql}`: HELP of more than one word"))),
        "purge" if matches!(at(1), "binary" | "master") && at(2) == "logs" => {
            Some(purge(sql, toks, at(3)))
        }
        _ => None,
    }
}

fn purge(sql: &str, toks: &[Tok], how: &str) -> Result<Stmt, String> {
    match how {
        "to" if matches!(toks.get(4), Some(Tok::Str(_))) && toks.len() == 5 => Ok(NO_OPEN),
        "before" => {
            let expr = &toks[4..];
            let mut stored = false;
            for (i, t) in expr.iter().enumerate() {
                if let Tok::Word { text, quoted } = t {
                    if text.eq_ignore_ascii_case("select") && !quoted {
                        stored = true;
                    }
                    if expr.get(i + 1) == Some(&Tok::P('('))
                        && matches!(callee(text), Callee::Stored { .. })
                    {
                        stored = true;
                    }
                }
            }
            Ok(if stored {
                Stmt::Fails(ER_SUBQUERIES_NOT_SUPPORTED)
            } else {
                NO_OPEN
            })
        }
        _ => Err(format!("`{sql}`: this PURGE is not modelled")),
    }
}
