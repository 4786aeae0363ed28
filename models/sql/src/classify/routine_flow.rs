//! Compiles a stored procedure's body into the instructions the server runs
//! (`classify/routine_program.rs`), as MariaDB's parser emits them (`sql/sql_yacc.yy`
//! with `LEX::sp_if_expr`, `sp_while_loop_expression`, `sp_repeat_loop_finalize`,
//! `sp_block_finalize`, `sp_handler_declaration_init` / `_finalize`, `sp_leave_statement`,
//! `sp_iterate_statement`, sql/sql_lex.cc):
//!
//! - IF c THEN ... [ELSEIF ...] [ELSE ...] END IF: `jump_if_not c` over each branch, a
//!   `jump` to the end after it; CASE the same, with `ER_SP_CASE_NOT_FOUND` raised when no
//!   WHEN matches and there is no ELSE (`sp_instr_error`);
//! - WHILE c DO ... END WHILE: `jump_if_not c` to after the loop, a `jump` back;
//!   REPEAT ... UNTIL c: `jump_if_not c` back to the start; LOOP: a `jump` back;
//!   LEAVE / ITERATE: the handlers of the blocks left popped (`sp_change_context`), a jump;
//! - BEGIN ... END: its DECLAREs (variables: `sp_instr_set` of their DEFAULT or NULL;
//!   cursors: nothing runs until OPEN; handlers: `hpush_jump` over the handler's body,
//!   which ends in `hreturn`), its statements, `hpop` of its handlers; an EXIT handler
//!   and a LEAVE of the block go to that `hpop`;
//! - a nested CALL: the callee's body in place, in a frame of its own (`sp_head::execute`
//!   of the callee; no lock on the procedure, `routine_call.rs`).
//!
//! The model evaluates conditions itself (`routine_expr.rs`): one that reads a table or
//! calls a function is refused here with its reason.

use super::routine_expr::{self, Expr, Op, Val};
use super::routine_program::{Cond, Instr, Program, Target, ER_SIGNAL_EXCEPTION};
use super::{kw_eq, tokens, Catalog, Tok};
use crate::objects::Tbl;
use crate::routines::{Body, RoutineKind};

/// One open block or loop, with what it declares.
#[derive(Default)]
pub(super) struct Scope {
    pub(super) label: Option<String>,
    /// A loop: where ITERATE goes.
    pub(super) loop_start: Option<usize>,
    /// The block's own id (EXIT handlers name it).
    pub(super) id: usize,
    pub(super) handlers: usize,
    pub(super) vars: Vec<(String, usize)>,
    pub(super) cursors: Vec<(String, usize, String)>,
    pub(super) conds: Vec<(String, Cond)>,
    /// Jumps to patch with the scope's end (LEAVE, EXIT handlers' `hreturn`).
    pub(super) to_end: Vec<usize>,
    /// Jumps to patch with the end of the loop (after it).
    pub(super) to_after: Vec<usize>,
}

pub(super) struct Compiler<'a> {
    pub(super) cat: &'a Catalog,
    pub(super) code: Vec<Instr>,
    pub(super) scopes: Vec<Scope>,
    locals: usize,
    pub(super) cursors: usize,
    blocks: usize,
    /// The procedures being compiled (recursion is refused).
    pub(super) stack: Vec<String>,
    /// The schema of the procedure being compiled.
    pub(super) db: String,
    /// The local slots that are ROW variables (`routine_rows.rs`).
    pub(super) rows: Vec<usize>,
}

type R<T> = Result<T, String>;

impl<'a> Compiler<'a> {
    pub(super) fn new(cat: &'a Catalog, db: &str) -> Self {
        Compiler {
            cat,
            code: Vec::new(),
            scopes: Vec::new(),
            locals: 0,
            cursors: 0,
            blocks: 0,
            stack: Vec::new(),
            db: db.to_owned(),
            rows: Vec::new(),
        }
    }

    pub(super) fn finish(self, args: Vec<(usize, Expr)>) -> Program {
        Program {
            code: self.code,
            locals: self.locals,
            cursors: self.cursors,
            args,
        }
    }

    pub(super) fn emit(&mut self, i: Instr) -> usize {
        self.code.push(i);
        self.code.len() - 1
    }

    /// A loop's body `body` (its scope pushed, `loop_start` set), the jump back to
    /// `start`, then the scope popped and its exits (LEAVE, the loop's end test) patched
    /// to the instruction after the loop.
    pub(super) fn body_then_jump_back(&mut self, body: &[Tok], start: usize) -> R<()> {
        let r = self.stmts(body);
        self.emit(Instr::Jump(start));
        let scope = self.scopes.pop().expect("the loop's scope was pushed");
        r?;
        let at = self.here();
        for j in scope.to_after.into_iter().chain(scope.to_end) {
            self.patch(j, at);
        }
        Ok(())
    }

