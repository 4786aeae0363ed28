//! Where an ALTER TABLE that renames its table stops on an error (MariaDB
//! `mysql_alter_table`, sql/sql_table.cc): a table that is not there fails at
//! `open_tables`, once `lock_table_names` holds IX, SU and BACKUP_DDL (ER_NO_SUCH_TABLE);
//! a new name that is taken fails right after the new name's X (`target_mdl_request`,
//! then `ha_table_exists`: ER_TABLE_EXISTS_ERROR), before the table's upgrade; the other
//! operations' errors (`mysql_prepare_alter_table`) come after that X too. The error
//! itself is the catalog's (`Catalog::error_of`) at the end of the steps kept.
//! Measured: `models/conformance/alter-rename-with-operations.mdl`.

use super::SqlModel;
use crate::classify::{Effect, Plan, Tbl};
use crate::compose::Step;
use crate::kind::Kind;

impl SqlModel {
    /// Cuts the steps of an ALTER ... RENAME (`alter_rename` and the `*_rename` rows)
    /// where the server's error stops it.
    pub(super) fn alter_rename_stops(&self, plan: &Plan, own: &mut Vec<Step>) {
        let (t, n, fail) = match &plan.effect {
            Effect::AlterRename { t, n, alter } => (t, n, self.catalog.error_of(alter).is_some()),
            Effect::Rename(pairs) if plan.kind == Kind::AlterRename && pairs.len() == 1 => {
                (&pairs[0].0, &pairs[0].1, false)
            }
            _ => return,
        };
        let at = if !self.catalog.is_table(t) {
            own.iter().position(|st| matches!(st, Step::Backoff { .. }))
        } else if self.catalog.exists(n) || fail {
            let k = self.table_key(n);
            own.iter()
                .position(|st| matches!(st, Step::Acquire { .. }) && st.key() == Some(&k))
        } else {
            None
        };
        if let Some(at) = at {
            own.truncate(at + 1);
        }
    }

    fn table_key(&self, t: &Tbl) -> mdl_core::key::MdlKey {
        self.handler_key(t)
    }
}
