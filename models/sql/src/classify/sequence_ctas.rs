//! `CREATE TABLE t [options] [AS] SELECT NEXTVAL(s)` (or LASTVAL, NEXT / PREVIOUS VALUE
//! FOR) with no FROM: the SELECT's only table is the sequence, which
//! `LEX::create_item_func_nextval` / `create_item_func_lastval` (sql/sql_lex.cc) add to
//! the statement's table list (SW for NEXTVAL and SETVAL, SR for LASTVAL).
//! `select_create::create_table_from_items` (sql/sql_insert.cc) makes the new table once
//! `open_tables` has it. Learned on 10.11.19 as the `create_select_nextval` /
//! `create_select_lastval` rows (CREATE TABLE's IX, SU, X and BACKUP_DDL back-off, then the
//! sequence's lock for the statement), the shape of `create_table_nextval`. A sequence
//! that does not exist is ER_NO_SUCH_TABLE once the locks are taken.
//!
//! Refused: a FROM (the sequence among other tables), a column list, several sequences,
//! NEXTVAL and LASTVAL together, a sequence of another engine than InnoDB, a table that is
//! not a sequence (4089).

use super::{classify, kw_eq, Stmt, Tok};
use crate::catalog::{Catalog, Engine};
use crate::kind::Kind;
use crate::objects::Tbl;

/// The statement when it is such a CREATE ... SELECT (`calls`: each call's kind, sequence
/// and tokens), `None` otherwise.
pub(super) fn create_select(
    sql: &str,
    toks: &[Tok],
    calls: &[(Kind, Tbl, std::ops::Range<usize>)],
    db: &str,
    cat: &Catalog,
    has_row: &dyn Fn(&str) -> bool,
) -> Option<Result<Stmt, String>> {
    let sel = toks.iter().position(|t| kw_eq(t, "select"))?;
    // `CREATE TABLE name [options] [AS] SELECT`: no column list before the SELECT.
    if toks[..sel].contains(&Tok::P('(')) || toks[sel..].iter().any(|t| kw_eq(t, "from")) {
        return None;
    }
    let refuse = |why: &str| {
        Some(Err(format!(
            "`{sql}`: CREATE TABLE ... SELECT {why} is not modelled"
        )))
    };
    let seq = &calls.first()?.1;
    if calls.iter().any(|c| c.1 != *seq) {
        return refuse("of several sequences");
    }
    let reads = calls.iter().all(|c| c.0 == Kind::Lastval);
    if !reads && calls.iter().any(|c| c.0 == Kind::Lastval) {
        return refuse("of NEXTVAL and LASTVAL together");
    }
    // (Of a table that is not a sequence: ER_NOT_SEQUENCE once the locks are taken,
    // measured; not followed.)
    if cat.exists(seq) && !cat.is_sequence(seq) {
        return refuse("of a sequence function of a table that is not a sequence");
    }
    if cat.engine(seq).is_some_and(|e| e != Engine::InnoDb) {
        return refuse("of a sequence of another engine than InnoDB");
    }
    let kind = if reads {
        Kind::CreateSelectLastval
    } else {
        Kind::CreateSelectNextval
    };
    if !has_row(kind.as_str()) {
        return refuse("of a sequence function in this dialect");
    }
    let rest = super::sequence_calls::calls_as_zero(toks, calls.iter().map(|c| c.2.clone()));
    let p = match classify(&super::lex::render(&rest), db, cat, has_row) {
        Ok(Stmt::Learned(p)) if p.kind == Kind::CreateSelect && p.parts.len() == 1 => p,
        Ok(_) => return refuse("of this form"),
        Err(e) => return Some(Err(e)),
    };
    match super::sequence_calls::creating_with_sequence(p, kind, seq) {
        Some(p) => Some(Ok(Stmt::Learned(p))),
        None => refuse("of this form"),
    }
}
