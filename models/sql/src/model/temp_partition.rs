//! Partition operations of ALTER TABLE on a temporary table. The server refuses a
//! partitioned temporary table (`PARTITION BY`: ER_ILLEGAL_HA_CREATE_OPTION, the
//! partition engine does not take TEMPORARY; `mysql_alter_table` → `create_table_impl`,
//! MariaDB `sql/sql_table.cc`), and a temporary table is never partitioned, so the
//! partition maintenance operations fail with ER_PARTITION_MGMT_ON_NONPARTITIONED. Both
//! come after the statement's implicit commit (measured on 10.11.19:
//! found/seed-420026.mdl, a transaction's SR is gone after them); in a transaction the
//! model refuses them (its failures do not commit), outside one they fail and do nothing.

use super::SqlModel;
use crate::catalog::ER_PARTITION_MGMT_ON_NONPARTITIONED;
use crate::classify::Stmt;
use crate::stmt::{SessionStmt, TempChange, TempOp};

/// ER_ILLEGAL_HA_CREATE_OPTION.
pub const ER_ILLEGAL_HA_CREATE_OPTION: u32 = 1478;

/// The error of `ALTER TABLE t ...` (words `w`, t at 2) for a partition operation, or
/// `None` for another ALTER.
fn partition_error(w: &[String]) -> Option<u32> {
    let at = |i: usize| w.get(i).map(String::as_str).unwrap_or("");
    match (at(3), at(4)) {
        ("partition", "by") => Some(ER_ILLEGAL_HA_CREATE_OPTION),
        ("remove", "partitioning") | ("truncate", "partition") => {
            Some(ER_PARTITION_MGMT_ON_NONPARTITIONED)
        }
        _ => None,
    }
}

impl SqlModel {
    /// `ALTER TABLE` of the temporary table at `w[2]`: its partition operations.
    pub(super) fn temp_partition(
        &self,
        s: usize,
        sql: &str,
        w: &[String],
    ) -> Option<Result<Stmt, String>> {
        let mentions = w.iter().any(|x| x.starts_with("partition"));
        let code = match partition_error(w) {
            Some(c) => c,
            None if mentions => {
                return Some(Err(format!(
                    "`{sql}`: this partition operation on a temporary table is not modelled"
                )))
            }
            None => return None,
        };
        if self.sessions[s].session.in_txn {
            return Some(Err(format!(
                "`{sql}`: a partition operation on a temporary table in a transaction (an \
                 implicit commit, then the error) is not modelled"
            )));
        }
        Some(Ok(Stmt::Session(SessionStmt::Temp(TempOp {
            change: TempChange::Fail(code),
            commit: false,
        }))))
    }
}
