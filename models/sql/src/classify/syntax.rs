//! Statements MariaDB's parser rejects (ER_PARSE_ERROR, 1064) that the classifier, which
//! reads only the words that decide locks, would otherwise take (issue 26 item 4). Each
//! rule follows a production of MariaDB 10.11's grammar (`sql/sql_yacc.yy`, `sql/lex.h`)
//! and is measured on the server's own test suite: `models/conformance/corpus-syntax-
//! errors.tsv`, every statement the suite expects to be a syntax error, checked by
//! `tests/conform_syntax_errors.rs`. A rule returns the reason; the model plays such a
//! statement as `error 1064` and takes no lock. Not a parser: a statement no rule catches
//! is classified as before (the test lists those still played with locks).

use super::{kw_eq, Tok};

mod ddl;
mod first_word;
mod handler;
mod more;
mod references;

/// Why MariaDB's parser rejects `sql` (tokens `toks`), or None when no rule applies.
/// The rules on the statement's text with its comments (`more::text`).
pub(super) fn text_rejects(sql: &str) -> Option<&'static str> {
    more::text(sql)
}

pub(super) fn mariadb_rejects(sql: &str, toks: &[Tok]) -> Option<&'static str> {
    if let Some(r) = more::text(sql).or_else(|| first_word::rules(toks)) {
        return Some(r);
    }
    if compound(toks) {
        return None;
    }
    function_name_as_table(sql)
        .or_else(|| aliased_wildcard(toks))
        .or_else(|| locking_clause(toks))
        .or_else(|| negative_limit(toks))
        .or_else(|| query_blocks(toks))
        .or_else(|| table_definition(toks))
        .or_else(|| outer_join_condition(toks))
        .or_else(|| partition_list(toks))
        .or_else(|| window_function_over(toks))
        .or_else(|| ftwrl_list(toks))
        .or_else(|| percentile(toks))
        .or_else(|| table_options(toks))
        .or_else(|| column_definitions(toks))
        .or_else(|| statement_shape(toks))
        .or_else(|| more::rules(toks))
        .or_else(|| ddl::rules(toks))
        .or_else(|| handler::rules(toks))
        .or_else(|| references::rules(toks))
}

/// `PERCENTILE_CONT(x) WITHIN GROUP (ORDER BY one_key)`: one argument, one sort key
/// (sql_yacc.yy, `inverse_distribution_function`).
fn percentile(toks: &[Tok]) -> Option<&'static str> {
    for (i, t) in toks.iter().enumerate() {
        if !(kw_eq(t, "percentile_cont") || kw_eq(t, "percentile_disc")) {
            continue;
        }
        if toks.get(i + 2) == Some(&Tok::P(')')) {
            return Some("PERCENTILE_CONT/DISC takes one argument");
        }
        let end = closing(toks, i + 1);
        let g = end + 3;
        if toks.get(g) != Some(&Tok::P('(')) {
            continue;
        }
        let close = closing(toks, g);
        let inner = &toks[g + 1..close.min(toks.len())];
        let commas = inner.iter().filter(|x| **x == Tok::P(',')).count();
        if inner.is_empty() || commas > 0 {
            return Some("WITHIN GROUP takes one ORDER BY key");
        }
    }
    None
}

