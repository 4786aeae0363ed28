//! The tail of a UNION (EXCEPT, INTERSECT): its locking clause and its ORDER BY.
//!
//! A locking clause after a UNION (`SELECT ... UNION SELECT ... FOR UPDATE`): it is the
//! last SELECT's, not the union's. The parser hands the clause to
//! `st_select_lex_unit::set_lock_to_the_last_select` (sql/sql_lex.cc), which walks
//! `first_select()->next_select()` to the last SELECT of the unit and sets the lock type
//! (`Lex_select_lock::set_to`) on that SELECT's tables only; the SELECTs before it keep
//! TL_READ, so MDL_SHARED_READ. A table named on both sides is opened twice and holds SR
//! and SW (measured on 10.11.19: main/parser.test:894, `suite/union-lock-last-select.mdl`).

use super::{from_tables, kw_eq, Tbl, Tok};

/// ER_TABLENAME_NOT_ALLOWED_HERE.
pub(super) const ER_TABLENAME_NOT_ALLOWED_HERE: u32 = 1250;

/// The index of the last UNION / EXCEPT / INTERSECT outside parentheses, if any.
fn last_set_operator(toks: &[Tok]) -> Option<usize> {
    let mut depth = 0i32;
    let mut last = None;
    for (i, t) in toks.iter().enumerate() {
        match t {
            Tok::P('(') => depth += 1,
            Tok::P(')') => depth -= 1,
            _ if depth == 0 && ["union", "except", "intersect"].iter().any(|k| kw_eq(t, k)) => {
                last = Some(i)
            }
            _ => {}
        }
    }
    last
}

/// The tables before the last SELECT of a union, and the last SELECT's.
pub(super) type Sides = (Vec<Tbl>, Vec<Tbl>);

/// For a statement with a top-level set operator: the tables of the SELECTs before the
/// last one (read, SR) and the tables of the last one (which take the locking clause).
/// None when there is no top-level UNION / EXCEPT / INTERSECT.
pub(super) fn split(toks: &[Tok], db: &str) -> Result<Option<Sides>, String> {
    let Some(op) = last_set_operator(toks) else {
        return Ok(None);
    };
    let before = from_tables(&toks[..op], db)?;
    let last = from_tables(&toks[op + 1..], db)?;
    Ok(Some((before, last)))
}

/// ER_TABLENAME_NOT_ALLOWED_HERE for a column qualified with its table (`t1.b`,
/// `match(b.betreff) against (...)`) in the ORDER BY after the last SELECT of a top-level
/// UNION: that ORDER BY is the union's (its `fake_select_lex`), whose
/// `no_table_names_allowed` makes the parser refuse a qualified field
/// (`LEX::create_item_ident`, sql/sql_lex.cc) before any table is opened: the server
/// gives 1250 even when a table of the statement does not exist (main/union.test:314,
/// main/fulltext_order_by.test:104; `suite/union-tail.mdl`). Only a plain SELECT (or
/// one in parentheses) is read; a qualified name followed by `(` is a function.
pub(super) fn order_names_table(toks: &[Tok]) -> Option<u32> {
    let first = toks.first()?;
    if !(kw_eq(first, "select") || *first == Tok::P('(')) {
        return None;
    }
    let op = last_set_operator(toks)?;
    let mut depth = 0i32;
    let mut order = None;
    for (i, t) in toks.iter().enumerate().skip(op + 1) {
        match t {
            Tok::P('(') => depth += 1,
            Tok::P(')') => depth -= 1,
            _ if depth == 0 && kw_eq(t, "order") => order = Some(i),
            _ => {}
        }
    }
    let start = order?;
    let mut depth = 0i32;
    let tail = &toks[start..];
    for (i, t) in tail.iter().enumerate() {
        match t {
            Tok::P('(') => depth += 1,
            Tok::P(')') => depth -= 1,
            _ if depth == 0 && ["limit", "for", "lock", "into"].iter().any(|k| kw_eq(t, k)) => {
                return None
            }
            // A subquery's own names are its own.
            _ if kw_eq(t, "select") => return None,
            Tok::P('.') if i > 0 => {
                let named = matches!(tail[i - 1], Tok::Word { .. })
                    && matches!(tail.get(i + 1), Some(Tok::Word { .. }))
                    && tail.get(i + 2) != Some(&Tok::P('('));
                if named {
                    return Some(ER_TABLENAME_NOT_ALLOWED_HERE);
                }
            }
            _ => {}
        }
    }
    None
}
