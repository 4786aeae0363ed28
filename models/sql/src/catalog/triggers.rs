//! The catalog's triggers: CREATE TRIGGER (with the tables its body uses, for
//! prelocking) and DROP TRIGGER, their errors and changes.

use super::{Catalog, ER_NO_SUCH_TABLE, ER_TRG_ALREADY_EXISTS, ER_TRG_DOES_NOT_EXIST};
use crate::effect::Effect;

impl Catalog {
    /// The error of a trigger effect (routed here by [`Catalog::error_of`]).
    pub(super) fn trigger_error(&self, e: &Effect) -> Option<u32> {
        match e {
            Effect::CreateTrigger { tr, on, .. } => {
                if !self.is_table(on) {
                    Some(ER_NO_SUCH_TABLE)
                } else if self.triggers.contains_key(tr) {
                    Some(ER_TRG_ALREADY_EXISTS)
                } else {
                    None
                }
            }
            Effect::DropTrigger { tr, if_exists } => {
                (!self.triggers.contains_key(tr) && !if_exists).then_some(ER_TRG_DOES_NOT_EXIST)
            }
            _ => None,
        }
    }

    /// Applies a trigger effect (routed here by [`Catalog::apply`]).
    pub(super) fn apply_trigger(&mut self, e: &Effect) {
        match e {
            Effect::CreateTrigger { tr, on, prelock } if self.trigger_error(e).is_none() => {
                self.triggers.insert(tr.clone(), on.clone());
                match prelock {
                    Some(b) => self.prelocking.insert(tr.clone(), (**b).clone()),
                    None => self.prelocking.remove(tr),
                };
            }
            Effect::DropTrigger { tr, .. } => {
                self.triggers.remove(tr);
            }
            _ => {}
        }
    }
}
