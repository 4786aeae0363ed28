//! Query shapes around the SELECT of `classify/select.rs`: common table expressions
//! (`WITH [RECURSIVE] name AS (...) SELECT ...`), parenthesised query expressions
//! (`(SELECT ...) UNION (SELECT ...)`, `((SELECT ...))`), table value constructors
//! (`VALUES (1,2),(3,4)`), and the prefixes that run or describe another statement
//! (`ANALYZE [FORMAT=...] <stmt>`, `EXPLAIN|DESCRIBE [EXTENDED|PARTITIONS|FORMAT=...] <stmt>`).
//!
//! Each shape is the plan of the statement it wraps:
//! - A query expression of any shape puts every table it names into the statement's
//!   global table list with TL_READ (MDL_SHARED_READ), as a SELECT does (MariaDB
//!   `sql/sql_yacc.yy` `query_expression` / `table_value_constructor`, opened by
//!   `open_and_lock_tables` from `mysql_execute_command`'s SQLCOM_SELECT in
//!   `sql/sql_parse.cc`).
//! - A CTE's name shadows a table of that name: a reference resolves to the WITH element
//!   (`With_clause::find_table_def`, `TABLE_LIST::set_as_with_table` via
//!   `LEX::resolve_references_to_cte` in `sql/sql_cte.cc`, called from `parse_sql`'s
//!   `LEX::check_cte_dependencies_and_resolve_references`), and a resolved reference is
//!   no table `open_tables` opens. A recursive CTE references itself the same way.
//! - ANALYZE <stmt> executes the statement (`lex->analyze_stmt`: `mysql_execute_command`
//!   runs it as usual and `Explain_query` collects its counters, `sql/sql_explain.cc`),
//!   so its locks and effects are the statement's.
//! - EXPLAIN <stmt> (`lex->describe`) opens and locks the statement's tables as the
//!   statement would (`mysql_update` / `mysql_delete` / `mysql_insert` in `sql/sql_update.cc`,
//!   `sql/sql_delete.cc`, `sql/sql_insert.cc` return after `open_and_lock_tables` and the
//!   plan's `Explain_*` output, before changing a row): the statement's locks, no effect
//!   beyond its tables having to exist.

use super::cte_recursion::{self, Verdict};
use super::query_ctes::{cte_names, resolve_ctes, with_clauses};
use super::{classify, kw_eq, kw_eq_at, lex::render, tokens, Catalog, Cx, Effect, Stmt, Tok};
use crate::errors::ER_NOT_STANDARD_COMPLIANT_RECURSIVE;

/// The statements ANALYZE and EXPLAIN run or describe (after their options).
const PREFIXED: [&str; 8] = [
    "select", "values", "with", "insert", "replace", "update", "delete", "(",
];

/// A query expression (SELECT, WITH, VALUES, parenthesised): the errors the server finds
/// while parsing it, before it opens a table, then the SELECT's plan
/// (`classify/select.rs`).
pub(super) fn query(cx: &Cx, toks: &[Tok], words: &[String]) -> Result<Stmt, String> {
    let sql = cx.sql;
    // Parentheses that do not pair (main/parser.test: `((SELECT 1 FROM t1 LIMIT 1) ORDER
    // BY 1) LIMIT 1)`): the parser's ER_PARSE_ERROR, before any table is opened.
    let depth = toks.iter().try_fold(0i32, |d, t| {
        let d = d + i32::from(*t == Tok::P('(')) - i32::from(*t == Tok::P(')'));
        (d >= 0).then_some(d)
    });
    if depth != Some(0) {
        return Ok(Stmt::Fails(super::ER_PARSE_ERROR));
    }
    if let Some(code) = parse_errors(sql, toks)? {
        return Ok(Stmt::Fails(code));
    }
    let verdict = cte_recursion::check_all(toks).map_err(|e| format!("`{sql}`: {e}"))?;
    if let Some(code) = super::query_values::tvc_error(toks).map_err(|e| format!("`{sql}`: {e}"))? {
        return Ok(Stmt::Fails(code));
    }
    let st = super::select::classify_select(cx, toks, words)?;
    Ok(match verdict {
        Verdict::Unrestricted => {
            cte_recursion::after_locks(cx.cat, st, ER_NOT_STANDARD_COMPLIANT_RECURSIVE)
        }
        Verdict::GlobalOrder => {
            cte_recursion::after_locks(cx.cat, st, cte_recursion::ER_NOT_SUPPORTED_YET)
        }
        _ => st,
    })
}

