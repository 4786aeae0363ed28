//! A session's `sql_mode=ORACLE` (`crate::sql_mode`): the statements whose grammar it
//! changes are classified by `classify::classify_oracle` while it holds.

use super::SqlModel;
use crate::classify::{classify_oracle, Stmt};

impl SqlModel {
    /// Notes a SET of session `s`'s sql_mode; in Oracle mode, the statements read with the
    /// Oracle grammar (`classify/oracle_routine.rs`). None for the others.
    pub(super) fn oracle_classify(&mut self, s: usize, sql: &str) -> Option<Result<Stmt, String>> {
        if let Some(oracle) = crate::sql_mode::sets_oracle(sql) {
            self.sessions[s].session.oracle = oracle;
            return None;
        }
        if !self.sessions[s].session.oracle {
            return None;
        }
        let db = self.sessions[s].session.db.clone();
        let has = |r: &str| self.map.kind(r).is_some();
        classify_oracle(sql, &db, &self.catalog, &has)
    }

    /// In Oracle mode, the default grammar's text of the anonymous block `sql` (`DECLARE
    /// ... BEGIN ... END`, `BEGIN ... END`: `classify/oracle_block.rs`), which runs as the
    /// compound statement it is written as (`model/call.rs`).
    pub(super) fn oracle_block(&self, s: usize, sql: &str) -> Option<String> {
        if !self.sessions[s].session.oracle {
            return None;
        }
        crate::classify::oracle_block_text(sql)
    }
}
