//! `ALTER TABLE t RENAME [TO | AS] n` with no other operation: `mysql_alter_table`'s
//! simple rename (sql/sql_table.cc, `simple_rename_or_index_change`): SU on `t` with its
//! schema's IX and BACKUP_DDL (`lock_table_names`), X on the new name, then `t` up to X;
//! the learned `alter_rename` row. The catalog renames the table as RENAME TABLE does
//! (ER_NO_SUCH_TABLE, ER_TABLE_EXISTS after the locks). A new name in another schema
//! (whose IX the server takes too) or the table's own name is refused.

use super::{Bind, Cur, Cx, Effect, Stmt, Tbl, Tok};

/// The plan of `ALTER TABLE t RENAME ...` when the statement is only that (`at` the
/// token index of RENAME); `None` when it has other operations or names a column, index
/// or key.
pub fn classify(cx: &Cx, toks: &[Tok], t: &Tbl, at: usize) -> Option<Result<Stmt, String>> {
    let mut c = Cur {
        t: toks,
        i: at + 1,
        sql: cx.sql,
    };
    if c.at("column") || c.at("index") || c.at("key") {
        return None;
    }
    let _ = c.eat("to") || c.eat("as");
    let n = c.table(cx.db).ok()?;
    if !c.done() {
        return None;
    }
    Some(plan(cx, toks, t, n))
}

fn plan(cx: &Cx, toks: &[Tok], t: &Tbl, n: Tbl) -> Result<Stmt, String> {
    let sql = cx.sql;
    if n.db != t.db || n == *t {
        return Err(format!(
            "`{sql}`: ALTER TABLE ... RENAME to another schema or to its own name is not \
             modelled"
        ));
    }
    cx.no_view(t)?;
    let p = cx.part(
        "alter_rename",
        Bind {
            t: Some(t.clone()),
            n: Some(n.clone()),
            ..Bind::default()
        },
    );
    cx.plan(
        "alter_rename",
        vec![p],
        Effect::Rename(vec![(t.clone(), n)]),
        toks,
    )
}
