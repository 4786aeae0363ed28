//! The scope of a statement's common table expressions (`WITH [RECURSIVE] name AS (...)`):
//! which references resolve to a WITH element rather than a table (MariaDB
//! `With_clause::find_table_def` and `LEX::resolve_references_to_cte`, `sql/sql_cte.cc`),
//! and where a query expression starts. Read by the query shapes, VALUES and the SELECT
//! (`query_shapes.rs`, `query_values.rs`, `select.rs`).

use super::{kw_eq, kw_eq_at, Tok};

/// The words a query expression can start with, after any opening parentheses.
const QUERY_START: [&str; 3] = ["select", "values", "with"];

/// Whether the tokens from `i` start a query expression: opening parentheses, then
/// SELECT, VALUES or WITH.
pub(super) fn starts_query(toks: &[Tok], mut i: usize) -> bool {
    while toks.get(i) == Some(&Tok::P('(')) {
        i += 1;
    }
    QUERY_START.iter().any(|k| kw_eq_at(toks, i, k))
}

/// One WITH clause: whether RECURSIVE, and its elements (name, the token range of its
/// body inside the parentheses after AS), and the end of its scope (the end of the query
/// expression it opens: the parenthesis that closes around it, or the statement's end).
pub(super) struct With {
    /// The index of its WITH.
    pub(super) at: usize,
    /// The indexes of its elements' names (where they are defined, not referenced).
    pub(super) defs: Vec<usize>,
    pub(super) recursive: bool,
    pub(super) elems: Vec<(String, usize, usize)>,
    pub(super) scope_end: usize,
}

/// The statement's WITH clauses (`WITH [RECURSIVE] name [(cols)] AS (...) [, ...]`,
/// anywhere in the tokens: a WITH may open any query expression, a derived table's or a
/// subquery's included). The other WITHs (ROLLUP, CHECK OPTION, GRANT OPTION, ...) are not
/// followed by a name and AS.
pub(super) fn with_clauses(toks: &[Tok]) -> Vec<With> {
    let mut out = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        if !kw_eq(t, "with") {
            continue;
        }
        let recursive = kw_eq_at(toks, i + 1, "recursive");
        let mut j = i + 1 + usize::from(recursive);
        let mut elems = Vec::new();
        let mut defs = Vec::new();
        // One element, then `, element` for each further one.
        while let Some(Tok::Word { text, .. }) = toks.get(j) {
            let mut k = j + 1;
            if toks.get(k) == Some(&Tok::P('(')) {
                k = close(toks, k) + 1;
            }
            if !kw_eq_at(toks, k, "as") || toks.get(k + 1) != Some(&Tok::P('(')) {
                break;
            }
            let end = close(toks, k + 1);
            elems.push((text.clone(), k + 2, end));
            defs.push(j);
            j = end + 1;
            if toks.get(j) != Some(&Tok::P(',')) {
                break;
            }
            j += 1;
        }
        if !elems.is_empty() {
            out.push(With {
                at: i,
                defs,
                recursive,
                elems,
                scope_end: enclosing_close(toks, i),
            });
        }
    }
    out
}

/// The names the statement's WITH clauses define.
pub(super) fn cte_names(toks: &[Tok]) -> Vec<String> {
    with_clauses(toks)
        .into_iter()
        .flat_map(|w| w.elems.into_iter().map(|(n, _, _)| n))
        .collect()
}

/// The index of the parenthesis that closes the one open at `at` (the statement's length
/// when none is open).
fn enclosing_close(toks: &[Tok], at: usize) -> usize {
    let mut depth = 0i32;
    for (k, t) in toks.iter().enumerate().skip(at) {
        match t {
            Tok::P('(') => depth += 1,
            Tok::P(')') => {
                depth -= 1;
                if depth < 0 {
                    return k;
                }
            }
            _ => {}
        }
    }
    toks.len()
}

/// Whether the word at `p` names the CTE `name` visible there: inside the WITH clause's
/// scope, after its own definition's name; in an element's body, a non-recursive WITH
/// sees only the elements before it, a recursive one all of them (`With_element::
/// check_dependencies_in_spec` and `With_clause::find_table_def` in sql/sql_cte.cc: a
/// name not found there resolves to a base table).
fn resolves_to_cte(w: &With, p: usize, name: &str) -> bool {
    let Some(first) = w.elems.first() else {
        return false;
    };
    if p < first.1 || p >= w.scope_end {
        return false;
    }
    let Some(at) = w
        .elems
        .iter()
        .position(|(n, _, _)| n.eq_ignore_ascii_case(name))
    else {
        return false;
    };
    match w.elems.iter().position(|(_, s, e)| (*s..*e).contains(&p)) {
        Some(body) => w.recursive || at < body,
        None => true,
    }
}

/// The tokens with every reference to a visible CTE replaced by DUAL, which the table
/// lists skip (`classify/tables.rs`): what is left are the base tables the statement
/// opens. A qualified name (`db.name`) is always a base table.
pub(super) fn resolve_ctes(toks: &[Tok]) -> Vec<Tok> {
    let withs = with_clauses(toks);
    let mut out = toks.to_vec();
    if withs.is_empty() {
        return out;
    }
    for (p, t) in toks.iter().enumerate() {
        let Tok::Word { text, .. } = t else { continue };
        if p > 0 && toks[p - 1] == Tok::P('.') || withs.iter().any(|w| w.defs.contains(&p)) {
            continue;
        }
        if withs.iter().any(|w| resolves_to_cte(w, p, text)) {
            out[p] = Tok::Word {
                text: "dual".into(),
                quoted: false,
            };
        }
    }
    out
}

/// The index of the parenthesis that closes the one at `open` (the last token when none).
fn close(toks: &[Tok], open: usize) -> usize {
    super::lex::matching_paren(toks, open).unwrap_or(toks.len().saturating_sub(1))
}
