//! Replication statements on the harness's server, which has no replication configured
//! (MariaDB sql/sql_parse.cc, `mysql_execute_command`; measured on 10.11.19:
//! suite/replication-statements.mdl):
//!
//! - `STOP SLAVE | REPLICA [SQL_THREAD | IO_THREAD]` (SQLCOM_SLAVE_STOP): refused with
//!   ER_LOCK_OR_ACTIVE_TRANSACTION under LOCK TABLES, in an active transaction and while
//!   the session holds FTWRL (`locked_tables_mode ||
//!   in_active_multi_stmt_transaction() || global_read_lock.is_acquired()`); otherwise
//!   it stops nothing (a note), with no lock and no commit;
//! - `CHANGE MASTER TO ...` (SQLCOM_CHANGE_MASTER, `change_master`): no table, no lock, no
//!   implicit commit (the transaction's SR stays), also under LOCK TABLES and beside
//!   another session's FTWRL;
//! - `START SLAVE | REPLICA [SQL_THREAD | IO_THREAD]` (SQLCOM_SLAVE_START:
//!   `rpl_load_gtid_slave_state`, then `start_slave` of the default connection's
//!   `Master_info`, which has no MASTER_HOST): ER_BAD_SLAVE (1200), with no lock of the
//!   test schema and no implicit commit, also in a transaction and under LOCK TABLES
//!   (measured: the transaction's SR and LOCK TABLES' SRO stay). The model does not
//!   follow a `CHANGE MASTER TO` the scenario played (after one, the server starts the
//!   threads): it assumes the harness's server, which has no replication source.

use super::SqlModel;
use crate::catalog::ER_LOCK_OR_ACTIVE_TRANSACTION;
use crate::classify::Stmt;
use crate::stmt::SessionStmt;

/// ER_BAD_SLAVE: START SLAVE of a connection with no MASTER_HOST.
pub const ER_BAD_SLAVE: u32 = 1200;

impl SqlModel {
    /// The statement of session `s` if it is one of these (`w`: its words), else None.
    pub(super) fn classify_replication(&self, s: usize, w: &[String]) -> Option<Stmt> {
        let at = |i: usize| w.get(i).map(String::as_str).unwrap_or("");
        match (at(0), at(1)) {
            ("stop", "slave" | "replica") => {
                let st = &self.sessions[s].session;
                if st.in_txn || !st.lock_tables.is_empty() || st.ftwrl.is_some() {
                    return Some(Stmt::Session(SessionStmt::Fail(
                        ER_LOCK_OR_ACTIVE_TRANSACTION,
                    )));
                }
                Some(Stmt::NoLocks)
            }
            ("change", "master") if at(2) == "to" => Some(Stmt::NoLocks),
            ("start", "slave" | "replica") => Some(Stmt::Session(SessionStmt::Fail(ER_BAD_SLAVE))),
            _ => None,
        }
    }
}