/// Table options the parser checks itself: STATS_SAMPLE_PAGES from 1 to 65535, PACK_KEYS
/// 0, 1 or DEFAULT (sql_yacc.yy, `create_table_option`: my_parse_error otherwise).
fn table_options(toks: &[Tok]) -> Option<&'static str> {
    if !first_is(toks, &["create", "alter"]) {
        return None;
    }
    for (i, t) in toks.iter().enumerate() {
        let mut j = i + 1;
        if toks.get(j) == Some(&Tok::P('=')) {
            j += 1;
        }
        let v = toks.get(j);
        if kw_eq(t, "stats_sample_pages") {
            let ok = match v {
                Some(Tok::Num(n)) => n.parse::<u64>().is_ok_and(|n| (1..=0xffff).contains(&n)),
                Some(w) => kw_eq(w, "default"),
                None => false,
            };
            if !ok {
                return Some("STATS_SAMPLE_PAGES is from 1 to 65535");
            }
        }
        if kw_eq(t, "pack_keys") {
            let ok = matches!(v, Some(Tok::Num(n)) if n == "0" || n == "1")
                || v.is_some_and(|w| kw_eq(w, "default"));
            if !ok {
                return Some("PACK_KEYS is 0, 1 or DEFAULT");
            }
        }
    }
    None
}

/// CREATE TABLE's column list: a column has a type after its name (`(i)`,
/// `invisible(a,b)` are no column), and a reserved word names no column unquoted.
fn column_definitions(toks: &[Tok]) -> Option<&'static str> {
    const ENTRY: [&str; 12] = [
        "primary",
        "key",
        "index",
        "unique",
        "constraint",
        "foreign",
        "check",
        "fulltext",
        "spatial",
        "period",
        "like",
        "system",
    ];
    const RESERVED: [&str; 12] = [
        "signal",
        "resignal",
        "condition",
        "select",
        "from",
        "where",
        "table",
        "order",
        "group",
        "limit",
        "into",
        "values",
    ];
    if !first_is(toks, &["create"]) {
        return None;
    }
    // The column list: `(` right after the table's name, not a query (`AS (SELECT`).
    let at = toks.iter().position(|t| kw_eq(t, "table"))?;
    let mut open = at + 1;
    if toks.get(open).is_some_and(|t| kw_eq(t, "if")) {
        open += 3;
    }
    open += 1;
    if toks.get(open) == Some(&Tok::P('.')) {
        open += 2;
    }
    if toks.get(open) != Some(&Tok::P('('))
        || toks.get(open + 1).is_none_or(|t| {
            *t == Tok::P('(')
                || ["select", "values", "with", "like"]
                    .iter()
                    .any(|k| kw_eq(t, k))
        })
    {
        return None;
    }
    let close = closing(toks, open);
    let mut i = open + 1;
    while i < close {
        if let Tok::Word { quoted: false, .. } = &toks[i] {
            if !ENTRY.iter().any(|e| kw_eq(&toks[i], e)) {
                if RESERVED.iter().any(|r| kw_eq(&toks[i], r)) {
                    return Some("a reserved word names no column");
                }
                if matches!(toks.get(i + 1), Some(Tok::P(')' | ',' | '('))) {
                    return Some("a column without a type");
                }
            }
        }
        // The next entry: after the next comma at this level.
        let mut k = i;
        while k < close && toks[k] != Tok::P(',') {
            if toks[k] == Tok::P('(') {
                k = closing(toks, k);
            }
            k += 1;
        }
        i = k + 1;
    }
    None
}

