//! Stored routine and event statements (MariaDB `sql/sql_yacc.yy`): `CREATE [OR REPLACE]
//! [DEFINER = user] [AGGREGATE] PROCEDURE | FUNCTION | EVENT [IF NOT EXISTS] name ...`,
//! `DROP PROCEDURE | FUNCTION | EVENT [IF EXISTS] name`, `ALTER PROCEDURE | FUNCTION |
//! EVENT name ...`, `CALL name[(args)]`, and the statements that call a stored function
//! the catalog has.
//!
//! Routine DDL plays the learned rows (`lock_object_name`: BACKUP_DDL, the schema's IX,
//! the routine's X; [`crate::routines`]) once `classify/routine_block.rs` has read the
//! body (a parse error it finds fails the statement before any lock). A top-level
//! `CALL` takes no lock on its procedure (`open_and_process_routine`, sql/sql_base.cc:
//! "we do not take locks on top-level CALLs"), so a CALL of a procedure that does not
//! exist fails with ER_SP_DOES_NOT_EXIST having locked nothing (measured, whether its
//! schema exists or not); a CALL of one that exists runs its body's statements, each
//! with its own locks (`sp_instr_stmt::execute`): a body that locks nothing or runs one
//! DML statement is played here as that statement; a straight-line body of several
//! statements is played instruction by instruction (`classify/routine_call.rs`,
//! `model/call.rs`); a body with control flow is refused. A stored function named in a
//! statement is
//! locked S until the transaction ends (the `select_function` row), and its body's
//! tables are prelocked with it (`DML_prelocking_strategy::handle_routine`,
//! `classify/routine_prelock.rs`): `SELECT f()` / `DO f()` are played.

use super::event_schedule::{self, Clauses, Stop};
use super::routine_block::{read_in, Ctx, Why};
use super::{kw_eq, routine_body, routine_prelock, Bind, Cur, Cx, Effect, Plan, Stmt, Tbl, Tok};
use crate::kind::Kind;
use crate::routines::{
    Body, EventAlter, RoutineKind, RoutineOp, ER_EVENT_SAME_NAME, ER_SP_DOES_NOT_EXIST,
};

/// Words that make a routine body use tables (or run statements that may).
const TABLE_WORDS: &[&str] = &[
    "from", "into", "insert", "update", "delete", "replace", "select", "call", "table", "lock",
    "truncate", "alter", "drop", "create", "rename", "handler", "load", "flush", "optimize",
    "analyze", "repair", "check", "cursor", "execute", "prepare", "show", "describe", "explain",
    "values", "nextval", "setval", "lastval",
];

fn kind_word(t: Option<&Tok>) -> Option<RoutineKind> {
    match t {
        Some(t) if kw_eq(t, "procedure") => Some(RoutineKind::Procedure),
        Some(t) if kw_eq(t, "function") => Some(RoutineKind::Function),
        Some(t) if kw_eq(t, "event") => Some(RoutineKind::Event),
        _ => None,
    }
}

/// Skips `DEFINER = user` (`user`, `'u'@'h'`, `u@h`, `CURRENT_USER[()]`).
pub(super) fn skip_definer(c: &mut Cur) -> Result<(), String> {
    if !c.eat("definer") {
        return Ok(());
    }
    if !c.eat_p('=') {
        return Err(format!("expected `=` after DEFINER in `{}`", c.sql));
    }
    c.i += 1;
    if let Some(Tok::Word {
        text,
        quoted: false,
    }) = c.peek()
    {
        if text.starts_with('@') {
            c.i += 1;
            if text == "@" {
                c.i += 1;
            }
        }
    }
    if c.peek() == Some(&Tok::P('(')) {
        c.i += 1;
        c.eat_p(')');
    }
    Ok(())
}