/// The errors of a statement's WITH clauses that the server finds while parsing it,
/// before it opens a table (`LEX::check_dependencies_in_with_clauses`, sql/sql_cte.cc):
/// two elements of one name, ER_DUP_QUERY_NAME (4004, `With_clause::check_dependencies`),
/// then the anchors of its recursive elements (4005, 4006: `cte_recursion.rs`).
fn parse_errors(sql: &str, toks: &[Tok]) -> Result<Option<u32>, String> {
    for w in with_clauses(toks) {
        if w.elems.iter().enumerate().any(|(i, (n, _, _))| {
            w.elems[..i]
                .iter()
                .any(|(m, _, _)| m.eq_ignore_ascii_case(n))
        }) {
            return Ok(Some(4004));
        }
        // `CYCLE ... RESTRICT` after an element of a WITH without RECURSIVE: the parser's
        // ER_PARSE_ERROR (sql_yacc.yy `opt_cycle`; main/cte_cycle.test).
        if !w.recursive
            && w.elems
                .iter()
                .any(|(_, _, e)| kw_eq_at(toks, e + 1, "cycle"))
        {
            return Ok(Some(super::ER_PARSE_ERROR));
        }
    }
    match cte_recursion::check_all(toks).map_err(|e| format!("`{sql}`: {e}"))? {
        Verdict::ParseError(code) => Ok(Some(code)),
        _ => Ok(None),
    }
}

/// A statement that defines a CTE but is no query expression (INSERT ... WITH, CREATE
/// TABLE ... AS WITH, CREATE VIEW ... AS WITH, a DML's or a SET's subquery with a WITH):
/// the statement with every reference to a visible CTE written as DUAL, which no table
/// list opens (`query_ctes::resolve_ctes`), as the server resolves them before
/// `open_tables` (`LEX::resolve_references_to_cte` from `parse_sql`'s
/// `LEX::check_cte_dependencies_and_resolve_references`); the tables read inside a CTE
/// are read as the statement reads its other tables (an INSERT ... WITH ... SELECT as an
/// INSERT ... SELECT). The WITH clauses' parse errors come first. None when the
/// statement is of another kind or defines no CTE. (A stored program's body is the
/// routine classifiers', which read its statements one by one.)
pub(super) fn cte_outside_query(sql: &str, toks: &[Tok]) -> Option<Result<CteFree, String>> {
    // (SET STATEMENT ... FOR <stmt> is its inner statement's: `classify/session.rs`.)
    let dml = ["insert", "replace", "update", "delete", "do", "set"]
        .iter()
        .any(|k| kw_eq_at(toks, 0, k))
        && !kw_eq_at(toks, 1, "statement");
    let ddl = kw_eq_at(toks, 0, "create")
        && toks
            .iter()
            .take_while(|t| **t != Tok::P('('))
            .any(|t| kw_eq(t, "table") || kw_eq(t, "view"));
    if !(dml || ddl) || cte_names(toks).is_empty() {
        return None;
    }
    Some(match parse_errors(sql, toks) {
        Err(e) => Err(e),
        Ok(Some(code)) => Ok(CteFree::Fails(code)),
        Ok(None) => match cte_recursion::check_all(toks) {
            Ok(Verdict::Unrestricted | Verdict::GlobalOrder) => Err(format!(
                "`{sql}`: a recursive CTE the server refuses after the locks (4008, 1235) in a statement \
                 other than a query is not modelled"
            )),
            Err(e) => Err(format!("`{sql}`: {e}")),
            Ok(_) => Ok(CteFree::Text(render(&resolve_ctes(toks)))),
        },
    })
}