/// Whole-statement shapes: INSERT needs VALUES, SET or a SELECT after its table
/// (`insert_field_spec`); TRUNCATE takes no PARTITION (that is ALTER TABLE ... TRUNCATE
/// PARTITION); OFFSET without LIMIT is `OFFSET n ROWS` (`opt_limit_clause` with FETCH);
/// `DELETE FROM t alias USING` has no alias (`delete_part2`: table_ident, not
/// table_alias).
fn statement_shape(toks: &[Tok]) -> Option<&'static str> {
    // `PARTITION BY ...` alone (main/partition_error.test expects ER_PARSE_ERROR): no
    // production of sql_yacc.yy's `verb_clause` begins with PARTITION.
    if first_is(toks, &["partition"]) {
        return Some("a statement does not begin with PARTITION");
    }
    if first_is(toks, &["insert", "replace"]) {
        let body = toks.iter().any(|t| {
            ["values", "value", "select", "set", "with"]
                .iter()
                .any(|k| kw_eq(t, k))
                || *t == Tok::P('(')
        });
        if !body {
            return Some("INSERT without VALUES, SET or SELECT");
        }
    }
    if first_is(toks, &["truncate"]) && toks.iter().any(|t| kw_eq(t, "partition")) {
        return Some("TRUNCATE TABLE takes no PARTITION");
    }
    if first_is(toks, &["select"]) && !toks.iter().any(|t| kw_eq(t, "limit")) {
        if let Some(o) = toks.iter().position(|t| kw_eq(t, "offset")) {
            let rows = toks
                .get(o + 2)
                .is_some_and(|t| kw_eq(t, "rows") || kw_eq(t, "row"));
            if !rows {
                return Some("OFFSET without LIMIT is OFFSET n ROWS");
            }
        }
    }
    if first_is(toks, &["delete"])
        && toks.get(1).is_some_and(|t| kw_eq(t, "from"))
        && matches!(toks.get(3), Some(Tok::Word { quoted: false, .. }))
        && toks.get(4).is_some_and(|t| kw_eq(t, "using"))
        && !toks.get(3).is_some_and(|t| kw_eq(t, "using"))
    {
        return Some("DELETE FROM t USING: the target has no alias");
    }
    None
}

/// A statement with several statements in it (a stored program's body, `;` inside) or
/// that defines a stored program: its bodies have their own grammar, not checked here.
fn compound(toks: &[Tok]) -> bool {
    const PROGRAMS: [&str; 5] = ["procedure", "function", "event", "trigger", "package"];
    toks.contains(&Tok::P(';'))
        || (first_is(toks, &["create", "alter"])
            && toks
                .iter()
                .take(12)
                .take_while(|t| !kw_eq(t, "as") && !kw_eq(t, "select") && **t != Tok::P('('))
                .any(|t| PROGRAMS.iter().any(|p| kw_eq(t, p))))
}

fn first_is(toks: &[Tok], words: &[&str]) -> bool {
    toks.first()
        .is_some_and(|t| words.iter().any(|w| kw_eq(t, w)))
}

/// The index of the `)` that closes the `(` at `open`, or the end.
fn closing(toks: &[Tok], open: usize) -> usize {
    super::lex::matching_paren(toks, open).unwrap_or(toks.len())
}

/// In CREATE/ALTER TABLE: a type's length is a number (`int(-1)`: sql_yacc.yy's
/// `opt_field_length` takes NUM, not an expression); `CHECK` takes a parenthesised
/// expression (`check_constraint`: CHECK_SYM '(' expr ')'); `CONSTRAINT name` is followed
/// by the constraint it names.
fn table_definition(toks: &[Tok]) -> Option<&'static str> {
    const TYPES: [&str; 14] = [
        "int",
        "integer",
        "tinyint",
        "smallint",
        "mediumint",
        "bigint",
        "char",
        "varchar",
        "blob",
        "text",
        "year",
        "timestamp",
        "datetime",
        "time",
    ];
    if !first_is(toks, &["create", "alter"]) || !toks.iter().any(|t| kw_eq(t, "table")) {
        return None;
    }
    for (i, t) in toks.iter().enumerate() {
        let next = toks.get(i + 1);
        if TYPES.iter().any(|ty| kw_eq(t, ty))
            && next == Some(&Tok::P('('))
            && toks.get(i + 2) == Some(&Tok::P('-'))
        {
            return Some("a type's length is a number, never negative");
        }
        if i > 0
            && kw_eq(t, "check")
            && next
                .is_some_and(|n| *n != Tok::P('(') && !kw_eq(n, "option") && !kw_eq(n, "partition"))
        {
            return Some("CHECK takes a parenthesised expression");
        }
        // (`DROP CONSTRAINT name,` names the one it drops: valid.)
        if kw_eq(t, "constraint")
            && !(i > 0 && kw_eq(&toks[i - 1], "drop"))
            && matches!(toks.get(i + 2), Some(Tok::P(')' | ',')))
        {
            return Some("CONSTRAINT name names no constraint");
        }
    }
    None
}