/// The routine statement `toks` is, or None when it is not one.
pub(super) fn classify_routine(cx: &Cx, toks: &[Tok]) -> Option<Result<Stmt, String>> {
    // A definition's `/* ... */` comments are read as the server's lexer reads them
    // (`comments.rs`); the statement is then read without them.
    let resolved = crate::comments::code(cx.sql).and_then(|s| super::tokens(&s).ok());
    let toks = resolved.as_deref().unwrap_or(toks);
    let first = toks.first()?;
    let mut c = Cur {
        t: toks,
        i: 1,
        sql: cx.sql,
    };
    if kw_eq(first, "call") {
        return Some(call(cx, &mut c));
    }
    if let Some(st) = super::routine_diag::top_level(toks) {
        return Some(match st {
            Ok(st) => Ok(st),
            Err(Why::Fails(code)) => Ok(Stmt::Fails(code)),
            Err(Why::Refused(why)) => refuse(
                cx,
                &why.replace(
                    " in a stored program's body is not modelled (classify/routine_block.rs)",
                    " is not modelled (classify/routine_diag.rs)",
                ),
            ),
        });
    }
    let verb = ["create", "drop", "alter"]
        .into_iter()
        .find(|v| kw_eq(first, v))?;
    let or_replace = verb == "create" && c.eat("or") && c.eat("replace");
    if let Err(e) = skip_definer(&mut c) {
        return Some(Err(e));
    }
    c.eat("aggregate");
    let kind = kind_word(c.peek())?;
    c.i += 1;
    Some(ddl(cx, &mut c, verb, kind, or_replace))
}

fn refuse<T>(cx: &Cx, why: &str) -> Result<T, String> {
    Err(format!("`{}`: {why}", cx.sql))
}

fn ddl(
    cx: &Cx,
    c: &mut Cur,
    verb: &str,
    kind: RoutineKind,
    or_replace: bool,
) -> Result<Stmt, String> {
    let after_if = if verb == "create" { "not" } else { "exists" };
    if (verb == "create" || verb == "drop")
        && c.t.get(c.i).is_some_and(|t| kw_eq(t, "if"))
        && !c.t.get(c.i + 1).is_some_and(|t| kw_eq(t, after_if))
    {
        // IF is reserved (models/conformance/keywords.tsv), no name: `opt_if_not_exists` /
        // `opt_if_exists` want NOT / EXISTS next (storedproc.test `CREATE PROCEDURE if()`,
        // `DROP PROCEDURE IF EXISTSsp1`: 1064).
        return Ok(Stmt::Fails(super::ER_PARSE_ERROR));
    }
    let if_not_exists = verb == "create" && c.eat("if") && {
        c.expect("not")?;
        c.expect("exists")?;
        true
    };
    let if_exists = verb == "drop" && c.eat("if") && {
        c.expect("exists")?;
        true
    };
    if or_replace && if_not_exists {
        return refuse(cx, "CREATE OR REPLACE ... IF NOT EXISTS is not modelled");
    }
    let r = c.table(cx.db)?;
    let name_tok = &c.t[c.i - 1];
    let rest = &c.t[c.i..];
    if verb == "create" && super::reserved::is_reserved(name_tok) {
        // Measured: each reserved word as a routine or event name (classify/reserved.rs).
        return Ok(Stmt::Fails(super::ER_PARSE_ERROR));
    }
    if verb == "create" && !routine_body::safe_name(name_tok) {
        return refuse(
            cx,
            "a routine or event name the model cannot tell from a reserved word (quote it, \
             or give it a digit)",
        );
    }
    let has = |w: &str| rest.iter().any(|t| kw_eq(t, w));
    if kind == RoutineKind::Function && verb == "create" && has("soname") {
        return refuse(cx, "CREATE FUNCTION ... SONAME (a UDF) is not modelled");
    }
    // CREATE AGGREGATE FUNCTION: AGGREGATE comes before FUNCTION, before the name.
    let aggregate = kind == RoutineKind::Function
        && c.t[..c.i]
            .iter()
            .take_while(|t| !kw_eq(t, "function"))
            .any(|t| kw_eq(t, "aggregate"));
    let body = match read_definition(verb, kind, rest, aggregate) {
        Ok(b) => b,
        Err(Why::Refused(why)) => return refuse(cx, &why),
        Err(Why::Fails(code)) => return Ok(Stmt::Fails(code)),
    };
    let mut ev = Clauses::default();
    let mut check = None;
    if kind == RoutineKind::Event && verb != "drop" {
        match event_schedule::read(rest, cx.db, verb == "create") {
            Ok(c) => ev = c,
            Err(Stop::Parse) => return Ok(Stmt::Fails(super::ER_PARSE_ERROR)),
            Err(Stop::Check(code)) => check = Some(code),
            Err(Stop::Refused(why)) => {
                return refuse(cx, &format!("{} EVENT: {why}", verb.to_uppercase()))
            }
        }
    }
    let op = match verb {
        "create" => RoutineOp::Create {
            kind,
            r: r.clone(),
            body: Body {
                uses_tables: body_uses_tables(body.as_ref().map_or(rest, |b| b.0)),
                // A parameter anchored to a table: the CALL compiles it too (its table
                // is opened as the call starts, classify/routine_anchor.rs).
                flow: body.as_ref().is_none_or(|b| routine_prelock::has_flow(b.0))
                    || !super::routine_anchor::table_anchors(rest).is_empty(),
                stmts: body
                    .as_ref()
                    .map(|b| b.1.iter().map(|s| super::lex::render(s)).collect())
                    .unwrap_or_default(),
                src: super::lex::render(rest),
                preserve: ev.preserve == Some(true),
            },
            if_not_exists,
            or_replace,
            past: ev.past,
        },
        "drop" => {
            if !c.done() {
                return refuse(cx, "a routine DROP of several names is not modelled");
            }
            RoutineOp::Drop {
                kind,
                r: r.clone(),
                if_exists,
            }
        }
        _ => RoutineOp::Alter {
            kind,
            r: r.clone(),
            ev: EventAlter {
                preserve: ev.preserve,
                past: ev.past,
                rename: ev.rename.clone(),
            },
        },
    };
    let row = ddl_kind(&op);
    if !(cx.has_row)(row.as_str()) {
        return refuse(
            cx,
            &format!("`{row}` is not in this dialect's statement table"),
        );
    }
    if let Some(code) = check {
        return Ok(learned(cx, row, r, Effect::FailBeforeLocks(code)));
    }
    match &ev.rename {
        Some(n) => Ok(rename_event(cx, row, r, n.clone(), op)),
        None => Ok(learned(cx, row, r, Effect::Routine(op))),
    }
}

