//! The text of a `CREATE PACKAGE` spec and of a `CREATE PACKAGE BODY`, read as the
//! Oracle grammar reads them (sql/sql_yacc.yy, MariaDB 10.11, sql_mode=ORACLE):
//!
//! ```text
//! package_specification: { FUNCTION name [(params)] RETURN type [chistics] ;
//!                        | PROCEDURE name [(params)] [chistics] ; } ... END [name]
//! package_body:          { FUNCTION | PROCEDURE head ;              -- a forward declaration
//!                        | FUNCTION | PROCEDURE head AS | IS [declarations] BEGIN ... END [name] ;
//!                        | variable or cursor declaration ; } ...
//!                        [BEGIN statements [EXCEPTION ...]] END [name]
//! ```
//!
//! What the server refuses while it parses is refused here before any lock: an item of
//! the spec that declares no routine, a FUNCTION without RETURN (ER_PARSE_ERROR, measured);
//! a routine name with a trailing space or a dot (ER_SP_WRONG_NAME, `check_routine_name`)
//! or longer than 64 characters (ER_TOO_LONG_IDENT); a routine declared or defined twice
//! (ER_SP_ALREADY_EXISTS, `sp_package::add_routine_declaration` /
//! `add_routine_implementation`); an END name other than the package's or routine's
//! (ER_END_IDENTIFIER_DOES_NOT_MATCH); a CREATE inside a routine (ER_SP_NO_RECURSIVE_CREATE);
//! then, once the body is read (`sp_package::validate_after_parser`, sql/sp_head.cc): a
//! routine of the spec the body does not define with the same kind and number of
//! parameters (`validate_public_routines`, `eq_routine_spec`:
//! ER_PACKAGE_ROUTINE_IN_SPEC_NOT_DEFINED_IN_BODY), then a forward declaration without a
//! definition (`validate_private_routines`: ER_PACKAGE_ROUTINE_FORWARD_DECLARATION_NOT_DEFINED).
//! Each routine defined in the body is checked as a standalone Oracle routine
//! (`classify/oracle_routine.rs`, the grammar a package routine shares: `sp_tail_is`,
//! `sp_body`).

use super::{kw_eq, Cx, Stmt, Tbl, Tok};
use crate::packages::{PackageBody, Spec};
use crate::routines::{Body, RoutineKind};

pub(super) const ER_SP_ALREADY_EXISTS: u32 = 1304;
const ER_TOO_LONG_IDENT: u32 = 1059;
const ER_SP_NO_RECURSIVE_CREATE: u32 = 1303;
const ER_SP_WRONG_NAME: u32 = 1458;
const ER_SP_DUP_VAR: u32 = 1331;
const ER_FEATURE_DISABLED: u32 = 1289;
const ER_END_IDENTIFIER_DOES_NOT_MATCH: u32 = 4083;
const ER_PACKAGE_ROUTINE_IN_SPEC_NOT_DEFINED_IN_BODY: u32 = 4095;
const ER_PACKAGE_ROUTINE_FORWARD_DECLARATION_NOT_DEFINED: u32 = 4096;

/// Why a definition is not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Stop {
    /// The server's parser refuses it with this error, before any lock.
    Fails(u32),
    /// The reader does not follow this construct.
    Refused(String),
}

fn parse_error() -> Stop {
    Stop::Fails(super::ER_PARSE_ERROR)
}

/// A routine's head: its kind, name (lower case) and number of parameters
/// (`sp_head::eq_routine_spec` compares kind and parameter count).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Head {
    kind: RoutineKind,
    name: String,
    params: usize,
}

/// The spec's routines from the tokens after `AS | IS`.
pub(super) fn read_spec(toks: &[Tok], pkg: &Tbl) -> Result<Spec, Stop> {
    let mut heads: Vec<Head> = Vec::new();
    let mut i = 0;
    loop {
        let t = toks.get(i).ok_or_else(parse_error)?;
        if kw_eq(t, "end") {
            end_tail(toks, i + 1, pkg)?;
            break;
        }
        // Only routines are declared in a 10.11 spec (measured: `a INT;` is a parse error).
        let kind = routine_word(t).ok_or_else(parse_error)?;
        let (h, j) = head(toks, i + 1, kind)?;
        if toks.get(j) != Some(&Tok::P(';')) {
            return Err(parse_error());
        }
        if heads.iter().any(|x| x.kind == h.kind && x.name == h.name) {
            return Err(Stop::Fails(ER_SP_ALREADY_EXISTS));
        }
        heads.push(h);
        i = j + 1;
    }
    Ok(Spec {
        routines: heads
            .into_iter()
            .map(|h| (h.kind, h.name, h.params))
            .collect(),
    })
}