/// `t1 LEFT JOIN t2` needs its ON or USING (sql_yacc.yy, `table_ref LEFT opt_outer JOIN_SYM
/// table_ref join_cond`; NATURAL LEFT JOIN takes none).
fn outer_join_condition(toks: &[Tok]) -> Option<&'static str> {
    const ENDS: [&str; 11] = [
        "where",
        "group",
        "order",
        "limit",
        "for",
        "lock",
        "union",
        "having",
        "window",
        "procedure",
        "into",
    ];
    for (i, t) in toks.iter().enumerate() {
        if !(kw_eq(t, "left") || kw_eq(t, "right")) || (i > 0 && kw_eq(&toks[i - 1], "natural")) {
            continue;
        }
        let mut j = i + 1;
        if toks.get(j).is_some_and(|n| kw_eq(n, "outer")) {
            j += 1;
        }
        if !toks.get(j).is_some_and(|n| kw_eq(n, "join")) {
            continue;
        }
        // The joined table (a name, a parenthesised join or a derived table), then ON/USING.
        let mut k = j + 1;
        while let Some(n) = toks.get(k) {
            if *n == Tok::P('(') {
                k = closing(toks, k) + 1;
                continue;
            }
            if kw_eq(n, "on") || kw_eq(n, "using") {
                break;
            }
            if *n == Tok::P(')') || ENDS.iter().any(|e| kw_eq(n, e)) {
                return Some("LEFT or RIGHT JOIN without ON or USING");
            }
            k += 1;
        }
        if k >= toks.len() {
            return Some("LEFT or RIGHT JOIN without ON or USING");
        }
    }
    None
}

/// In a DML statement, `PARTITION` after a table is followed by a non-empty list
/// (`opt_use_partition`: PARTITION_SYM '(' using_list ')'); the word is reserved, so no
/// alias either (`t1 AS PARTITION`). `PARTITION BY` of a window is not this.
fn partition_list(toks: &[Tok]) -> Option<&'static str> {
    if !first_is(toks, &["select", "insert", "replace", "update", "delete"]) {
        return None;
    }
    for (i, t) in toks.iter().enumerate() {
        if !kw_eq(t, "partition") {
            continue;
        }
        match toks.get(i + 1) {
            Some(n) if kw_eq(n, "by") => {}
            Some(Tok::P('(')) if toks.get(i + 2) != Some(&Tok::P(')')) => {}
            _ => return Some("PARTITION takes a list of partitions"),
        }
        if i > 0 && kw_eq(&toks[i - 1], "as") {
            return Some("PARTITION is a reserved word");
        }
    }
    None
}

/// A window function needs its OVER (sql_yacc.yy, `window_func_expr`: window_func OVER_SYM
/// window_name_or_spec).
fn window_function_over(toks: &[Tok]) -> Option<&'static str> {
    const WINDOW: [&str; 6] = [
        "row_number",
        "rank",
        "dense_rank",
        "percent_rank",
        "cume_dist",
        "ntile",
    ];
    for (i, t) in toks.iter().enumerate() {
        if WINDOW.iter().any(|w| kw_eq(t, w)) && toks.get(i + 1) == Some(&Tok::P('(')) {
            let end = closing(toks, i + 1);
            if !toks.get(end + 1).is_some_and(|n| kw_eq(n, "over")) {
                return Some("a window function without OVER");
            }
        }
    }
    None
}

/// `FLUSH TABLES WITH READ LOCK` is a statement of its own (sql_yacc.yy, `flush_lock`): no
/// other flush option after it.
fn ftwrl_list(toks: &[Tok]) -> Option<&'static str> {
    let w: Vec<&Tok> = toks.iter().collect();
    (first_is(toks, &["flush"])
        && w.windows(4).any(|x| {
            kw_eq(x[0], "read") && kw_eq(x[1], "lock") && *x[2] == Tok::P(',') && !x.is_empty()
        }))
    .then_some("FLUSH TABLES WITH READ LOCK takes no other flush option")
}