/// ALTER EVENT ... RENAME TO `n` (`Events::update_event`, sql/events.cc): the old name's
/// `lock_object_name`; the same name is ER_EVENT_SAME_NAME there; then the new name's
/// (BACKUP_DDL again, its schema's IX, its X), and a new schema that does not exist is
/// ER_BAD_DB_ERROR (`check_db_dir_existence`); then the catalog's errors
/// (`Routines::error`).
fn rename_event(cx: &Cx, row: Kind, r: Tbl, n: Tbl, op: RoutineOp) -> Stmt {
    let same = r.db == n.db && r.name.eq_ignore_ascii_case(&n.name);
    if same {
        return learned(cx, row, r, Effect::Fail(ER_EVENT_SAME_NAME));
    }
    let effect = if cx.cat.has_schema(&n.db) {
        Effect::Routine(op)
    } else {
        Effect::Fail(crate::routines::ER_BAD_DB)
    };
    let mut st = learned(cx, row, r, effect);
    if let Stmt::Learned(p) = &mut st {
        p.parts.push(cx.part(
            row,
            Bind {
                r: Some(n),
                ..Bind::default()
            },
        ));
    }
    st
}

/// The learned kind of a routine's or event's CREATE / DROP / ALTER.
fn ddl_kind(op: &RoutineOp) -> Kind {
    use RoutineKind::{Event, Function, Procedure};
    match op {
        RoutineOp::Create {
            kind: Procedure, ..
        } => Kind::CreateProcedure,
        RoutineOp::Create { kind: Function, .. } => Kind::CreateFunction,
        RoutineOp::Create { kind: Event, .. } => Kind::CreateEvent,
        RoutineOp::Drop {
            kind: Procedure, ..
        } => Kind::DropProcedure,
        RoutineOp::Drop { kind: Function, .. } => Kind::DropFunction,
        RoutineOp::Drop { kind: Event, .. } => Kind::DropEvent,
        RoutineOp::Alter {
            kind: Procedure, ..
        } => Kind::AlterProcedure,
        RoutineOp::Alter { kind: Function, .. } => Kind::AlterFunction,
        RoutineOp::Alter { kind: Event, .. } => Kind::AlterEvent,
        RoutineOp::Use { .. } => Kind::SelectFunction,
    }
}