    pub(super) fn here(&self) -> usize {
        self.code.len()
    }

    pub(super) fn patch(&mut self, at: usize, dest: usize) {
        match &mut self.code[at] {
            Instr::Jump(d) | Instr::JumpIfNot(_, d) => *d = dest,
            Instr::HPush { skip, .. } => *skip = dest,
            Instr::HReturn { exit_dest } => *exit_dest = Some(dest),
            Instr::Enter { end } => *end = dest,
            Instr::CNext { done, .. } => *done = dest,
            _ => unreachable!("only jumps are patched"),
        }
    }

    pub(super) fn new_local(&mut self, name: &str) -> usize {
        let slot = self.locals;
        self.locals += 1;
        if let Some(s) = self.scopes.last_mut() {
            s.vars.push((name.to_lowercase(), slot));
        }
        slot
    }

    pub(super) fn local(&self, name: &str) -> Option<usize> {
        let n = name.to_lowercase();
        self.scopes
            .iter()
            .rev()
            .find_map(|s| s.vars.iter().rev().find(|(v, _)| *v == n).map(|x| x.1))
    }

    pub(super) fn expr(&self, t: &[Tok]) -> R<Expr> {
        routine_expr::parse(t, &|n| self.local(n)).map_err(|e| {
            format!(
                "a condition or value over {e} is not evaluated by the model (which branch \
                 runs would depend on data)"
            )
        })
    }

    /// Compiles procedure `p`'s `body` (the definition after its name) in a frame of its
    /// own; `args`: the CALL's arguments (caller's expressions).
    pub(super) fn procedure(
        &mut self,
        p: &Tbl,
        body: &Body,
        args: &[Vec<Tok>],
    ) -> R<Vec<(usize, Expr)>> {
        let toks = tokens(&body.src)?;
        let (params, stmt) = super::routine_text::split_definition(&toks)
            .ok_or_else(|| format!("the definition of `{p}` is not read by the model"))?;
        if params.len() != args.len() {
            // ER_SP_WRONG_NO_OF_ARGS before the body runs (`sp_head::execute_procedure`).
            self.code.push(Instr::Raise {
                code: super::routine_program::ER_SP_WRONG_NO_OF_ARGS,
                state: "42000".into(),
            });
            return Ok(Vec::new());
        }
        let mut bound = Vec::new();
        for a in args {
            bound.push(self.expr(a).unwrap_or(Expr::Lit(Val::Unknown)));
        }
        let outer = std::mem::take(&mut self.scopes);
        let saved_db = std::mem::replace(&mut self.db, p.db.clone());
        self.scopes.push(Scope::default());
        let slots: Vec<(usize, Expr)> = params
            .iter()
            .zip(bound)
            .map(|(n, e)| (self.new_local(n), e))
            .collect();
        // The anchored variables' tables, opened as the routine starts (`sp_rcontext::
        // create`, `classify/routine_anchor.rs`).
        let anchors = super::routine_anchor::start_instrs(&toks, self.cat, &self.db);
        self.code.extend(anchors);
        let r = self.stmt(stmt);
        self.scopes = outer;
        self.db = saved_db;
        r.map(|()| slots)
    }

    /// One statement (`sp_proc_stmt`).
    pub(super) fn stmt(&mut self, t: &[Tok]) -> R<()> {
        let (label, t) = match t {
            [Tok::Word { text, .. }, Tok::P(':'), rest @ ..] => (Some(text.to_lowercase()), rest),
            _ => (None, t),
        };
        let Some(first) = t.first() else {
            return Ok(());
        };
        let w = |k: &str| kw_eq(first, k);
        if w("begin") && !kw_eq_at(t, 1, "work") && t.len() > 1 {
            self.block(label, &t[1..])
        } else if w("if") {
            self.if_stmt(&t[1..])
        } else if w("case") {
            self.case_stmt(&t[1..])
        } else if w("while") || w("repeat") || w("loop") {
            self.loop_stmt(label, t)
        } else if w("leave") || w("iterate") {
            self.leave(w("iterate"), t)
        } else if w("open") || w("fetch") || w("close") {
            self.cursor_stmt(t)
        } else if w("signal") {
            self.signal(&t[1..])
        } else if w("for") {
            self.for_range(label, t)
        } else if w("resignal") || w("return") || w("get") {
            Err(format!(
                "`{}` in a procedure's body is not played",
                super::lex::render(t)
            ))
        } else {
            self.simple(t)
        }
    }

