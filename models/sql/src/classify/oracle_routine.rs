//! Stored procedures and functions defined under `sql_mode=ORACLE` (MariaDB 10.11: the
//! mode picks the grammar, `parse_sql` in sql/sql_parse.cc: `thd->variables.sql_mode &
//! MODE_ORACLE ? ORAparse(thd) : MYSQLparse(thd)`; the Oracle branches of
//! sql/sql_yacc.yy):
//!
//! ```text
//! sp_tail_standalone: sp_name opt_sp_parenthesized_pdparam_list sp_c_chistics
//!                     sp_tail_is sp_body opt_sp_name
//! sf_tail_standalone: sp_name opt_sp_parenthesized_fdparam_list RETURN_ORACLE_SYM
//!                     sf_return_type sp_c_chistics sp_tail_is sp_body opt_sp_name
//! sp_tail_is: IS | AS
//! sp_body:    opt_sp_decl_body_list BEGIN_ORACLE_sym
//!             sp_block_statements_and_exceptions END
//! ```
//!
//! The statement takes the locks of any CREATE PROCEDURE / FUNCTION (`sp_create_routine`,
//! sql/sp.cc: `lock_object_name`, the learned `create_procedure` / `create_function`
//! rows) and fails with ER_SP_ALREADY_EXISTS (1304) on an existing name
//! (`crate::routines`). Only the definition's outline is read here (the parameter list,
//! `RETURN type`, `AS | IS`, a body that ends with `END [name]`); the Oracle body's
//! statements (`:=`, `EXCEPTION WHEN`, `LOOP ... END LOOP`, declarations without
//! DECLARE) are not read one by one, so the routine is recorded as a body with control
//! flow that uses tables: a CALL of it, or a statement naming the function, is refused
//! rather than played (a deliberate difference: the model does not follow an Oracle
//! body's statements, nor find a syntax error inside it). The names the parser resolves
//! as it reads the body (cursors, labels, FOR records, fields) are checked by
//! `classify/oracle_names.rs` and `classify/oracle_labels.rs`; anonymous blocks are
//! `classify/oracle_block.rs`, other top-level Oracle forms `classify/oracle_top.rs`.

use super::{kw_eq, Bind, Cur, Cx, Effect, Plan, Stmt, Tok};
use crate::kind::Kind;
use crate::routines::{Body, RoutineKind, RoutineOp};

/// The Oracle-mode CREATE PROCEDURE / FUNCTION `toks` is, or None when it is another
/// statement (played as in the default mode).
pub(super) fn classify(cx: &Cx, toks: &[Tok]) -> Option<Result<Stmt, String>> {
    if kw_eq(toks.first()?, "begin") || kw_eq(toks.first()?, "declare") {
        return begin(cx, toks);
    }
    if !kw_eq(toks.first()?, "create") {
        return super::oracle_top::classify(cx, toks);
    }
    let mut c = Cur {
        t: toks,
        i: 1,
        sql: cx.sql,
    };
    let or_replace = c.eat("or") && c.eat("replace");
    if super::routine::skip_definer(&mut c).is_err() {
        return None;
    }
    let aggregate = c.eat("aggregate");
    let kind = match c.peek() {
        Some(t) if kw_eq(t, "procedure") => RoutineKind::Procedure,
        Some(t) if kw_eq(t, "function") => RoutineKind::Function,
        _ => return None,
    };
    c.i += 1;
    let if_not_exists = c.eat("if") && c.eat("not") && c.eat("exists");
    let r = match c.table(cx.db) {
        Ok(r) => r,
        Err(e) => return Some(Err(e)),
    };
    let rest = &toks[c.i..];
    // A definition in the default grammar's shape (`BEGIN ... END` after the list) is
    // left to `classify/routine.rs`.
    let at = head_end(rest, kind == RoutineKind::Function)?;
    if or_replace && if_not_exists {
        return Some(Err(format!(
            "`{}`: CREATE OR REPLACE ... IF NOT EXISTS is not modelled",
            cx.sql
        )));
    }
    let names = match params(rest) {
        Ok(names) => names,
        Err(code) => return Some(Ok(Stmt::Fails(code))),
    };
    if let Some(why) = unread(&rest[at..]) {
        return Some(Err(format!(
            "`{}`: an Oracle-mode routine body with {why} is not read (classify/oracle_routine.rs)",
            cx.sql
        )));
    }
    match super::oracle_names::check(&rest[at..], &names) {
        Ok(None) => {}
        Ok(Some(code)) => return Some(Ok(Stmt::Fails(code))),
        Err(why) => {
            return Some(Err(format!(
                "`{}`: an Oracle-mode routine body with {why} is not read \
                 (classify/oracle_names.rs)",
                cx.sql
            )))
        }
    }
    if let Some(code) = body_error(&rest[at..], kind == RoutineKind::Function, aggregate) {
        return Some(Ok(Stmt::Fails(code)));
    }
    if !end_name_matches(&rest[at..], &r, cx.db) {
        return Some(Ok(Stmt::Fails(ER_END_IDENTIFIER_DOES_NOT_MATCH)));
    }
    if !body_outline(&rest[at..]) {
        return Some(Err(format!(
            "`{}`: an Oracle-mode routine body outside `[declarations] BEGIN ... END \
             [name]` (classify/oracle_routine.rs)",
            cx.sql
        )));
    }
    let row = match kind {
        RoutineKind::Function => Kind::CreateFunction,
        _ => Kind::CreateProcedure,
    };
    if !(cx.has_row)(row.as_str()) {
        return Some(Err(format!(
            "`{}`: `{row}` is not in this dialect's statement table",
            cx.sql
        )));
    }
    let op = RoutineOp::Create {
        kind,
        r: r.clone(),
        body: Body {
            uses_tables: true,
            flow: true,
            stmts: Vec::new(),
            src: super::lex::render(rest),
            preserve: false,
        },
        if_not_exists,
        or_replace,
        past: false,
    };
    let part = cx.part(
        row,
        Bind {
            r: Some(r),
            ..Bind::default()
        },
    );
    Some(Ok(Stmt::Learned(Plan::of(
        row,
        vec![part],
        Effect::Routine(op),
    ))))
}

