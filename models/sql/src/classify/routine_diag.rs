//! GET DIAGNOSTICS, SIGNAL and RESIGNAL (sql/sql_yacc.yy: `get_diagnostics`,
//! `signal_stmt`, `resignal_stmt`; sql/sql_get_diagnostics.cc, sql/sql_signal.cc). None
//! opens a table or takes a metadata lock; none commits.
//!
//! - `GET [CURRENT] DIAGNOSTICS t = NUMBER | ROW_COUNT, ...` and `GET [CURRENT]
//!   DIAGNOSTICS CONDITION n t = item, ...`: MariaDB has no STACKED (ER_PARSE_ERROR); a
//!   target is a user variable or a declared variable (else ER_SP_UNDECLARED_VAR, raised
//!   by the parser); a condition number the diagnostics area lacks is an error-level
//!   condition in the area, not the statement's error (measured: an OK packet).
//! - `SIGNAL SQLSTATE [VALUE] 's' [SET item = v, ...]` at the top level
//!   (`Sql_cmd_signal::execute`, `Sql_cmd_common_signal::raise_condition`): SQLSTATE class
//!   01 is a warning (1642 unless MYSQL_ERRNO), 02 the error 1643, any other 1644, or the
//!   MYSQL_ERRNO set; a bad SQLSTATE (not five of 0-9A-Z, or class 00) is
//!   ER_SP_BAD_SQLSTATE (1407) and an item set twice ER_DUP_SIGNAL_SET (1641), both from
//!   the parser; MYSQL_ERRNO outside 1..65534 is ER_WRONG_VALUE_FOR_VAR (1231). A name
//!   is no declared condition at the top level: ER_SP_COND_MISMATCH (1319). `RESIGNAL`
//!   outside a handler: ER_RESIGNAL_WITHOUT_ACTIVE_HANDLER (1645). Each measured on
//!   MariaDB 10.11.19.

use super::routine_reader::{refused, Reader, Why};
use super::{kw_eq, Stmt, Tok};

pub const ER_SP_UNDECLARED_VAR: u32 = 1327;
pub const ER_BAD_FIELD_ERROR: u32 = 1054;
pub const ER_SP_COND_MISMATCH: u32 = 1319;
pub const ER_SP_BAD_SQLSTATE: u32 = 1407;
pub const ER_WRONG_VALUE_FOR_VAR: u32 = 1231;
pub const ER_DUP_SIGNAL_SET: u32 = 1641;
pub const ER_SIGNAL_NOT_FOUND: u32 = 1643;
pub const ER_SIGNAL_EXCEPTION: u32 = 1644;
pub const ER_RESIGNAL_WITHOUT_ACTIVE_HANDLER: u32 = 1645;

/// Statement information items (`statement_information_item_name`).
const STATEMENT_ITEMS: &[&str] = &["number", "row_count"];

/// Condition information items (`condition_information_item_name`, with ROW_NUMBER of 10.7).
const CONDITION_ITEMS: &[&str] = &[
    "class_origin",
    "subclass_origin",
    "constraint_catalog",
    "constraint_schema",
    "constraint_name",
    "catalog_name",
    "schema_name",
    "table_name",
    "column_name",
    "cursor_name",
    "message_text",
    "mysql_errno",
    "returned_sqlstate",
    "row_number",
];

/// The SIGNAL items (`signal_condition_information_item_name`).
pub(super) const SIGNAL_ITEMS: &[&str] = &[
    "class_origin",
    "subclass_origin",
    "constraint_catalog",
    "constraint_schema",
    "constraint_name",
    "catalog_name",
    "schema_name",
    "table_name",
    "column_name",
    "cursor_name",
    "message_text",
    "mysql_errno",
    // MariaDB 10.7+ (main/get_diagnostics.test `resignal_syntax`: created, and run).
    "row_number",
];

