//! `CALL p()` of a procedure whose body runs several statements, played as the server
//! runs it: one instruction after the other, each a statement of its own with its own
//! locks (`sp_head::execute` → `sp_instr_stmt::execute` →
//! `sp_lex_keeper::reset_lex_and_exec_core`, MariaDB sql/sp_head.cc). At an instruction's
//! end, outside a multi-statement transaction, its transactional locks go
//! (`release_transactional_locks`: in autocommit each instruction commits as a
//! statement of its own does); inside BEGIN ... COMMIT they stay until the transaction
//! ends; an instruction that commits implicitly (DDL) does so. The CALL itself locks
//! nothing (`open_and_process_routine`, sql/sql_base.cc), so a DROP / ALTER / CREATE OR
//! REPLACE PROCEDURE of a procedure that another session is running does not wait for
//! it (the running call keeps its parsed copy, `sp_cache`).
//!
//! An instruction that waits makes the CALL wait; when it is granted, the next
//! instructions run on (`SqlModel::resume_calls`). An instruction that fails (an error,
//! a deadlock victim, a timeout, KILL QUERY) goes to the body's handler for it
//! (`model/call_flow.rs`), or ends the CALL with that outcome.
//!
//! The body is compiled when the CALL starts (`crate::classify::call_instructions`:
//! the server's instructions, jumps and handlers, `classify/routine_flow.rs`); the
//! control flow between statements runs in `model/call_flow.rs`; each statement is
//! classified when it runs, against the catalog as it is then, and all are classified
//! once at the start so that a body the model cannot play is refused before anything
//! runs.

use super::SqlModel;
use crate::classify::routine_expr::Val;
use crate::classify::routine_program::{Instr, Program};
use mdl_core::Outcome;
use std::collections::BTreeMap;
use std::sync::Arc;

/// What the body does next.
pub(super) enum Flow {
    /// A statement runs (its text).
    Run(String),
    /// The CALL ends with this outcome.
    Done(Outcome),
}

/// A CALL in progress: its compiled body and where it stands
/// (`model/call_flow.rs` runs the instructions that are no statement).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct CallRun {
    pub(super) prog: Arc<Program>,
    /// The next instruction.
    pub(super) pc: usize,
    pub(super) locals: Vec<Val>,
    /// User variables the body set (others: unknown to the model).
    pub(super) user: BTreeMap<String, Val>,
    /// Pushed handlers: the `HPush` instruction and the frame depth that pushed it.
    pub(super) handlers: Vec<(usize, usize)>,
    /// Nested CALLs running: their `end` and the handlers pushed before them.
    pub(super) frames: Vec<(usize, usize)>,
    /// Handler bodies running: where a CONTINUE handler returns, and how many handlers
    /// stay visible meanwhile.
    pub(super) returns: Vec<(Option<usize>, usize)>,
    /// Per cursor: closed (None), open with its rows left (None: not known).
    pub(super) cursors: Vec<Option<Option<usize>>>,
    /// Instructions run (a loop the model does not see end is refused).
    pub(super) steps: usize,
    /// The running instruction is a SELECT of user-lock functions (`model/user_locks.rs`).
    pub(super) user_lock: bool,
}

impl SqlModel {
    /// Plays `sql` when it is a CALL of a multi-statement procedure; None otherwise (the
    /// statement is played as any other, `SqlModel::step_one`).
    pub(super) fn call_begin(&mut self, s: usize, sql: &str) -> Option<Result<Outcome, String>> {
        let db = self.sessions[s].session.db.clone();
        let sql = &self.executed_text(s, sql)?;
        {
            // The one-statement bodies keep their measured path (`call_one_statement`).
            // (`BEGIN NOT ATOMIC ...` is no BEGIN of a transaction.)
            let has = self.has_row();
            let compound = crate::classify::is_compound_statement(sql);
            if !compound && crate::classify::classify(sql, &db, &self.catalog, &has).is_ok() {
                return None;
            }
        }
        let prog = match crate::classify::call_instructions(sql, &db, &self.catalog)? {
            Ok(v) => v,
            Err(e) => return Some(Err(e)),
        };
        if let Err(e) = self.call_check(&db, &prog) {
            return Some(Err(format!("`{sql}`: {e}")));
        }
        self.sessions[s].call = Some(CallRun::new(prog));
        Some(self.call_next(s))
    }