/// `CREATE TABLE COUNT(a int)`: a name of lex.h's `sql_functions[]` followed at once by
/// `(` is a function token, not an identifier (sql_lex.cc, `find_keyword` with
/// `function == true`; without IGNORE_SPACE), so it cannot name a table.
fn function_name_as_table(sql: &str) -> Option<&'static str> {
    // (SESSION_USER, SYSDATE, SYSTEM_USER, SUBDATE, ADDDATE are not among them:
    // main/parser.test creates tables of those names.)
    const FUNCS: [&str; 27] = [
        "bit_and",
        "bit_or",
        "bit_xor",
        "cast",
        "count",
        "curdate",
        "curtime",
        "date_add",
        "date_sub",
        "extract",
        "group_concat",
        "max",
        "mid",
        "min",
        "now",
        "position",
        "std",
        "stddev",
        "stddev_pop",
        "stddev_samp",
        "substr",
        "substring",
        "sum",
        "trim",
        "variance",
        "var_pop",
        "var_samp",
    ];
    let l = sql.trim_start().to_ascii_lowercase();
    let rest = l.strip_prefix("create")?.trim_start();
    let rest = rest.strip_prefix("table")?.trim_start();
    let rest = rest
        .strip_prefix("if not exists")
        .map_or(rest, str::trim_start);
    let name: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    let after = &rest[name.len()..];
    (after.starts_with('(') && FUNCS.contains(&name.as_str()))
        .then_some("a built-in function's name followed by `(` names no table")
}

/// `t1.* AS x`: sql_yacc.yy's `select_item` takes `table_wild` with no alias.
fn aliased_wildcard(toks: &[Tok]) -> Option<&'static str> {
    toks.windows(3)
        .any(|w| {
            w[0] == Tok::P('.')
                && w[1] == Tok::P('*')
                && (kw_eq(&w[2], "as") || matches!(w[2], Tok::Str(_)))
        })
        .then_some("`table.*` takes no alias")
}

/// `FOR SHARE` (not in 10.11: `select_lock_type` is `FOR UPDATE` or `LOCK IN SHARE
/// MODE`), and at most one of `WAIT n`, `NOWAIT`, `SKIP LOCKED` after it
/// (`opt_lock_wait_timeout_new`).
fn locking_clause(toks: &[Tok]) -> Option<&'static str> {
    for (i, t) in toks.iter().enumerate() {
        if kw_eq(t, "for") && toks.get(i + 1).is_some_and(|n| kw_eq(n, "share")) {
            return Some(
                "FOR SHARE is not MariaDB 10.11's syntax (FOR UPDATE, LOCK IN SHARE MODE)",
            );
        }
        let start = if kw_eq(t, "for") && toks.get(i + 1).is_some_and(|n| kw_eq(n, "update")) {
            i + 2
        } else if kw_eq(t, "mode") && i >= 3 && kw_eq(&toks[i - 1], "share") {
            i + 1
        } else {
            continue;
        };
        let mut j = start;
        let mut options = 0;
        loop {
            match toks.get(j) {
                Some(w) if kw_eq(w, "wait") => j += 2,
                Some(w) if kw_eq(w, "nowait") => j += 1,
                Some(w) if kw_eq(w, "skip") => j += 2,
                _ => break,
            }
            options += 1;
        }
        if options > 1 {
            return Some("a locking clause takes one of WAIT n, NOWAIT, SKIP LOCKED");
        }
    }
    None
}