    /// A list of statements separated by `;`.
    pub(super) fn stmts(&mut self, t: &[Tok]) -> R<()> {
        for s in split_stmts(t) {
            self.stmt(s)?;
        }
        Ok(())
    }

    /// BEGIN [NOT ATOMIC] decls stmts END [label] (the tokens after BEGIN).
    fn block(&mut self, label: Option<String>, t: &[Tok]) -> R<()> {
        let t = match t {
            [n, a, rest @ ..] if kw_eq(n, "not") && kw_eq(a, "atomic") => rest,
            _ => t,
        };
        let end = last_kw(t, "end").ok_or("a block without its END")?;
        self.blocks += 1;
        let id = self.blocks;
        self.scopes.push(Scope {
            label,
            id,
            ..Scope::default()
        });
        let r = self.block_body(&t[..end]);
        let scope = self.scopes.pop().expect("pushed above");
        r?;
        let at = self.here();
        for j in scope.to_end {
            self.patch(j, at);
        }
        if scope.handlers > 0 {
            self.emit(Instr::HPop(scope.handlers));
        }
        Ok(())
    }

    fn block_body(&mut self, t: &[Tok]) -> R<()> {
        for s in split_stmts(t) {
            if s.first().is_some_and(|x| kw_eq(x, "declare")) {
                self.declare(&s[1..])?;
            } else {
                self.stmt(s)?;
            }
        }
        Ok(())
    }

    pub(super) fn scope(&mut self) -> &mut Scope {
        self.scopes.last_mut().expect("a body runs inside a scope")
    }

    pub(super) fn block_id(&self) -> usize {
        self.scopes.last().map_or(0, |s| s.id)
    }

    /// DECLARE: variables, conditions, cursors, handlers.
    fn declare(&mut self, t: &[Tok]) -> R<()> {
        if t.first()
            .is_some_and(|x| kw_eq(x, "continue") || kw_eq(x, "exit"))
        {
            return self.handler(t);
        }
        match t {
            [n, c, f, q @ ..] if kw_eq(c, "cursor") && kw_eq(f, "for") => {
                let slot = self.cursors;
                self.cursors += 1;
                let sql = super::lex::render(q);
                self.scope().cursors.push((name(n), slot, sql));
                Ok(())
            }
            [_, c, ..] if kw_eq(c, "cursor") => {
                Err("a cursor with parameters is not played".to_owned())
            }
            _ if t.iter().any(|x| kw_eq(x, "row") || kw_eq(x, "type")) => self.anchored(t),
            [n, c, f, v @ ..] if kw_eq(c, "condition") && kw_eq(f, "for") => {
                let cond = self.cond(v)?;
                self.scope().conds.push((name(n), cond));
                Ok(())
            }
            _ => self.variables(t),
        }
    }

    /// `DECLARE v[, w] TYPE OF ... | ROW TYPE OF ...` (`classify/routine_anchor.rs`): a
    /// variable as any other (its table was opened as the routine started); one anchored
    /// to a cursor first opens the cursor's SELECT (`sp_instr_cursor_copy_struct`). A
    /// `ROW (...)` variable is refused.
    fn anchored(&mut self, t: &[Tok]) -> R<()> {
        use super::routine_anchor::anchored_type;
        let mut i = 0;
        while t.get(i + 1) == Some(&Tok::P(',')) {
            i += 2;
        }
        let cursors: Vec<String> = self
            .scopes
            .iter()
            .flat_map(|s| &s.cursors)
            .map(|c| c.0.clone())
            .collect();
        let anchor = anchored_type(t, i + 1, &cursors, &[]);
        // ROW TYPE OF a table or cursor, TYPE OF a ROW variable: ROW variables.
        let row_of_var = match t.get(i + 3) {
            Some(Tok::Word { text, .. }) if kw_eq_at(t, i + 1, "type") => {
                self.local(text).is_some_and(|s| self.rows.contains(&s))
            }
            _ => false,
        };
        let row = kw_eq_at(t, i + 1, "row") || row_of_var;
        let first = self.locals;
        let r = self.anchored_vars(t, anchor);
        if row {
            self.rows.extend(first..self.locals);
        }
        r
    }

