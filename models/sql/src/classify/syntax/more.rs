//! More of MariaDB 10.11's grammar (`sql/sql_yacc.yy`) that the suite's syntax errors need:
//! expressions (LIMIT's operands, OVER after a function that is no window function, two
//! operands in a row, an alias in a stored function's arguments), parenthesised joins in
//! FROM, option values, and the text around the tokens (executable comments, a trailing
//! backslash). Each was an entry of `corpus-syntax-errors-open.tsv`; each is checked to
//! fire on none of the suite's statements that are not syntax errors.

use super::super::{kw_eq, Tok};
use super::{closing, first_is};

/// Rules on the statement's text, before the tokens: a `;` inside an executable comment
/// (`/*! ... */` is read as code, so the text holds two statements, which one query
/// cannot); a trailing backslash (no token starts with it outside a string).
pub(super) fn text(sql: &str) -> Option<&'static str> {
    let s = sql.trim().trim_end_matches(';').trim_end();
    if s.ends_with('\\') {
        return Some("a statement does not end with a backslash");
    }
    let mut outside = String::new();
    let mut rest = s;
    while let Some(at) = rest.find("/*") {
        outside.push_str(&rest[..at]);
        let body = &rest[at + 2..];
        rest = body.find("*/").map_or("", |e| &body[e + 2..]);
    }
    outside.push_str(rest);
    if outside.contains(';') {
        // A stored program's body: its own statements.
        return None;
    }
    let mut rest = s;
    while let Some(at) = rest.find("/*!") {
        let body = &rest[at + 3..];
        let end = body.find("*/").unwrap_or(body.len());
        if body[..end].contains(';')
            && !body[..end].contains('\'')
            && !stored_program_body(&body[..end])
        {
            return Some("a `;` inside an executable comment ends the statement");
        }
        rest = &body[end..];
    }
    None
}

/// An executable comment that holds a stored program with a compound body (mysqldump's
/// `/*!50003 CREATE PROCEDURE p() label: BEGIN ...; END */`, main/sp.test:4113): its
/// `;`s are the body's statements, which the server's parser reads inside the program
/// (`sp_proc_stmt`), not the end of the query.
fn stored_program_body(code: &str) -> bool {
    let words: Vec<String> = code
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    let has = |w: &str| words.iter().any(|x| x == w);
    let program = ["procedure", "function", "trigger", "event"]
        .iter()
        .any(|w| has(w));
    has("create") && program && has("begin")
}

/// The token rules of this file.
pub(super) fn rules(toks: &[Tok]) -> Option<&'static str> {
    ends_with_equals(toks)
        .or_else(|| limit_operand(toks))
        .or_else(|| over_needs_window_function(toks))
        .or_else(|| json_objectagg(toks))
        .or_else(|| fulltext_modifiers(toks))
        .or_else(|| collate_default(toks))
        .or_else(|| numeric_name_part(toks))
        .or_else(|| set_a_number(toks))
        .or_else(|| adjacent_operands(toks))
        .or_else(|| alias_in_stored_function_args(toks))
        .or_else(|| parenthesised_joins(toks))
        .or_else(|| json_charset(toks))
        .or_else(|| subpartition_options(toks))
}

/// `option =` with no value (`CREATE DATABASE db1 COMMENT=`).
fn ends_with_equals(toks: &[Tok]) -> Option<&'static str> {
    (toks.last() == Some(&Tok::P('='))).then_some("`=` with no value")
}

/// LIMIT's operands (`limit_option`: an identifier, a `?`, an integer): not a string, a
/// decimal, a user variable (`LIMIT 5.5`, GROUP_CONCAT's `limit "x"`, `LIMIT ROWS EXAMINED
/// @l`).
fn limit_operand(toks: &[Tok]) -> Option<&'static str> {
    for (i, t) in toks.iter().enumerate() {
        if !kw_eq(t, "limit") {
            continue;
        }
        let mut j = i + 1;
        if toks.get(j).is_some_and(|t| kw_eq(t, "rows"))
            && toks.get(j + 1).is_some_and(|t| kw_eq(t, "examined"))
        {
            j += 2;
        }
        let bad = match toks.get(j) {
            Some(Tok::Str(_)) => true,
            Some(Tok::Num(n)) => n.contains('.'),
            Some(Tok::Word {
                text,
                quoted: false,
            }) => text.starts_with('@'),
            _ => false,
        };
        if bad {
            return Some("LIMIT takes an integer, a `?` or a variable of a program");
        }
    }
    None
}