/// PROCEDURE / FUNCTION.
fn routine_word(t: &Tok) -> Option<RoutineKind> {
    if kw_eq(t, "procedure") {
        Some(RoutineKind::Procedure)
    } else if kw_eq(t, "function") {
        Some(RoutineKind::Function)
    } else {
        None
    }
}

/// `END [[db.]name] [;]` closing the package: the last tokens. A name other than the
/// package's is ER_END_IDENTIFIER_DOES_NOT_MATCH (measured: `END test2.test2` of `test2`
/// in `test`, sp-package.test).
fn end_tail(toks: &[Tok], mut i: usize, pkg: &Tbl) -> Result<(), Stop> {
    if let Some(n) = name_at(toks, i) {
        let (db, name) = if toks.get(i + 1) == Some(&Tok::P('.')) {
            i += 2;
            (n, name_at(toks, i).ok_or_else(parse_error)?)
        } else {
            (pkg.db.clone(), n)
        };
        if !(name.eq_ignore_ascii_case(&pkg.name) && db.eq_ignore_ascii_case(&pkg.db)) {
            return Err(Stop::Fails(ER_END_IDENTIFIER_DOES_NOT_MATCH));
        }
        i += 1;
    }
    if toks.get(i) == Some(&Tok::P(';')) {
        i += 1;
    }
    if i == toks.len() {
        Ok(())
    } else {
        Err(parse_error())
    }
}

/// A name at `i`: a word, or a `"quoted"` one (ANSI_QUOTES, part of sql_mode=ORACLE).
fn name_at(toks: &[Tok], i: usize) -> Option<String> {
    match toks.get(i)? {
        Tok::Word { text, .. } | Tok::Str(text) => Some(text.clone()),
        _ => None,
    }
}

/// The head after PROCEDURE / FUNCTION at `i`: the routine and the index of the token
/// after it (`;`, `AS` or `IS`).
fn head(toks: &[Tok], mut i: usize, kind: RoutineKind) -> Result<(Head, usize), Stop> {
    let name = name_at(toks, i).ok_or_else(parse_error)?;
    if name.ends_with(' ') || name.contains('.') {
        return Err(Stop::Fails(ER_SP_WRONG_NAME));
    }
    if name.chars().count() > 64 {
        return Err(Stop::Fails(ER_TOO_LONG_IDENT));
    }
    i += 1;
    let mut params = 0;
    if toks.get(i) == Some(&Tok::P('(')) {
        let end = super::lex::matching_paren(toks, i).ok_or_else(parse_error)?;
        params = count_params(&toks[i + 1..end]);
        i = end + 1;
    }
    if kind == RoutineKind::Function {
        if !toks.get(i).is_some_and(|t| kw_eq(t, "return")) {
            return Err(parse_error());
        }
        i += 1;
    }
    // The return type and the characteristics, up to `;` / AS / IS.
    while let Some(t) = toks.get(i) {
        match t {
            Tok::P(';') => break,
            t if kw_eq(t, "as") || kw_eq(t, "is") => break,
            // `RETURN INT SA BEGIN ...`: no AS / IS before the body (measured: 1064).
            t if kw_eq(t, "begin") => return Err(parse_error()),
            Tok::P('(') => i = super::lex::matching_paren(toks, i).ok_or_else(parse_error)? + 1,
            _ => i += 1,
        }
    }
    let h = Head {
        kind,
        name: name.to_lowercase(),
        params,
    };
    Ok((h, i))
}

/// The parameters of a parenthesised list's inside: its top-level commas plus one.
fn count_params(inside: &[Tok]) -> usize {
    if inside.is_empty() {
        return 0;
    }
    let mut depth = 0usize;
    let mut n = 1;
    for t in inside {
        match t {
            Tok::P('(') => depth += 1,
            Tok::P(')') => depth = depth.saturating_sub(1),
            Tok::P(',') if depth == 0 => n += 1,
            _ => {}
        }
    }
    n
}

/// The index of the END that closes the block opened at `begin` (a BEGIN): BEGIN and CASE
/// open, END closes, `END IF | LOOP | WHILE | REPEAT | FOR` closes what opens no block
/// here, `END CASE` a CASE statement.
fn block_end(toks: &[Tok], begin: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = begin;
    while let Some(t) = toks.get(i) {
        if kw_eq(t, "begin") || kw_eq(t, "case") {
            depth += 1;
        } else if kw_eq(t, "end") {
            let next = toks.get(i + 1);
            let closes_other = next.is_some_and(|n| {
                ["if", "loop", "while", "repeat", "for"]
                    .iter()
                    .any(|w| kw_eq(n, w))
            });
            if closes_other {
                i += 2;
                continue;
            }
            if next.is_some_and(|n| kw_eq(n, "case")) {
                i += 1;
            }
            depth -= 1;
            if depth == 0 {
                return Some(i);
            }
        }
        i += 1;
    }
    None
}

