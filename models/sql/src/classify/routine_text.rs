//! The words of a procedure that the body's compiler (`routine_flow.rs`,
//! `routine_flow_stmt.rs`) and the CALL (`routine_call.rs`) read alike: the statement
//! verbs of a body, a CALL's arguments, a definition's parameters and body, a cursor's
//! tables. It uses none of those files.

use super::{kw_eq, Cur, Tok};
use crate::objects::Tbl;

/// Statement verbs of a body (an item of the body's list that starts with none of
/// these, or with one followed by `(`, is a DECLARE's DEFAULT expression).
pub(super) const VERBS: &[&str] = &[
    "select",
    "insert",
    "update",
    "delete",
    "replace",
    "do",
    "call",
    "kill",
    "savepoint",
    "release",
    "set",
    "commit",
    "rollback",
    "start",
    "begin",
    "create",
    "drop",
    "alter",
    "rename",
    "truncate",
    "grant",
    "revoke",
    "flush",
    "reset",
    "prepare",
    "execute",
    "deallocate",
    "show",
    "analyze",
    "check",
    "optimize",
    "repair",
    "checksum",
    "explain",
    "describe",
    "desc",
];

/// A CALL's arguments `(a, b)` (empty without parentheses).
pub(super) fn call_args(t: &[Tok]) -> Vec<Vec<Tok>> {
    let inner = match t {
        [Tok::P('('), rest @ .., Tok::P(')')] => rest,
        _ => return Vec::new(),
    };
    if inner.is_empty() {
        return Vec::new();
    }
    let mut out = vec![Vec::new()];
    let mut depth = 0i32;
    for x in inner {
        match x {
            Tok::P('(') => depth += 1,
            Tok::P(')') => depth -= 1,
            Tok::P(',') if depth == 0 => {
                out.push(Vec::new());
                continue;
            }
            _ => {}
        }
        out.last_mut().expect("one at least").push(x.clone());
    }
    out
}

/// A procedure definition (after its name): its parameters' names and its body.
pub(super) fn split_definition(t: &[Tok]) -> Option<(Vec<String>, &[Tok])> {
    let body = super::routine_body::definition(t, false)?;
    let mut depth = 0i32;
    let close = t.iter().position(|x| {
        match x {
            Tok::P('(') => depth += 1,
            Tok::P(')') => depth -= 1,
            _ => {}
        }
        depth == 0
    })?;
    let mut names = Vec::new();
    for p in call_args(&t[..=close]) {
        let p = match p.first() {
            Some(x) if ["in", "out", "inout"].iter().any(|w| kw_eq(x, w)) => &p[1..],
            _ => &p[..],
        };
        match p.first() {
            Some(Tok::Word { text, .. }) => names.push(text.to_lowercase()),
            _ => return None,
        }
    }
    Some((names, body))
}

/// The tables of a cursor's `SELECT ... FROM a[, b]` (None when its FROM has a join, a
/// subquery or anything else the model cannot name; empty without FROM).
pub(super) fn from_tables(sql: &str, db: &str) -> Option<Vec<Tbl>> {
    let t = super::tokens(sql).ok()?;
    if t.iter().filter(|x| kw_eq(x, "select")).count() != 1 {
        return None;
    }
    let Some(f) = t.iter().position(|x| kw_eq(x, "from")) else {
        return Some(Vec::new());
    };
    if let [d] = &t[f + 1..] {
        if kw_eq(d, "dual") {
            // `FROM DUAL` alone names no table: one row, as without FROM.
            return Some(Vec::new());
        }
    }
    let end = t[f + 1..]
        .iter()
        .position(|x| {
            ["where", "group", "order", "limit", "having", "for", "lock"]
                .iter()
                .any(|w| kw_eq(x, w))
        })
        .map_or(t.len(), |k| f + 1 + k);
    let mut out = Vec::new();
    for item in t[f + 1..end].split(|x| *x == Tok::P(',')) {
        let mut c = Cur { t: item, i: 0, sql };
        out.push(c.table(db).ok()?);
        let alias = match &item[c.i..] {
            [] | [Tok::Word { .. }] => true,
            [a, Tok::Word { .. }] => kw_eq(a, "as"),
            _ => false,
        };
        if !alias {
            return None;
        }
    }
    Some(out)
}