/// `BEGIN` / `DECLARE` in Oracle mode: the Oracle grammar reads them as the start of an
/// anonymous block (`BEGIN_ORACLE_SYM`, sql/sql_yacc.yy), so `BEGIN` alone is a syntax
/// error (measured on MariaDB 10.11: 1064; START TRANSACTION begins a transaction). A
/// block the model follows runs as a compound statement (`classify/oracle_block.rs`,
/// `model/call.rs`) and does not reach here; the others are refused with the reason.
fn begin(cx: &Cx, toks: &[Tok]) -> Option<Result<Stmt, String>> {
    let n = toks
        .iter()
        .rposition(|t| *t != Tok::P(';'))
        .map_or(0, |k| k + 1);
    if n == 1 && kw_eq(&toks[0], "begin") {
        return Some(Ok(Stmt::Fails(super::ER_PARSE_ERROR)));
    }
    // Errors the parser gives as it reads the block, before its end (measured:
    // compat/oracle/t/sp-memory-leak.test): EXIT / CONTINUE outside any loop is
    // ER_SP_LILABEL_MISMATCH (`LEX::sp_exit_statement`), RETURN with a value
    // ER_SP_BADRETURN (the block is a procedure: `Sp_handler::add_instr_freturn`).
    let exit = toks
        .get(1)
        .is_some_and(|t| kw_eq(t, "exit") || kw_eq(t, "continue"));
    if exit && !toks.iter().any(|t| kw_eq(t, "loop")) {
        return Some(Ok(Stmt::Fails(super::oracle_names::ER_SP_LILABEL_MISMATCH)));
    }
    if toks
        .windows(2)
        .any(|w| kw_eq(&w[0], "return") && w[1] != Tok::P(';'))
    {
        return Some(Ok(Stmt::Fails(ER_SP_BADRETURN)));
    }
    if let Some(code) = super::oracle_decl::parse_error(toks) {
        return Some(Ok(Stmt::Fails(code)));
    }
    let why = match super::oracle_block::translate(toks)? {
        Err(why) => why,
        Ok(_) => "an anonymous block run outside a session".into(),
    };
    Some(Err(format!(
        "`{}`: {why} (classify/oracle_block.rs)",
        cx.sql
    )))
}

/// The index just after `AS` / `IS` in the definition after the routine's name, when the
/// head has the Oracle shape: an optional parenthesised parameter list, a function's
/// `RETURN type`, characteristics (any words), `AS | IS`.
fn head_end(rest: &[Tok], function: bool) -> Option<usize> {
    let mut i = 0;
    if rest.first() == Some(&Tok::P('(')) {
        i = super::lex::matching_paren(rest, 0)? + 1;
    }
    if function {
        if !kw_eq(rest.get(i)?, "return") {
            return None;
        }
        i += 1;
    }
    // The return type and the characteristics: words, lengths, strings (COMMENT), up to
    // the first top-level AS / IS.
    while let Some(t) = rest.get(i) {
        match t {
            t if kw_eq(t, "as") || kw_eq(t, "is") => return Some(i + 1),
            t if kw_eq(t, "begin") => return None,
            Tok::P('(') => i = super::lex::matching_paren(rest, i)? + 1,
            Tok::Word { .. } | Tok::Str(_) | Tok::Num(_) | Tok::P('.') | Tok::P('%') => i += 1,
            _ => return None,
        }
    }
    None
}

