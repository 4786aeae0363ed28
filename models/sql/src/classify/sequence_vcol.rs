//! Sequence functions in a CHECK constraint or a generated column of CREATE / ALTER TABLE:
//! NEXTVAL, LASTVAL and SETVAL are impossible there
//! (`Item_func_nextval::check_vcol_func_processor`, sql/item_func.h: VCOL_IMPOSSIBLE outside
//! a DEFAULT), checked by `check_expression` (sql/table.cc) as the column or constraint is
//! parsed and prepared, before `open_tables`: ER_SUBQUERIES_NOT_SUPPORTED (1970, "CHECK
//! does not support subqueries or stored functions") for a CHECK, column or table level,
//! ER_GENERATED_COLUMN_FUNCTION_IS_NOT_ALLOWED (1901) for `AS (...)` / `GENERATED ALWAYS
//! AS (...)`. Measured on 10.11.19: each fails at once while another session holds FTWRL
//! (which a CREATE / ALTER TABLE that got to its locks waits for), whether the sequence
//! exists or not; so the statement takes no lock and commits nothing.

use super::{kw_eq, Tok};

/// ER_SUBQUERIES_NOT_SUPPORTED.
pub const ER_SUBQUERIES_NOT_SUPPORTED: u32 = 1970;
/// ER_GENERATED_COLUMN_FUNCTION_IS_NOT_ALLOWED.
pub const ER_GENERATED_COLUMN_FUNCTION_IS_NOT_ALLOWED: u32 = 1901;

/// The error of the first sequence function call (its first token at each of `starts`)
/// inside a CHECK or a generated column's expression, if any.
pub(super) fn vcol_error(toks: &[Tok], starts: &[usize]) -> Option<u32> {
    starts.iter().find_map(|&at| enclosing_error(toks, at))
}

/// Walks out of the parentheses around `toks[at]`: the first opened after CHECK or AS
/// (not the CREATE ... AS SELECT outside every parenthesis) decides.
fn enclosing_error(toks: &[Tok], at: usize) -> Option<u32> {
    let mut depth = 0usize;
    for i in (0..at).rev() {
        match toks[i] {
            Tok::P(')') => depth += 1,
            Tok::P('(') if depth > 0 => depth -= 1,
            Tok::P('(') => {
                let before = i.checked_sub(1).map(|j| &toks[j])?;
                if kw_eq(before, "check") {
                    return Some(ER_SUBQUERIES_NOT_SUPPORTED);
                }
                if kw_eq(before, "as") && inside_parens(toks, i) {
                    return Some(ER_GENERATED_COLUMN_FUNCTION_IS_NOT_ALLOWED);
                }
            }
            _ => {}
        }
    }
    None
}

/// Whether `toks[at]` lies inside parentheses (a column list), or, for ALTER TABLE, in an
/// ADD / MODIFY / CHANGE column (`ALTER TABLE t ADD c INT AS (...)`).
fn inside_parens(toks: &[Tok], at: usize) -> bool {
    let mut depth = 0i32;
    for t in &toks[..at] {
        match t {
            Tok::P('(') => depth += 1,
            Tok::P(')') => depth -= 1,
            _ => {}
        }
    }
    depth > 0 || toks.first().is_some_and(|t| kw_eq(t, "alter"))
}
