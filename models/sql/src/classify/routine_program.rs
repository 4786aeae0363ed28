//! A stored procedure's body as the server compiles it: a list of instructions with
//! jumps (MariaDB `sql/sp_head.h` / `sql/sp_instr.h`: `sp_instr_stmt`, `sp_instr_set`,
//! `sp_instr_jump`, `sp_instr_jump_if_not`, `sp_instr_hpush_jump`, `sp_instr_hpop`,
//! `sp_instr_hreturn`, `sp_instr_cpush` / `copen` / `cfetch` / `cclose`), built by
//! `classify/routine_flow.rs` and run by `model/call_flow.rs` as `sp_head::execute` runs
//! them: one after the other from the first, each instruction naming the next.

use super::routine_expr::Expr;
use crate::objects::Tbl;

/// A condition a handler is declared for (`sp_condition_value`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Cond {
    /// An error number (`FOR 1146`).
    Code(u32),
    /// `FOR SQLSTATE '42S02'`.
    State(String),
    /// SQLEXCEPTION: every SQLSTATE but classes 00, 01 and 02.
    Exception,
    /// SQLWARNING: class 01 (no warning is modelled, so it catches none).
    Warning,
    /// NOT FOUND: class 02 (FETCH past the last row).
    NotFound,
}

/// Where a SELECT ... INTO or a FETCH puts a value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    Local(usize),
    User(String),
}

/// One instruction.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Instr {
    /// `sp_instr_stmt`: a statement with its own locks (`sp_lex_keeper::
    /// reset_lex_and_exec_core`); `into`: the variables it sets from data.
    Stmt { sql: String, into: Vec<Target> },
    /// `sp_instr_set` of a local variable (no lock: no table in the expression).
    Set(usize, Expr),
    /// The value a `SET @x = e` statement (run just before as a `Stmt`) gave `@x`.
    SetUser(String, Expr),
    /// `sp_instr_jump_if_not`: to `dest` unless the condition is true.
    JumpIfNot(Expr, usize),
    /// `sp_instr_jump`.
    Jump(usize),
    /// `sp_instr_hpush_jump`: the handler whose body starts at the next instruction is
    /// pushed; execution goes on at `skip` (after the handler's body).
    HPush {
        exit: bool,
        conds: Vec<Cond>,
        /// The block that declares it (an EXIT handler leaves it).
        block: usize,
        skip: usize,
    },
    /// `sp_instr_hpop`: the block's `n` handlers go.
    HPop(usize),
    /// `sp_instr_hreturn`: the end of a handler's body; an EXIT handler's goes to the end
    /// of its block (`dest`), a CONTINUE handler's to after the failed instruction.
    HReturn { exit_dest: Option<usize> },
    /// `sp_instr_copen`: runs the cursor's SELECT (its locks, as a statement's; the
    /// result is materialized, `Materialized_cursor`, sql/sql_cursor.cc), `tables`: the
    /// tables of its FROM (None: one it cannot name).
    COpen {
        cursor: usize,
        sql: String,
        tables: Option<Vec<Tbl>>,
    },
    /// `sp_instr_cfetch`: no lock; NOT FOUND past the last row.
    CFetch { cursor: usize, into: Vec<Target> },
    /// `sp_instr_cclose`.
    CClose(usize),
    /// A FOR loop's fetch over its cursor (`sp_instr_cfetch` without the NOT FOUND
    /// error, then the jump on `Item_func_cursor_found`, sql/sql_lex.cc
    /// `LEX::sp_for_loop_cursor_iterate` / `sp_for_loop_cursor_condition_test`): a row
    /// into `into`, or to `done` when none is left.
    CNext {
        cursor: usize,
        into: Vec<Target>,
        done: usize,
    },
    /// A nested CALL's body starts (a frame of its own: its handlers; `end`: the
    /// instruction after its `Exit`).
    Enter { end: usize },
    /// A nested CALL's body ends.
    Exit,
    /// A condition raised by the body itself (SIGNAL: ER_SIGNAL_EXCEPTION; a CASE with no
    /// match and no ELSE: ER_SP_CASE_NOT_FOUND).
    Raise { code: u32, state: String },
}

/// A compiled CALL: its instructions, and how many local variables and cursors its
/// frames hold.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Program {
    pub code: Vec<Instr>,
    pub locals: usize,
    pub cursors: usize,
    /// The top-level CALL's argument values, evaluated when it starts (slot, value).
    pub args: Vec<(usize, Expr)>,
}

pub const ER_SP_CASE_NOT_FOUND: u32 = 1339;
pub const ER_SP_WRONG_NO_OF_ARGS: u32 = 1318;
pub const ER_SIGNAL_EXCEPTION: u32 = 1644;
pub const ER_SP_FETCH_NO_DATA: u32 = 1329;
pub const ER_SP_CURSOR_ALREADY_OPEN: u32 = 1325;
pub const ER_SP_CURSOR_NOT_OPEN: u32 = 1326;

/// The SQLSTATE of an error the model gives (`sql_state_map`, sql/sql_state.c via
/// sql/share/errmsg-utf8.txt); None when the model does not know it.
pub fn sqlstate(code: u32) -> Option<&'static str> {
    Some(match code {
        1205 => "HY000",
        1213 => "40001",
        1146 | 1051 => "42S02",
        1050 => "42S01",
        1054 => "42S22",
        1062 => "23000",
        1305 | 1318 => "42000",
        1317 => "70100",
        1325 | 1326 => "24000",
        1329 => "02000",
        1339 => "20000",
        1644 => "45000",
        _ => return None,
    })
}
