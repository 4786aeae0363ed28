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

use super::{classify, kw_eq, kw_eq_at, lex::render, tokens, Catalog, Cx, Effect, Stmt, Tok};

/// The words a query expression can start with, after any opening parentheses.
const QUERY_START: [&str; 3] = ["select", "values", "with"];

/// The statements ANALYZE and EXPLAIN run or describe (after their options).
const PREFIXED: [&str; 8] = [
    "select", "values", "with", "insert", "replace", "update", "delete", "(",
];

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
struct With {
    recursive: bool,
    elems: Vec<(String, usize, usize)>,
    scope_end: usize,
}

/// The statement's WITH clauses (`WITH [RECURSIVE] name [(cols)] AS (...) [, ...]`,
/// anywhere in the tokens: a WITH may open any query expression, a derived table's or a
/// subquery's included). The other WITHs (ROLLUP, CHECK OPTION, GRANT OPTION, ...) are not
/// followed by a name and AS.
fn with_clauses(toks: &[Tok]) -> Vec<With> {
    let mut out = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        if !kw_eq(t, "with") {
            continue;
        }
        let recursive = kw_eq_at(toks, i + 1, "recursive");
        let mut j = i + 1 + usize::from(recursive);
        let mut elems = Vec::new();
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
            j = end + 1;
            if toks.get(j) != Some(&Tok::P(',')) {
                break;
            }
            j += 1;
        }
        if !elems.is_empty() {
            out.push(With {
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
    let Some(at) = w.elems.iter().position(|(n, _, _)| n == name) else {
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
        if p > 0 && toks[p - 1] == Tok::P('.') {
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
    let mut depth = 0i32;
    for (k, t) in toks.iter().enumerate().skip(open) {
        match t {
            Tok::P('(') => depth += 1,
            Tok::P(')') => {
                depth -= 1;
                if depth == 0 {
                    return k;
                }
            }
            _ => {}
        }
    }
    toks.len().saturating_sub(1)
}

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
    for w in with_clauses(toks) {
        // ER_DUP_QUERY_NAME (4004): With_clause::check_dependencies, sql/sql_cte.cc.
        if w.elems
            .iter()
            .enumerate()
            .any(|(i, (n, _, _))| w.elems[..i].iter().any(|(m, _, _)| m == n))
        {
            return Ok(Stmt::Fails(4004));
        }
        if w.recursive {
            recursive_shape(toks, &w).map_err(|e| format!("`{sql}`: {e}"))?;
        }
    }
    if let Some(code) = super::query_values::tvc_error(toks).map_err(|e| format!("`{sql}`: {e}"))? {
        return Ok(Stmt::Fails(code));
    }
    super::select::classify_select(cx, toks, words)
}

/// The recursive elements of a WITH RECURSIVE the model plays: an anchor without a
/// reference to the element, then UNION and SELECTs that reference it once, in their own
/// FROM lists, without aggregation, ordering or outer joins, and no element referencing a
/// later one. The server checks these rules before opening a table (ER_RECURSIVE_WITHOUT_
/// ANCHORS 4005, ER_UNACCEPTABLE_MUTUAL_RECURSION 4006, ER_NOT_STANDARD_COMPLIANT_RECURSIVE
/// 4008: `With_element::check_unrestricted_recursive`, `st_select_lex::check_unrestricted_
/// recursive` and `With_clause::check_anchors` in sql/sql_cte.cc); the other shapes are
/// refused rather than guessed.
fn recursive_shape(toks: &[Tok], w: &With) -> Result<(), String> {
    const REFUSED: [&str; 14] = [
        "group", "having", "order", "limit", "left", "right", "outer", "exists", "count", "sum",
        "avg", "min", "max", "over",
    ];
    for (k, (name, s, e)) in w.elems.iter().enumerate() {
        let body = &toks[*s..*e];
        let refs = |n: &str| -> Vec<usize> {
            (0..body.len())
                .filter(|&p| {
                    matches!(&body[p], Tok::Word { text, .. } if text == n)
                        && (p == 0 || body[p - 1] != Tok::P('.'))
                        && body.get(p + 1) != Some(&Tok::P('.'))
                })
                .collect()
        };
        if w.elems[k + 1..].iter().any(|(n, _, _)| !refs(n).is_empty()) {
            return Err(
                "a recursive CTE referencing a later element of its WITH is not modelled".into(),
            );
        }
        let own = refs(name);
        if own.is_empty() {
            continue;
        }
        let depth = |p: usize| {
            body[..p].iter().fold(0i32, |d, t| match t {
                Tok::P('(') => d + 1,
                Tok::P(')') => d - 1,
                _ => d,
            })
        };
        let union = (0..body.len()).find(|&p| kw_eq(&body[p], "union") && depth(p) == 0);
        let standard = union.is_some_and(|u| {
            own.len() == 1
                && own[0] > u
                && depth(own[0]) == 0
                && !body[u..]
                    .iter()
                    .any(|t| REFUSED.iter().any(|r| kw_eq(t, r)))
                && !body.iter().any(|t| kw_eq(t, "with"))
        });
        if !standard {
            return Err(
                "a recursive CTE other than `anchor UNION SELECT ... FROM itself` \
                        (one reference, no aggregate, ordering or outer join) is not modelled"
                    .into(),
            );
        }
    }
    Ok(())
}

/// A statement that defines a CTE but is no query expression (INSERT ... WITH, CREATE
/// TABLE ... AS WITH, CREATE VIEW ... AS WITH, a DML's subquery with a WITH): the other
/// classifiers would take the CTE's name for a table, so it is refused.
/// (A stored program's body is the routine classifiers', which read its statements one
/// by one.)
pub(super) fn cte_outside_query(sql: &str, toks: &[Tok]) -> Option<String> {
    let dml = ["insert", "replace", "update", "delete", "do", "set"]
        .iter()
        .any(|k| kw_eq_at(toks, 0, k));
    let ddl = kw_eq_at(toks, 0, "create")
        && toks
            .iter()
            .take_while(|t| **t != Tok::P('('))
            .any(|t| kw_eq(t, "table") || kw_eq(t, "view"));
    ((dml || ddl) && !cte_names(toks).is_empty()).then(|| {
        format!("`{sql}`: a WITH clause (CTE) in a statement other than a query is not modelled")
    })
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