/// A statement with CTEs, once they are resolved: its parse error, or its text with
/// each reference to a CTE written as DUAL.
pub(super) enum CteFree {
    Fails(u32),
    Text(String),
}

/// `ANALYZE [FORMAT=...] <stmt>` and `EXPLAIN|DESCRIBE [EXTENDED|PARTITIONS|FORMAT=...]
/// <stmt>`: the plan of `<stmt>` (see the module's comment). None for the other
/// ANALYZE / EXPLAIN forms (ANALYZE TABLE, DESCRIBE t, EXPLAIN FOR CONNECTION).
pub(super) fn prefixed(
    sql: &str,
    db: &str,
    cat: &Catalog,
    has_row: &dyn Fn(&str) -> bool,
) -> Option<Result<Stmt, String>> {
    let toks = tokens(sql).ok()?;
    let analyze = kw_eq_at(&toks, 0, "analyze");
    if !analyze
        && !["explain", "describe", "desc"]
            .iter()
            .any(|k| kw_eq_at(&toks, 0, k))
    {
        return None;
    }
    let mut i = 1;
    loop {
        if !analyze && (kw_eq_at(&toks, i, "extended") || kw_eq_at(&toks, i, "partitions")) {
            i += 1;
        } else if kw_eq_at(&toks, i, "format") && toks.get(i + 1) == Some(&Tok::P('=')) {
            i += 3;
        } else {
            break;
        }
    }
    let inner = match toks.get(i)? {
        Tok::P('(') => "(".to_owned(),
        Tok::Word {
            text,
            quoted: false,
        } => text.to_ascii_lowercase(),
        _ => return None,
    };
    if !PREFIXED.contains(&inner.as_str()) {
        return None;
    }
    let text = render(&toks[i..]);
    let st = classify(&text, db, cat, has_row).map_err(|e| format!("`{sql}`: {e}"));
    Some(if analyze {
        st
    } else {
        st.and_then(|st| explained(sql, st))
    })
}

/// What EXPLAIN keeps of the plan of the statement it describes: its locks, and of its
/// effects only that its tables must exist.
fn explained(sql: &str, st: Stmt) -> Result<Stmt, String> {
    match st {
        Stmt::NoLocks => Ok(Stmt::NoLocks),
        Stmt::Learned(p) if matches!(p.effect, Effect::None | Effect::NeedTables(_)) => {
            Ok(Stmt::Learned(p))
        }
        _ => Err(format!(
            "`{sql}`: EXPLAIN of this statement is not modelled"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::super::query_ctes::starts_query;
    use super::*;

    fn names(sql: &str) -> Vec<String> {
        cte_names(&tokens(sql).expect("tokens"))
    }

    #[test]
    fn cte_names_are_the_with_elements_only() {
        assert_eq!(
            names("WITH RECURSIVE c(n) AS (SELECT 1 UNION SELECT n+1 FROM c), d AS (SELECT 2) SELECT * FROM c, d"),
            ["c", "d"]
        );
        assert_eq!(
            names("SELECT a, SUM(b) FROM t1 GROUP BY a WITH ROLLUP"),
            Vec::<String>::new()
        );
        assert_eq!(
            names("SELECT * FROM (WITH t AS (SELECT a FROM t1) SELECT * FROM t) dt"),
            ["t"]
        );
    }

    #[test]
    fn a_query_may_start_with_parentheses() {
        let t = |s: &str| starts_query(&tokens(s).expect("tokens"), 0);
        assert!(t("((SELECT 1)) UNION (SELECT 2)"));
        assert!(t("VALUES (1,2)"));
        assert!(!t("(t1 JOIN t2)"));
    }
}
