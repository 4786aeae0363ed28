//! The catalog's renames: RENAME TABLE of a list (each pair in turn, on the catalog as
//! the pairs before left it) and ALTER TABLE ... RENAME (its operations apply to the
//! renamed table). A renamed table takes everything the catalog knows of it along.

use super::{Catalog, ER_NO_SUCH_TABLE, ER_TABLE_EXISTS};
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
                    c.rename(a, b);
                }
                None
            }
            _ => None,
        }
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
