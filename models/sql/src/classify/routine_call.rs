//! `CALL p()` of a procedure whose body runs several statements: the instructions the
//! server runs, in order, each a statement of its own with its own locks (MariaDB
//! `sql/sp_head.cc`: `sp_head::execute` runs `sp_instr_stmt::execute` →
//! `sp_lex_keeper::reset_lex_and_exec_core` per instruction; at its end, outside a
//! multi-statement transaction, `thd->mdl_context.release_transactional_locks()`, else
//! the statement's locks only). A top-level CALL and a CALL inside a body (an "unrolled"
//! CALL) take no lock on the procedure (`open_and_process_routine`, sql/sql_base.cc:
//! "we do not take locks on top-level CALLs"; main/sp-lock.test part 4), so a nested
//! CALL is played as its procedure's instructions in place.
//!
//! Played (`model/call.rs`): a straight-line body (nested BEGIN ... END, DECLARE of
//! variables, SET, SELECT ... INTO, DML, DDL, transaction statements, CALLs of other
//! procedures of the catalog). Refused, clearly: control flow (IF, CASE, loops,
//! handlers, cursors: which statements run depends on the data), a DECLARE's DEFAULT
//! that reads a table, recursion, a procedure of another schema than the session's
//! (the server switches the default schema for the call), and arguments with
//! subqueries or stored functions.

use super::{kw_eq, tokens, Catalog, Cur, Tbl, Tok};
use crate::routines::{Body, RoutineKind};

/// The deepest nesting of CALLs the model expands (the server's limit on nested stored
/// program calls is the thread stack; a recursive CALL needs `max_sp_recursion_depth`,
/// refused here).
const MAX_DEPTH: usize = 8;

/// Statement verbs of a body (an item of the body's list that starts with none of
/// these, or with one followed by `(`, is a DECLARE's DEFAULT expression).
const VERBS: &[&str] = &[
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

/// The instructions of `CALL name(...)` when it calls a procedure of the catalog whose
/// body is not played by `routine_prelock::call_one_statement` (the caller tries that
/// first); `Err` when the body is refused; `None` when `sql` is not such a CALL.
pub fn call_instructions(
    sql: &str,
    db: &str,
    cat: &Catalog,
) -> Option<Result<Vec<String>, String>> {
    let toks = tokens(sql).ok()?;
    if !toks.first().is_some_and(|t| kw_eq(t, "call")) {
        return None;
    }
    let mut c = Cur {
        t: &toks,
        i: 1,
        sql,
    };
    let p = c.table(db).ok()?;
    let body = cat.routines.get(RoutineKind::Procedure, &p)?;
    let refuse = |why: String| Some(Err(format!("`{sql}`: {why}")));
    if !args_plain(&toks[c.i..], cat) {
        return refuse("CALL with a subquery or a stored function in its arguments".into());
    }
    if p.db != db {
        return refuse(format!(
            "CALL of the stored procedure `{p}` of another schema than the session's (the \
             server makes it the default schema for the call) is not modelled"
        ));
    }
    let mut out = Vec::new();
    let mut stack = vec![p.name.to_lowercase()];
    match expand(&p, body, cat, &mut stack, &mut out) {
        Ok(()) => Some(Ok(out)),
        Err(e) => refuse(e),
    }
}

/// Arguments without tables or stored functions (`(1, @x, 'a')`).
fn args_plain(rest: &[Tok], cat: &Catalog) -> bool {
    !rest.iter().any(|t| {
        kw_eq(t, "select")
            || matches!(t, Tok::Word { text, .. }
                if cat.routines.functions().any(|f| f.name == text.to_lowercase()))
    })
}

/// Appends the instructions of procedure `p`'s body to `out`, nested CALLs in place.
fn expand(
    p: &Tbl,
    body: &Body,
    cat: &Catalog,
    stack: &mut Vec<String>,
    out: &mut Vec<String>,
) -> Result<(), String> {
    if body.flow {
        return Err(format!(
            "CALL of the stored procedure `{p}`: a body with control flow (IF, CASE, loops, \
             handlers, cursors, RETURN) is not played: which of its statements run depends \
             on the data"
        ));
    }
    for s in &body.stmts {
        let toks = tokens(s)?;
        let Some(first) = toks.first() else { continue };
        let verb = VERBS.iter().any(|w| kw_eq(first, w)) && toks.get(1) != Some(&Tok::P('('));
        if !verb {
            // A DECLARE's DEFAULT: an `sp_instr_set`, which locks only the tables of its
            // subqueries.
            if toks.iter().any(|t| kw_eq(t, "select")) || calls_function(&toks, cat) {
                return Err(format!(
                    "CALL of the stored procedure `{p}`: a DECLARE ... DEFAULT `{s}` that \
                     reads a table or calls a stored function is not played"
                ));
            }
            continue;
        }
        if kw_eq(first, "call") {
            nested(p, &toks, cat, stack, out)?;
            continue;
        }
        out.push(s.clone());
    }
    Ok(())
}

/// A CALL inside a body: its procedure's instructions in place (no lock on it).
fn nested(
    p: &Tbl,
    toks: &[Tok],
    cat: &Catalog,
    stack: &mut Vec<String>,
    out: &mut Vec<String>,
) -> Result<(), String> {
    let sql = super::routine_prelock::text(toks);
    let mut c = Cur {
        t: toks,
        i: 1,
        sql: &sql,
    };
    let q = c.table(&p.db)?;
    if !args_plain(&toks[c.i..], cat) {
        return Err(format!(
            "`{sql}` in the body of `{p}`: a subquery or a stored function in its arguments"
        ));
    }
    if q.db != p.db {
        return Err(format!(
            "`{sql}` in the body of `{p}`: a procedure of another schema is not modelled"
        ));
    }
    let Some(body) = cat.routines.get(RoutineKind::Procedure, &q) else {
        return Err(format!(
            "`{sql}` in the body of `{p}`: a procedure the catalog does not have (the \
             server fails the CALL at that instruction, after the earlier ones ran)"
        ));
    };
    let name = q.name.to_lowercase();
    if stack.contains(&name) {
        return Err(format!(
            "`{sql}` in the body of `{p}`: a recursive CALL (max_sp_recursion_depth) is not \
             modelled"
        ));
    }
    if stack.len() >= MAX_DEPTH {
        return Err(format!(
            "CALLs nested deeper than {MAX_DEPTH} are not modelled"
        ));
    }
    stack.push(name);
    expand(&q, body, cat, stack, out)?;
    stack.pop();
    Ok(())
}

fn calls_function(toks: &[Tok], cat: &Catalog) -> bool {
    toks.windows(2).any(|w| {
        matches!(&w[0], Tok::Word { text, .. }
            if cat.routines.functions().any(|f| f.name == text.to_lowercase()))
            && w[1] == Tok::P('(')
    })
}