    fn anchored_vars(
        &mut self,
        t: &[Tok],
        anchor: Option<(super::routine_anchor::Anchor, usize)>,
    ) -> R<()> {
        use super::routine_anchor::Anchor;
        match anchor {
            Some((Anchor::Cursor(c), _)) => {
                let sql = self
                    .scopes
                    .iter()
                    .rev()
                    .flat_map(|s| s.cursors.iter().rev())
                    .find(|x| x.0 == c)
                    .map(|x| x.2.clone())
                    .ok_or("a cursor the compiler does not find")?;
                self.emit(Instr::Stmt {
                    sql,
                    into: Vec::new(),
                });
                self.variables(t)
            }
            Some(_) => self.variables(t),
            None => Err("a ROW variable is not played".to_owned()),
        }
    }

    /// `DECLARE v[, w] type [DEFAULT e]`: an `sp_instr_set` per variable. A DEFAULT that
    /// reads a table or calls a stored function runs as the statement `SELECT e` (its
    /// locks and errors: `sp_instr_set::exec_core` through `sp_lex_keeper::
    /// reset_lex_and_exec_core`, the expression's tables opened as a statement's, as
    /// `set_locals` plays `SET v = (SELECT ...)`), and the variables are unknown after it.
    fn variables(&mut self, t: &[Tok]) -> R<()> {
        let mut names = Vec::new();
        let mut i = 0;
        while let Some(Tok::Word { text, .. }) = t.get(i) {
            names.push(text.clone());
            if t.get(i + 1) != Some(&Tok::P(',')) {
                break;
            }
            i += 2;
        }
        let dflt = t.iter().position(|x| kw_eq(x, "default"));
        let value = match dflt {
            Some(d) => {
                let e = &t[d + 1..];
                if e.iter().any(|x| kw_eq(x, "select")) || self.calls_function(e) {
                    // The variables are declared after the value is computed.
                    let sql = format!("SELECT {}", super::lex::render(e));
                    let slots: Vec<usize> = names.iter().map(|n| self.new_local(n)).collect();
                    let into = slots.iter().map(|s| Target::Local(*s)).collect();
                    self.emit(Instr::Stmt { sql, into });
                    return Ok(());
                }
                // A value the model does not evaluate (a string, a built-in function)
                // is unknown: only a branch over it is refused.
                self.expr(e).unwrap_or(Expr::Lit(Val::Unknown))
            }
            None => Expr::Lit(Val::Null),
        };
        for n in names {
            let slot = self.new_local(&n);
            self.emit(Instr::Set(slot, value.clone()));
        }
        Ok(())
    }

    /// A handler's condition values, comma separated.
    fn conds(&self, t: &[Tok]) -> R<Vec<Cond>> {
        t.split(|x| *x == Tok::P(','))
            .map(|c| self.cond(c))
            .collect()
    }

    fn cond(&self, t: &[Tok]) -> R<Cond> {
        Ok(match t {
            [s, Tok::Str(v)] | [s, _, Tok::Str(v)] if kw_eq(s, "sqlstate") => {
                Cond::State(v.clone())
            }
            [Tok::Num(n)] => Cond::Code(n.parse().map_err(|_| format!("error number `{n}`"))?),
            [x] if kw_eq(x, "sqlexception") => Cond::Exception,
            [x] if kw_eq(x, "sqlwarning") => Cond::Warning,
            [n, f] if kw_eq(n, "not") && kw_eq(f, "found") => Cond::NotFound,
            [Tok::Word { text, .. }] => {
                let n = text.to_lowercase();
                self.scopes
                    .iter()
                    .rev()
                    .find_map(|s| s.conds.iter().find(|(c, _)| *c == n).map(|x| x.1.clone()))
                    .ok_or_else(|| format!("the condition `{text}` is not declared"))?
            }
            _ => return Err("a handler condition the model does not know".into()),
        })
    }

    /// `DECLARE CONTINUE | EXIT HANDLER FOR conds stmt`: `hpush_jump`, the body,
    /// `hreturn` (`LEX::sp_handler_declaration_init` / `_finalize`).
    fn handler(&mut self, t: &[Tok]) -> R<()> {
        let exit = kw_eq(&t[0], "exit");
        let rest = t.get(3..).unwrap_or_default();
        let (conds, body) = handler_split(rest).ok_or("a handler without its statement")?;
        let conds = self.conds(conds)?;
        let block = self.block_id();
        let push = self.emit(Instr::HPush {
            exit,
            conds,
            block,
            skip: 0,
        });
        self.scope().handlers += 1;
        // The handler's body runs in a scope of its own (it may not LEAVE the block).
        self.scopes.push(Scope::default());
        let r = self.stmt(body);
        self.scopes.pop();
        r?;
        let ret = self.emit(Instr::HReturn { exit_dest: None });
        if exit {
            self.scope().to_end.push(ret);
        }
        let at = self.here();
        self.patch(push, at);
        Ok(())
    }

