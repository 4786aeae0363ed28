//! `START TRANSACTION READ ONLY` (MariaDB `sql/transaction.cc`, `trans_begin` with
//! MYSQL_START_TRANS_OPT_READ_ONLY: `thd->tx_read_only`). In such a transaction:
//! - a statement that commits implicitly ends it first (`trans_commit_implicit` resets
//!   `tx_read_only` to the session's default, read-write here), and then runs;
//! - CREATE / DROP TEMPORARY TABLE (no implicit commit; SQLCOM_CREATE_TABLE and
//!   SQLCOM_DROP_TABLE have CF_DISALLOW_IN_RO_TRANS, `init_update_queries` in
//!   sql/sql_parse.cc) fail with ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION before any lock
//!   (`mysql_execute_command`), the transaction kept;
//! - INSERT, UPDATE, DELETE, REPLACE and LOAD of base tables fail with the same error and
//!   keep no lock of theirs (measured), the transaction kept;
//! - COMMIT, ROLLBACK, BEGIN end it.
//!
//! Measured on 10.11.19: suite/start-transaction-read-only.mdl. `SET [SESSION]
//! TRANSACTION READ ONLY` and DML of temporary tables in it are not modelled (refused).

use super::SqlModel;
use crate::classify::Stmt;
use crate::stmt::{SessionStmt, TempChange};
use crate::words::words;

/// ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION.
const ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION: u32 = 1792;

/// The kinds of DML that write their tables.
fn writes(kind: &str) -> bool {
    ["insert", "update", "delete", "replace", "load_data"]
        .iter()
        .any(|k| kind.starts_with(k))
}

impl SqlModel {
    /// The statement `st` as a READ ONLY transaction lets it run, and the session's
    /// `tx_read_only` after it.
    pub(super) fn ro_txn_gate(&mut self, s: usize, sql: &str, st: Stmt) -> Result<Stmt, String> {
        let w = words(sql);
        let read_only = w.windows(2).any(|x| x[0] == "read" && x[1] == "only");
        if matches!(st, Stmt::Begin) {
            let start = w.first().is_some_and(|x| x == "start");
            self.sessions[s].session.tx_read_only = start && read_only;
            return Ok(st);
        }
        // (A transaction ended otherwise, an implicit commit among them, ends it too.)
        if !self.sessions[s].session.in_txn {
            self.sessions[s].session.tx_read_only = false;
        }
        if !self.sessions[s].session.tx_read_only {
            return Ok(st);
        }
        let fail = Stmt::Fails(ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION);
        match &st {
            Stmt::Commit | Stmt::Rollback | Stmt::Session(SessionStmt::RollbackChain) => {
                self.sessions[s].session.tx_read_only = false;
            }
            Stmt::Learned(p) => {
                let commits = self
                    .map
                    .kind(&p.parts[0].row)
                    .is_some_and(|r| r.implicit_commit);
                if commits {
                    self.sessions[s].session.tx_read_only = false;
                } else if p.parts.iter().any(|x| writes(x.kind.as_str())) {
                    return Ok(fail);
                }
            }
            Stmt::Session(SessionStmt::Temp(op)) => match op.change {
                TempChange::Create(..) | TempChange::Drop(_) if !op.commit => return Ok(fail),
                _ => {
                    return Err(format!(
                        "`{sql}`: this statement on a temporary table in a READ ONLY \
                         transaction is not modelled"
                    ))
                }
            },
            _ => {}
        }
        Ok(st)
    }
}
