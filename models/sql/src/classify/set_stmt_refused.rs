//! The session variables SET STATEMENT refuses: `sql/sql_parse.cc`,
//! `mysql_execute_command` walks `lex->stmt_var_list` before it runs the statement and
//! fails with ER_SET_STATEMENT_NOT_SUPPORTED (1971) for a variable whose `sys_var` is not
//! `is_set_stmt_ok()` (flag `NO_SET_STATEMENT` in `sql/sys_vars.cc`): no lock is taken
//! and the inner statement does not run. The check comes after the statement's implicit
//! commit (measured: `SET STATEMENT collation_connection=default FOR DROP TABLE t2` in a
//! transaction ends it), so only an inner statement that commits nothing is played; one
//! that does is refused. The names are the ones `mysql-test/main/
//! set_statement.test` ("Prohibited Variables"), `set_statement_profiling.test` and the
//! suite's other `--error ER_SET_STATEMENT_NOT_SUPPORTED` cases name, each measured on
//! 10.11.19 (`suite/set-statement-not-supported.mdl`).

use crate::stmt::Stmt;

/// ER_SET_STATEMENT_NOT_SUPPORTED.
pub(super) const ER_SET_STATEMENT_NOT_SUPPORTED: u32 = 1971;

/// Variables flagged `NO_SET_STATEMENT` (lower case, without `@@` / `session.`).
const NOT_SUPPORTED: &[&str] = &[
    "autocommit",
    "character_set_client",
    "character_set_connection",
    "character_set_filesystem",
    "collation_connection",
    "debug_sync",
    "interactive_timeout",
    "profiling",
    "profiling_history_size",
    "query_cache_type",
    "skip_replication",
    "sql_log_off",
    "tx_isolation",
    "wait_timeout",
];

/// The first words of inner statements that do not commit implicitly.
const NO_COMMIT: &[&str] = &[
    "select", "insert", "update", "delete", "replace", "do", "with", "values", "explain",
    "describe", "desc", "show", "call", "(",
];

/// SET STATEMENT of a refused variable FOR `inner`: 1971 with no lock when `inner`
/// commits nothing; Err otherwise.
pub(super) fn fails(sql: &str, inner: &str) -> Result<Stmt, String> {
    let first = crate::words::words(inner)
        .into_iter()
        .next()
        .unwrap_or_default();
    if NO_COMMIT.contains(&first.as_str()) {
        return Ok(Stmt::Fails(ER_SET_STATEMENT_NOT_SUPPORTED));
    }
    Err(format!(
        "`{sql}`: SET STATEMENT of a variable it refuses (1971) before a statement that \
         may commit implicitly is not modelled (the server commits first)"
    ))
}

/// Is `name` (as written before `=`) a variable SET STATEMENT refuses?
pub(super) fn refused(name: &str) -> bool {
    NOT_SUPPORTED.contains(&name)
}
