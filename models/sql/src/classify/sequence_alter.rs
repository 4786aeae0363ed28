//! `ALTER TABLE t SEQUENCE=1` of a table that is not a sequence: `mysql_alter_table`
//! (sql/sql_table.cc) takes the ALTER's IX, SU and BACKUP_DDL, then makes the new
//! definition (`create_table_impl` of the altered copy, which calls
//! `check_sequence_fields`, sql/sql_sequence.cc): a table whose columns are not a
//! sequence's fails there with ER_SEQUENCE_INVALID_TABLE_STRUCTURE (4086), whatever the
//! ALGORITHM (measured on 10.11.19: suite/alter-sequence-on.mdl, from
//! `suite/sql_sequence/alter.test`).
//!
//! Refused: a table whose columns the model does not know or that are a sequence's (the
//! outcome then depends on its rows: ER_INTERNAL_ERROR unless it has exactly one,
//! ER_SEQUENCE_INVALID_DATA for a row out of bounds; MDEV-36032), a sequence.

use super::sequence_columns::{is_sequence_structure, ER_SEQUENCE_INVALID_TABLE_STRUCTURE};
use super::{classify, kw_eq, Effect, Stmt, Tok};
use crate::catalog::Catalog;
use crate::effect::AlterCols;

/// The ALTER TABLE with `SEQUENCE=1` at `at` (the `sequence` word; `value_at` its value).
pub(super) fn alter_sequence_on(
    sql: &str,
    toks: &[Tok],
    value_at: usize,
    db: &str,
    cat: &Catalog,
    has_row: &dyn Fn(&str) -> bool,
) -> Result<Stmt, String> {
    let refuse = |why: &str| {
        Err(format!(
            "`{sql}`: ALTER TABLE ... SEQUENCE=1 {why} is not modelled"
        ))
    };
    // The same ALTER with SEQUENCE=0 and ALGORITHM=COPY: the steps up to BACKUP_DDL,
    // which are all the failing statement takes.
    let mut copy: Vec<Tok> = toks.to_vec();
    copy[value_at] = Tok::Num("0".into());
    for i in 0..copy.len().saturating_sub(2) {
        if kw_eq(&copy[i], "algorithm") && copy[i + 1] == Tok::P('=') {
            copy[i + 2] = Tok::Word {
                text: "COPY".into(),
                quoted: false,
            };
        }
    }
    let mut p = match classify(&super::lex::render(&copy), db, cat, has_row)? {
        Stmt::Learned(p) if p.parts.len() == 1 => p,
        _ => return refuse("of this form"),
    };
    let Effect::Alter { t, .. } = &p.effect else {
        return refuse("with these operations");
    };
    if !cat.exists(t) {
        // ER_NO_SUCH_TABLE at open (the effect says so).
        return Ok(Stmt::Learned(p));
    }
    if cat.is_sequence(t) {
        return refuse("of a sequence");
    }
    let Some(def) = cat.columns(t) else {
        return refuse("of a table whose columns the model does not know");
    };
    if is_sequence_structure(def) {
        return refuse("of a table with a sequence's columns (its rows decide)");
    }
    let t = t.clone();
    p.effect = Effect::Alter {
        t,
        forget_pk: false,
        cols: AlterCols::Fail(ER_SEQUENCE_INVALID_TABLE_STRUCTURE),
    };
    Ok(Stmt::Learned(p))
}