/// A GET DIAGNOSTICS statement `s` (from GET), with `declared` telling a declared
/// variable: Ok, or why not (the parser's error, or a shape not followed).
fn diagnostics(s: &[Tok], declared: &dyn Fn(&str) -> bool) -> Result<(), Why> {
    // Every form that does not fit `get_diagnostics` is the parser's ER_PARSE_ERROR
    // (measured on 10.11.19 for each form of main/get_diagnostics.test): GET STACKED, no
    // target, a system variable as the target, an item of the other kind or none, a
    // condition number that is an expression.
    let parse = || Err(Why::Fails(super::ER_PARSE_ERROR));
    let mut i = 1;
    if s.get(i).is_some_and(|t| kw_eq(t, "current")) {
        i += 1;
    }
    if !s.get(i).is_some_and(|t| kw_eq(t, "diagnostics")) {
        return parse();
    }
    i += 1;
    let items = if s.get(i).is_some_and(|t| kw_eq(t, "condition")) {
        match s.get(i + 1) {
            // `signed_literal`: a number (`1.1` too, measured: an OK packet) or a string.
            Some(Tok::Num(_) | Tok::Str(_)) => i += 2,
            // `condition_number: ident`: a name that is no declared variable is
            // ER_BAD_FIELD_ERROR as the parser reads it (measured: `CONDITION a`,
            // `CONDITION p1()`, `CONDITION ABS(2)`).
            Some(Tok::Word {
                text,
                quoted: false,
            }) if !text.starts_with('@')
                && !["null", "true", "false"].contains(&text.to_lowercase().as_str()) =>
            {
                if !declared(&text.to_lowercase()) {
                    return Err(Why::Fails(ER_BAD_FIELD_ERROR));
                }
                i += 2;
            }
            Some(Tok::P(_)) | None => return parse(),
            _ => return refused("GET DIAGNOSTICS CONDITION without a number or a variable"),
        }
        CONDITION_ITEMS
    } else {
        STATEMENT_ITEMS
    };
    loop {
        match s.get(i) {
            Some(Tok::Word { text, quoted }) if !*quoted && text.starts_with("@@") => {
                return parse()
            }
            Some(Tok::Word { text, quoted }) if !*quoted && text.starts_with('@') => {}
            Some(Tok::Word { text, .. }) if declared(&text.to_lowercase()) => {}
            Some(Tok::Word { .. }) => return Err(Why::Fails(ER_SP_UNDECLARED_VAR)),
            _ => return parse(),
        }
        let item_ok = s.get(i + 1) == Some(&Tok::P('='))
            && s.get(i + 2)
                .is_some_and(|t| items.iter().any(|w| kw_eq(t, w)));
        if !item_ok {
            return parse();
        }
        i += 3;
        match s.get(i) {
            None => return Ok(()),
            Some(Tok::P(',')) => i += 1,
            _ => return parse(),
        }
    }
}

impl<'a> Reader<'a> {
    /// GET DIAGNOSTICS in a body: no table, nothing recorded.
    pub(super) fn get_diagnostics(&mut self) -> Result<(), Why> {
        let s = self.rest_of_statement();
        let vars = &self.vars;
        diagnostics(s, &|v| vars.iter().any(|x| x == v))
    }
}

/// A SQLSTATE the parser takes (`is_sqlstate_valid`, not `is_sqlstate_completion`).
fn valid_sqlstate(s: &str) -> bool {
    s.len() == 5
        && s.chars()
            .all(|c| c.is_ascii_digit() || c.is_ascii_uppercase())
        && !s.starts_with("00")
}

/// A top-level SIGNAL `s` (from SIGNAL): its outcome.
fn signal(s: &[Tok]) -> Result<Stmt, Why> {
    let mut i = 1;
    if !s.get(i).is_some_and(|t| kw_eq(t, "sqlstate")) {
        return match s.get(i) {
            Some(Tok::Word { .. }) => Err(Why::Fails(ER_SP_COND_MISMATCH)),
            _ => refused("a SIGNAL without its condition"),
        };
    }
    i += 1;
    if s.get(i).is_some_and(|t| kw_eq(t, "value")) {
        i += 1;
    }
    let Some(Tok::Str(state)) = s.get(i) else {
        return refused("a SIGNAL SQLSTATE without its value");
    };
    if !valid_sqlstate(state) {
        return Err(Why::Fails(ER_SP_BAD_SQLSTATE));
    }
    let errno = set_items(&s[i + 1..])?;
    let code = match (&state[..2], errno) {
        (_, Some(Err(()))) => ER_WRONG_VALUE_FOR_VAR,
        ("01", _) => return Ok(Stmt::NoLocks),
        (_, Some(Ok(n))) => n,
        ("02", None) => ER_SIGNAL_NOT_FOUND,
        _ => ER_SIGNAL_EXCEPTION,
    };
    Ok(Stmt::Fails(code))
}

