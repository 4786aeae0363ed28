//! The catalog's foreign keys: whether InnoDB accepts the keys a CREATE TABLE or an
//! ALTER TABLE ... ADD FOREIGN KEY declares ([`Effect::WithFks`]).
//!
//! With `foreign_key_checks=1` (the model's sessions; `model/fk_checks.rs` refuses the
//! statements with keys once a session turns the checks off) InnoDB looks each parent up
//! in its own dictionary when it creates the child (`storage/innobase/handler/
//! ha_innodb.cc`, `create_table_info_t::create_foreign_keys` →
//! `dict_get_referenced_table`; for the copy of ALTER TABLE, `ha_innobase::create` of
//! the new table): a parent that is missing, a view or not an InnoDB table is no parent
//! there, and the create fails with ER_CANT_CREATE_TABLE (errno 150, "Foreign key
//! constraint is incorrectly formed"), after every lock of the statement was taken
//! (measured on 10.11.19: `suite/fk-myisam-parent.mdl`). Nothing is created: the child of
//! a CREATE TABLE does not exist afterwards, and an ALTER keeps its table as it was.

use super::Catalog;
use crate::effect::Effect;
use crate::objects::{Engine, ForeignKey};

/// ER_CANT_CREATE_TABLE ("Can't create table ... (errno: 150 ...)").
pub const ER_CANT_CREATE_TABLE: u32 = 1005;

impl Catalog {
    /// The error of a statement declaring foreign keys `fks` with the effect `inner`:
    /// the inner effect's own first (1050, 1146, ...), then a parent InnoDB does not find.
    pub(super) fn fk_error(&self, inner: &Effect, fks: &[ForeignKey]) -> Option<u32> {
        if let Some(e) = self.error_of(inner) {
            return Some(e);
        }
        if let Effect::CreateTable { t, .. } = inner {
            if self.exists(t) {
                // CREATE TABLE IF NOT EXISTS of a table that is there: a note, nothing
                // created, no key looked at.
                return None;
            }
        }
        fks.iter()
            .any(|k| !self.innodb_parent(k))
            .then_some(ER_CANT_CREATE_TABLE)
    }

    /// `name` (a statement's word: `name` or `db.name`, lower case) is the child or the
    /// parent of a foreign key.
    pub fn names_fk_table(&self, name: &str) -> bool {
        self.foreign_keys.iter().any(|k| {
            [&k.child, &k.parent].iter().any(|t| {
                t.name.eq_ignore_ascii_case(name)
                    || format!("{}.{}", t.db, t.name).eq_ignore_ascii_case(name)
            })
        })
    }

    /// The key's parent is an InnoDB table of the catalog.
    fn innodb_parent(&self, k: &ForeignKey) -> bool {
        self.is_table(&k.parent) && self.engine_exact(&k.parent) == Some(Engine::InnoDb)
    }

    /// Applies a statement declaring foreign keys: nothing when InnoDB refused a parent,
    /// else the inner effect and, when it made or kept the child, the keys.
    pub(super) fn apply_with_fks(&mut self, inner: &Effect, fks: &[ForeignKey]) {
        if self.error_of(inner).is_none() && self.fk_error(inner, fks).is_some() {
            return;
        }
        let made = match inner {
            Effect::CreateTable { t, .. } => !self.exists(t),
            // ALTER TABLE ... ADD FOREIGN KEY (`classify/fk_alter.rs`): the edge when the
            // child and its parents are there.
            Effect::Alter { t, .. } => {
                self.is_table(t) && fks.iter().all(|k| self.is_table(&k.parent))
            }
            // CREATE OR REPLACE (`classify/fk_replace.rs`): the new table, once its
            // LIKE / SELECT sources are there.
            Effect::Replace { .. } => self.error_of(inner).is_none(),
            _ => false,
        };
        self.apply(inner);
        if made {
            self.foreign_keys.extend(fks.iter().cloned());
        }
    }
}
