//! MariaDB 10.11's grammar (`sql/sql_yacc.yy`) for the parts of ALTER/CREATE TABLE, CREATE
//! USER and SET STATEMENT that the statement families (ALTER TABLE without ALGORITHM,
//! CREATE OR REPLACE TABLE, EXPLAIN) made the model accept: each rule follows the named
//! production and was an entry of the suite's syntax errors played with locks.

use super::super::{kw_eq, Tok};
use super::{closing, first_is};

/// The token rules of this file.
pub(super) fn rules(toks: &[Tok]) -> Option<&'static str> {
    rename_clauses(toks)
        .or_else(|| default_expression(toks))
        .or_else(|| fulltext_spatial_algorithm(toks))
        .or_else(|| empty_index_hint(toks))
        .or_else(|| partition_definitions(toks))
        .or_else(|| user_auth(toks))
        .or_else(|| set_statement(toks))
        .or_else(|| without_overlaps(toks))
}

fn word(t: Option<&Tok>) -> bool {
    matches!(t, Some(Tok::Word { text, .. }) if !text.starts_with('@'))
}

fn kw(t: Option<&Tok>, k: &str) -> bool {
    t.is_some_and(|t| kw_eq(t, k))
}

/// `alter_list_item`: `RENAME key_or_index field_ident TO field_ident`, `RENAME COLUMN
/// [IF EXISTS] ident TO ident`, `ALTER key_or_index ident ignorability`: PRIMARY and FROM are reserved
/// words, no identifiers; TO is required.
fn rename_clauses(toks: &[Tok]) -> Option<&'static str> {
    if !first_is(toks, &["alter"]) {
        return None;
    }
    for i in 0..toks.len() {
        let g = |k: usize| toks.get(i + k);
        let index = kw(g(1), "key") || kw(g(1), "index");
        if kw(g(0), "rename") && index && (kw(g(2), "primary") || kw(g(4), "primary")) {
            return Some("PRIMARY is no index name to RENAME");
        }
        if kw(g(0), "alter") && index && kw(g(2), "primary") {
            return Some("ALTER INDEX names an index, not PRIMARY");
        }
        if kw(g(0), "rename") && kw(g(1), "column") {
            let g = |k: usize| {
                let exists = kw(toks.get(i + 2), "if") && kw(toks.get(i + 3), "exists");
                toks.get(i + k + if exists { 2 } else { 0 })
            };
            let ok = word(g(2)) && !kw(g(2), "from") && kw(g(3), "to") && word(g(4));
            if !ok {
                return Some("RENAME COLUMN old TO new");
            }
        }
    }
    None
}

/// `column_default_expr`: a literal, a function call or `(expr)`; an operator after the
/// literal needs the parentheses (`DEFAULT 1+1`). CREATE/ALTER TABLE only (a stored
/// program's DECLARE takes an expression).
fn default_expression(toks: &[Tok]) -> Option<&'static str> {
    if !first_is(toks, &["create", "alter"]) || !toks.iter().take(6).any(|t| kw_eq(t, "table")) {
        return None;
    }
    for i in 0..toks.len() {
        if !kw_eq(&toks[i], "default") {
            continue;
        }
        let mut j = i + 1;
        if matches!(toks.get(j), Some(Tok::P('-' | '+'))) {
            j += 1;
        }
        let literal = match toks.get(j) {
            Some(Tok::Num(n)) => !n.ends_with(['e', 'E']),
            Some(Tok::Str(_)) => true,
            _ => false,
        };
        if literal && matches!(toks.get(j + 1), Some(Tok::P('+' | '-' | '*' | '/'))) {
            return Some("DEFAULT takes an expression in parentheses");
        }
    }
    None
}

/// `key_def`: `fulltext`/`spatial opt_key_or_index opt_ident init_key_options '('`: no
/// `USING algorithm` (`key_alg`) before the key list.
fn fulltext_spatial_algorithm(toks: &[Tok]) -> Option<&'static str> {
    for (i, t) in toks.iter().enumerate() {
        if !(kw_eq(t, "fulltext") || kw_eq(t, "spatial")) {
            continue;
        }
        let head = toks[i + 1..]
            .iter()
            .take_while(|t| **t != Tok::P('(') && !kw_eq(t, "on"));
        if head.take(4).any(|t| kw_eq(t, "using")) {
            return Some("a FULLTEXT or SPATIAL index takes no USING algorithm");
        }
    }
    None
}

/// `index_hint_definition`: FORCE and IGNORE take a `key_usage_list` (not empty); only USE
/// takes `opt_key_usage_list`.
fn empty_index_hint(toks: &[Tok]) -> Option<&'static str> {
    for i in 0..toks.len() {
        let g = |k: usize| toks.get(i + k);
        if !(kw(g(0), "force") || kw(g(0), "ignore")) || !(kw(g(1), "index") || kw(g(1), "key")) {
            continue;
        }
        let mut j = 2;
        if kw(g(j), "for") {
            j += if kw(g(j + 1), "join") { 2 } else { 3 };
        }
        if g(j) == Some(&Tok::P('(')) && g(j + 1) == Some(&Tok::P(')')) {
            return Some("FORCE/IGNORE INDEX takes at least one index");
        }
    }
    None
}

