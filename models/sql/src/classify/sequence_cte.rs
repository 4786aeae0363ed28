//! A sequence function whose sequence is a CTE of the statement (`WITH x AS (...) SELECT
//! ... NEXTVAL(x)`): the name is the common table expression's (`With_clause::
//! find_table_def`, sql/sql_cte.cc, resolves it before `open_tables`), which is no
//! sequence: ER_NOT_SEQUENCE2 (4090; MDEV-33985 / MDEV-39063, measured on 10.11.19 with
//! `suite/sql_sequence/next.test`'s forms: suite/sequence-cte.mdl). The statement
//! locks nothing before the error when it names no base table.
//!
//! Refused (by the caller): a statement with a base table too, or a call of another name.

use super::{kw_eq, Stmt, Tok};
use crate::errors::ER_NOT_SEQUENCE2;
use crate::objects::Tbl;

/// The statement's CTE names: a name after WITH [RECURSIVE] or after a comma, followed by
/// an optional column list and AS (.
fn cte_names(toks: &[Tok]) -> Vec<String> {
    let mut out = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let starts = kw_eq(t, "with") || *t == Tok::P(',');
        let mut j = i + 1;
        if starts && toks.get(j).is_some_and(|t| kw_eq(t, "recursive")) {
            j += 1;
        }
        let Some(Tok::Word { text, .. }) = toks.get(j).filter(|_| starts) else {
            continue;
        };
        let mut k = j + 1;
        if toks.get(k) == Some(&Tok::P('(')) {
            match toks[k..].iter().position(|t| *t == Tok::P(')')) {
                Some(close) => k += close + 1,
                None => continue,
            }
        }
        if toks.get(k).is_some_and(|t| kw_eq(t, "as")) && toks.get(k + 1) == Some(&Tok::P('(')) {
            out.push(text.clone());
        }
    }
    out
}

/// `Some(Fails(4090))` when every call's sequence is an unqualified CTE name of the
/// statement and the statement reads only CTEs; `None` else.
pub(super) fn cte_sequence(toks: &[Tok], seqs: &[&Tbl], db: &str) -> Option<Stmt> {
    let names = cte_names(toks);
    // (`db.x` is a table, never the CTE: such a call is the caller's.)
    let qualified = toks.windows(2).any(|w| w[1] == Tok::P('.'));
    let all_ctes = seqs.iter().all(|s| s.db == db && names.contains(&s.name));
    if qualified || !all_ctes {
        return None;
    }
    // The FROMs are read here, not by the classifier (which may not know WITH, or take
    // a CTE for a table).
    only_ctes_read(toks, &names).then_some(Stmt::Fails(ER_NOT_SEQUENCE2))
}

/// A SELECT whose every FROM reads one CTE (with an optional alias) or a derived table:
/// no JOIN, no list of tables.
fn only_ctes_read(toks: &[Tok], names: &[String]) -> bool {
    let select = toks
        .first()
        .is_some_and(|t| kw_eq(t, "select") || kw_eq(t, "with") || *t == Tok::P('('));
    if !select || toks.iter().any(|t| kw_eq(t, "join") || kw_eq(t, "into")) {
        return false;
    }
    toks.iter().enumerate().all(|(i, t)| {
        if !kw_eq(t, "from") {
            return true;
        }
        match toks.get(i + 1) {
            Some(Tok::P('(')) => true,
            Some(Tok::Word { text, .. }) if names.contains(text) => {
                let mut j = i + 2;
                if toks.get(j).is_some_and(|t| kw_eq(t, "as")) {
                    j += 1;
                }
                if matches!(toks.get(j), Some(Tok::Word { .. }))
                    && !toks.get(j).is_some_and(|t| kw_eq(t, "where"))
                {
                    j += 1;
                }
                toks.get(j) != Some(&Tok::P(','))
            }
            _ => false,
        }
    })
}