/// A SIGNAL / RESIGNAL item's value that `signal_allowed_expr` (sql/sql_yacc.yy: a
/// `literal`, a `variable` or a `simple_ident`) cannot start: a parenthesis, a sign (no
/// `signed_literal` there), EXISTS, SELECT or a function call; the parser's
/// ER_PARSE_ERROR (main/signal.test `MYSQL_ERRNO = -1`, main/statement-expr.test
/// `MYSQL_ERRNO=(1 IN (SELECT * FROM t1))` and `=EXISTS (SELECT ...)`).
pub(super) fn not_a_signal_value(v: &[Tok]) -> bool {
    match v {
        [Tok::P('(' | '-' | '+'), ..] => true,
        [w, ..] if kw_eq(w, "exists") || kw_eq(w, "select") => true,
        [Tok::Word { .. }, Tok::P('('), ..] => true,
        _ => false,
    }
}

/// `[SET item = literal, ...]`: the MYSQL_ERRNO set (Err when out of range), or why not.
#[allow(clippy::type_complexity)]
fn set_items(s: &[Tok]) -> Result<Option<Result<u32, ()>>, Why> {
    if s.is_empty() {
        return Ok(None);
    }
    if !kw_eq(&s[0], "set") {
        return refused("text after SIGNAL's SQLSTATE");
    }
    let mut seen: Vec<String> = Vec::new();
    let mut errno = None;
    for item in s[1..].split(|t| *t == Tok::P(',')) {
        if let [Tok::Word { .. }, Tok::P('='), v @ ..] = item {
            if not_a_signal_value(v) {
                return Err(Why::Fails(super::ER_PARSE_ERROR));
            }
        }
        let [Tok::Word { text, .. }, Tok::P('='), v] = item else {
            return refused("a SIGNAL item other than `item = literal`");
        };
        let name = text.to_lowercase();
        if !SIGNAL_ITEMS.contains(&name.as_str()) {
            return refused("a SIGNAL item the model does not know (a syntax error)");
        }
        if seen.contains(&name) {
            return Err(Why::Fails(ER_DUP_SIGNAL_SET));
        }
        match (name.as_str(), v) {
            ("mysql_errno", Tok::Num(n)) => {
                errno = Some(
                    n.parse::<u32>()
                        .ok()
                        .filter(|n| (1..65535).contains(n))
                        .ok_or(()),
                )
            }
            ("mysql_errno", _) => return refused("a MYSQL_ERRNO other than a number"),
            (_, Tok::Str(x)) if x.chars().count() <= 64 => {}
            (_, Tok::Num(_)) => {}
            _ => return refused("a SIGNAL item's value other than a short literal"),
        }
        seen.push(name);
    }
    Ok(errno)
}