    /// Every instruction classifies against the catalog as it is now (a body the model
    /// cannot play is refused before anything runs).
    fn call_check(&self, db: &str, prog: &Program) -> Result<(), String> {
        let has = self.has_row();
        let sqls = prog.code.iter().filter_map(|i| match i {
            Instr::Stmt { sql, .. } | Instr::COpen { sql, .. } => Some(sql),
            _ => None,
        });
        for i in sqls {
            crate::classify::classify(i, db, &self.catalog, &has)
                .map_err(|e| format!("a body statement `{i}`: {e}"))?;
        }
        Ok(())
    }

    /// Runs the CALL's next instructions until one waits or fails or none is left.
    fn call_next(&mut self, s: usize) -> Result<Outcome, String> {
        loop {
            // Seeded bug `conform_call_first_instruction_only`: the rest of the body is
            // dropped after its first statement.
            if cfg!(mdl_bug = "conform_call_first_instruction_only") {
                if let Some(c) = self.sessions[s].call.as_mut() {
                    if c.steps > 0 && c.pc > 0 {
                        c.pc = c.prog.code.len();
                    }
                }
            }
            let sql = match self.flow_until_statement(s) {
                Ok(Flow::Run(sql)) => sql,
                Ok(Flow::Done(o)) => {
                    self.sessions[s].call = None;
                    return Ok(o);
                }
                Err(e) => {
                    self.sessions[s].call = None;
                    return Err(e);
                }
            };
            let user_lock = self.is_user_lock(s, &sql);
            if let Some(c) = self.sessions[s].call.as_mut() {
                c.user_lock = user_lock;
            }
            match self.step_one(s, &sql) {
                Ok(Outcome::Waiting) => return Ok(Outcome::Waiting),
                Ok(o) => {
                    if let Some(end) = self.instruction_end(s, o)? {
                        return Ok(end);
                    }
                    if let Err(e) = self.settle(s) {
                        self.sessions[s].call = None;
                        return Err(e);
                    }
                    if self.paused(s) {
                        return Ok(Outcome::Waiting);
                    }
                }
                Err(e) => {
                    self.sessions[s].call = None;
                    return Err(e);
                }
            }
        }
    }

