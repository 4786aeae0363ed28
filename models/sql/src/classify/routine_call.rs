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
//! Played (`model/call.rs`, `model/call_flow.rs`): the body compiled by
//! `classify/routine_flow.rs` (nested BEGIN ... END, DECLARE of variables, cursors and
//! handlers, SET, SELECT ... INTO, DML, DDL, transaction statements, IF / CASE / WHILE /
//! REPEAT / LOOP with LEAVE / ITERATE, OPEN / FETCH / CLOSE, SIGNAL, CALLs of other
//! procedures of the catalog). Refused, clearly: a condition or value over data (a
//! column, a subquery, a function: which statements run would depend on it), a FETCH of
//! rows the model does not count, recursion, a procedure of another schema than the
//! session's (the server switches the default schema for the call), and arguments with
//! subqueries or stored functions.

use super::routine_flow::Compiler;
use super::routine_program::Program;
use super::{kw_eq, routine_text, tokens, Catalog, Cur, Tok};
use crate::routines::RoutineKind;

/// The compiled body of `CALL name(...)` when it calls a procedure of the catalog whose
/// body is not played by `routine_prelock::call_one_statement` (the caller tries that
/// first); `Err` when the body is refused; `None` when `sql` is not such a CALL.
pub fn call_instructions(sql: &str, db: &str, cat: &Catalog) -> Option<Result<Program, String>> {
    let toks = tokens(sql).ok()?;
    if super::routine_anon::is_compound(&toks) {
        return Some(super::routine_anon::instructions(sql, &toks, db, cat));
    }
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
    let mut comp = Compiler::new(cat, &p.db);
    comp.stack.push(p.name.to_lowercase());
    let args = routine_text::call_args(&toks[c.i..]);
    match comp.procedure(&p, body, &args) {
        Ok(slots) => Some(Ok(comp.finish(slots))),
        Err(e) => refuse(format!("CALL of the stored procedure `{p}`: {e}")),
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
