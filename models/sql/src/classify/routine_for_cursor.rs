//! `FOR rec IN cursor DO ... END FOR` and `FOR rec IN (SELECT ...) DO ... END FOR` in a
//! stored program's body (MariaDB 10.3+), compiled as the parser emits them
//! (sql/sql_lex.cc `LEX::sp_for_loop_cursor_declarations`,
//! `sp_for_loop_implicit_cursor_statement`, `sp_for_loop_cursor_condition_test`,
//! `sp_for_loop_cursor_iterate`, `sp_for_loop_outer_block_finalize`): the record `rec` is
//! a variable of the loop's own block; the loop opens its cursor (`sp_instr_copen`: the
//! SELECT runs as a statement, its locks; an explicit cursor already open is
//! ER_SP_CURSOR_ALREADY_OPEN), fetches a row each turn without the NOT FOUND error and
//! leaves when none was found (`CNext`: where ITERATE goes), and closes the cursor when
//! it leaves, by its end or a LEAVE (`sp_instr_cclose` / `cpop`): a FETCH of it after the
//! loop is ER_SP_CURSOR_NOT_OPEN. The body runs once per row the model knows the cursor
//! has (`model/call_flow.rs`: a query of no table, one row; of tables the catalog knows
//! empty, none; else the run is refused). A cursor with parameters is not played.

use super::routine_flow::{Compiler, Scope};
use super::routine_program::{Instr, Target};
use super::{kw_eq, Tok};

type R<T> = Result<T, String>;

impl Compiler<'_> {
    /// `t`: the whole `FOR rec IN ... DO body END FOR [label]`; `d`: its DO, `end`: its
    /// END.
    pub(super) fn for_cursor(
        &mut self,
        label: Option<String>,
        t: &[Tok],
        d: usize,
        end: usize,
    ) -> R<()> {
        let rec = match t.get(1) {
            Some(Tok::Word { text, .. }) => text.to_lowercase(),
            _ => return Err("a FOR loop without its record".into()),
        };
        let (cursor, sql) = match t.get(3..d).unwrap_or_default() {
            [c] if !kw_eq(c, "reverse") => self.cursor(c)?,
            [Tok::P('('), q @ .., Tok::P(')')] if q.first().is_some_and(|x| kw_eq(x, "select")) => {
                // The implicit cursor of its own (`sp_for_loop_implicit_cursor_statement`).
                let slot = self.cursors;
                self.cursors += 1;
                (slot, super::lex::render(q))
            }
            [_, Tok::P('('), ..] => return Err("a cursor with parameters is not played".into()),
            _ => return Err("a FOR loop over a cursor or a query is not played".into()),
        };
        let tables = super::routine_text::from_tables(&sql, &self.db);
        self.scopes.push(Scope {
            label,
            id: self.block_id(),
            ..Scope::default()
        });
        let slot = self.new_local(&rec);
        // The record is a ROW variable: `rec.f` in the body is its field.
        self.rows.push(slot);
        self.emit(Instr::COpen {
            cursor,
            sql,
            tables,
        });
        let start = self.emit(Instr::CNext {
            cursor,
            into: vec![Target::Local(slot)],
            done: 0,
        });
        self.scope().loop_start = Some(start);
        self.scope().to_after.push(start);
        self.body_then_jump_back(&t[d + 1..end], start)?;
        self.emit(Instr::CClose(cursor));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::routine_flow::Compiler;
    use super::super::tokens;
    use super::*;
    use crate::catalog::Catalog;

    fn compile(sql: &str) -> R<Vec<Instr>> {
        let cat = Catalog::default();
        let mut c = Compiler::new(&cat, "test");
        c.stmt(&tokens(sql).unwrap())?;
        Ok(c.code)
    }

    #[test]
    fn a_cursor_loop_opens_fetches_and_closes() {
        let code = compile(
            "BEGIN DECLARE cur CURSOR FOR SELECT 1 AS a FROM DUAL; \
             FOR rec IN cur DO SELECT rec.a; END FOR; END",
        )
        .unwrap();
        assert!(matches!(code[0], Instr::COpen { cursor: 0, .. }));
        assert!(matches!(
            code[1],
            Instr::CNext {
                cursor: 0,
                done: 4,
                ..
            }
        ));
        assert!(matches!(&code[2], Instr::Stmt { sql, .. } if sql == "SELECT NULL"));
        assert_eq!(code[3], Instr::Jump(1));
        assert_eq!(code[4], Instr::CClose(0));
        let implicit = compile("FOR r IN (SELECT a FROM t1) DO SELECT r.a; END FOR").unwrap();
        assert!(matches!(&implicit[0], Instr::COpen { sql, .. } if sql == "SELECT a FROM t1"));
        let leave = compile("l: FOR r IN (SELECT 1) DO LEAVE l; END FOR").unwrap();
        assert_eq!(leave[2], Instr::Jump(4));
        assert!(compile(
            "BEGIN DECLARE c CURSOR (p INT) FOR SELECT p; FOR r IN c(1) DO SELECT 1; END FOR; END"
        )
        .is_err());
    }
}
