//! The instructions of a CALL's body that are no statement, run as `sp_head::execute`
//! runs them (MariaDB sql/sp_head.cc; instructions in sql/sp_instr.cc): `sp_instr_set`,
//! `sp_instr_jump`, `sp_instr_jump_if_not`, `sp_instr_hpush_jump`, `sp_instr_hpop`,
//! `sp_instr_hreturn`, the cursor instructions, and the conditions the body raises.
//! Statements (`sp_instr_stmt`, and `sp_instr_copen`'s SELECT) are played by
//! `model/call.rs` as statements of their own, with their locks.
//!
//! A failed statement (an error, ER_LOCK_WAIT_TIMEOUT, ER_LOCK_DEADLOCK) goes to a
//! handler as `sp_rcontext::handle_sql_condition` sends it: the innermost block's
//! handlers that are visible (not those of a handler body running, nor of its block),
//! the most specific first (an error number, then an SQLSTATE, then SQLEXCEPTION /
//! NOT FOUND; `sp_pcontext::find_handler`); a CONTINUE handler's body runs and the body
//! goes on after the failed instruction (after the nested CALL it came out of); an EXIT
//! handler's body runs and its block is left. The failed statement's locks went at its
//! end as any statement's; those taken before stay as they were. A KILL QUERY of a
//! statement waiting for a lock is ER_QUERY_INTERRUPTED there, which a handler takes too
//! (measured: the body goes on; without a handler the CALL ends killed).

use super::call::{CallRun, Flow};
use super::SqlModel;
use crate::classify::routine_expr::{eval, truth, Val};
use crate::classify::routine_program::{
    sqlstate, Cond, Instr, Program, Target, ER_SP_CURSOR_ALREADY_OPEN, ER_SP_CURSOR_NOT_OPEN,
    ER_SP_FETCH_NO_DATA,
};
use mdl_core::Outcome;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The most instructions a CALL runs (a loop that does not end within them is refused).
pub(super) const MAX_STEPS: usize = 10_000;

const ER_LOCK_WAIT_TIMEOUT: u32 = 1205;
const ER_LOCK_DEADLOCK: u32 = 1213;
const ER_QUERY_INTERRUPTED: u32 = 1317;

impl CallRun {
    pub(super) fn new(prog: Program) -> CallRun {
        let mut locals = vec![Val::Null; prog.locals];
        let user = BTreeMap::new();
        for (slot, e) in &prog.args {
            locals[*slot] = eval(e, &[], &|_| Val::Unknown);
        }
        CallRun {
            cursors: vec![None; prog.cursors],
            prog: Arc::new(prog),
            pc: 0,
            locals,
            user,
            handlers: Vec::new(),
            frames: Vec::new(),
            returns: Vec::new(),
            steps: 0,
            user_lock: false,
        }
    }

    fn value(&self, e: &crate::classify::routine_expr::Expr) -> Val {
        eval(e, &self.locals, &|n| {
            self.user.get(n).cloned().unwrap_or(Val::Unknown)
        })
    }

    fn set_unknown(&mut self, into: &[Target]) {
        for t in into {
            match t {
                Target::Local(i) => self.locals[*i] = Val::Unknown,
                Target::User(n) => {
                    self.user.insert(n.clone(), Val::Unknown);
                }
            }
        }
    }
}

impl SqlModel {
    fn run_mut(&mut self, s: usize) -> Result<&mut CallRun, String> {
        self.sessions[s]
            .call
            .as_mut()
            .ok_or_else(|| "no CALL runs".to_owned())
    }

    /// Runs the instructions that are no statement up to the next statement (or the end).
    pub(super) fn flow_until_statement(&mut self, s: usize) -> Result<Flow, String> {
        loop {
            let c = self.run_mut(s)?;
            c.steps += 1;
            if c.steps > MAX_STEPS {
                return Err(format!(
                    "a CALL that runs more than {MAX_STEPS} instructions (a loop the model \
                     does not see end) is not played"
                ));
            }
            let prog = c.prog.clone();
            let Some(instr) = prog.code.get(c.pc) else {
                return Ok(Flow::Done(Outcome::Ok));
            };
            c.pc += 1;
            if let Some(f) = self.flow_one(s, instr)? {
                return Ok(f);
            }
        }
    }

    /// Runs the instructions that neither lock nor raise up to the next that may (so that
    /// a CALL stopped between two statements stands before a statement, and one with
    /// none left ends).
    pub(super) fn settle(&mut self, s: usize) -> Result<(), String> {
        loop {
            let Some(c) = self.sessions[s].call.as_mut() else {
                return Ok(());
            };
            let prog = c.prog.clone();
            let quiet = matches!(
                prog.code.get(c.pc),
                Some(
                    Instr::Set(..)
                        | Instr::SetUser(..)
                        | Instr::Jump(_)
                        | Instr::JumpIfNot(..)
                        | Instr::HPush { .. }
                        | Instr::HPop(_)
                        | Instr::HReturn { .. }
                        | Instr::Enter { .. }
                        | Instr::Exit
                )
            );
            if !quiet {
                return Ok(());
            }
            c.steps += 1;
            if c.steps > MAX_STEPS {
                return Err(format!(
                    "a CALL that runs more than {MAX_STEPS} instructions (a loop the model \
                     does not see end) is not played"
                ));
            }
            let at = c.pc;
            c.pc += 1;
            self.flow_one(s, &prog.code[at])?;
        }
    }