/// `f(...) OVER (...)`: only the window functions and the aggregates take OVER
/// (`window_func`: `simple_window_func` | `sum_expr` | `inverse_distribution_function`), so
/// a built-in scalar function does not. (A name the server does not know may be an
/// aggregate UDF, `udf_sum_expr`, which takes OVER when loaded: not judged here.)
fn over_needs_window_function(toks: &[Tok]) -> Option<&'static str> {
    const SCALAR: [&str; 16] = [
        "round",
        "abs",
        "ceil",
        "ceiling",
        "floor",
        "concat",
        "length",
        "lower",
        "upper",
        "substr",
        "substring",
        "trim",
        "coalesce",
        "ifnull",
        "if",
        "mod",
    ];
    for (i, t) in toks.iter().enumerate() {
        if !kw_eq(t, "over") || i == 0 || toks[i - 1] != Tok::P(')') {
            continue;
        }
        let Some(open) = opening(toks, i - 1) else {
            continue;
        };
        let f = open.checked_sub(1).and_then(|k| toks.get(k));
        if f.is_some_and(|f| SCALAR.iter().any(|w| kw_eq(f, w))) {
            return Some("OVER follows a window function or an aggregate only");
        }
    }
    None
}

/// The `(` that the `)` at `close` closes.
fn opening(toks: &[Tok], close: usize) -> Option<usize> {
    let mut depth = 0i32;
    for k in (0..=close).rev() {
        match toks[k] {
            Tok::P(')') => depth += 1,
            Tok::P('(') => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// The commas at the top level of the parenthesis that opens at `open`.
fn top_commas(toks: &[Tok], open: usize) -> usize {
    let close = closing(toks, open);
    let mut depth = 0;
    let mut n = 0;
    for t in &toks[open + 1..close.min(toks.len())] {
        match t {
            Tok::P('(') => depth += 1,
            Tok::P(')') => depth -= 1,
            Tok::P(',') if depth == 0 => n += 1,
            _ => {}
        }
    }
    n
}

/// JSON_OBJECTAGG(key, value): two arguments (`sum_expr`).
fn json_objectagg(toks: &[Tok]) -> Option<&'static str> {
    toks.windows(2)
        .position(|w| kw_eq(&w[0], "json_objectagg") && w[1] == Tok::P('('))
        .filter(|&i| top_commas(toks, i + 1) != 1)
        .map(|_| "JSON_OBJECTAGG takes two arguments")
}

/// AGAINST (... IN BOOLEAN MODE): no WITH QUERY EXPANSION after it (`fulltext_options`).
fn fulltext_modifiers(toks: &[Tok]) -> Option<&'static str> {
    toks.windows(4)
        .any(|w| kw_eq(&w[0], "boolean") && kw_eq(&w[1], "mode") && kw_eq(&w[2], "with"))
        .then_some("IN BOOLEAN MODE takes no WITH QUERY EXPANSION")
}

/// `ORDER BY c1 COLLATE DEFAULT`: an expression's COLLATE names a collation
/// (`simple_expr: simple_expr COLLATE_SYM collation_name`); DEFAULT is a type's (`CAST(x
/// AS CHAR COLLATE DEFAULT)`, `field_type`'s `opt_collate`) or a table option's.
fn collate_default(toks: &[Tok]) -> Option<&'static str> {
    (first_is(toks, &["select"])
        && toks.windows(4).any(|w| {
            kw_eq(&w[0], "by")
                && matches!(w[1], Tok::Word { .. })
                && kw_eq(&w[2], "collate")
                && kw_eq(&w[3], "default")
        }))
    .then_some("an expression's COLLATE names a collation")
}