/// `part_definition`: `PARTITION_SYM part_name ...`: PARTITION and VALUES are reserved
/// words, no partition names (`partition partition p1`, `partition values in`). (A
/// definition without PARTITION, `pn values in (...)`, is accepted.)
fn partition_definitions(toks: &[Tok]) -> Option<&'static str> {
    for i in 0..toks.len() {
        let g = |k: usize| toks.get(i + k);
        if kw(g(0), "partition") && (kw(g(1), "partition") || kw(g(1), "values")) {
            return Some("PARTITION takes a partition name");
        }
    }
    None
}

/// `user_auth_option`: `IDENTIFIED BY [PASSWORD] 'text'` or `IDENTIFIED VIA|WITH
/// auth_token [OR auth_token]...`, `auth_token: ident_or_text [USING|AS 'text' | USING|AS
/// PASSWORD('text')]`; after it a `,`, REQUIRE, WITH, PASSWORD, ACCOUNT or the end.
/// CREATE USER takes no WITH ADMIN (CREATE ROLE does).
fn user_auth(toks: &[Tok]) -> Option<&'static str> {
    if !first_is(toks, &["create", "alter", "grant"]) {
        return None;
    }
    let user = toks.iter().take(4).any(|t| kw_eq(t, "user"));
    let admin = toks
        .windows(2)
        .any(|w| kw_eq(&w[0], "with") && kw_eq(&w[1], "admin"));
    if first_is(toks, &["create"]) && user && admin {
        return Some("CREATE USER takes no WITH ADMIN");
    }
    if !(user || first_is(toks, &["grant"])) {
        return None;
    }
    let mut i = 0;
    while i < toks.len() {
        if kw_eq(&toks[i], "identified") {
            let Some(end) = auth_end(toks, i + 1) else {
                return Some("IDENTIFIED BY 'text' or VIA/WITH plugin [AS 'text']");
            };
            let next = toks.get(end);
            let ok = next.is_none()
                || next == Some(&Tok::P(','))
                || ["require", "with", "password", "account"]
                    .iter()
                    .any(|k| kw(next, k));
            if !ok {
                return Some("IDENTIFIED ... is followed by another user or the options");
            }
            i = end;
        } else {
            i += 1;
        }
    }
    None
}

/// The index after `user_auth_option`'s tail starting at `j` (after IDENTIFIED).
fn auth_end(toks: &[Tok], mut j: usize) -> Option<usize> {
    if kw(toks.get(j), "by") {
        j += 1;
        if kw(toks.get(j), "password") {
            j += 1;
        }
        return matches!(toks.get(j), Some(Tok::Str(_))).then_some(j + 1);
    }
    if !(kw(toks.get(j), "via") || kw(toks.get(j), "with")) {
        return None;
    }
    loop {
        j += 1;
        let t = toks.get(j);
        let name = matches!(t, Some(Tok::Str(_)))
            || (word(t) && !["as", "using", "or"].iter().any(|k| kw(t, k)));
        if !name {
            return None;
        }
        j += 1;
        if kw(toks.get(j), "as") || kw(toks.get(j), "using") {
            j += 1;
            match toks.get(j) {
                Some(Tok::Str(_)) => j += 1,
                t if kw(t, "password") && toks.get(j + 1) == Some(&Tok::P('(')) => {
                    j = closing(toks, j + 1) + 1;
                }
                _ => return None,
            }
        }
        if !kw(toks.get(j), "or") {
            return Some(j);
        }
    }
}

/// `SET STATEMENT set_stmt_option_list FOR`: at least one option, each a plain or
/// `component.name` variable (`set_stmt_option`: no GLOBAL, no `@@`).
fn set_statement(toks: &[Tok]) -> Option<&'static str> {
    if !(first_is(toks, &["set"]) && kw(toks.get(1), "statement")) {
        return None;
    }
    let t = toks.get(2);
    let bad = !word(t)
        || ["for", "global", "session", "local"]
            .iter()
            .any(|k| kw(t, k));
    bad.then_some("SET STATEMENT takes session variables before FOR")
}

/// `opt_without_overlaps`: `, period WITHOUT OVERLAPS` ends the key list of a PRIMARY or
/// UNIQUE key (`constraint_key_type`).
fn without_overlaps(toks: &[Tok]) -> Option<&'static str> {
    for i in 0..toks.len() {
        if !(kw_eq(&toks[i], "without") && kw(toks.get(i + 1), "overlaps")) {
            continue;
        }
        if toks.get(i + 2) != Some(&Tok::P(')')) {
            return Some("WITHOUT OVERLAPS ends the key list");
        }
        let open = (0..i)
            .rev()
            .find(|&k| closing(toks, k) == i + 2 && toks[k] == Tok::P('('));
        let Some(open) = open else { continue };
        let unique = toks[..open]
            .iter()
            .rev()
            .take_while(|t| !matches!(t, Tok::P(',' | '(')))
            .any(|t| kw_eq(t, "primary") || kw_eq(t, "unique"));
        if !unique {
            return Some("WITHOUT OVERLAPS is for a PRIMARY or UNIQUE key");
        }
    }
    None
}
