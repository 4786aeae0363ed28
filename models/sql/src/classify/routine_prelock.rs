//! Prelocking of a stored function's body: a statement that calls a stored function
//! opens, at its start, every table the function's body uses, with the lock its body
//! statement needs (SR for a read, SW for a write), besides the function's own S
//! (MariaDB `sql/sql_base.cc`: `open_tables` → `open_and_process_routine` →
//! `DML_prelocking_strategy::handle_routine` → `sp_head::add_used_tables_to_table_list`,
//! the body's tables appended to the statement's table list; `sp_head::merge_table_list`
//! gives each its lock type from the body statement that uses it).
//!
//! The model classifies each body statement as a statement of its own (in the routine's
//! schema) and takes the parts of its plan: the same tables, lock types and durations as
//! those statements run alone (transaction-long table locks; measured in
//! `suite/sp-prelocking-function.mdl`). An expression (a RETURN value, a SET, a
//! condition) contributes the tables of its subqueries and the stored functions it
//! calls (their S and their bodies' tables, each function once). A body statement of any
//! other kind (CALL, DDL), or a DML statement that calls a stored function, is refused.

use super::{classify, kw_eq, Cx, Part, Stmt, Tbl, Tok};
use crate::catalog::Catalog;
use crate::kind::Kind;
use crate::routines::{Body, RoutineKind};

/// Body statement kinds whose plan's parts are the prelocked tables.
const DML: &[Kind] = &[
    Kind::Select,
    Kind::SelectForUpdate,
    Kind::SelectShare,
    Kind::Insert,
    Kind::Update,
    Kind::Delete,
    Kind::SelectJoin,
    Kind::SelectJoinRev,
    Kind::SelectSubquery,
    Kind::InsertSelect,
    Kind::InsertSelectRev,
    Kind::UpdateMulti,
    Kind::UpdateSubquery,
    Kind::DeleteMulti,
];

/// Body statements the model does not prelock (the rest are expressions, SET, DO, KILL,
/// SAVEPOINT: the tables of their subqueries).
const NOT_PRELOCKED: &[&str] = &[
    "call",
    "create",
    "drop",
    "alter",
    "rename",
    "truncate",
    "commit",
    "rollback",
    "start",
    "prepare",
    "execute",
    "deallocate",
    "flush",
    "reset",
    "lock",
    "unlock",
    "grant",
    "revoke",
    "show",
    "analyze",
    "check",
    "optimize",
    "repair",
    "checksum",
    "load",
    "handler",
    "backup",
    "xa",
    "with",
];

/// The parts the body statements `stmts` of function `f` add to a statement calling it.
pub(super) fn body_parts(
    f: &Tbl,
    stmts: &[String],
    cat: &Catalog,
    has_row: &dyn Fn(&str) -> bool,
) -> Result<Vec<Part>, String> {
    let mut parts = Vec::new();
    // Seeded bug `conform_no_prelocking`: the body's tables are not prelocked.
    if cfg!(mdl_bug = "conform_no_prelocking") {
        return Ok(parts);
    }
    let mut seen = vec![f.name.to_lowercase()];
    nested_parts(f, stmts, cat, has_row, &mut seen, &mut parts)?;
    Ok(parts)
}

/// The parts of one body, and of the stored functions its expressions call: each such
/// function's S (`select_function`) and its own body's parts, once per function (the
/// statement's routine set, `Sroutine_hash_entry`: recursion adds nothing).
fn nested_parts(
    f: &Tbl,
    stmts: &[String],
    cat: &Catalog,
    has_row: &dyn Fn(&str) -> bool,
    seen: &mut Vec<String>,
    parts: &mut Vec<Part>,
) -> Result<(), String> {
    for s in stmts {
        let toks = super::tokens(s)?;
        let Some(first) = toks.first() else { continue };
        let is_dml = ["select", "insert", "update", "delete", "replace"]
            .iter()
            .any(|w| kw_eq(first, w));
        if is_dml {
            parts.extend(statement_parts(f, s, cat, has_row)?);
            continue;
        }
        if NOT_PRELOCKED.iter().any(|w| kw_eq(first, w)) {
            return Err(format!(
                "a body statement `{s}` of the stored program `{f}`: its prelocking is not \
                 modelled"
            ));
        }
        for q in subqueries(&toks) {
            parts.extend(statement_parts(f, &super::lex::render(q), cat, has_row)?);
        }
        for w in toks.windows(2) {
            let (Tok::Word { text, .. }, Tok::P('(')) = (&w[0], &w[1]) else {
                continue;
            };
            let g = Tbl {
                db: f.db.clone(),
                name: text.clone(),
            };
            let Some(body) = cat.routines.get(RoutineKind::Function, &g) else {
                continue;
            };
            if seen.contains(&text.to_lowercase()) || !has_row(Kind::SelectFunction.as_str()) {
                continue;
            }
            seen.push(text.to_lowercase());
            let cx = super::Cx {
                sql: s,
                db: &f.db,
                cat,
                has_row,
            };
            let bind = super::Bind {
                r: Some(g.clone()),
                ..super::Bind::default()
            };
            parts.push(cx.part(Kind::SelectFunction, bind));
            if body.uses_tables {
                nested_parts(&g, &body.stmts, cat, has_row, seen, parts)?;
            }
        }
    }
    Ok(())
}