    /// IF c THEN ... [ELSEIF c THEN ...] [ELSE ...] END IF (the tokens after IF).
    fn if_stmt(&mut self, t: &[Tok]) -> R<()> {
        let end = t.len().checked_sub(2).ok_or("an IF without its END IF")?;
        let arms = arms(&t[..end], &["elseif"], "then");
        if let [(cond, body)] = arms.whens[..] {
            // A condition over data with inert branches (`routine_flow_data.rs`).
            if let Some(r) = self.over_data(cond, &[Some(body), arms.otherwise]) {
                return r;
            }
        }
        let mut to_end = Vec::new();
        for (cond, body) in arms.whens {
            let c = self.expr(cond)?;
            let skip = self.emit(Instr::JumpIfNot(c, 0));
            self.stmts(body)?;
            to_end.push(self.emit(Instr::Jump(0)));
            let at = self.here();
            self.patch(skip, at);
        }
        if let Some(e) = arms.otherwise {
            self.stmts(e)?;
        }
        let at = self.here();
        for j in to_end {
            self.patch(j, at);
        }
        Ok(())
    }

    /// CASE [v] WHEN x THEN ... [ELSE ...] END CASE (the tokens after CASE).
    fn case_stmt(&mut self, t: &[Tok]) -> R<()> {
        let end = t
            .len()
            .checked_sub(2)
            .ok_or("a CASE without its END CASE")?;
        let t = &t[..end];
        let first_when = t
            .iter()
            .position(|x| kw_eq(x, "when"))
            .ok_or("a CASE without WHEN")?;
        let arms = arms(&t[first_when..], &["when"], "then");
        if let (Some(e), [(w, body)]) = (arms.otherwise, &arms.whens[..]) {
            // A subject or condition over data with inert branches (`routine_flow_data.rs`).
            let cond = if first_when > 0 { &t[..first_when] } else { w };
            if first_when == 0 || self.expr(w).is_ok() {
                if let Some(r) = self.over_data(cond, &[Some(body), Some(e)]) {
                    return r;
                }
            }
        }
        let subject = if first_when > 0 {
            Some(self.expr(&t[..first_when])?)
        } else {
            None
        };
        let mut to_end = Vec::new();
        for (cond, body) in arms.whens {
            let mut c = self.expr(cond)?;
            if let Some(s) = &subject {
                c = Expr::Bin(routine_expr::Op::Eq, Box::new(s.clone()), Box::new(c));
            }
            let skip = self.emit(Instr::JumpIfNot(c, 0));
            self.stmts(body)?;
            to_end.push(self.emit(Instr::Jump(0)));
            let at = self.here();
            self.patch(skip, at);
        }
        match arms.otherwise {
            Some(e) => self.stmts(e)?,
            None => {
                self.emit(Instr::Raise {
                    code: super::routine_program::ER_SP_CASE_NOT_FOUND,
                    state: "20000".into(),
                });
            }
        }
        let at = self.here();
        for j in to_end {
            self.patch(j, at);
        }
        Ok(())
    }

    /// WHILE c DO ... END WHILE, REPEAT ... UNTIL c END REPEAT, LOOP ... END LOOP.
    fn loop_stmt(&mut self, label: Option<String>, t: &[Tok]) -> R<()> {
        let word = super::lex::render(&t[..1]).to_lowercase();
        let end = 1 + last_kw(&t[1..], "end").ok_or("a loop without its END")?;
        let inner = &t[1..end];
        let start = self.here();
        self.scopes.push(Scope {
            label,
            loop_start: Some(start),
            id: self.block_id(),
            ..Scope::default()
        });
        let r = self.loop_body(&word, inner, start);
        let scope = self.scopes.pop().expect("pushed above");
        r?;
        let at = self.here();
        for j in scope.to_after {
            self.patch(j, at);
        }
        Ok(())
    }

