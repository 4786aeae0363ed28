//! CREATE TEMPORARY TABLE t ... LIKE src / AS SELECT of a name the session has as a
//! temporary table already: the source's open comes first. `mysql_create_like_table`
//! (MariaDB `sql/sql_table.cc`) opens the source with `open_tables` before
//! `create_table_impl` finds the name taken (ER_TABLE_EXISTS_ERROR, a note with IF NOT
//! EXISTS), and a CREATE ... SELECT opens its tables in `mysql_execute_command`
//! (sql/sql_parse.cc, SQLCOM_CREATE_TABLE: `open_and_lock_tables`) first too. So a source
//! not locked under LOCK TABLES is ER_TABLE_NOT_LOCKED (1100, a missing one too) and a
//! missing one ER_NO_SUCH_TABLE (1146), IF NOT EXISTS or not. Measured on 10.11.19:
//! random seed 491256 (found/seed-491256.mdl) and its `-2`.
//!
//! (When the source opens, its lock is taken and given back by the failed statement; the
//! model fails it at once: a source another session holds X on is not followed.)

use super::SqlModel;
use crate::catalog::ER_NO_SUCH_TABLE;
use crate::classify::Stmt;

impl SqlModel {
    /// The error the open of a CREATE TEMPORARY TABLE's source gives (`r`: the source
    /// read as a SELECT), if any.
    pub(super) fn temp_source_error(&self, s: usize, r: &Result<Stmt, String>) -> Option<u32> {
        let Ok(Stmt::Learned(p)) = r else {
            return None;
        };
        let st = &self.sessions[s].session;
        let base = p
            .parts
            .iter()
            .flat_map(|x| x.bind.tables())
            .filter(|t| !st.temp_tables.iter().any(|(x, _)| x == *t));
        for t in base {
            if st.under_lock_tables() {
                if !st.lock_tables.iter().any(|(x, _)| x == t) {
                    return Some(super::ER_TABLE_NOT_LOCKED);
                }
            } else if !self.catalog.exists(t) {
                return Some(ER_NO_SUCH_TABLE);
            }
        }
        None
    }
}