    /// One instruction (the CALL's `pc` already past it): Some when a statement runs or
    /// the CALL ends.
    fn flow_one(&mut self, s: usize, instr: &Instr) -> Result<Option<Flow>, String> {
        let c = self.run_mut(s)?;
        match instr {
            Instr::Stmt { sql, into } => {
                c.set_unknown(into);
                return Ok(Some(Flow::Run(sql.clone())));
            }
            Instr::Set(slot, e) => c.locals[*slot] = c.value(e),
            Instr::SetUser(n, e) => {
                let v = c.value(e);
                c.user.insert(n.clone(), v);
            }
            Instr::Jump(d) => c.pc = *d,
            Instr::JumpIfNot(e, d) => {
                let v = c.value(e);
                // Seeded bug `conform_call_branch_inverted`: IF / WHILE take the other way.
                let inverted = cfg!(mdl_bug = "conform_call_branch_inverted");
                match truth(&v) {
                    Some(t) if t != inverted => {}
                    Some(_) => c.pc = *d,
                    None => {
                        return Err(format!(
                            "a condition `{e:?}` over a value read from a table (which \
                             branch runs depends on data the model does not keep)"
                        ))
                    }
                }
            }
            Instr::HPush { skip, .. } => {
                let depth = c.frames.len();
                c.handlers.push((c.pc - 1, depth));
                c.pc = *skip;
            }
            Instr::HPop(n) => {
                let keep = c.handlers.len().saturating_sub(*n);
                c.handlers.truncate(keep);
            }
            Instr::HReturn { exit_dest } => {
                let (ret, _) = c.returns.pop().ok_or("a handler's end outside a handler")?;
                c.pc = exit_dest
                    .or(ret)
                    .ok_or("a CONTINUE handler with no return")?;
            }
            Instr::Enter { end } => {
                let hl = c.handlers.len();
                c.frames.push((*end, hl));
            }
            Instr::Exit => {
                c.frames.pop();
            }
            Instr::Raise { code, state } => return self.raise(s, *code, Some(state.clone())),
            Instr::COpen { .. } | Instr::CFetch { .. } | Instr::CClose(_) | Instr::CNext { .. } => {
                return self.cursor_instr(s, instr)
            }
        }
        Ok(None)
    }

    /// OPEN (its SELECT runs as a statement), FETCH, CLOSE (`sp_cursor::open` /
    /// `fetch` / `close`, sql/sp_rcontext.cc).
    fn cursor_instr(&mut self, s: usize, instr: &Instr) -> Result<Option<Flow>, String> {
        let rows = match instr {
            Instr::COpen {
                tables: Some(ts), ..
            } if ts.is_empty() => Some(1),
            Instr::COpen {
                tables: Some(ts), ..
            } if ts.iter().all(|t| self.catalog.has_no_row(t)) => Some(0),
            _ => None,
        };
        let c = self.run_mut(s)?;
        let raise = match instr {
            Instr::COpen { cursor, sql, .. } => {
                if c.cursors[*cursor].is_some() {
                    Some(ER_SP_CURSOR_ALREADY_OPEN)
                } else {
                    c.cursors[*cursor] = Some(rows);
                    return Ok(Some(Flow::Run(sql.clone())));
                }
            }
            Instr::CClose(k) => c.cursors[*k]
                .take()
                .is_none()
                .then_some(ER_SP_CURSOR_NOT_OPEN),
            Instr::CFetch { cursor, into } => match c.cursors[*cursor] {
                None => Some(ER_SP_CURSOR_NOT_OPEN),
                Some(Some(0)) => Some(ER_SP_FETCH_NO_DATA),
                Some(Some(n)) => {
                    c.cursors[*cursor] = Some(Some(n - 1));
                    c.set_unknown(into);
                    None
                }
                Some(None) => {
                    return Err("a FETCH from a cursor over a table whose row count the \
                                model does not know"
                        .into())
                }
            },
            // A FOR loop's fetch (`classify/routine_for_cursor.rs`): no NOT FOUND, the
            // loop ends.
            Instr::CNext { cursor, into, done } => match c.cursors[*cursor] {
                None => Some(ER_SP_CURSOR_NOT_OPEN),
                Some(Some(0)) => {
                    c.pc = *done;
                    None
                }
                Some(Some(n)) => {
                    c.cursors[*cursor] = Some(Some(n - 1));
                    c.set_unknown(into);
                    None
                }
                Some(None) => {
                    return Err("a FOR loop over a cursor over a table whose row count the \
                                model does not know"
                        .into())
                }
            },
            _ => None,
        };
        match raise {
            Some(code) => self.raise(s, code, None),
            None => Ok(None),
        }
    }

