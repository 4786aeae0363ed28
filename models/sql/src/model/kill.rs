//! `KILL` sent as SQL by a session (MariaDB sql/sql_parse.cc, `mysql_execute_command`'s
//! SQLCOM_KILL, `sql_kill`, `sql_kill_user`). It takes no metadata lock, does not commit
//! (no CF_AUTO_COMMIT_TRANS) and runs under LOCK TABLES (measured on 10.11.19,
//! suite/kill-as-sql-errors.mdl):
//!
//! - `KILL [HARD | SOFT] QUERY NAME` of a session of the scenario ends that session's
//!   statement ([`SessionStmt::KillQuery`]);
//! - an id that names no connection: ER_NO_SUCH_THREAD (`sql_kill` → `kill_one_thread`),
//!   and for `KILL QUERY ID n` ER_NO_SUCH_QUERY. The model knows two such ids: `0`
//!   (thread and query ids start at 1) and a user variable the session never named (it
//!   is NULL, whose `val_int()` is 0);
//! - `KILL [QUERY ID] (subquery)`: ER_SUBQUERIES_NOT_SUPPORTED (`lex->table_or_sp_used()`
//!   is checked first);
//! - `KILL QUERY ID name` (a bare name is a column of no table): ER_BAD_FIELD_ERROR;
//! - `KILL [HARD | SOFT] [CONNECTION | QUERY] USER user` (`sql_kill_user` →
//!   `kill_threads_for_user`): OK with 0 rows for a user with no connection (the
//!   scenario's sessions are `root`'s: a KILL USER of root is refused).
//!
//! `KILL [CONNECTION] NAME` (the session ends) and an id the model cannot know are
//! refused.

use super::SqlModel;
use crate::classify::Stmt;
use crate::stmt::SessionStmt;

/// ER_NO_SUCH_THREAD.
pub const ER_NO_SUCH_THREAD: u32 = 1094;
/// ER_NO_SUCH_QUERY.
pub const ER_NO_SUCH_QUERY: u32 = 1957;
/// ER_SUBQUERIES_NOT_SUPPORTED.
pub const ER_SUBQUERIES_NOT_SUPPORTED: u32 = 1970;
/// ER_BAD_FIELD_ERROR.
pub const ER_BAD_FIELD_ERROR: u32 = 1054;

fn fail(code: u32) -> Result<Stmt, String> {
    Ok(Stmt::Session(SessionStmt::Fail(code)))
}

impl SqlModel {
    /// The statement `KILL ...` of session `s` (`w`: its words).
    pub(super) fn classify_kill(&self, s: usize, sql: &str, w: &[String]) -> Result<Stmt, String> {
        let at = |i: usize| w.get(i).map(String::as_str).unwrap_or("");
        let mut i = 1;
        if matches!(at(i), "hard" | "soft") {
            i += 1;
        }
        let (query, by_id) = match (at(i), at(i + 1)) {
            ("query", "id") => {
                i += 2;
                (true, true)
            }
            ("query", _) => {
                i += 1;
                (true, false)
            }
            ("connection", _) => {
                i += 1;
                (false, false)
            }
            _ => (false, false),
        };
        let unknown = if by_id {
            ER_NO_SUCH_QUERY
        } else {
            ER_NO_SUCH_THREAD
        };
        match (at(i), w.get(i + 1..).unwrap_or_default()) {
            ("(", _) if w.iter().any(|x| x == "select") => fail(ER_SUBQUERIES_NOT_SUPPORTED),
            // A sequence function reads its table: the parser's `table_or_sp_used()`
            // check, as a subquery (sql_yacc.yy `kill_expr`; main/parser.test MDEV-19632).
            ("lastval" | "nextval" | "setval", [p, ..]) if p == "(" => {
                fail(ER_SUBQUERIES_NOT_SUPPORTED)
            }
            ("user", _) if by_id => fail(ER_BAD_FIELD_ERROR),
            ("user", rest) if !rest.is_empty() => {
                if rest[0] == "root" {
                    return Err(format!(
                        "`{sql}`: KILL USER of the scenario's own user is not modelled"
                    ));
                }
                Ok(Stmt::NoLocks)
            }
            ("0", []) => fail(unknown),
            ("@", [v]) if v != "@" && !self.sessions[s].session.user_vars => fail(unknown),
            _ if query && !by_id => self
                .kill_target(sql, w)
                .map(|t| Stmt::Session(SessionStmt::KillQuery(t))),
            _ => Err(format!(
                "`{sql}`: KILL [CONNECTION] of a session (the session ends), or of an id the \
                 model cannot know, is not modelled; KILL QUERY NAME is"
            )),
        }
    }

    /// Notes that session `s` named a user variable (`@name`, not `@@name`): from then
    /// on the model does not know its value.
    pub(super) fn note_user_vars(&mut self, s: usize, w: &[String]) {
        if w.first().map(String::as_str) == Some("kill") {
            return;
        }
        let single = (0..w.len()).any(|j| {
            w[j] == "@" && (j == 0 || w[j - 1] != "@") && w.get(j + 1).is_some_and(|x| x != "@")
        });
        if single {
            self.sessions[s].session.user_vars = true;
        }
    }
}
