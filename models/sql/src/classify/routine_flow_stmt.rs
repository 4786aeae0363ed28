//! The simple statements of a compiled procedure body (`classify/routine_flow.rs`): a SQL
//! statement is an `sp_instr_stmt` (SELECT ... INTO sets its variables from data the
//! model does not keep), `SET` of local variables an `sp_instr_set` each, a nested CALL
//! its procedure's body in place (MariaDB `sql/sp_head.cc`, `sql/sql_yacc.yy`
//! `sp_proc_stmt_statement`, `set_stmt_option_value` → `LEX::sp_variable_declarations_*` /
//! `set_variable`).

use super::routine_diag::ER_BAD_FIELD_ERROR;
use super::routine_expr::{Expr, Val};
use super::routine_flow::Compiler;
use super::routine_program::{Instr, Target};
use super::{kw_eq, Cur, Tok};

/// The deepest nesting of CALLs the model expands (a recursive CALL needs
/// `max_sp_recursion_depth`, refused).
const MAX_DEPTH: usize = 8;

type R<T> = Result<T, String>;

impl Compiler<'_> {
    /// A statement that is not control flow.
    pub(super) fn simple(&mut self, t: &[Tok]) -> R<()> {
        let sql = super::lex::render(t);
        let first = &t[0];
        let verb = super::routine_text::VERBS.iter().any(|w| kw_eq(first, w))
            && t.get(1) != Some(&Tok::P('('));
        if !verb {
            return Err(format!("`{sql}` is not a statement the model plays"));
        }
        if kw_eq(first, "call") {
            return self.nested_call(t, &sql);
        }
        if kw_eq(first, "set") {
            if let Some(r) = self.set_locals(&t[1..]) {
                return r;
            }
            return self.set_user(&t[1..], sql);
        }
        let into = if kw_eq(first, "select") {
            self.select_into(t)?
        } else {
            Vec::new()
        };
        let is_row = |n: &str| self.local(n).is_some_and(|s| self.rows.contains(&s));
        let sql = super::routine_rows::fields_as_values(&sql, &is_row);
        self.code.push(Instr::Stmt { sql, into });
        Ok(())
    }

    /// `SET a = e[, b = f]` of local variables: `sp_instr_set`s; None when no target is a
    /// local (a user or system variable: the statement runs as one). A value that reads a
    /// table (a subquery) or calls a function runs as the statement it is (its locks),
    /// and its variables are unknown after it; one the model does not evaluate
    /// otherwise (a string, a built-in function) is unknown.
    fn set_locals(&mut self, t: &[Tok]) -> Option<R<()>> {
        let items: Vec<&[Tok]> = t.split(|x| *x == Tok::P(',')).collect();
        let mut sets = Vec::new();
        for it in &items {
            let slot = match it {
                [Tok::Word { text, .. }, Tok::P('='), ..] => self.local(text),
                _ => None,
            };
            sets.push(slot.map(|s| (s, &it[2..])));
        }
        if sets.iter().all(Option::is_none) {
            return None;
        }
        let is_var = |n: &str| self.local(n).is_some();
        let at_run = sets
            .iter()
            .flatten()
            .any(|(_, e)| super::routine_set_ident::fails_at_run(e, &is_var));
        if at_run {
            // A GROUP BY / ORDER BY name that is no variable in a value that reads no
            // table: the instruction fails with ER_BAD_FIELD_ERROR, nothing opened
            // (`routine_set_ident::fails_at_run`).
            if sets.len() > 1 {
                return Some(Err(
                    "a SET of several variables, one of whose values fails when it runs, \
                     is not played"
                        .into(),
                ));
            }
            self.code.push(Instr::Raise {
                code: ER_BAD_FIELD_ERROR,
                state: "42S22".into(),
            });
            return Some(Ok(()));
        }
        let reads = t.iter().any(|x| kw_eq(x, "select")) || self.calls_function(t);
        if reads || sets.iter().any(Option::is_none) {
            let into = sets
                .iter()
                .flatten()
                .map(|(s, _)| Target::Local(*s))
                .collect();
            self.code.push(Instr::Stmt {
                sql: format!("SET {}", super::lex::render(t)),
                into,
            });
            return Some(Ok(()));
        }
        for (slot, e) in sets.into_iter().flatten() {
            let v = self.expr(e).unwrap_or(Expr::Lit(Val::Unknown));
            self.code.push(Instr::Set(slot, v));
        }
        Some(Ok(()))
    }

    /// `t` calls a stored function of the catalog.
    pub(super) fn calls_function(&self, t: &[Tok]) -> bool {
        t.windows(2).any(|w| {
            matches!(&w[0], Tok::Word { text, .. }
                if self.cat.routines.functions().any(|f| f.name == text.to_lowercase()))
                && w[1] == Tok::P('(')
        })
    }

    /// `SET @x = e, ...` (and system variables): the statement, then each user
    /// variable's value when the model can tell it.
    fn set_user(&mut self, t: &[Tok], sql: String) -> R<()> {
        self.code.push(Instr::Stmt {
            sql,
            into: Vec::new(),
        });
        for it in t.split(|x| *x == Tok::P(',')) {
            if let [Tok::Word { text, .. }, Tok::P('=') | Tok::P(':'), rest @ ..] = it {
                if text.starts_with('@') && !text.starts_with("@@") {
                    let rest = match rest {
                        [Tok::P('='), r @ ..] => r,
                        r => r,
                    };
                    let v = self.expr(rest).unwrap_or(Expr::Lit(Val::Unknown));
                    self.code.push(Instr::SetUser(text[1..].to_lowercase(), v));
                }
            }
        }
        Ok(())
    }

    /// SELECT ... INTO v[, w] [FROM ...]: the variables it sets.
    fn select_into(&self, t: &[Tok]) -> R<Vec<Target>> {
        let Some(i) = t.iter().position(|x| kw_eq(x, "into")) else {
            return Ok(Vec::new());
        };
        let end = t[i + 1..]
            .iter()
            .position(|x| {
                ["from", "where", "limit", "for", "lock", "group", "order"]
                    .iter()
                    .any(|w| kw_eq(x, w))
            })
            .map_or(t.len(), |k| i + 1 + k);
        self.targets(&t[i + 1..end])
    }

    /// CALL q(args) in a body: q's body in place, in a frame of its own.
    fn nested_call(&mut self, t: &[Tok], sql: &str) -> R<()> {
        let mut c = Cur { t, i: 1, sql };
        let q = c.table(&self.db)?;
        let caller = self.stack.last().cloned().unwrap_or_default();
        if q.db != self.db {
            return Err(format!(
                "`{sql}` in the body of `{caller}`: a procedure of another schema is not modelled"
            ));
        }
        let Some(body) = self.callee(&q) else {
            // The server looks the procedure up when the instruction runs (SQLCOM_CALL,
            // `sp_find_routine`): ER_SP_DOES_NOT_EXIST there, after the earlier
            // instructions ran, a condition the body's handlers may take.
            self.code.push(Instr::Raise {
                code: crate::routines::ER_SP_DOES_NOT_EXIST,
                state: "42000".into(),
            });
            return Ok(());
        };
        let name = q.name.to_lowercase();
        if self.stack.contains(&name) {
            return Err(format!(
                "`{sql}` in the body of `{caller}`: a recursive CALL (max_sp_recursion_depth) \
                 is not modelled"
            ));
        }
        if self.stack.len() >= MAX_DEPTH {
            return Err(format!(
                "CALLs nested deeper than {MAX_DEPTH} are not modelled"
            ));
        }
        let args = super::routine_text::call_args(&t[c.i..]);
        let enter = self.code.len();
        self.code.push(Instr::Enter { end: 0 });
        self.stack.push(name);
        let slots = self.procedure(&q, &body, &args)?;
        self.stack.pop();
        // The arguments are bound as the callee's frame starts.
        let binds: Vec<Instr> = slots.into_iter().map(|(s, e)| Instr::Set(s, e)).collect();
        let n = binds.len();
        self.code.splice(enter + 1..enter + 1, binds);
        shift_jumps(&mut self.code[enter + 1 + n..], enter + 1, n);
        self.code.push(Instr::Exit);
        let end = self.code.len();
        if let Instr::Enter { end: e } = &mut self.code[enter] {
            *e = end;
        }
        Ok(())
    }
}

/// The instructions after an insertion of `n` at `from`: their jumps at or after `from`
/// move by `n`.
fn shift_jumps(code: &mut [Instr], from: usize, n: usize) {
    for i in code {
        let d = match i {
            Instr::Jump(d) | Instr::JumpIfNot(_, d) => d,
            Instr::HPush { skip, .. } => skip,
            Instr::HReturn { exit_dest: Some(d) } => d,
            Instr::Enter { end } => end,
            Instr::CNext { done, .. } => done,
            _ => continue,
        };
        if *d >= from {
            *d += n;
        }
    }
}