    /// `FOR i IN [REVERSE] a .. b DO ... END FOR` over an integer range
    /// (`LEX::sp_for_loop_intrange_declarations`, sql_lex.cc): the bound is evaluated once
    /// into a variable of its own, the index is a variable of the loop's block; each turn
    /// steps the index (`sp_for_loop_increment`, where ITERATE goes) and leaves when it
    /// passes the bound. A loop over a cursor or a query: `routine_for_cursor.rs`.
    fn for_range(&mut self, label: Option<String>, t: &[Tok]) -> R<()> {
        let index = name(t.get(1).ok_or("a FOR without its index")?);
        let mut k = 3;
        let reverse = kw_eq_at(t, k, "reverse");
        k += usize::from(reverse);
        // (`t[0]`, FOR, opens a construct: the search starts after it.)
        let d = 1 + top_kw(&t[1..], "do").ok_or("a FOR without DO")?;
        let end = 1 + last_kw(&t[1..], "end").ok_or("a FOR without its END")?;
        let Some((lo, hi)) = range_bounds(&t[k..d]) else {
            return self.for_cursor(label, t, d, end);
        };
        let (lo, hi) = (self.expr(&lo)?, self.expr(&hi)?);
        let (first, last, step, past) = if reverse {
            (hi, lo, Op::Sub, Op::Ge)
        } else {
            (lo, hi, Op::Add, Op::Le)
        };
        let back = if reverse { Op::Add } else { Op::Sub };
        let one = || Box::new(Expr::Lit(Val::Int(1)));
        self.scopes.push(Scope {
            label,
            id: self.block_id(),
            ..Scope::default()
        });
        let bound = self.new_local("");
        self.emit(Instr::Set(bound, last));
        let i = self.new_local(&index);
        self.emit(Instr::Set(i, Expr::Bin(back, Box::new(first), one())));
        let start = self.emit(Instr::Set(
            i,
            Expr::Bin(step, Box::new(Expr::Local(i)), one()),
        ));
        self.scope().loop_start = Some(start);
        let exit = self.emit(Instr::JumpIfNot(
            Expr::Bin(past, Box::new(Expr::Local(i)), Box::new(Expr::Local(bound))),
            0,
        ));
        self.scope().to_after.push(exit);
        self.body_then_jump_back(&t[d + 1..end], start)?;
        Ok(())
    }

    fn loop_body(&mut self, word: &str, t: &[Tok], start: usize) -> R<()> {
        match word {
            "while" => {
                let d = top_kw(t, "do").ok_or("a WHILE without DO")?;
                let c = self.expr(&t[..d])?;
                let exit = self.emit(Instr::JumpIfNot(c, 0));
                self.scope().to_after.push(exit);
                self.stmts(&t[d + 1..])?;
                self.emit(Instr::Jump(start));
            }
            "repeat" => {
                let u = last_kw(t, "until").ok_or("a REPEAT without UNTIL")?;
                self.stmts(&t[..u])?;
                let c = self.expr(&t[u + 1..])?;
                self.emit(Instr::JumpIfNot(c, start));
            }
            _ => {
                self.stmts(t)?;
                self.emit(Instr::Jump(start));
            }
        }
        Ok(())
    }

    /// LEAVE / ITERATE label: the handlers of the blocks left, then the jump.
    fn leave(&mut self, iterate: bool, t: &[Tok]) -> R<()> {
        let l = match t.get(1) {
            Some(Tok::Word { text, .. }) => text.to_lowercase(),
            _ => return Err("LEAVE / ITERATE without a label".into()),
        };
        let k = self
            .scopes
            .iter()
            .rposition(|s| s.label.as_deref() == Some(l.as_str()))
            .ok_or_else(|| format!("LEAVE / ITERATE of no enclosing label `{l}`"))?;
        let pops: usize = self.scopes[k + 1..].iter().map(|s| s.handlers).sum();
        if pops > 0 {
            self.emit(Instr::HPop(pops));
        }
        let target = &self.scopes[k];
        match (iterate, target.loop_start) {
            (true, Some(start)) => {
                self.emit(Instr::Jump(start));
            }
            (true, None) => return Err(format!("ITERATE of `{l}`, which is no loop")),
            (false, Some(_)) => {
                let j = self.emit(Instr::Jump(0));
                self.scopes[k].to_after.push(j);
            }
            (false, None) => {
                let j = self.emit(Instr::Jump(0));
                self.scopes[k].to_end.push(j);
            }
        }
        Ok(())
    }

    pub(super) fn cursor(&self, n: &Tok) -> R<(usize, String)> {
        let n = name(n);
        self.scopes
            .iter()
            .rev()
            .find_map(|s| s.cursors.iter().find(|(c, _, _)| *c == n))
            .map(|(_, slot, sql)| (*slot, sql.clone()))
            .ok_or_else(|| format!("the cursor `{n}` is not declared"))
    }