/// The parameter names of `(a [IN | OUT | IN OUT | INOUT] type, ...)`: two of one name are
/// ER_SP_DUP_PARAM (`LEX::sp_param_init`, sql/sql_lex.cc). The names, lowercase.
fn params(rest: &[Tok]) -> Result<Vec<String>, u32> {
    let Some(end) = (rest.first() == Some(&Tok::P('(')))
        .then(|| super::lex::matching_paren(rest, 0))
        .flatten()
    else {
        return Ok(Vec::new());
    };
    let mut names: Vec<String> = Vec::new();
    let mut depth = 0usize;
    let mut start = true;
    for t in &rest[1..end] {
        match t {
            Tok::P('(') => depth += 1,
            Tok::P(')') => depth = depth.saturating_sub(1),
            Tok::P(',') if depth == 0 => {
                start = true;
                continue;
            }
            Tok::Word { text, .. } if start => {
                let lower = text.to_lowercase();
                if names.contains(&lower) {
                    return Err(super::routine_body::ER_SP_DUP_PARAM);
                }
                names.push(lower);
            }
            _ => {}
        }
        start = false;
    }
    Ok(names)
}

/// ER_SP_COND_MISMATCH: `RAISE name` of a name neither declared (`name EXCEPTION;`) nor
/// predefined.
const ER_SP_COND_MISMATCH: u32 = 1319;
/// ER_SP_NORETURN: a function whose body has no RETURN.
const ER_SP_NORETURN: u32 = 1320;

/// ER_SP_BADRETURN: RETURN with a value in a procedure (`Sp_handler::add_instr_freturn`,
/// sql/sp.cc; measured: compat/oracle/t/sp.test, `RETURN 10` in a procedure).
const ER_SP_BADRETURN: u32 = 1313;

/// ER_SP_DUP_HANDLER: one EXCEPTION section with two handlers of one name.
const ER_SP_DUP_HANDLER: u32 = 1413;

/// Whether an `EXCEPTION` section (the keyword not followed by `;`, which would declare a
/// name) has two handlers `WHEN name THEN` of one name (`sp_pcontext::check_duplicate_handler`
/// as `exception_handler`, sql/sql_yacc.yy, adds each). A handler begins right after
/// EXCEPTION or after a `;`.
fn dup_handler(body: &[Tok]) -> bool {
    let mut seen: Vec<String> = Vec::new();
    let mut in_section = false;
    for (i, t) in body.iter().enumerate() {
        if kw_eq(t, "exception") && body.get(i + 1) != Some(&Tok::P(';')) {
            in_section = true;
            seen.clear();
            continue;
        }
        let starts = i > 0 && (kw_eq(&body[i - 1], "exception") || body[i - 1] == Tok::P(';'));
        if !(in_section && starts && kw_eq(t, "when")) {
            continue;
        }
        if let (Some(Tok::Word { text, .. }), Some(then)) = (body.get(i + 1), body.get(i + 2)) {
            if kw_eq(then, "then") {
                let lower = text.to_lowercase();
                if seen.contains(&lower) {
                    return true;
                }
                seen.push(lower);
            }
        }
    }
    false
}

/// The predefined exceptions of Oracle mode (`sp_predefined_conditions`, read by
/// `sp_pcontext::find_declared_or_predefined_condition` in Oracle mode, sql/sp_pcontext.cc).
const PREDEFINED: &[&str] = &[
    "no_data_found",
    "invalid_cursor",
    "dup_val_on_index",
    "too_many_rows",
];