/// `db.t.0`: the last part of a qualified name is an identifier, not a number.
fn numeric_name_part(toks: &[Tok]) -> Option<&'static str> {
    toks.windows(5)
        .any(|w| {
            matches!(w[0], Tok::Word { .. })
                && w[1] == Tok::P('.')
                && matches!(w[2], Tok::Word { .. })
                && w[3] == Tok::P('.')
                && matches!(&w[4], Tok::Num(n) if n.bytes().all(|b| b.is_ascii_digit()))
        })
        .then_some("a name's part is not a number")
}

/// UPDATE ... SET 1=2: SET assigns to columns.
fn set_a_number(toks: &[Tok]) -> Option<&'static str> {
    if !first_is(toks, &["update"]) {
        return None;
    }
    toks.windows(2)
        .any(|w| kw_eq(&w[0], "set") && matches!(w[1], Tok::Num(_) | Tok::Str(_)))
        .then_some("UPDATE's SET assigns to a column")
}

/// `HAVING col2 10`: a condition's column followed by a number, no operator between.
fn adjacent_operands(toks: &[Tok]) -> Option<&'static str> {
    toks.windows(3)
        .any(|w| {
            (kw_eq(&w[0], "having") || kw_eq(&w[0], "where"))
                && matches!(&w[1], Tok::Word { text, quoted: false }
                    if !text.starts_with('@') && !KEYWORDS.iter().any(|k| text.eq_ignore_ascii_case(k)))
                && matches!(w[2], Tok::Num(_))
        })
        .then_some("two operands with no operator between")
}

/// Words that may precede a number in an expression.
const KEYWORDS: [&str; 8] = [
    "not", "interval", "binary", "exists", "case", "row", "date", "time",
];

/// A stored function's arguments (`db.f(...)`: `opt_expr_list`) take no alias; a UDF's
/// (`udf_expr_list`) do.
fn alias_in_stored_function_args(toks: &[Tok]) -> Option<&'static str> {
    const OPS: [&str; 14] = [
        "and", "or", "xor", "is", "like", "in", "between", "div", "mod", "collate", "regexp",
        "rlike", "not", "sounds",
    ];
    for i in 0..toks.len().saturating_sub(3) {
        let qualified = matches!(toks[i], Tok::Word { .. })
            && toks[i + 1] == Tok::P('.')
            && matches!(toks[i + 2], Tok::Word { .. })
            && toks[i + 3] == Tok::P('(');
        let expression = i > 0 && matches!(toks[i - 1], Tok::P('(') | Tok::P(','));
        if !qualified || !expression || !first_is(toks, &["select"]) {
            continue;
        }
        let close = closing(toks, i + 3);
        let mut depth = 0;
        for k in i + 4..close.min(toks.len()) {
            match &toks[k] {
                Tok::P('(') => depth += 1,
                Tok::P(')') => {
                    depth -= 1;
                    let alias = matches!(toks.get(k + 1), Some(Tok::Word { text, quoted: false })
                        if !OPS.iter().any(|o| text.eq_ignore_ascii_case(o)));
                    if depth == 0 && alias {
                        return Some("a stored function's arguments take no alias");
                    }
                }
                _ => {}
            }
        }
    }
    None
}