    /// OPEN c / FETCH [[NEXT] FROM] c INTO v, ... / CLOSE c.
    fn cursor_stmt(&mut self, t: &[Tok]) -> R<()> {
        let mut i = 1;
        while t
            .get(i)
            .is_some_and(|x| kw_eq(x, "next") || kw_eq(x, "from"))
        {
            i += 1;
        }
        let (cursor, sql) = self.cursor(t.get(i).ok_or("a cursor statement without a name")?)?;
        let instr = if kw_eq(&t[0], "open") {
            let tables = super::routine_text::from_tables(&sql, &self.db);
            Instr::COpen {
                cursor,
                sql,
                tables,
            }
        } else if kw_eq(&t[0], "close") {
            Instr::CClose(cursor)
        } else {
            let into = self.targets(t.get(i + 2..).unwrap_or_default())?;
            Instr::CFetch { cursor, into }
        };
        self.emit(instr);
        Ok(())
    }

    pub(super) fn targets(&self, t: &[Tok]) -> R<Vec<Target>> {
        t.split(|x| *x == Tok::P(','))
            .map(|v| match v {
                [Tok::Word { text, .. }] if text.starts_with('@') => {
                    Ok(Target::User(text[1..].to_lowercase()))
                }
                [Tok::Word { text, .. }] => self
                    .local(text)
                    .map(Target::Local)
                    .ok_or_else(|| format!("`{text}` is no variable of the body")),
                _ => Err("a target the model does not read".into()),
            })
            .collect()
    }

    /// SIGNAL SQLSTATE 'x' | name [SET MYSQL_ERRNO = n, ...] (`Sql_cmd_signal::execute`:
    /// ER_SIGNAL_EXCEPTION for an SQLSTATE of class other than 01 / 02 unless set).
    fn signal(&mut self, t: &[Tok]) -> R<()> {
        let set = t.iter().position(|x| kw_eq(x, "set")).unwrap_or(t.len());
        let state = match self.cond(&t[..set])? {
            Cond::State(s) => s,
            _ => return Err("a SIGNAL of a condition other than an SQLSTATE".into()),
        };
        if state.starts_with("01") || state.starts_with("02") || state.starts_with("00") {
            return Err("a SIGNAL of a warning or NOT FOUND is not modelled".into());
        }
        let mut code = ER_SIGNAL_EXCEPTION;
        if let Some(k) = t.iter().position(|x| kw_eq(x, "mysql_errno")) {
            match t.get(k + 2) {
                Some(Tok::Num(n)) => code = n.parse().map_err(|_| "MYSQL_ERRNO".to_owned())?,
                _ => return Err("a SIGNAL's MYSQL_ERRNO the model does not read".into()),
            }
        }
        self.emit(Instr::Raise { code, state });
        Ok(())
    }

    /// A nested CALL's procedure of the catalog.
    pub(super) fn callee(&self, q: &Tbl) -> Option<Body> {
        self.cat.routines.get(RoutineKind::Procedure, q).cloned()
    }
}

fn kw_eq_at(t: &[Tok], i: usize, kw: &str) -> bool {
    t.get(i).is_some_and(|x| kw_eq(x, kw))
}

fn name(t: &Tok) -> String {
    match t {
        Tok::Word { text, .. } => text.to_lowercase(),
        _ => String::new(),
    }
}

/// The statements of a list, split at the `;` outside BEGIN / IF / CASE / loops.
pub(super) fn split_stmts(t: &[Tok]) -> Vec<&[Tok]> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, x) in t.iter().enumerate() {
        if opens(t, i) {
            depth += 1;
        } else if kw_eq(x, "end") {
            // `END` closes one (`END IF`, `END WHILE`, ... and a block's plain `END`);
            // a CASE expression's `END` is inside a statement and closes its CASE too.
            depth -= 1;
        } else if *x == Tok::P(';') && depth == 0 {
            if i > start {
                out.push(&t[start..i]);
            }
            start = i + 1;
        }
    }
    if start < t.len() {
        out.push(&t[start..]);
    }
    out
}

/// `t[i]` opens a construct closed by END: BEGIN (not BEGIN WORK / a lone BEGIN), IF (not
/// END IF, IF(...) the function, IF EXISTS / IF NOT EXISTS), CASE, WHILE, REPEAT, LOOP
/// (not END LOOP).
fn opens(t: &[Tok], i: usize) -> bool {
    let after_end = i > 0 && kw_eq(&t[i - 1], "end");
    if after_end {
        return false;
    }
    let x = &t[i];
    if kw_eq(x, "begin") {
        return !kw_eq_at(t, i + 1, "work") && t.get(i + 1).is_some_and(|n| *n != Tok::P(';'));
    }
    if kw_eq(x, "if") || kw_eq(x, "repeat") || kw_eq(x, "for") {
        // The statement, not the function IF(...) / REPEAT(...) nor IF [NOT] EXISTS, nor
        // FOR UPDATE.
        return i == 0
            || t[i - 1] == Tok::P(';')
            || t[i - 1] == Tok::P(':')
            || ["then", "else", "do", "begin", "loop", "repeat"]
                .iter()
                .any(|w| kw_eq(&t[i - 1], w));
    }
    ["case", "while", "loop"].iter().any(|w| kw_eq(x, w))
}