/// The parser's errors in an Oracle body that the outline shows, in the server's order
/// (the same as the default grammar's, `classify/routine_block.rs`): FETCH GROUP NEXT ROW
/// outside an aggregate function (4105, at the FETCH), `RAISE name` of an undeclared
/// condition (1319: `sp_pcontext::find_declared_or_predefined_condition` found none), an
/// aggregate function without FETCH GROUP NEXT ROW (4106), a function without RETURN
/// (1320, at the body's end: `LEX::sp_body_finalize_function`, sql/sql_lex.cc).
fn body_error(body: &[Tok], function: bool, aggregate: bool) -> Option<u32> {
    use super::routine_block::{ER_INVALID_AGGREGATE_FUNCTION, ER_NOT_AGGREGATE_FUNCTION};
    // `RETURN;` in a function is a syntax error: the Oracle grammar's function RETURN
    // takes an expression (`sp_proc_stmt_return`: `RETURN_ORACLE_SYM expr` when the
    // routine is a function; measured: compat/oracle/t/sp.test, "Testing RETURN in
    // procedures", 1064).
    if function
        && body
            .windows(2)
            .any(|w| kw_eq(&w[0], "return") && w[1] == Tok::P(';'))
    {
        return Some(super::ER_PARSE_ERROR);
    }
    let fetch_group = body.windows(4).any(|w| {
        kw_eq(&w[0], "fetch")
            && kw_eq(&w[1], "group")
            && kw_eq(&w[2], "next")
            && kw_eq(&w[3], "row")
    });
    if fetch_group && !aggregate {
        return Some(ER_INVALID_AGGREGATE_FUNCTION);
    }
    let declared = |n: &str| {
        body.windows(2).any(|w| {
            matches!(&w[0], Tok::Word { text, .. } if text.eq_ignore_ascii_case(n))
                && kw_eq(&w[1], "exception")
        })
    };
    for w in body.windows(3) {
        if let (true, Tok::Word { text, .. }, Tok::P(';')) = (kw_eq(&w[0], "raise"), &w[1], &w[2]) {
            let lower = text.to_lowercase();
            if !PREDEFINED.contains(&lower.as_str()) && !declared(&lower) {
                return Some(ER_SP_COND_MISMATCH);
            }
        }
    }
    let return_value = body
        .windows(2)
        .any(|w| kw_eq(&w[0], "return") && w[1] != Tok::P(';'));
    if !function && return_value {
        return Some(ER_SP_BADRETURN);
    }
    if dup_handler(body) {
        return Some(ER_SP_DUP_HANDLER);
    }
    if aggregate && !fetch_group {
        return Some(ER_NOT_AGGREGATE_FUNCTION);
    }
    if function && !body.iter().any(|t| kw_eq(t, "return")) {
        return Some(ER_SP_NORETURN);
    }
    None
}

/// What in an Oracle body the outline cannot check and the server checks as it parses
/// (handlers and conditions, SIGNAL, the default grammar's LEAVE /
/// ITERATE): the body is refused rather than played as if it parsed. Labels, GOTO,
/// EXIT / CONTINUE, cursors and their attributes, FOR loops and field assignments are
/// checked by `classify/oracle_names.rs`.
fn unread(body: &[Tok]) -> Option<&'static str> {
    const WORDS: &[(&str, &str)] = &[
        ("signal", "SIGNAL"),
        ("resignal", "RESIGNAL"),
        ("handler", "a handler"),
        ("condition", "a condition"),
        ("sqlstate", "SQLSTATE"),
        ("iterate", "ITERATE"),
        ("leave", "LEAVE"),
    ];
    // A nested block `DECLARE declarations BEGIN ... END` is read as the outer body is;
    // the default grammar's `DECLARE name CURSOR FOR` / `CONDITION` inside one is not.
    let nested_default = body
        .windows(3)
        .any(|w| kw_eq(&w[0], "declare") && (kw_eq(&w[2], "cursor") || kw_eq(&w[2], "condition")));
    if nested_default {
        return Some("a nested block in the default grammar's form");
    }
    WORDS
        .iter()
        .find(|(w, _)| body.iter().any(|t| kw_eq(t, w)))
        .map(|(_, why)| *why)
}

/// ER_END_IDENTIFIER_DOES_NOT_MATCH: the name after the body's END is not the routine's.
const ER_END_IDENTIFIER_DOES_NOT_MATCH: u32 = 4083;

/// Whether the `opt_sp_name` after the body's END, if any, names the routine `r`
/// (`sp_head::check_standalone_routine_end_name`, sql/sp_head.cc: schema and name; measured
/// on compat/oracle/t/sp.test MDEV-13450: 4083 otherwise).
fn end_name_matches(body: &[Tok], r: &super::Tbl, db: &str) -> bool {
    let mut n = body.len();
    while n > 0 && body[n - 1] == Tok::P(';') {
        n -= 1;
    }
    let word = |t: &Tok| match t {
        Tok::Word { text, .. } => Some(text.to_lowercase()),
        _ => None,
    };
    let same =
        |d: &str, name: &str| d.eq_ignore_ascii_case(&r.db) && name.eq_ignore_ascii_case(&r.name);
    match &body[..n] {
        [.., e, a, Tok::P('.'), b] if kw_eq(e, "end") => match (word(a), word(b)) {
            (Some(a), Some(b)) => same(&a, &b),
            _ => true,
        },
        [.., e, name] if kw_eq(e, "end") => word(name).is_none_or(|n| same(db, &n)),
        _ => true,
    }
}