/// What the body reader keeps while it reads.
#[derive(Default)]
struct BodyRead {
    defs: Vec<(Head, Body)>,
    forwards: Vec<Head>,
    init_uses_tables: bool,
    /// The package variables declared so far (lower case).
    vars: Vec<String>,
}

/// The package body from the tokens after `AS | IS`, checked against its spec.
pub(super) fn read_body(
    cx: &Cx,
    toks: &[Tok],
    pkg: &Tbl,
    spec: &Spec,
) -> Result<PackageBody, Stop> {
    let mut r = BodyRead::default();
    let mut i = 0;
    loop {
        let t = toks.get(i).ok_or_else(parse_error)?;
        if kw_eq(t, "end") {
            end_tail(toks, i + 1, pkg)?;
            break;
        }
        if kw_eq(t, "begin") {
            let e = block_end(toks, i).ok_or_else(parse_error)?;
            inner_checks(&toks[i..e])?;
            init_section(&toks[i + 1..e])?;
            r.init_uses_tables |= super::routine::body_uses_tables(&toks[i + 1..e]);
            end_tail(toks, e + 1, pkg)?;
            break;
        }
        i = match routine_word(t) {
            Some(kind) => routine_item(cx, toks, i, kind, &mut r)?,
            None => declaration(toks, i, &mut r)?,
        };
    }
    check_defined(spec, &r)?;
    Ok(PackageBody {
        routines: r
            .defs
            .into_iter()
            .map(|(h, b)| (h.kind, h.name, b))
            .collect(),
        init_uses_tables: r.init_uses_tables,
    })
}

/// The spec's routines, then the forward declarations, each defined with its kind and
/// parameter count (`sp_package::validate_public_routines`, `validate_private_routines`).
fn check_defined(spec: &Spec, r: &BodyRead) -> Result<(), Stop> {
    let defined = |kind: RoutineKind, name: &str, params: Option<usize>| {
        r.defs
            .iter()
            .any(|(h, _)| h.kind == kind && h.name == name && params.is_none_or(|p| p == h.params))
    };
    for (kind, name, params) in &spec.routines {
        if !defined(*kind, name, Some(*params)) {
            return Err(Stop::Fails(ER_PACKAGE_ROUTINE_IN_SPEC_NOT_DEFINED_IN_BODY));
        }
    }
    for h in &r.forwards {
        if !defined(h.kind, &h.name, Some(h.params)) {
            return Err(Stop::Fails(
                ER_PACKAGE_ROUTINE_FORWARD_DECLARATION_NOT_DEFINED,
            ));
        }
    }
    Ok(())
}

/// A PROCEDURE / FUNCTION item at `i`: a forward declaration or a definition; the index
/// after its `;`.
fn routine_item(
    cx: &Cx,
    toks: &[Tok],
    i: usize,
    kind: RoutineKind,
    r: &mut BodyRead,
) -> Result<usize, Stop> {
    let (h, j) = head(toks, i + 1, kind)?;
    if toks.get(j) == Some(&Tok::P(';')) {
        r.forwards.push(h);
        return Ok(j + 1);
    }
    if !toks
        .get(j)
        .is_some_and(|t| kw_eq(t, "as") || kw_eq(t, "is"))
    {
        return Err(parse_error());
    }
    let begin = (j + 1..toks.len())
        .find(|&k| kw_eq(&toks[k], "begin"))
        .ok_or_else(parse_error)?;
    let e = block_end(toks, begin).ok_or_else(parse_error)?;
    let mut after = e + 1;
    if name_at(toks, after).is_some() && toks.get(after) != Some(&Tok::P(';')) {
        after += 1;
    }
    if toks.get(after) != Some(&Tok::P(';')) {
        return Err(parse_error());
    }
    if r.defs
        .iter()
        .any(|(x, _)| x.kind == h.kind && x.name == h.name)
    {
        return Err(Stop::Fails(ER_SP_ALREADY_EXISTS));
    }
    inner_checks(&toks[begin..e])?;
    standalone_check(cx, kind, &toks[i + 1..after])?;
    let body = routine_body(
        &toks[i + 1..after],
        &toks[j + 1..begin],
        &toks[begin + 1..e],
        kind,
    );
    r.defs.push((h, body));
    Ok(after + 1)
}