/// GET DIAGNOSTICS, SIGNAL or RESIGNAL as a statement of its own, or None.
pub(super) fn top_level(toks: &[Tok]) -> Option<Result<Stmt, Why>> {
    let first = toks.first()?;
    // GET DIAGNOSTICS (`Sql_cmd_get_diagnostics::execute`, sql/sql_get_diagnostics.cc)
    // opens no table, so the session's HANDLERs another session waits for stay open
    // (no `mysql_ha_flush`; measured: suite/handler-kept-no-open.mdl).
    if kw_eq(first, "get") {
        let no_open = Stmt::Session(crate::stmt::SessionStmt::OpensNothing);
        return Some(diagnostics(toks, &|_| false).map(|()| no_open));
    }
    if kw_eq(first, "signal") {
        return Some(signal(toks));
    }
    if kw_eq(first, "resignal") {
        // Parsed as SIGNAL is (a bad SQLSTATE first), then no handler is active.
        let parsed = match toks.get(1) {
            None => Ok(Stmt::NoLocks),
            Some(t) if kw_eq(t, "set") => set_items(&toks[1..]).map(|_| Stmt::NoLocks),
            Some(_) => signal(toks).map(|_| Stmt::NoLocks),
        };
        return Some(parsed.map(|_| Stmt::Fails(ER_RESIGNAL_WITHOUT_ACTIVE_HANDLER)));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::tokens;
    use super::*;

    fn top(sql: &str) -> Result<Stmt, Why> {
        top_level(&tokens(sql).unwrap()).unwrap()
    }

    /// Measured on MariaDB 10.11.19 (main/signal.test, main/get_diagnostics.test).
    #[test]
    fn top_level_outcomes() {
        let f = |c| Ok(Stmt::Fails(c));
        assert_eq!(top("SIGNAL SQLSTATE '45000'"), f(1644));
        // `signal_allowed_expr`: no sign, parenthesis or subquery (measured 1064).
        let parse = Err(Why::Fails(1064));
        assert_eq!(top("SIGNAL SQLSTATE 'HY000' SET MYSQL_ERRNO = -1"), parse);
        assert_eq!(
            top("SIGNAL SQLSTATE '01000' SET MYSQL_ERRNO=(1 IN (SELECT * FROM t1))"),
            parse
        );
        assert_eq!(
            top("SIGNAL SQLSTATE '01000' SET MYSQL_ERRNO=EXISTS (SELECT * FROM t1)"),
            parse
        );
        assert_eq!(top("SIGNAL SQLSTATE VALUE '12345'"), f(1644));
        assert_eq!(top("SIGNAL SQLSTATE '02000'"), f(1643));
        assert_eq!(top("SIGNAL SQLSTATE '01000'"), Ok(Stmt::NoLocks));
        assert_eq!(
            top("SIGNAL SQLSTATE '01000' SET MYSQL_ERRNO = 30001"),
            Ok(Stmt::NoLocks)
        );
        assert_eq!(
            top("SIGNAL SQLSTATE '45000' SET MYSQL_ERRNO=30001, MESSAGE_TEXT='Hello'"),
            f(30001)
        );
        assert_eq!(top("SIGNAL SQLSTATE '02000' SET MYSQL_ERRNO=1234"), f(1234));
        assert_eq!(top("SIGNAL SQLSTATE '00000'"), Err(Why::Fails(1407)));
        assert_eq!(top("SIGNAL SQLSTATE '4500'"), Err(Why::Fails(1407)));
        assert_eq!(top("SIGNAL SQLSTATE '45000' SET MYSQL_ERRNO=0"), f(1231));
        assert_eq!(
            top("SIGNAL SQLSTATE '45000' SET MYSQL_ERRNO=65535"),
            f(1231)
        );
        let dup = "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT='a', MESSAGE_TEXT='b'";
        assert_eq!(top(dup), Err(Why::Fails(1641)));
        assert_eq!(top("SIGNAL foo"), Err(Why::Fails(1319)));
        assert_eq!(top("RESIGNAL"), f(1645));
        assert_eq!(top("RESIGNAL SQLSTATE '45000'"), f(1645));
        assert!(matches!(
            top("SIGNAL SQLSTATE '45000' SET bogus=1"),
            Err(Why::Refused(_))
        ));
        assert!(matches!(
            top("SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT=@a"),
            Err(Why::Refused(_))
        ));
        assert_eq!(
            top("GET DIAGNOSTICS @a = NUMBER, @b = ROW_COUNT"),
            Ok(Stmt::Session(crate::stmt::SessionStmt::OpensNothing))
        );
        assert_eq!(
            top("GET CURRENT DIAGNOSTICS CONDITION 1 @a = MESSAGE_TEXT, @b = ROW_NUMBER"),
            Ok(Stmt::Session(crate::stmt::SessionStmt::OpensNothing))
        );
        assert_eq!(top("GET DIAGNOSTICS var = NUMBER"), Err(Why::Fails(1327)));
        for bad in [
            "GET",
            "GET DIAGNOSTICS",
            "GET STACKED DIAGNOSTICS @a = NUMBER",
            "GET DIAGNOSTICS @a = CLASS_ORIGIN",
            "GET DIAGNOSTICS CONDITION 1 @a = NUMBER",
            "GET DIAGNOSTICS @@a = NUMBER",
            "GET DIAGNOSTICS @a = NUMBER,",
            "GET DIAGNOSTICS CONDITION 1",
            "GET DIAGNOSTICS CONDITION -1 @a = CLASS_ORIGIN",
            "GET DIAGNOSTICS CONDITION (1) @a = CLASS_ORIGIN",
            "GET DIAGNOSTICS CONDITION 1+1 @a = CLASS_ORIGIN",
        ] {
            assert_eq!(top(bad), Err(Why::Fails(1064)), "{bad}");
        }
        assert_eq!(top("GET DIAGNOSTICS CONDITION a"), Err(Why::Fails(1054)));
        assert_eq!(
            top("GET DIAGNOSTICS CONDITION ABS(2) @a = CLASS_ORIGIN"),
            Err(Why::Fails(1054))
        );
        assert_eq!(
            top("GET DIAGNOSTICS CONDITION \"1\" @a = CLASS_ORIGIN"),
            Ok(Stmt::Session(crate::stmt::SessionStmt::OpensNothing))
        );
        assert_eq!(
            top("GET DIAGNOSTICS CONDITION 1.1 @a = CLASS_ORIGIN"),
            Ok(Stmt::Session(crate::stmt::SessionStmt::OpensNothing))
        );
    }
}
