//! The catalog's schemas: CREATE / DROP / ALTER DATABASE, their errors and changes
//! (DROP DATABASE takes every object of the schema with it).

use super::{Catalog, ER_DB_CREATE_EXISTS, ER_DB_DROP_EXISTS};
use crate::effect::Effect;

impl Catalog {
    /// The error of a schema effect (routed here by [`Catalog::error_of`]).
    pub(super) fn schema_error(&self, e: &Effect) -> Option<u32> {
        match e {
            Effect::AlterDb(db) => (!self.has_schema(db)).then_some(1),
            Effect::CreateDb { db, if_not_exists } => {
                (self.has_schema(db) && !if_not_exists).then_some(ER_DB_CREATE_EXISTS)
            }
            Effect::DropDb { db, if_exists } => {
                (!self.has_schema(db) && !if_exists).then_some(ER_DB_DROP_EXISTS)
            }
            _ => None,
        }
    }

    /// Applies a schema effect (routed here by [`Catalog::apply`]).
    pub(super) fn apply_schema(&mut self, e: &Effect) {
        match e {
            Effect::CreateDb { db, .. } => {
                self.schemas.insert(db.clone());
            }
            Effect::DropDb { db, .. } => {
                self.schemas.remove(db);
                self.objects.retain(|t, _| t.db != *db);
                self.foreign_keys
                    .retain(|f| f.child.db != *db && f.parent.db != *db);
                self.sequences.retain(|t, _| t.db != *db);
                self.empty.retain(|t| t.db != *db);
                self.partitioned.retain(|t| t.db != *db);
                self.primary_keys.retain(|t, _| t.db != *db);
                self.definitions.retain(|t, _| t.db != *db);
                self.triggers.retain(|t, _| t.db != *db);
                self.routines.drop_schema(db);
                self.packages.drop_schema(db);
            }
            _ => {}
        }
    }
}