/// Words after CREATE [OR REPLACE] [DEFINER = ...] [AGGREGATE] that make a stored program:
/// inside a routine or an initialisation section the parser refuses them with
/// ER_SP_NO_RECURSIVE_CREATE (sql/sql_yacc.yy, `if (Lex->sphead)` in each CREATE of a
/// stored program; measured: CREATE PROCEDURE / FUNCTION / PACKAGE in a package body;
/// CREATE VIEW or TABLE there parses).
const PROGRAMS: &[&str] = &["procedure", "function", "package", "trigger", "event"];

/// What the parser refuses inside a routine's or the initialisation section's statements:
/// a CREATE of a stored program (ER_SP_NO_RECURSIVE_CREATE); SHOW PROCEDURE | FUNCTION |
/// PACKAGE [BODY] CODE (ER_FEATURE_DISABLED, a server without debug; measured); a CREATE
/// VIEW, whose SELECT may name the routine's variables (ER_VIEW_SELECT_VARIABLE, which
/// the model does not look for), is refused.
fn inner_checks(inner: &[Tok]) -> Result<(), Stop> {
    for (i, t) in inner.iter().enumerate() {
        if kw_eq(t, "show") {
            let code = inner[i + 1..].iter().take(3).any(|x| kw_eq(x, "code"));
            if code {
                return Err(Stop::Fails(ER_FEATURE_DISABLED));
            }
        }
        if !kw_eq(t, "create") {
            continue;
        }
        let what = inner[i + 1..].iter().find(|x| {
            !["or", "replace", "definer", "=", "aggregate"]
                .iter()
                .any(|w| kw_eq(x, w))
                && !matches!(x, Tok::P(_) | Tok::Str(_))
                && !matches!(x, Tok::Word { text, .. } if text.contains('@'))
        });
        match what {
            Some(w) if PROGRAMS.iter().any(|p| kw_eq(w, p)) => {
                return Err(Stop::Fails(ER_SP_NO_RECURSIVE_CREATE))
            }
            Some(w) if kw_eq(w, "view") => {
                return Err(Stop::Refused(
                    "a CREATE VIEW inside a package's routine".into(),
                ))
            }
            _ => {}
        }
    }
    Ok(())
}

/// The routine read as a standalone Oracle CREATE PROCEDURE / FUNCTION would be
/// (`classify/oracle_routine.rs`): the errors it finds are the package body's.
fn standalone_check(cx: &Cx, kind: RoutineKind, def: &[Tok]) -> Result<(), Stop> {
    let word = match kind {
        RoutineKind::Function => "FUNCTION",
        _ => "PROCEDURE",
    };
    let sql = format!("CREATE {word} {}", super::lex::render(def));
    let toks = super::tokens(&sql).map_err(Stop::Refused)?;
    let sub = Cx { sql: &sql, ..*cx };
    match super::oracle_routine::classify(&sub, &toks) {
        Some(Ok(Stmt::Fails(code))) => Err(Stop::Fails(code)),
        Some(Ok(_)) => Ok(()),
        Some(Err(e)) => Err(Stop::Refused(format!("a package routine: {e}"))),
        None => Err(Stop::Refused(
            "a package routine outside the Oracle routine shape".into(),
        )),
    }
}

/// Flow words that make a body's statements depend on data (RETURN aside: a function's
/// `RETURN expr` is its one statement).
const FLOW: &[&str] = &[
    "if",
    "case",
    "while",
    "loop",
    "for",
    "exit",
    "continue",
    "goto",
    "exception",
    "raise",
    "open",
    "fetch",
    "close",
    "cursor",
    "declare",
    "begin",
    "leave",
    "iterate",
    "signal",
    "resignal",
];

/// The routine's body as the model keeps it: straight-line (no declarations, no flow, no
/// assignment) bodies keep their statements, which a CALL or a function's caller plays.
fn routine_body(def: &[Tok], decls: &[Tok], inner: &[Tok], kind: RoutineKind) -> Body {
    let assigns = inner.windows(2).any(|w| w == [Tok::P(':'), Tok::P('=')]);
    let returns = kind == RoutineKind::Procedure && inner.iter().any(|t| kw_eq(t, "return"));
    let flow = !decls.is_empty()
        || assigns
        || returns
        || inner.iter().any(|t| FLOW.iter().any(|w| kw_eq(t, w)))
        || inner.windows(2).any(|w| w == [Tok::P('<'), Tok::P('<')]);
    let stmts = if flow {
        Vec::new()
    } else {
        inner
            .split(|t| *t == Tok::P(';'))
            .filter(|s| !s.is_empty())
            .map(super::lex::render)
            .collect()
    };
    Body {
        uses_tables: super::routine::body_uses_tables(decls)
            || super::routine::body_uses_tables(inner),
        stmts,
        flow,
        src: super::lex::render(def),
        preserve: false,
    }
}

