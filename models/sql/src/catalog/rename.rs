//! The catalog's renames: RENAME TABLE of a list (each pair in turn, on the catalog as
//! the pairs before left it) and ALTER TABLE ... RENAME (its operations apply to the
//! renamed table). A renamed table takes everything the catalog knows of it along.

use super::{Catalog, ER_ERROR_ON_RENAME, ER_NO_SUCH_TABLE, ER_TABLE_EXISTS};
use crate::effect::Effect;
use crate::objects::Tbl;

impl Catalog {
    /// The error of a rename (routed here by [`Catalog::error_of`]).
    pub(super) fn rename_error(&self, e: &Effect) -> Option<u32> {
        match e {
            Effect::AlterRename { t, n, alter } => {
                if !self.is_table(t) {
                    Some(ER_NO_SUCH_TABLE)
                } else if self.exists(n) {
                    Some(ER_TABLE_EXISTS)
                } else {
                    self.error_of(alter)
                }
            }
            Effect::Rename(pairs) => {
                let mut c = self.clone();
                for (a, b) in pairs {
                    if !c.is_table(a) {
                        return Some(ER_NO_SUCH_TABLE);
                    }
                    if c.exists(b) {
                        return Some(ER_TABLE_EXISTS);
                    }
                    if c.innodb_to_missing_schema(a, b) {
                        return Some(ER_ERROR_ON_RENAME);
                    }
                    c.rename(a, b);
                }
                None
            }
            _ => None,
        }
    }

    /// An InnoDB table renamed into a schema that is not there: the locks are all taken
    /// (`mysql_rename_table`, sql/sql_table.cc, runs after them), then InnoDB cannot
    /// move the file and `mysql_rename_table` reports ER_ERROR_ON_RENAME (measured on
    /// 10.11.19: `RENAME TABLE t1 TO nodb.t1` and `ALTER TABLE t1 RENAME nodb.t1` wait
    /// behind a reader of t1, then 1025; `suite/alter-rename-schema.mdl`). Other engines
    /// answer otherwise (MyISAM's ALTER: error 7) and are left as they were.
    fn innodb_to_missing_schema(&self, a: &Tbl, b: &Tbl) -> bool {
        !self.has_schema(&b.db) && self.engine_exact(a) == Some(super::Engine::InnoDb)
    }

    /// Applies a rename (routed here by [`Catalog::apply`]).
    pub(super) fn apply_rename(&mut self, e: &Effect) {
        if self.rename_error(e).is_some() {
            return;
        }
        match e {
            Effect::AlterRename { t, n, alter } => {
                // The operations (an `Effect::Alter` of `t`) apply to the renamed table.
                self.rename(t, n);
                if let Effect::Alter {
                    forget_pk, cols, ..
                } = alter.as_ref()
                {
                    self.apply_alter(n, *forget_pk, cols);
                }
            }
            Effect::Rename(pairs) => {
                for (a, b) in pairs {
                    self.rename(a, b);
                }
            }
            _ => {}
        }
    }

    /// Table `a` is now `b`, with its engine, sequence, rows, partitioning, key, columns
    /// and triggers.
    fn rename(&mut self, a: &Tbl, b: &Tbl) {
        if let Some(o) = self.objects.remove(a) {
            self.objects.insert(b.clone(), o);
        }
        if let Some(x) = self.sequences.remove(a) {
            self.sequences.insert(b.clone(), x);
        }
        if self.empty.remove(a) {
            self.empty.insert(b.clone());
        }
        if self.partitioned.remove(a) {
            self.partitioned.insert(b.clone());
        }
        if let Some(k) = self.primary_keys.remove(a) {
            self.primary_keys.insert(b.clone(), k);
        }
        if let Some(k) = self.definitions.remove(a) {
            self.definitions.insert(b.clone(), k);
        }
        let moved: Vec<Tbl> = self
            .triggers
            .iter()
            .filter(|(_, t)| *t == a)
            .map(|(tr, _)| tr.clone())
            .collect();
        for tr in moved {
            self.triggers.insert(tr, b.clone());
        }
    }
}
