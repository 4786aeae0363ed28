//! Names declared twice in one block of a stored program's body: the parser keeps one
//! `sp_pcontext` per BEGIN ... END (`LEX::sp_block_init` → `sp_pcontext::push_context`,
//! sql/sql_lex.cc) and looks each new name up in the current one only: a second
//! variable, condition or cursor of a name in the same block fails the definition (or
//! the anonymous block) before any lock, at that DECLARE, with ER_SP_DUP_VAR (1331,
//! `sp_decl_idents` in sql/sql_yacc.yy: `find_variable(name, true)`), ER_SP_DUP_COND
//! (1332, `sp_pcontext::declare_condition`: `find_condition(name, true)`) or
//! ER_SP_DUP_CURS (1333, `LEX::sp_declare_cursor`: `find_cursor(name, .., true)`). A
//! name of an outer block, or a parameter (the root context, outside the body's BEGIN),
//! is hidden, not a duplicate; the three kinds have separate name spaces
//! (main/sp-error.test, funcs_1/storedproc.test; measured on 10.11.19,
//! `suite/sp-dup-decls.mdl`).

use super::routine_reader::{Reader, Why};
use super::Tok;

pub const ER_SP_DUP_VAR: u32 = 1331;
pub const ER_SP_DUP_COND: u32 = 1332;
pub const ER_SP_DUP_CURS: u32 = 1333;

/// The kind of a declared name (each its own name space).
#[derive(Clone, Copy)]
pub(super) enum Kind {
    Var,
    Cond,
    Cursor,
}

impl Reader<'_> {
    /// `name` declared as a `kind` in the innermost block: the parser's error when the
    /// block already has one of that name.
    pub(super) fn declare_name(&mut self, kind: Kind, name: &Tok) -> Result<(), Why> {
        let Tok::Word { text, .. } = name else {
            return Ok(());
        };
        let Some(block) = self.blocks.last_mut() else {
            return Ok(());
        };
        let (names, code) = match kind {
            Kind::Var => (&mut block.vars, ER_SP_DUP_VAR),
            Kind::Cond => (&mut block.conds, ER_SP_DUP_COND),
            Kind::Cursor => (&mut block.cursors, ER_SP_DUP_CURS),
        };
        let n = text.to_lowercase();
        if names.contains(&n) {
            return Err(Why::Fails(code));
        }
        names.push(n);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::routine_block::{read, Ctx};
    use super::super::tokens;
    use super::*;

    fn fails(sql: &str) -> Option<u32> {
        match read(&tokens(sql).unwrap(), Ctx::Procedure) {
            Err(Why::Fails(c)) => Some(c),
            _ => None,
        }
    }

    /// main/sp-error.test's three, and what is no duplicate.
    #[test]
    fn names_declared_twice_in_one_block() {
        assert_eq!(
            fails("BEGIN DECLARE x FLOAT; DECLARE x INT; END"),
            Some(ER_SP_DUP_VAR)
        );
        assert_eq!(fails("BEGIN DECLARE x, X INT; END"), Some(ER_SP_DUP_VAR));
        assert_eq!(
            fails("BEGIN DECLARE c CONDITION FOR 1064; DECLARE c CONDITION FOR 1065; END"),
            Some(ER_SP_DUP_COND)
        );
        assert_eq!(
            fails(
                "BEGIN DECLARE c CURSOR FOR SELECT * FROM t1; \
                 DECLARE c CURSOR FOR SELECT a FROM t1; END"
            ),
            Some(ER_SP_DUP_CURS)
        );
        // Another block, another kind: no error.
        assert_eq!(
            fails("BEGIN DECLARE x INT; BEGIN DECLARE x INT; END; END"),
            None
        );
        assert_eq!(
            fails("BEGIN DECLARE c INT; DECLARE c CONDITION FOR 1065; END"),
            None
        );
        assert_eq!(
            fails("BEGIN DECLARE c INT; DECLARE c CURSOR FOR SELECT 1; END"),
            None
        );
    }
}