    /// A condition the body raises: to its handler, or the CALL ends with the error.
    fn raise(
        &mut self,
        s: usize,
        code: u32,
        state: Option<String>,
    ) -> Result<Option<Flow>, String> {
        if self.catch(s, code, state)? {
            return Ok(None);
        }
        self.sessions[s].session.last_error = Some(code);
        Ok(Some(Flow::Done(Outcome::Error)))
    }

    /// A statement of the CALL failed with `o`: true when a handler takes it (the body
    /// goes on there).
    pub(super) fn caught(&mut self, s: usize, o: Outcome) -> Result<bool, String> {
        let code = match o {
            Outcome::Error => self.sessions[s].session.last_error,
            Outcome::Deadlock => Some(ER_LOCK_DEADLOCK),
            Outcome::Timeout => Some(ER_LOCK_WAIT_TIMEOUT),
            // Measured: a KILL QUERY of a CALL waiting for a lock in its body is
            // ER_QUERY_INTERRUPTED there, which a handler takes (and the body goes on).
            Outcome::Killed => Some(ER_QUERY_INTERRUPTED),
            _ => None,
        };
        let Some(code) = code else { return Ok(false) };
        let hit = self.catch(s, code, None)?;
        if hit {
            self.sessions[s].session.last_error = None;
        }
        Ok(hit)
    }

    /// Finds the handler of condition `code` (its SQLSTATE `state`, else the error's) and
    /// starts its body (`sp_rcontext::handle_sql_condition`).
    fn catch(&mut self, s: usize, code: u32, state: Option<String>) -> Result<bool, String> {
        let state = state.or_else(|| sqlstate(code).map(str::to_owned));
        let c = self.run_mut(s)?;
        let Some(k) = find_handler(c, code, state.as_deref())? else {
            return Ok(false);
        };
        let (push_pc, depth) = c.handlers[k];
        let Instr::HPush { exit, block, .. } = &c.prog.code[push_pc] else {
            return Err("a handler that is no HPush".into());
        };
        let (exit, block) = (*exit, *block);
        // The failed instruction may be in nested CALLs the handler's frame made: they end.
        let mut ret = c.pc;
        if c.frames.len() > depth {
            ret = c.frames[depth].0;
            c.frames.truncate(depth);
        }
        let first = first_of_block(c, k, block);
        if exit {
            let last = (k..c.handlers.len())
                .take_while(|&j| handler_block(c, j) == Some(block))
                .last()
                .unwrap_or(k);
            c.handlers.truncate(last + 1);
        }
        c.returns.retain(|(_, visible)| *visible <= first);
        c.returns.push(((!exit).then_some(ret), first));
        c.pc = push_pc + 1;
        Ok(true)
    }
}

fn handler_block(c: &CallRun, j: usize) -> Option<usize> {
    match c.prog.code.get(c.handlers.get(j)?.0)? {
        Instr::HPush { block, .. } => Some(*block),
        _ => None,
    }
}

/// The first handler of `block` at or below `k` (the handlers its body does not see).
fn first_of_block(c: &CallRun, k: usize, block: usize) -> usize {
    let mut f = k;
    while f > 0 && handler_block(c, f - 1) == Some(block) {
        f -= 1;
    }
    f
}

/// The handler that takes condition `code` / `state`: among the visible handlers, the
/// innermost block that has one, its most specific (`sp_pcontext::find_handler`: an
/// error number, then an SQLSTATE, then SQLEXCEPTION / SQLWARNING / NOT FOUND).
fn find_handler(c: &CallRun, code: u32, state: Option<&str>) -> Result<Option<usize>, String> {
    let visible = c.returns.last().map_or(c.handlers.len(), |r| r.1);
    let mut best: Option<(usize, u8, usize)> = None;
    for k in (0..visible.min(c.handlers.len())).rev() {
        let Instr::HPush { conds, block, .. } = &c.prog.code[c.handlers[k].0] else {
            continue;
        };
        if best.is_some_and(|(_, _, b)| b != *block) {
            break;
        }
        for cond in conds {
            let rank = rank(cond, code, state)?;
            if rank > 0 && best.is_none_or(|(_, r, _)| rank > r) {
                best = Some((k, rank, *block));
            }
        }
    }
    Ok(best.map(|b| b.0))
}

/// How specifically `cond` names the condition (0: it does not).
fn rank(cond: &Cond, code: u32, state: Option<&str>) -> Result<u8, String> {
    let class = state.map(|s| s.get(..2).unwrap_or(""));
    Ok(match cond {
        Cond::Code(n) => 3 * u8::from(*n == code),
        Cond::State(x) => match state {
            Some(st) => 2 * u8::from(x == st),
            None => {
                return Err(format!(
                    "a handler FOR SQLSTATE '{x}' and error {code}, whose SQLSTATE the model \
                     does not know"
                ))
            }
        },
        Cond::Exception => u8::from(!matches!(class, Some("00" | "01" | "02"))),
        Cond::NotFound => u8::from(class == Some("02")),
        Cond::Warning => 0,
    })
}
