//! IF and CASE statements whose one condition reads data the model does not keep (a
//! subquery, EXISTS, IN (SELECT ...)): MariaDB evaluates the condition in its own
//! instruction (`sp_instr_jump_if_not::exec_core`, sql/sp_instr.cc, through
//! `sp_lex_keeper::reset_lex_and_exec_core`: the expression's tables are opened and
//! locked as a statement's, SHARED_READ, and released at its end outside a transaction),
//! then runs one branch. The model cannot tell which branch, so it plays such a statement
//! only when the choice changes nothing it compares: one condition (an IF without ELSEIF,
//! a CASE with one WHEN and an ELSE, `sp_instr_jump_if_not` evaluated once), naming no
//! variable of the body, and every branch inert (`SELECT` of literals: no table, no lock,
//! no error). The condition runs as `SELECT cond` (its locks and its errors, such as a
//! missing table's, which a handler takes as the instruction's), then the first branch.
//! Anything else stays refused with the compiler's reason.

use super::routine_flow::Compiler;
use super::routine_program::Instr;
use super::{kw_eq, Tok};

type R<T> = Result<T, String>;

impl Compiler<'_> {
    /// The instructions of a branch statement over `cond` with the branch bodies
    /// `bodies` (None for a missing IF's ELSE), when the choice changes nothing; None
    /// otherwise (the caller compiles, and refuses, as before).
    pub(super) fn over_data(&mut self, cond: &[Tok], bodies: &[Option<&[Tok]>]) -> Option<R<()>> {
        if self.expr(cond).is_ok() || self.names_local(cond) {
            return None;
        }
        if !bodies.iter().flatten().all(|b| inert_body(b)) {
            return None;
        }
        self.code.push(Instr::Stmt {
            sql: format!("SELECT {}", super::lex::render(cond)),
            into: Vec::new(),
        });
        let first = bodies.iter().flatten().next().copied().unwrap_or_default();
        Some(self.stmts(first))
    }

    /// Whether `t` names a variable of the body (the model would not run it as a SELECT).
    fn names_local(&self, t: &[Tok]) -> bool {
        t.iter()
            .any(|x| matches!(x, Tok::Word { text, .. } if self.local(text).is_some()))
    }
}

/// Statements (`;`-ended) each a `SELECT` of literals, NULL and aliases.
fn inert_body(t: &[Tok]) -> bool {
    t.split(|x| *x == Tok::P(';'))
        .filter(|s| !s.is_empty())
        .all(inert)
}

/// `SELECT 1`, `SELECT NULL`, `SELECT 'x' AS a, -2`.
fn inert(s: &[Tok]) -> bool {
    let [first, rest @ ..] = s else {
        return false;
    };
    kw_eq(first, "select")
        && !rest.is_empty()
        && rest.iter().enumerate().all(|(i, t)| match t {
            Tok::Num(_) | Tok::Str(_) | Tok::P(',') | Tok::P('-') => true,
            Tok::Word { .. } if kw_eq(t, "null") || kw_eq(t, "as") => true,
            Tok::Word { .. } => i > 0 && kw_eq(&rest[i - 1], "as"),
            _ => false,
        })
}

#[cfg(test)]
mod tests {
    use super::super::tokens;

    #[test]
    fn inert_statements_are_selects_of_literals() {
        let inert = |sql: &str| super::inert_body(&tokens(sql).unwrap());
        assert!(inert("SELECT 1;"));
        assert!(inert("SELECT NULL; SELECT 'a' AS x, -2;"));
        assert!(!inert("SELECT a;"));
        assert!(!inert("SELECT 1 FROM t1;"));
        assert!(!inert("CREATE TABLE t2 (a INT);"));
        assert!(!inert("SELECT f();"));
    }
}