/// `LIMIT 2, -1`: `limit_option` is a number, a parameter or a variable, never negative.
fn negative_limit(toks: &[Tok]) -> Option<&'static str> {
    toks.windows(2)
        .enumerate()
        .any(|(i, w)| {
            w[1] == Tok::P('-')
                && (kw_eq(&w[0], "limit")
                    || kw_eq(&w[0], "offset")
                    || (w[0] == Tok::P(',')
                        && (1..=3).any(|k| i >= k && kw_eq(&toks[i - k], "limit"))))
        })
        .then_some("LIMIT takes no negative number")
}

/// What one query block (one parenthesis level between UNIONs) has seen so far.
#[derive(Default, Clone)]
struct Block {
    select: bool,
    order: bool,
    limit: bool,
    into: bool,
    procedure: bool,
    union: bool,
    from: bool,
    /// INTO after the FROM: nothing but the locking clause may follow.
    late_into: bool,
}

/// The order of a SELECT's clauses (sql_yacc.yy, `query_specification`,
/// `query_expression_tail`, `select_into`): a block's ORDER BY or LIMIT ends it, so a
/// UNION after one needs parentheses; ORDER BY and LIMIT once each; INTO once, never in
/// a subquery, never before a UNION nor before the FROM of a UNION's last SELECT;
/// PROCEDURE only in a top-level SELECT with no UNION and no INTO.
fn query_blocks(toks: &[Tok]) -> Option<&'static str> {
    let top_select = toks.first().is_some_and(|t| kw_eq(t, "select"));
    let mut stack = vec![Block::default()];
    let mut i = 0;
    while i < toks.len() {
        let t = &toks[i];
        let nested = stack.len() > 1;
        let b = stack.last_mut().expect("the top level");
        match t {
            Tok::P('(') => stack.push(Block::default()),
            Tok::P(')') if nested => {
                stack.pop();
            }
            Tok::P(')') => {}
            _ if kw_eq(t, "select") => b.select = true,
            _ if kw_eq(t, "union") || kw_eq(t, "except") || kw_eq(t, "intersect") => {
                if b.select && (b.order || b.limit) {
                    return Some("ORDER BY or LIMIT before a UNION needs parentheses");
                }
                if b.into || b.procedure {
                    return Some("INTO or PROCEDURE before a UNION");
                }
                *b = Block {
                    union: true,
                    ..Block::default()
                };
            }
            _ if b.select
                && kw_eq(t, "order")
                && toks.get(i + 1).is_some_and(|n| kw_eq(n, "by"))
                && !(i > 0 && kw_eq(&toks[i - 1], "for")) =>
            {
                if b.order || b.limit {
                    return Some("a second ORDER BY in one SELECT");
                }
                b.order = true;
            }
            _ if b.select && kw_eq(t, "limit") => {
                if b.limit {
                    return Some("a second LIMIT in one SELECT");
                }
                b.limit = true;
            }
            _ if b.select && kw_eq(t, "into") => {
                if nested {
                    return Some("INTO in a subquery");
                }
                if b.into {
                    return Some("a second INTO in one SELECT");
                }
                if b.procedure {
                    return Some("INTO with PROCEDURE");
                }
                b.into = true;
                b.late_into = b.from;
            }
            _ if b.select && b.into && b.union && kw_eq(t, "from") => {
                return Some("INTO before the FROM of a UNION's SELECT");
            }
            _ if b.select
                && b.late_into
                && ["where", "group", "having", "order", "limit"]
                    .iter()
                    .any(|k| kw_eq(t, k)) =>
            {
                return Some("INTO between the clauses of a SELECT");
            }
            _ if b.select && kw_eq(t, "from") => b.from = true,
            _ if b.select && kw_eq(t, "procedure") => {
                if nested || !top_select || b.union {
                    return Some("PROCEDURE only in a top-level SELECT with no UNION");
                }
                if b.into {
                    return Some("INTO with PROCEDURE");
                }
                b.procedure = true;
            }
            _ => {}
        }
        i += 1;
    }
    None
}