/// A parenthesised join in FROM (`table_ref: '(' join ')'`): it takes no alias, and it
/// is no query (`JOIN (t1 t1a UNION SELECT 1)`); a query in two parentheses as a table
/// takes an alias (`JOIN ((SELECT 1 UNION SELECT 1)) ON`).
fn parenthesised_joins(toks: &[Tok]) -> Option<&'static str> {
    for (i, t) in toks.iter().enumerate() {
        if !(kw_eq(t, "join") && toks.get(i + 1) == Some(&Tok::P('('))) {
            continue;
        }
        // `USE|FORCE|IGNORE INDEX FOR JOIN (i)`: an index hint (`index_hint_clause`).
        if i > 0 && kw_eq(&toks[i - 1], "for") {
            continue;
        }
        let close = closing(toks, i + 1);
        let mut inner = i + 2;
        while toks.get(inner) == Some(&Tok::P('(')) {
            inner += 1;
        }
        let nested = inner - (i + 1);
        let query = toks
            .get(inner)
            .is_some_and(|t| ["select", "with", "values"].iter().any(|k| kw_eq(t, k)));
        let next = toks.get(close + 1);
        let on = next.is_none_or(|t| kw_eq(t, "on") || kw_eq(t, "using"));
        // The query fills the parentheses: its own `)` is followed by the others' only.
        let fills = closing(toks, inner - 1) + nested - 1 == close;
        if query && nested >= 2 && on && fills {
            return Some("a query as a table takes an alias");
        }
        if query {
            continue;
        }
        if toks[inner..close.min(toks.len())]
            .iter()
            .any(|t| kw_eq(t, "union"))
        {
            return Some("a parenthesised join is no query");
        }
        if matches!(next, Some(Tok::Word { quoted: false, text }) if !["on", "using", "where", "join", "left", "right", "inner", "cross", "natural", "straight_join", "group", "order", "limit", "having", "window", "for", "lock", "union", "except", "intersect", "into"].iter().any(|k| text.eq_ignore_ascii_case(k)))
        {
            return Some("a parenthesised join takes no alias");
        }
    }
    // `(t1 ... JOIN t2 ...) FOR SYSTEM_TIME`: the period is a table's, not a join's.
    for (i, t) in toks.iter().enumerate() {
        if kw_eq(t, "for")
            && toks.get(i + 1).is_some_and(|t| kw_eq(t, "system_time"))
            && i > 0
            && toks[i - 1] == Tok::P(')')
        {
            let open = opening(toks, i - 1)?;
            let derived = toks
                .get(open + 1)
                .is_some_and(|t| kw_eq(t, "select") || kw_eq(t, "with") || *t == Tok::P('('));
            let join = !derived && toks[open..i].iter().any(|t| kw_eq(t, "join"));
            let partition = open > 0 && kw_eq(&toks[open - 1], "partition");
            if join && !partition {
                return Some("FOR SYSTEM_TIME follows a table, not a join");
            }
        }
    }
    None
}

/// A JSON column has no character set (MariaDB's JSON is utf8mb4 LONGTEXT with a check;
/// MySQL 5.7's `json ... CHARACTER SET` dumps are refused).
fn json_charset(toks: &[Tok]) -> Option<&'static str> {
    if !first_is(toks, &["create", "alter"]) {
        return None;
    }
    (1..toks.len())
        .any(|i| {
            matches!(&toks[i - 1], Tok::Word { .. })
                && kw_eq(&toks[i], "json")
                && toks
                    .get(after_comment(toks, i + 1))
                    .is_some_and(|t| kw_eq(t, "character") || kw_eq(t, "charset"))
        })
        .then_some("a JSON column has no character set")
}

/// The index of the first token at or after `i` that is not in a `/* ... */` comment
/// (the tokenizer keeps a comment's characters as tokens).
fn after_comment(toks: &[Tok], mut i: usize) -> usize {
    while toks.get(i) == Some(&Tok::P('/')) && toks.get(i + 1) == Some(&Tok::P('*')) {
        let end = (i + 2..toks.len().saturating_sub(1))
            .find(|&k| toks[k] == Tok::P('*') && toks[k + 1] == Tok::P('/'));
        match end {
            Some(k) => i = k + 2,
            None => return toks.len(),
        }
    }
    i
}

/// A subpartition's options are the partition options (`opt_part_options`), not an
/// engine's own attributes (`ENCRYPTED="NO"`).
fn subpartition_options(toks: &[Tok]) -> Option<&'static str> {
    const OPTIONS: [&str; 10] = [
        "engine",
        "storage",
        "nodegroup",
        "max_rows",
        "min_rows",
        "data",
        "index",
        "comment",
        "tablespace",
        "directory",
    ];
    for (i, t) in toks.iter().enumerate() {
        if !kw_eq(t, "subpartition") || toks.get(i + 1).is_some_and(|t| kw_eq(t, "by")) {
            continue;
        }
        let mut k = i + 2;
        while let Some(t) = toks.get(k) {
            if matches!(t, Tok::P(',') | Tok::P(')')) {
                break;
            }
            if let Tok::Word {
                text,
                quoted: false,
            } = t
            {
                if toks.get(k + 1) == Some(&Tok::P('='))
                    && !OPTIONS.iter().any(|o| text.eq_ignore_ascii_case(o))
                {
                    return Some("a subpartition takes the partition options only");
                }
            }
            k += 1;
        }
    }
    None
}