/// A definition's body and its statements and expressions (`routine_block::read`).
type ReadBody<'a> = (&'a [Tok], Vec<&'a [Tok]>);

const SHAPE: &str = "a routine or event definition outside the shapes the model \
                     recognises (classify/routine_body.rs)";

/// The body of a CREATE (an ALTER EVENT's DO), read by `classify/routine_block.rs`: the
/// server parses it before any lock, so a parse error it gives fails the statement
/// without locks; a shape the model does not follow is refused.
fn read_definition<'a>(
    verb: &str,
    kind: RoutineKind,
    rest: &'a [Tok],
    aggregate: bool,
) -> Result<Option<ReadBody<'a>>, Why> {
    let after_do = || {
        rest.iter()
            .position(|t| kw_eq(t, "do"))
            .map(|i| &rest[i + 1..])
    };
    let shape = || Why::Refused(SHAPE.to_owned());
    let body = match (verb, kind) {
        ("create", RoutineKind::Event) => {
            let on_schedule =
                rest.len() > 2 && kw_eq(&rest[0], "on") && kw_eq(&rest[1], "schedule");
            Some(after_do().filter(|_| on_schedule).ok_or_else(shape)?)
        }
        ("create", k) => {
            let function = k == RoutineKind::Function;
            let parse = routine_body::syntax_error(rest, function);
            if let Some(code) = routine_body::params_error(rest).or(parse) {
                return Err(Why::Fails(code));
            }
            Some(routine_body::definition(rest, k == RoutineKind::Function).ok_or_else(shape)?)
        }
        ("alter", RoutineKind::Event) => after_do(),
        // ALTER PROCEDURE | FUNCTION takes `sp_a_chistics` only (sql/sql_yacc.yy: `ALTER
        // PROCEDURE_SYM sp_name sp_a_chistics`, each an `sp_chistic`): anything else is the
        // parser's error, before any lock (main/custom_aggregate_functions.test `alter
        // function f1 aggregate none`, funcs_1/storedproc.test `ALTER FUNCTION sf1 SELECT
        // sf1()`: ER_PARSE_ERROR).
        ("alter", _) if !routine_body::only_alter_chistics(rest) => {
            return Err(Why::Fails(super::ER_PARSE_ERROR))
        }
        _ => None,
    };
    let Some(b) = body else { return Ok(None) };
    let ctx = match kind {
        RoutineKind::Procedure => Ctx::Procedure,
        RoutineKind::Function => Ctx::Function,
        RoutineKind::Event => Ctx::Event,
    };
    let params = super::routine_decl::param_names(rest);
    let stmts = read_in(b, ctx, aggregate, params)?;
    Ok(Some((b, stmts)))
}

/// Whether the body may use tables.
pub(super) fn body_uses_tables(body: &[Tok]) -> bool {
    // A body that calls anything (`name(`: a stored function, or a type's length in
    // its declarations) counts as using tables: its stored functions would be locked.
    body.iter().any(|t| TABLE_WORDS.iter().any(|w| kw_eq(t, w)))
        || body
            .windows(2)
            .any(|w| matches!(w[0], Tok::Word { .. }) && w[1] == Tok::P('('))
}

fn learned(cx: &Cx, row: Kind, r: Tbl, effect: Effect) -> Stmt {
    let part = cx.part(
        row,
        Bind {
            r: Some(r),
            ..Bind::default()
        },
    );
    Stmt::Learned(Plan::of(row, vec![part], effect))
}