/// Words that make a procedure's body other than straight-line (the statements a CALL
/// runs would depend on its data).
const FLOW: &[&str] = &[
    "if", "case", "while", "loop", "repeat", "leave", "iterate", "handler", "cursor", "signal",
    "resignal", "open", "fetch", "close", "return",
];

/// Whether a body (its tokens) has control flow.
pub(super) fn has_flow(body: &[Tok]) -> bool {
    body.iter().any(|t| FLOW.iter().any(|w| kw_eq(t, w)))
        || body.windows(3).any(|w| {
            // FOR i IN (a loop), GET [CURRENT] DIAGNOSTICS, ROW( / ROW TYPE, TYPE OF:
            // for the body's compiler, which plays or refuses them.
            (kw_eq(&w[0], "for") && kw_eq(&w[2], "in"))
                || (kw_eq(&w[0], "get") && (kw_eq(&w[1], "diagnostics") || kw_eq(&w[1], "current")))
                || (kw_eq(&w[0], "row") && (w[1] == Tok::P('(') || kw_eq(&w[1], "type")))
                || (kw_eq(&w[0], "type") && kw_eq(&w[1], "of"))
        })
}

/// `CALL p()` of a procedure whose straight-line body runs one DML statement (the rest
/// SET / DO / KILL without tables): each body statement runs as a statement of its own,
/// with its own locks (`sp_instr_stmt::execute` → `sp_lex_keeper::reset_lex_and_exec_core`,
/// sql/sp_head.cc; the CALL itself locks nothing), so the CALL plays as that statement,
/// classified in the procedure's schema. Other bodies are refused.
pub(super) fn call_one_statement(
    p: &Tbl,
    body: &Body,
    cat: &Catalog,
    has_row: &dyn Fn(&str) -> bool,
) -> Result<Stmt, String> {
    let refuse = |why: &str| {
        Err(format!(
            "CALL of the stored procedure `{p}`: {why}; its body's statements are not played"
        ))
    };
    if body.flow {
        return refuse("a body with control flow");
    }
    let mut dml = Vec::new();
    for s in &body.stmts {
        let toks = super::tokens(s)?;
        let Some(first) = toks.first() else { continue };
        if ["select", "insert", "update", "delete", "replace"]
            .iter()
            .any(|w| kw_eq(first, w))
        {
            dml.push(s);
        } else if NOT_PRELOCKED.iter().any(|w| kw_eq(first, w)) || !subqueries(&toks).is_empty() {
            return refuse(&format!("a body statement `{s}`"));
        }
    }
    let [one] = dml.as_slice() else {
        return refuse("a body of several DML statements");
    };
    let parts = statement_parts(p, one, cat, has_row)?;
    if parts.is_empty() {
        return refuse("a body statement that locks no table");
    }
    match classify(one, &p.db, cat, has_row) {
        Ok(st @ Stmt::Learned(_)) => Ok(st),
        _ => refuse("a body statement the model does not play"),
    }
}

/// A body statement classified alone in the function's schema: its parts.
fn statement_parts(
    f: &Tbl,
    sql: &str,
    cat: &Catalog,
    has_row: &dyn Fn(&str) -> bool,
) -> Result<Vec<Part>, String> {
    let calls_function = cat.routines.functions().any(|g| {
        sql.to_lowercase()
            .contains(&format!("{}(", g.name.to_lowercase()))
            || sql
                .to_lowercase()
                .contains(&format!("{} (", g.name.to_lowercase()))
    });
    if calls_function {
        return Err(format!(
            "the stored function `{f}` calls a stored function in `{sql}`: nested \
             prelocking is not modelled"
        ));
    }
    match classify(sql, &f.db, cat, has_row) {
        Ok(Stmt::Learned(p)) if DML.contains(&p.kind) && p.lock_tables.is_empty() => Ok(p.parts),
        Ok(Stmt::NoLocks) => Ok(Vec::new()),
        Ok(_) => Err(format!(
            "the stored function `{f}`'s body statement `{sql}` is not a DML statement the \
             model prelocks"
        )),
        Err(e) => Err(format!("the stored function `{f}`'s body: {e}")),
    }
}

/// The `( SELECT ... )` subqueries of an expression, outermost first.
fn subqueries(t: &[Tok]) -> Vec<&[Tok]> {
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < t.len() {
        if t[i] == Tok::P('(') && kw_eq(&t[i + 1], "select") {
            let mut depth = 0usize;
            let end = (i..t.len()).find(|&j| {
                match t[j] {
                    Tok::P('(') => depth += 1,
                    Tok::P(')') => depth -= 1,
                    _ => {}
                }
                depth == 0
            });
            if let Some(e) = end {
                out.push(&t[i + 1..e]);
                i = e;
            }
        }
        i += 1;
    }
    out
}