    /// The CALLs whose waiting instruction ended in the last step run on: an instruction
    /// granted goes on to the next ones; one that failed ends its CALL. `fg`'s outcome
    /// `out` becomes where its CALL ended when that happened in this step.
    pub(super) fn resume_calls(&mut self, fg: usize, mut out: Outcome) -> Result<Outcome, String> {
        let mut failed = None;
        while let Some(k) = self
            .events
            .iter()
            .position(|(i, _)| self.sessions[*i].call.is_some() && self.sessions[*i].run.is_none())
        {
            let (i, o) = self.events.remove(k);
            let end = match self.instruction_end(i, o) {
                Ok(None) => {
                    let settled = self.settle(i);
                    if settled.is_ok() && self.paused(i) {
                        continue;
                    }
                    match settled.and_then(|()| self.call_next(i)) {
                        Ok(x) => x,
                        // The catalog changed under the call (another session's DDL
                        // between its instructions) so that an instruction no longer
                        // classifies, or a branch depends on data: the call ends (fails
                        // closed) and the step is refused.
                        Err(e) => {
                            self.sessions[i].session.last_error = None;
                            failed = Some(format!("a CALL of session {i} ran on: {e}"));
                            Outcome::Error
                        }
                    }
                }
                Ok(Some(o)) => o,
                Err(e) => {
                    self.sessions[i].call = None;
                    failed = Some(format!("a CALL of session {i}: {e}"));
                    Outcome::Error
                }
            };
            if end != Outcome::Waiting {
                self.events.push((i, end));
            }
        }
        if out == Outcome::Waiting && self.sessions[fg].run.is_none() {
            if let Some(k) = self.events.iter().position(|(x, _)| *x == fg) {
                out = self.events.remove(k).1;
            }
        }
        match failed {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }

    /// Where an instruction that ended with `o` leaves its CALL: None when it goes on
    /// (the call ended otherwise, with that outcome). A SELECT of GET_LOCK ... INTO
    /// whose wait was killed or timed out returns NULL / 0 and the body goes on
    /// (`Item_func_get_lock::val_int` swallows the error; measured: a KILL QUERY of a
    /// CALL waiting in GET_LOCK gives OK, the next instruction takes its lock, and waits
    /// for it as usual: the kill does not outlive the instruction, unlike a top-level
    /// SELECT of several user-lock functions, `model/user_locks.rs`).
    fn instruction_end(&mut self, s: usize, o: Outcome) -> Result<Option<Outcome>, String> {
        let Some(c) = self.sessions[s].call.as_mut() else {
            return Ok(None);
        };
        let goes_on = match o {
            Outcome::Ok => true,
            Outcome::Killed | Outcome::Timeout if c.user_lock => {
                self.sessions[s].session.last_error = None;
                true
            }
            _ => false,
        };
        if goes_on || self.caught(s, o)? {
            return Ok(None);
        }
        self.sessions[s].call = None;
        Ok(Some(o))
    }

    fn is_user_lock(&self, s: usize, sql: &str) -> bool {
        let has = self.has_row();
        use crate::classify::Stmt;
        // The one comparison of statement kinds of this file.
        match crate::classify::classify(sql, &self.sessions[s].session.db, &self.catalog, &has) {
            Ok(Stmt::UserLocks(_)) => true,
            Ok(Stmt::Learned(p)) => p.kind == crate::kind::Kind::GetLock,
            _ => false,
        }
    }

    /// The statement `sql` runs: itself, or the text of the prepared statement an
    /// `EXECUTE name` / `EXECUTE IMMEDIATE '...'` runs (a prepared CALL adds no lock
    /// either: main/sp-lock.test part 4), or a compound statement run as an anonymous
    /// procedure (`classify/routine_anon.rs`). None when it is neither.
    fn executed_text(&self, s: usize, sql: &str) -> Option<String> {
        if let Some(text) = self.oracle_block(s, sql) {
            return Some(text);
        }
        if crate::classify::is_compound_statement(sql) {
            return Some(sql.to_owned());
        }
        let w: Vec<String> = sql
            .split_whitespace()
            .map(|x| x.to_ascii_lowercase())
            .collect();
        let text = match (w.first()?.as_str(), w.get(1).map(String::as_str)) {
            ("execute", Some("immediate")) => {
                let q = sql.find('\'')?;
                let e = sql.rfind('\'')?;
                (e > q).then(|| sql[q + 1..e].to_owned())?
            }
            ("execute", Some(name)) if w.len() == 2 => self.sessions[s]
                .session
                .prepared
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, t)| t.clone())?,
            _ => sql.to_owned(),
        };
        text.trim_start()
            .get(..4)?
            .eq_ignore_ascii_case("call")
            .then_some(text)
    }

    /// PREPARE of a CALL the model plays here (`classify` refused it, `e`): prepared, no
    /// lock (the CALL's instructions run at EXECUTE).
    pub(super) fn call_prepared(
        &self,
        s: usize,
        text: &str,
        e: String,
    ) -> Result<crate::classify::Stmt, String> {
        let db = &self.sessions[s].session.db;
        match crate::classify::call_instructions(text, db, &self.catalog) {
            Some(Ok(_)) => Ok(crate::classify::Stmt::NoLocks),
            _ => Err(e),
        }
    }

    /// With stepwise CALLs, a CALL with instructions left stops after one (None left:
    /// it ends, and `call_next` says so).
    fn paused(&self, s: usize) -> bool {
        self.stepwise_calls
            && self.sessions[s]
                .call
                .as_ref()
                .is_some_and(|c| c.pc < c.prog.code.len())
    }

    /// Makes CALLs stop between their instructions (`mdl check`'s search: another
    /// session's statement may run there, as on the server); a stopped CALL runs on with
    /// [`SqlModel::call_continue`]. Off (the default), a CALL runs its instructions on
    /// until one waits, as a written order plays it.
    pub fn set_stepwise_calls(&mut self, on: bool) {
        self.stepwise_calls = on;
    }

    /// The session's CALL stands between two instructions (not waiting for a lock).
    pub fn between_instructions(&self, s: usize) -> bool {
        self.sessions[s].call.is_some() && self.sessions[s].run.is_none()
    }

    /// Runs the next instruction of the session's stopped CALL: `Waiting` while the CALL
    /// goes on (its instruction waits, or it stopped again), else where the CALL ended.
    pub fn call_continue(&mut self, s: usize) -> Result<Outcome, String> {
        if !self.between_instructions(s) {
            return Err("the session's CALL does not stand between two instructions".into());
        }
        let out = self.call_next(s)?;
        self.resume_calls(s, out)
    }
}