/// `a .. b` (the tokenizer reads `1..3` as one number, `1 .. 3` as three tokens): the two
/// bounds, or None when `t` is no range.
fn range_bounds(t: &[Tok]) -> Option<(Vec<Tok>, Vec<Tok>)> {
    let mut flat = Vec::new();
    let mut at = None;
    for (i, x) in t.iter().enumerate() {
        match x {
            Tok::Num(n) if n.contains("..") => {
                let (a, b) = n.split_once("..")?;
                if !a.is_empty() {
                    flat.push(Tok::Num(a.to_owned()));
                }
                at = Some(flat.len());
                if !b.is_empty() {
                    flat.push(Tok::Num(b.to_owned()));
                }
            }
            Tok::P('.') if t.get(i + 1) == Some(&Tok::P('.')) => at = Some(flat.len()),
            Tok::P('.') if i > 0 && t[i - 1] == Tok::P('.') => {}
            _ => flat.push(x.clone()),
        }
    }
    let at = at?;
    let (lo, hi) = flat.split_at(at);
    (!lo.is_empty() && !hi.is_empty()).then(|| (lo.to_vec(), hi.to_vec()))
}

/// The index of the last `kw` in `t` at depth 0 (ends of a construct's own tokens).
fn last_kw(t: &[Tok], kw: &str) -> Option<usize> {
    let mut depth = 0i32;
    let mut found = None;
    for (i, x) in t.iter().enumerate() {
        if opens(t, i) {
            depth += 1;
        } else if kw_eq(x, "end") && depth > 0 {
            depth -= 1;
            continue;
        }
        if depth == 0 && kw_eq(x, kw) {
            found = Some(i);
        }
    }
    found
}

/// The first `kw` at depth 0.
fn top_kw(t: &[Tok], kw: &str) -> Option<usize> {
    let mut depth = 0i32;
    for (i, x) in t.iter().enumerate() {
        if depth == 0 && kw_eq(x, kw) {
            return Some(i);
        }
        if opens(t, i) {
            depth += 1;
        } else if kw_eq(x, "end") {
            depth -= 1;
        }
    }
    None
}

struct Arms<'a> {
    whens: Vec<(&'a [Tok], &'a [Tok])>,
    otherwise: Option<&'a [Tok]>,
}

/// `c THEN body [sep c THEN body]... [ELSE body]` (the first `sep` of a CASE is at t[0]).
fn arms<'a>(t: &'a [Tok], sep: &[&str], then: &str) -> Arms<'a> {
    let t = if t.first().is_some_and(|x| sep.iter().any(|s| kw_eq(x, s))) {
        &t[1..]
    } else {
        t
    };
    let mut cuts = vec![];
    let mut depth = 0i32;
    for (i, x) in t.iter().enumerate() {
        if depth == 0 && (sep.iter().any(|s| kw_eq(x, s)) || kw_eq(x, "else")) {
            cuts.push(i);
        }
        if opens(t, i) {
            depth += 1;
        } else if kw_eq(x, "end") {
            depth -= 1;
        }
    }
    let mut whens = Vec::new();
    let mut otherwise = None;
    let mut start = 0;
    for c in cuts.into_iter().chain([t.len()]) {
        let part = &t[start..c];
        if start > 0 && kw_eq(&t[start - 1], "else") {
            otherwise = Some(part);
        } else if let Some(th) = part.iter().position(|x| kw_eq(x, then)) {
            whens.push((&part[..th], &part[th + 1..]));
        }
        start = c + 1;
    }
    Arms { whens, otherwise }
}

/// A handler's `conds stmt`: the conditions end where the statement starts.
fn handler_split(t: &[Tok]) -> Option<(&[Tok], &[Tok])> {
    let mut i = 0;
    loop {
        let len = match t.get(i..)? {
            [s, v, Tok::Str(_), ..] if kw_eq(s, "sqlstate") && kw_eq(v, "value") => 3,
            [s, Tok::Str(_), ..] if kw_eq(s, "sqlstate") => 2,
            [n, f, ..] if kw_eq(n, "not") && kw_eq(f, "found") => 2,
            [_, ..] => 1,
            [] => return None,
        };
        i += len;
        if t.get(i) != Some(&Tok::P(',')) {
            return Some((&t[..i], &t[i..]));
        }
        i += 1;
    }
}