/// `sp_body [opt_sp_name]`: a top-level `BEGIN`, and the last words `END` or `END name`
/// (a `;` after them is the client's delimiter).
fn body_outline(body: &[Tok]) -> bool {
    let mut n = body.len();
    while n > 0 && body[n - 1] == Tok::P(';') {
        n -= 1;
    }
    let body = &body[..n];
    let ends = match body {
        [.., e] if kw_eq(e, "end") => true,
        [.., e, name] if kw_eq(e, "end") => matches!(name, Tok::Word { .. }),
        [.., e, a, Tok::P('.'), b] if kw_eq(e, "end") => {
            matches!(a, Tok::Word { .. }) && matches!(b, Tok::Word { .. })
        }
        _ => false,
    };
    ends && body.iter().any(|t| kw_eq(t, "begin"))
}

#[cfg(test)]
mod tests {
    use super::super::tokens;
    use super::*;

    fn head(sql: &str, function: bool) -> Option<usize> {
        head_end(&tokens(sql).unwrap(), function)
    }

    #[test]
    fn oracle_heads_are_read() {
        assert_eq!(head("AS BEGIN NULL; END", false), Some(1));
        assert_eq!(
            head("(a IN INT, b OUT VARCHAR(10)) IS BEGIN NULL; END", false),
            Some(13)
        );
        assert!(head("() RETURN INT AS BEGIN RETURN 1; END", true).is_some());
        assert!(head("(a t1.a%TYPE) RETURN VARCHAR2 IS BEGIN RETURN a; END", true).is_some());
        // The default grammar's shape is not this one.
        assert_eq!(head("() BEGIN SELECT 1; END", false), None);
        assert_eq!(head("() RETURNS INT RETURN 1", true), None);
    }

    #[test]
    fn bodies_and_params() {
        let outline = |s: &str| body_outline(&tokens(s).unwrap());
        assert!(outline("BEGIN NULL; END"));
        assert!(outline(
            "a INT; BEGIN a:=1; EXCEPTION WHEN OTHERS THEN NULL; END p1;"
        ));
        assert!(!outline("BEGIN NULL;"));
        assert!(!outline("a INT; END"));
        let err = |s: &str, f: bool, a: bool| body_error(&tokens(s).unwrap(), f, a);
        assert_eq!(err("BEGIN RAISE xxx; END", false, false), Some(1319));
        assert_eq!(
            err("xxx EXCEPTION; BEGIN RAISE xxx; END", false, false),
            None
        );
        assert_eq!(err("BEGIN RAISE no_data_found; END", false, false), None);
        assert_eq!(
            err("BEGIN FETCH GROUP NEXT ROW; END", false, false),
            Some(4105)
        );
        assert_eq!(err("BEGIN NULL; END", true, false), Some(1320));
        assert_eq!(err("BEGIN RETURN 10; END", false, false), Some(1313));
        assert_eq!(err("BEGIN RETURN; END", false, false), None);
        assert_eq!(err("BEGIN RETURN; END", true, false), Some(1064));
        let r = crate::objects::Tbl {
            db: "test".into(),
            name: "p1".into(),
        };
        let end = |s: &str| end_name_matches(&tokens(s).unwrap(), &r, "test");
        assert!(end("BEGIN NULL; END"));
        assert!(end("BEGIN NULL; END test.P1;"));
        assert!(!end("BEGIN NULL; END test2.p1"));
        assert!(!end("BEGIN NULL; END p2"));
        assert_eq!(
            unread(&tokens("a ROW(a INT); BEGIN NULL; END").unwrap()),
            None
        );
        assert_eq!(unread(&tokens("BEGIN a.b:=1; END").unwrap()), None);
        assert_eq!(
            err(
                "e EXCEPTION; BEGIN RETURN 1; EXCEPTION WHEN e THEN RETURN 2; WHEN e THEN \
                 RETURN 3; END",
                true,
                false
            ),
            Some(1413)
        );
        assert_eq!(err("BEGIN RETURN 1; END", true, true), Some(4106));
        let p = |s: &str| params(&tokens(s).unwrap());
        assert_eq!(
            p("(a INT, b IN OUT INT) AS"),
            Ok(vec!["a".to_owned(), "b".to_owned()])
        );
        assert_eq!(
            p("(a INT, A VARCHAR(10)) AS"),
            Err(super::super::routine_body::ER_SP_DUP_PARAM)
        );
    }
}
