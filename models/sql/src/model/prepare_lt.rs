//! PREPARE under the session's LOCK TABLES: a statement whose tables are opened when it
//! is prepared (`check_prepared_statement`, MariaDB `sql/sql_prepare.cc`: SELECT, INSERT,
//! UPDATE, DELETE, ... through `open_normal_and_derived_tables` / `open_tables`) finds
//! them among the locked tables as when it runs (`open_table` under
//! `LTM_LOCK_TABLES`, `sql/sql_base.cc`), so a table that is not locked fails the PREPARE
//! with ER_TABLE_NOT_LOCKED. Measured: found/seed-340274, `LOCK TABLES t1 READ` then
//! `PREPARE st1 FROM 'SELECT * FROM t2'` is 1100.
//!
//! Only plain tables are looked at (the statements with `Effect::NeedTables`); a view
//! (its underlying tables) or a temporary table (usable without a lock) leaves the check
//! to EXECUTE.

use super::SqlModel;
use crate::classify::{Effect, Plan};

impl SqlModel {
    /// Session `s` is under LOCK TABLES and `p` names a base table it did not lock.
    pub(super) fn prepare_not_locked(&self, s: usize, p: &Plan) -> bool {
        let st = &self.sessions[s].session;
        let Effect::NeedTables(tables) = &p.effect else {
            return false;
        };
        st.under_lock_tables()
            && tables.iter().any(|t| {
                !self.catalog.is_view(t)
                    && !st.temp_tables.iter().any(|(x, _)| x == t)
                    && !st.lock_tables.iter().any(|(x, _)| x == t)
            })
    }
}
