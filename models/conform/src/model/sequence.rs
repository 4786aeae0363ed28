//! Sequences in the model's play (`classify/sequence.rs` classifies them): the error of
//! a sequence that does not exist, found when `open_table` has its lock.

use super::{SqlModel, Then};
use crate::catalog::ER_NO_SUCH_TABLE;
use crate::classify::{Effect, Tbl};

impl SqlModel {
    /// The error of session `s`'s statement once it has the lock of `t`, which does not
    /// exist: ER_NO_SUCH_TABLE, or the statement's own for a sequence (ER_UNKNOWN_SEQUENCES
    /// from `open_table` for a table list entry made by NEXTVAL / LASTVAL / SETVAL,
    /// `sql_base.cc`), or none (IF EXISTS).
    pub(super) fn missing_code(&self, s: usize, t: &Tbl) -> Option<u32> {
        let Some(Then::Plan(p)) = self.sess[s].run.as_ref().map(|r| &r.then) else {
            return Some(ER_NO_SUCH_TABLE);
        };
        match &p.effect {
            Effect::NeedSequences(needs) => match needs.iter().find(|n| n.t == *t) {
                Some(n) => n.missing,
                None => Some(ER_NO_SUCH_TABLE),
            },
            _ => Some(ER_NO_SUCH_TABLE),
        }
    }
}