/// A single-table INSERT / REPLACE / UPDATE / DELETE on a table with triggers whose
/// bodies use tables: the statement as if the table had none, plus the tables of the
/// bodies of the triggers its event fires, prelocked
/// (`DML_prelocking_strategy::handle_table` → `Table_triggers_list::add_tables_and_routines_for_triggers`,
/// sql/sql_base.cc, sql/sql_trigger.cc: only the triggers of the statement's events,
/// `TABLE_LIST::trg_event_map`). None when the statement is not one of these or its
/// table has no such trigger (other statements on it are refused by `Cx::no_view`).
pub(super) fn triggers(cx: &Cx, toks: &[Tok]) -> Option<Result<Stmt, String>> {
    let (t, events) = target(toks, cx.db)?;
    let bodies = cx.cat.prelocking_triggers_named(&t);
    if bodies.is_empty() {
        return None;
    }
    let cat = cx.cat.without_prelocking(&t);
    let mut st = match super::classify_inner(cx.sql, cx.db, &cat, cx.has_row) {
        Ok(st @ Stmt::Learned(_)) => st,
        Ok(_) => return None,
        Err(e) => return Some(Err(e)),
    };
    let Stmt::Learned(plan) = &mut st else {
        return None;
    };
    // Each part names the trigger that adds it (`model/trigger_reopen.rs`).
    for (tr, b) in bodies
        .into_iter()
        .filter(|(_, b)| events.contains(&b.event.as_str()))
    {
        // The bodies are classified without this table's triggers: a body that writes the
        // table (or a cycle of triggers) adds its tables once, as the server's routine
        // set does, instead of recursing without end.
        match body_parts(&t, &b.stmts, &cat, cx.has_row) {
            Ok(parts) => plan.parts.extend(parts.into_iter().map(|mut p| {
                p.bind.tr = Some(tr.clone());
                p
            })),
            Err(e) => return Some(Err(format!("`{}`: a trigger on `{t}`: {e}", cx.sql))),
        }
    }
    Some(Ok(st))
}

/// A statement of this kind on a table fires none of its triggers, so their bodies'
/// tables are not prelocked: a read (`DML_prelocking_strategy::handle_table`,
/// sql/sql_base.cc, adds a table's triggers only for the events of
/// `TABLE_LIST::trg_event_map`, which `set_trg_event_type_for_tables` leaves empty for a
/// table that is only read). Measured: open/refused/pt-osc-triggers.mdl, pt-osc's
/// `INSERT ... SELECT ... FROM t1 LOCK IN SHARE MODE` copy of a table with its triggers
/// holds only t1's SR besides the target's lock.
pub(super) fn fires_no_trigger(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::Select | Kind::SelectShare | Kind::SelectForUpdate
    )
}

/// The table a single-table DML statement changes, and the trigger events it fires.
fn target(toks: &[Tok], db: &str) -> Option<(Tbl, Vec<&'static str>)> {
    let first = toks.first()?;
    let verb = ["insert", "replace", "update", "delete"]
        .into_iter()
        .find(|w| kw_eq(first, w))?;
    let mut i = 1;
    let skip = [
        "low_priority",
        "delayed",
        "high_priority",
        "ignore",
        "quick",
    ];
    while toks
        .get(i)
        .is_some_and(|t| skip.iter().any(|w| kw_eq(t, w)))
    {
        i += 1;
    }
    let into = match verb {
        "delete" => "from",
        "update" => "",
        _ => "into",
    };
    if !into.is_empty() && toks.get(i).is_some_and(|t| kw_eq(t, into)) {
        i += 1;
    } else if verb == "delete" {
        return None;
    }
    let Some(Tok::Word { text: a, .. }) = toks.get(i) else {
        return None;
    };
    let t = match (toks.get(i + 1), toks.get(i + 2)) {
        (Some(Tok::P('.')), Some(Tok::Word { text: b, .. })) => {
            i += 3;
            Tbl {
                db: a.clone(),
                name: b.clone(),
            }
        }
        _ => {
            i += 1;
            Tbl {
                db: db.to_owned(),
                name: a.clone(),
            }
        }
    };
    let next_ok = match verb {
        "update" => toks.get(i).is_some_and(|x| kw_eq(x, "set")),
        "delete" => toks
            .get(i)
            .is_none_or(|x| ["where", "order", "limit"].iter().any(|w| kw_eq(x, w))),
        _ => true,
    };
    if !next_ok {
        return None;
    }
    let duplicate = toks.iter().any(|x| kw_eq(x, "duplicate"));
    let events = match verb {
        "replace" => vec!["insert", "delete"],
        "insert" if duplicate => vec!["insert", "update"],
        "insert" => vec!["insert"],
        "update" => vec!["update"],
        _ => vec!["delete"],
    };
    Some((t, events))
}