/// `CALL name[(args)]`.
fn call(cx: &Cx, c: &mut Cur) -> Result<Stmt, String> {
    let p = c.table(cx.db)?;
    let rest = &c.t[c.i..];
    if rest
        .iter()
        .any(|t| TABLE_WORDS.iter().any(|w| kw_eq(t, w)) || calls_function(cx, t))
    {
        return refuse(
            cx,
            "CALL with a subquery or a stored function in its arguments",
        );
    }
    match cx.cat.routines.get(RoutineKind::Procedure, &p) {
        // Its body runs no statement that locks (`BEGIN END`, `SET @x = 1`). One with
        // control flow is played by `model/call_flow.rs` (a SIGNAL, an endless loop).
        Some(b) if !b.uses_tables && !b.flow => return Ok(Stmt::NoLocks),
        Some(b) => {
            return routine_prelock::call_one_statement(&p, b, cx.cat, cx.has_row)
                .map_err(|e| format!("`{}`: {e}", cx.sql))
        }
        None => {}
    }
    Ok(Stmt::Fails(ER_SP_DOES_NOT_EXIST))
}

fn calls_function(cx: &Cx, t: &Tok) -> bool {
    matches!(t, Tok::Word { text, .. }
        if cx.cat.routines.functions().any(|f| f.name == text.to_lowercase()))
}

/// A statement that names a stored function of the catalog: `SELECT f()` / `DO f()` of
/// one whose body uses no table plays the `select_function` row (S on the function until
/// the transaction ends); any other is refused. None when it names none.
pub(super) fn function_calls(cx: &Cx, toks: &[Tok]) -> Option<Result<Stmt, String>> {
    let named: Vec<Tbl> = cx
        .cat
        .routines
        .functions()
        .filter(|f| {
            toks.windows(2).any(|w| {
                matches!(&w[0], Tok::Word { text, .. } if f.name == text.to_lowercase())
                    && w[1] == Tok::P('(')
            })
        })
        .cloned()
        .collect();
    let Some(f) = named.first() else {
        // Calls of functions the catalog does not have (`classify/missing_function.rs`).
        return super::missing_function::classify(cx, toks);
    };
    let simple = named.len() == 1
        && f.db == cx.db
        && toks.len() == 4
        && (kw_eq(&toks[0], "select") || kw_eq(&toks[0], "do"))
        && toks[2] == Tok::P('(')
        && toks[3] == Tok::P(')');
    if !simple || !(cx.has_row)(Kind::SelectFunction.as_str()) {
        return Some(refuse(
            cx,
            &format!(
                "a statement calling the stored function `{f}` (other than `SELECT {}()`) \
                 is not modelled",
                f.name
            ),
        ));
    }
    let body = cx.cat.routines.get(RoutineKind::Function, f)?;
    if let Some(why) = super::tokens(&body.src)
        .ok()
        .and_then(|def| super::routine_anchor::function_refusal(&def, cx.cat, &f.db))
    {
        return Some(refuse(cx, &why));
    }
    let prelocked = if body.uses_tables {
        match routine_prelock::body_parts(f, &body.stmts, cx.cat, cx.has_row) {
            Ok(p) => p,
            Err(e) => return Some(refuse(cx, &e)),
        }
    } else {
        Vec::new()
    };
    // The key is the name as this statement writes it (see `crate::routines`).
    let Tok::Word { text, .. } = &toks[1] else {
        return Some(refuse(cx, "expected a function name"));
    };
    let r = Tbl {
        db: cx.db.to_owned(),
        name: text.clone(),
    };
    let op = RoutineOp::Use {
        kind: RoutineKind::Function,
        r: r.clone(),
    };
    let mut st = learned(cx, Kind::SelectFunction, r, Effect::Routine(op));
    if let Stmt::Learned(p) = &mut st {
        p.parts.extend(prelocked);
    }
    Some(Ok(st))
}
