//! Table value constructors (`VALUES (1,2),(3,4)`, MariaDB `sql/sql_tvc.cc`): the errors
//! the server gives for their rows, which the model can tell from the text.

use super::{from_tables, kw_eq, Tok};

/// The words a row of a table value constructor may hold besides function names and
/// literals: the model refuses the others (a column reference fails with
/// ER_FIELD_REFERENCE_IN_TVC, 4100, which depends on the names in scope).
const ROW_WORDS: [&str; 5] = ["null", "true", "false", "default", "ignore"];

/// The error of the statement's table value constructors, when it has one and names no
/// table (the server finds these in `table_value_constr::prepare` and in the rows'
/// `fix_fields`, after `open_and_lock_tables`: with a table the locks would come first, so
/// such a statement is refused). ER_EMPTY_ROW_IN_TVC (4141) for `()`,
/// ER_WRONG_NUMBER_OF_VALUES_IN_TVC (4099) for rows of different lengths,
/// ER_UNKNOWN_VALUE_IN_TVC-like 4172 for DEFAULT or IGNORE outside INSERT
/// (`Item_default_value::fix_fields` / `Item_ignore_value::fix_fields`, sql/item.cc).
pub(super) fn tvc_error(toks: &[Tok]) -> Result<Option<u32>, String> {
    let mut found = None;
    for (i, t) in toks.iter().enumerate() {
        if !kw_eq(t, "values") || toks.get(i + 1) != Some(&Tok::P('(')) {
            continue;
        }
        let mut lens = Vec::new();
        let mut j = i + 1;
        while toks.get(j) == Some(&Tok::P('(')) {
            let (n, end, code) = row(toks, j)?;
            found = found.or(code);
            lens.push(n);
            j = end + 1;
            if toks.get(j) != Some(&Tok::P(',')) {
                break;
            }
            j += 1;
        }
        if lens.contains(&0) {
            found = found.or(Some(4141));
        } else if lens.windows(2).any(|w| w[0] != w[1]) {
            found = found.or(Some(4099));
        }
    }
    let resolved = super::query_ctes::resolve_ctes(toks);
    if found.is_some() && !from_tables(&resolved, "").is_ok_and(|t| t.is_empty()) {
        return Err(
            "an erroneous table value constructor in a statement with tables is not \
                    modelled"
                .into(),
        );
    }
    Ok(found)
}

/// One row `( e, ... )` opening at `open`: its length, its closing parenthesis, and 4172
/// when an element is DEFAULT or IGNORE. Refuses a word that could be a column.
fn row(toks: &[Tok], open: usize) -> Result<(usize, usize, Option<u32>), String> {
    let (mut n, mut elem, mut depth, mut code) = (0, 0, 0i32, None);
    let mut k = open;
    while k < toks.len() {
        let t = &toks[k];
        match t {
            Tok::P('(') if super::query_ctes::starts_query(toks, k) && depth > 0 => {
                k = skip(toks, k);
                elem += 1;
                continue;
            }
            Tok::P('(') if depth == 0 => {
                depth = 1;
                k += 1;
                continue;
            }
            Tok::P('(') => depth += 1,
            Tok::P(')') => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            Tok::P(',') if depth == 1 => {
                n += 1;
                elem = 0;
                k += 1;
                continue;
            }
            Tok::Word { text, quoted } => {
                let call = toks.get(k + 1) == Some(&Tok::P('('));
                let var = k > 0 && toks[k - 1] == Tok::P('@');
                let lw = text.to_ascii_lowercase();
                if !call && !var && (*quoted || !ROW_WORDS.contains(&lw.as_str())) {
                    return Err(format!(
                        "a word (`{text}`) in a table value constructor's row is not modelled"
                    ));
                }
                if depth == 1 && (lw == "default" || lw == "ignore") && !*quoted {
                    code = Some(4172);
                }
            }
            _ => {}
        }
        elem += 1;
        k += 1;
    }
    if elem > 0 || n > 0 {
        n += 1;
    }
    Ok((n, k, code))
}

/// The index after the parenthesis that closes the one at `open`.
fn skip(toks: &[Tok], open: usize) -> usize {
    super::lex::matching_paren(toks, open).map_or(toks.len(), |k| k + 1)
}
