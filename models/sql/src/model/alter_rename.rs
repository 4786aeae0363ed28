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
use mdl_core::key::MdlKey;

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
        if t.db != n.db {
            self.new_schema_ix(n, own);
        }
    }

    /// A new name in another schema: `mysql_alter_table` (sql/sql_table.cc) asks for the
    /// new schema's IX (`target_db_mdl_request`, when `Alter_table_ctx::
    /// is_database_changed()`) in the same `MDL_context::acquire_locks` as the new name's
    /// X (`target_mdl_request`), not in `lock_table_names`'s group with the table's own
    /// schema: the learned rows' `$db` IX on the new schema leaves the first group (and
    /// the BACKUP_DDL backoff's group) and joins the X. Measured:
    /// `suite/alter-rename-schema.mdl`.
    fn new_schema_ix(&self, n: &Tbl, own: &mut [Step]) {
        let schema = self.dialect.namespace_by_name("SCHEMA").expect("SCHEMA");
        let ix = MdlKey::new(schema, &n.db, "");
        let mut taken = None;
        for st in own.iter_mut() {
            match st {
                Step::Bulk(g) if taken.is_none() => {
                    if let Some(i) = g.iter().position(|(k, ..)| *k == ix) {
                        taken = Some(g.remove(i));
                    }
                }
                Step::Backoff { group, .. } => group.retain(|(k, ..)| *k != ix),
                _ => {}
            }
        }
        let Some(ix_lock) = taken else { return };
        let x = self.table_key(n);
        if let Some(at) = own
            .iter()
            .position(|st| matches!(st, Step::Acquire { key, .. } if *key == x))
        {
            if let Step::Acquire { key, ty, dur, .. } = own[at].clone() {
                own[at] = Step::Bulk(vec![ix_lock, (key, ty, dur)]);
            }
        }
    }

    fn table_key(&self, t: &Tbl) -> MdlKey {
        self.handler_key(t)
    }
}
