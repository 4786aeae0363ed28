//! A SELECT's locking clause (`FOR UPDATE`, `LOCK IN SHARE MODE`) is its own SELECT_LEX's:
//! `Lex_select_lock::set_to` (sql/sql_lex.cc) sets the lock type of the tables of the
//! SELECT it is written after; a subquery's, a derived table's or a CTE's tables are of
//! another SELECT_LEX and keep the parser's read lock (TL_READ, MDL_SHARED_READ). Measured
//! on 10.11.19 (`suite/select-lock-scope.mdl`): `SELECT a FROM t1 WHERE a IN (SELECT a
//! FROM t2) FOR UPDATE` and `WITH c AS (SELECT a FROM t2) SELECT ... FROM t1 JOIN c ...
//! FOR UPDATE` hold t1 SW and t2 SR. A table named both inside and outside keeps what the
//! caller gives it.

use super::{from_tables, Tbl, Tok};

/// The tables named only inside parenthesised queries of `toks` (subqueries, derived
/// tables, CTE bodies), not in the statement's own FROM list.
pub(super) fn only_in_subqueries(toks: &[Tok], db: &str) -> Result<Vec<Tbl>, String> {
    let mut top = Vec::with_capacity(toks.len());
    let mut sub = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        if toks[i] != Tok::P('(') || !super::query_ctes::starts_query(toks, i) {
            top.push(toks[i].clone());
            i += 1;
            continue;
        }
        let len = super::lex::matching_paren(toks, i)
            .ok_or_else(|| "a query's parenthesis is not closed".to_string())?
            - i;
        sub.extend(from_tables(&toks[i..=i + len], db)?);
        top.push(Tok::Word {
            text: "dual".into(),
            quoted: false,
        });
        i += len + 1;
    }
    let outer = from_tables(&top, db)?;
    sub.retain(|t| !outer.contains(t));
    Ok(sub)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subquerys_tables_are_not_the_outer_selects() {
        let t = |n: &str| Tbl {
            db: "test".into(),
            name: n.into(),
        };
        let toks = super::super::tokens(
            "select a from t1 where a in (select a from t2) or a in (select a from t1) for update",
        )
        .unwrap();
        assert_eq!(only_in_subqueries(&toks, "test").unwrap(), vec![t("t2")]);
    }
}