/// The words a statement of an initialisation section starts with that the model lets
/// through; another word is refused (the server may find a syntax error there, which the
/// model does not read: measured `SOME SYNTAX ERROR;` is ER_PARSE_ERROR).
const INIT_STARTS: &[&str] = &[
    "null",
    "set",
    "select",
    "insert",
    "update",
    "delete",
    "replace",
    "do",
    "call",
    "if",
    "case",
    "for",
    "while",
    "loop",
    "exception",
    "when",
    "end",
    "else",
    "elsif",
    "then",
    "execute",
    "create",
    "drop",
    "truncate",
    "alter",
    "declare",
    "begin",
    "commit",
    "rollback",
];

fn init_section(inner: &[Tok]) -> Result<(), Stop> {
    for s in inner.split(|t| *t == Tok::P(';')).filter(|s| !s.is_empty()) {
        let first = &s[0];
        // `a := ...`, `a.b := ...`, and a procedure called by its name (`p1;`, `p1(...)`).
        let assign = s.iter().take(4).any(|t| *t == Tok::P(':'));
        let call = matches!(first, Tok::Word { .. }) && (s.len() == 1 || s[1] == Tok::P('('));
        if !assign && !call && !INIT_STARTS.iter().any(|w| kw_eq(first, w)) {
            return Err(Stop::Refused(format!(
                "a statement `{}` of a package body's initialisation section",
                super::lex::render(s)
            )));
        }
    }
    Ok(())
}

/// Type words a package variable's declaration may start with (`name type ...;`).
const TYPES: &[&str] = &[
    "int",
    "integer",
    "bigint",
    "smallint",
    "tinyint",
    "number",
    "decimal",
    "numeric",
    "double",
    "float",
    "real",
    "varchar",
    "varchar2",
    "char",
    "text",
    "clob",
    "blob",
    "date",
    "datetime",
    "timestamp",
    "time",
    "bool",
    "boolean",
    "raw",
];

/// A variable (`name type [:= expr | DEFAULT expr];`) or cursor (`CURSOR c IS SELECT ...;`)
/// declaration at `i`; the index after its `;`. A default that names a table or calls a
/// function runs when the package is first used in a session.
fn declaration(toks: &[Tok], i: usize, r: &mut BodyRead) -> Result<usize, Stop> {
    let end = (i..toks.len())
        .find(|&k| toks[k] == Tok::P(';'))
        .ok_or_else(parse_error)?;
    let item = &toks[i..end];
    let cursor = kw_eq(&item[0], "cursor");
    let typed = item
        .get(1)
        .is_some_and(|t| TYPES.iter().any(|w| kw_eq(t, w)));
    // `ROW(...)`, `TYPE OF`, `ROW TYPE OF`, `t.c%TYPE`, `t%ROWTYPE`: the anchored ones
    // open their table when the package is first used (its variables are made then).
    let row = item.get(1).is_some_and(|t| kw_eq(t, "row"));
    let anchored = item.contains(&Tok::P('%'))
        || item
            .windows(2)
            .any(|w| kw_eq(&w[0], "type") && kw_eq(&w[1], "of"));
    if !cursor && !typed && !row && !anchored {
        return Err(Stop::Refused(format!(
            "a package body declaration `{}`",
            super::lex::render(item)
        )));
    }
    let default = item
        .windows(2)
        .position(|w| w == [Tok::P(':'), Tok::P('=')])
        .or_else(|| item.iter().position(|t| kw_eq(t, "default")));
    if let (false, Some(d)) = (cursor, default) {
        r.init_uses_tables |= super::routine::body_uses_tables(&item[d..]);
    }
    r.init_uses_tables |= anchored;
    if !cursor {
        // Two package variables of one name: ER_SP_DUP_VAR (`sp_pcontext::find_variable`
        // as the declaration is added; measured: `a INT; a INT;`).
        let name = super::lex::render(&item[..1]).to_lowercase();
        if r.vars.contains(&name) {
            return Err(Stop::Fails(ER_SP_DUP_VAR));
        }
        r.vars.push(name);
    }
    Ok(end + 1)
}
