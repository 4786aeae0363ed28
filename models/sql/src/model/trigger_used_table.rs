//! ER_CANT_UPDATE_USED_TABLE_IN_SF_OR_TRG (1442): a trigger whose body writes a table the
//! statement that fired it uses. The statement opens every table at its start, the
//! triggers' bodies' tables among them (prelocking, `classify/routine_prelock.rs`); when
//! the trigger runs, its body statement looks in prelocked mode for an instance of the
//! table the outer statement does not use, and for a table to be written finds the one
//! the outer statement uses (`open_table` / `lock_tables`, sql/sql_base.cc): the
//! statement fails with 1442 after its locks. The error comes only when the trigger runs,
//! that is when a row is inserted: an INSERT ... VALUES, or an INSERT ... SELECT whose
//! source tables are not known to be empty (`Catalog::has_no_row`). An UPDATE or DELETE
//! fires it only when its WHERE finds a row, which the model does not know: not raised.
//! In a transaction the statement keeps the locks it took (`run.rs`, `keep_on_error`).
//! Measured on 10.11.19: found/seed-420059, found/seed-430248 and found/seed-420059-2.

use super::SqlModel;
use crate::catalog::Catalog;
use crate::classify::Plan;
use crate::kind::Kind;

pub const ER_CANT_UPDATE_USED_TABLE_IN_SF_OR_TRG: u32 = 1442;

impl SqlModel {
    /// The 1442 of an INSERT whose triggers write a table it uses, when it inserts a row.
    pub(super) fn trigger_used_table(&self, p: &Plan) -> Option<u32> {
        trigger_used_table(&self.catalog, p)
    }
}

fn trigger_used_table(cat: &Catalog, p: &Plan) -> Option<u32> {
    let own: Vec<_> = p.parts.iter().filter(|x| x.bind.tr.is_none()).collect();
    let first = own.first()?;
    if !matches!(
        first.kind,
        Kind::Insert | Kind::InsertSelect | Kind::InsertSelectRev
    ) {
        return None;
    }
    let target = first.bind.t.as_ref()?;
    let used: Vec<_> = own.iter().flat_map(|x| x.bind.tables()).collect();
    let sources: Vec<_> = used.iter().filter(|t| **t != target).collect();
    if sources.iter().any(|t| cat.has_no_row(t)) {
        return None;
    }
    let writes =
        p.parts.iter().filter(|x| x.bind.tr.is_some()).any(|x| {
            x.kind.is_plain_write() && x.bind.t.as_ref().is_some_and(|w| used.contains(&w))
        });
    writes.then_some(ER_CANT_UPDATE_USED_TABLE_IN_SF_OR_TRG)
}
