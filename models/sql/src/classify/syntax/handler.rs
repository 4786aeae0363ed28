//! HANDLER ... READ and HANDLER ... CLOSE as MariaDB 10.11's grammar takes them
//! (`sql/sql_yacc.yy`, the `HANDLER_SYM` productions of `handler_tail`):
//!
//! ```text
//! HANDLER table_ident OPEN opt_table_alias
//! HANDLER table_ident_nodb CLOSE
//! HANDLER table_ident_nodb READ handler_read_or_scan opt_where_clause opt_global_limit_clause
//! handler_read_or_scan:  handler_scan_function | ident handler_rkey_function
//! handler_scan_function: FIRST | NEXT
//! handler_rkey_function: FIRST | NEXT | PREV | LAST | handler_rkey_mode '(' values ')'
//! handler_rkey_mode:     = | >= | <= | > | <
//! ```
//!
//! So READ and CLOSE name the HANDLER without a schema (`HANDLER test.t1 CLOSE` is a
//! syntax error, though `HANDLER test.t1 OPEN` is not), a key's values are in
//! parentheses, `PREV` and `LAST` need an index before them, nothing but WHERE and LIMIT
//! follows, and a key's values hold no subquery (the parser's `expr_allows_subselect` is
//! off there). The parser refuses these before `mysql_ha_read` looks for the HANDLER
//! (ER_UNKNOWN_TABLE comes after). Measured on 10.11.19: `suite/handler/interface.test`'s
//! statements and `models/conformance/suite/handler-syntax-errors.mdl`.

use super::super::{kw_eq, Tok};
use super::closing;

/// Words that name no index unquoted (reserved in `sql/lex.h`) where the grammar wants an
/// `ident` (`HANDLER t1 READ PRIMARY = (1)` is a syntax error; `` `PRIMARY` `` is not).
const RESERVED: [&str; 8] = [
    "primary", "key", "index", "where", "limit", "select", "order", "from",
];

/// Why MariaDB's parser rejects this HANDLER READ / CLOSE, or None.
pub(super) fn rules(toks: &[Tok]) -> Option<&'static str> {
    if !toks.first().is_some_and(|t| kw_eq(t, "handler")) {
        return None;
    }
    let qualified = toks.get(2) == Some(&Tok::P('.'));
    let verb = if qualified { 4 } else { 2 };
    let v = toks.get(verb)?;
    if kw_eq(v, "open") {
        return None;
    }
    if !(kw_eq(v, "read") || kw_eq(v, "close")) {
        return None;
    }
    if qualified {
        return Some("HANDLER ... READ / CLOSE names the HANDLER without a schema");
    }
    if kw_eq(v, "close") {
        return (toks.len() > 3).then_some("nothing follows HANDLER ... CLOSE");
    }
    read_tail(toks, 3)
}

/// `handler_read_or_scan opt_where_clause opt_global_limit_clause` from `at`.
fn read_tail(toks: &[Tok], at: usize) -> Option<&'static str> {
    let first = toks.get(at)?;
    let end = if kw_eq(first, "first") || kw_eq(first, "next") {
        at + 1
    } else {
        if !matches!(first, Tok::Word { .. }) {
            return Some("HANDLER ... READ wants FIRST, NEXT or an index");
        }
        if RESERVED.iter().any(|r| kw_eq(first, r)) {
            return Some("a reserved word names no index unquoted");
        }
        match rkey_function(toks, at + 1) {
            Some(end) => end,
            None => return Some("an index is followed by FIRST, NEXT, PREV, LAST or = (values)"),
        }
    };
    let mut i = end;
    if toks.get(i).is_some_and(|t| kw_eq(t, "where")) {
        i = toks
            .iter()
            .skip(i)
            .position(|t| kw_eq(t, "limit"))
            .map_or(toks.len(), |p| p + i);
    }
    match toks.get(i) {
        None => None,
        Some(t) if kw_eq(t, "limit") => limit(toks, i + 1),
        Some(_) => Some("only WHERE and LIMIT follow HANDLER ... READ"),
    }
}

/// `handler_rkey_function` at `at`: the index after it, or None when the parser refuses
/// it (a key's values without parentheses, or with a subquery).
fn rkey_function(toks: &[Tok], at: usize) -> Option<usize> {
    let t = toks.get(at)?;
    if ["first", "next", "prev", "last"]
        .iter()
        .any(|k| kw_eq(t, k))
    {
        return Some(at + 1);
    }
    // handler_rkey_mode: = >= <= > <, then '(' values ')'.
    let mut i = at;
    match t {
        Tok::P('=') => i += 1,
        Tok::P('<') | Tok::P('>') => {
            i += 1;
            if toks.get(i) == Some(&Tok::P('=')) {
                i += 1;
            }
        }
        _ => return None,
    }
    if toks.get(i) != Some(&Tok::P('(')) {
        return None;
    }
    let close = closing(toks, i);
    if close >= toks.len() {
        return None;
    }
    if toks[i..close].iter().any(|t| kw_eq(t, "select")) {
        return None;
    }
    Some(close + 1)
}

/// `LIMIT n [, m]` / `LIMIT n OFFSET m` with plain operands.
fn limit(toks: &[Tok], at: usize) -> Option<&'static str> {
    let operand = |t: Option<&Tok>| matches!(t, Some(Tok::Num(_)) | Some(Tok::Word { .. }));
    if !operand(toks.get(at)) {
        return Some("LIMIT takes a number or a variable");
    }
    match toks.get(at + 1) {
        None => None,
        Some(Tok::P(',')) => (!operand(toks.get(at + 2)) || toks.len() > at + 3)
            .then_some("LIMIT takes two numbers at most"),
        Some(t) if kw_eq(t, "offset") => (!operand(toks.get(at + 2)) || toks.len() > at + 3)
            .then_some("LIMIT takes two numbers at most"),
        Some(_) => Some("nothing follows LIMIT"),
    }
}
