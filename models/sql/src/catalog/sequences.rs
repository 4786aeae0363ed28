//! The catalog's sequences: CREATE [OR REPLACE] SEQUENCE, DROP SEQUENCE, and the
//! statements that need a sequence (NEXTVAL and friends), their errors and changes.

use super::{Catalog, Obj, ER_BAD_DB, ER_TABLE_EXISTS};
use crate::effect::Effect;
use crate::errors::{ER_NOT_SEQUENCE, ER_NOT_SEQUENCE2, ER_UNKNOWN_SEQUENCES};

impl Catalog {
    /// The error of a sequence effect (routed here by [`Catalog::error_of`]).
    pub(super) fn sequence_error(&self, e: &Effect) -> Option<u32> {
        match e {
            Effect::CreateSequence {
                t,
                if_not_exists,
                replace,
                ..
            } => {
                if !self.has_schema(&t.db) {
                    Some(ER_BAD_DB)
                } else if self.exists(t) && !if_not_exists && !replace {
                    Some(ER_TABLE_EXISTS)
                } else {
                    None
                }
            }
            // mysql_rm_table_no_locks (sql_table.cc): ER_NOT_SEQUENCE2 for a table of the
            // list before ER_UNKNOWN_SEQUENCES (measured).
            Effect::DropSequences { ts, if_exists } => {
                if *if_exists {
                    None
                } else if ts.iter().any(|t| self.exists(t) && !self.is_sequence(t)) {
                    Some(ER_NOT_SEQUENCE2)
                } else {
                    ts.iter()
                        .any(|t| !self.exists(t))
                        .then_some(ER_UNKNOWN_SEQUENCES)
                }
            }
            Effect::DropThenFail { code, .. } => Some(*code),
            Effect::NeedSequences(needs) => needs.iter().find_map(|n| {
                if !self.exists(&n.t) {
                    n.missing
                } else if n.sequence && !self.is_sequence(&n.t) {
                    Some(ER_NOT_SEQUENCE)
                } else {
                    None
                }
            }),
            _ => None,
        }
    }

    /// Applies a sequence effect (routed here by [`Catalog::apply`]).
    pub(super) fn apply_sequence(&mut self, e: &Effect) {
        match e {
            Effect::CreateSequence {
                t,
                engine,
                replace,
                bounds,
                ..
            } if self.sequence_error(e).is_none() && (*replace || !self.exists(t)) => {
                // (OR REPLACE: the old table, its triggers with it, dropped first.)
                self.objects.insert(t.clone(), Obj::Table(*engine));
                self.sequences.insert(t.clone(), *bounds);
                self.definitions.remove(t);
                self.empty.remove(t);
                self.triggers.retain(|_, on| on != t);
            }
            // (Applied although the statement fails: `model/finish.rs`.)
            Effect::DropThenFail { t, .. } => self.apply_table(&Effect::DropTables {
                ts: vec![t.clone()],
                if_exists: true,
            }),
            Effect::DropSequences { ts, .. } => {
                for t in ts {
                    if self.is_sequence(t) {
                        self.objects.remove(t);
                        self.sequences.remove(t);
                        self.triggers.retain(|_, on| on != t);
                    }
                }
            }
            _ => {}
        }
    }
}
