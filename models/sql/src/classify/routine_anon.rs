//! A compound statement outside any stored program (`FOR i IN 1..3 DO ... END FOR`,
//! `LOOP`, `REPEAT`, `WHILE`, `IF`, `CASE`, `BEGIN NOT ATOMIC ... END`, each maybe
//! labelled): MariaDB's parser takes it at the top level as an anonymous procedure
//! (`sql/sql_yacc.yy`: `compound_statement` → `sp_proc_stmt_compound_ok`, SQLCOM_COMPOUND,
//! `LEX::sp_body_finalize_procedure`) and runs it as a CALL runs a body
//! (`mysql_execute_command`, SQLCOM_COMPOUND → `sp_head::execute_procedure`): each
//! statement with its own locks, none on the block itself. The body is read by the
//! stored-program reader (`classify/routine_block.rs`, as a procedure's: a parser error
//! it finds, such as RETURN's ER_SP_BADRETURN, fails the statement before it runs) and
//! compiled by `classify/routine_flow.rs` as a procedure without parameters.

use super::routine_block::{read, Ctx, Why};
use super::routine_flow::Compiler;
use super::routine_program::{Instr, Program};
use super::{kw_eq, Catalog, Tbl, Tok};
use crate::routines::Body;

/// Whether `toks` is a compound statement (possibly after a label).
pub(super) fn is_compound(toks: &[Tok]) -> bool {
    let start = if toks.get(1) == Some(&Tok::P(':')) {
        2
    } else {
        0
    };
    let at = |k: usize, w: &str| toks.get(k).is_some_and(|t| kw_eq(t, w));
    ["for", "loop", "repeat", "while", "if", "case"]
        .iter()
        .any(|w| at(start, w))
        || (at(start, "begin") && (start == 2 || (at(1, "not") && at(2, "atomic"))))
}

/// The instructions of the compound statement `sql` (its tokens `toks`), run in schema
/// `db`; Err when the model does not follow it.
pub(super) fn instructions(
    sql: &str,
    toks: &[Tok],
    db: &str,
    cat: &Catalog,
) -> Result<Program, String> {
    let mut comp = Compiler::new(cat, db);
    let stmts = match read(toks, Ctx::Procedure) {
        Ok(s) => s,
        Err(Why::Fails(code)) => {
            comp.code.push(Instr::Raise {
                code,
                state: "42000".into(),
            });
            return Ok(comp.finish(Vec::new()));
        }
        Err(Why::Refused(why)) => return Err(format!("`{sql}`: {why}")),
    };
    let body = Body {
        uses_tables: true,
        stmts: stmts.iter().map(|s| super::lex::render(s)).collect(),
        flow: true,
        src: format!("() {sql}"),
        preserve: false,
    };
    let p = Tbl {
        db: db.to_owned(),
        name: "(anonymous block)".to_owned(),
    };
    comp.procedure(&p, &body, &[])
        .map(|slots| comp.finish(slots))
        .map_err(|e| format!("`{sql}`: a compound statement: {e}"))
}

#[cfg(test)]
mod tests {
    use super::super::tokens;
    use super::*;

    #[test]
    fn compound_statements_are_told() {
        let is = |sql: &str| is_compound(&tokens(sql).unwrap());
        assert!(is("FOR i IN 1..3 DO INSERT INTO t1 VALUES (i); END FOR"));
        assert!(is("l1: LOOP LEAVE l1; END LOOP"));
        assert!(is("BEGIN NOT ATOMIC SELECT 1; END"));
        assert!(is("lbl: BEGIN SELECT 1; END"));
        assert!(is("IF 1 THEN SELECT 1; END IF"));
        assert!(!is("BEGIN"));
        assert!(!is("BEGIN WORK"));
        assert!(!is("SELECT 1"));
        assert!(!is("DO 1"));
    }
}
