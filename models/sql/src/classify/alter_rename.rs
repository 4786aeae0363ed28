//! `ALTER TABLE t RENAME [TO | AS] n` with no other operation: `mysql_alter_table`'s
//! simple rename (sql/sql_table.cc, `simple_rename_or_index_change`): SU on `t` with its
//! schema's IX and BACKUP_DDL (`lock_table_names`), X on the new name, then `t` up to X;
//! the learned `alter_rename` row. The catalog renames the table as RENAME TABLE does
//! (ER_NO_SUCH_TABLE, ER_TABLE_EXISTS after the locks). The table's own name
//! (`ALTER TABLE test.t1 RENAME t1`, main/alter_table.test) is no rename:
//! `simple_rename_or_index_change` neither waits for X nor renames when
//! `Alter_table_ctx::is_table_renamed()` is false, so the statement ends after IX, SU and
//! BACKUP_DDL (measured on 10.11.19: it answers at once behind another session's SR;
//! `alter-rename-to-own-name.mdl`). A new name in another schema: the same rename, the new
//! schema's IX taken with the new name's X (`model/alter_rename.rs`,
//! `suite/alter-rename-schema.mdl`). Its own name of a table that is not there, a
//! system schema, or a new schema that is not there, is refused.

use super::{AlterCols, Bind, Cur, Cx, Effect, Stmt, Tbl, Tok};
use crate::kind::Kind;
use crate::objects::Engine;

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
    if n == *t && cx.cat.exists(t) && !cx.cat.is_view(t) {
        return own_name(cx, toks, t);
    }
    if n == *t {
        return Err(format!(
            "`{sql}`: ALTER TABLE ... RENAME to its own name of a table that is not there \
             is not modelled"
        ));
    }
    other_schema(cx, t, &n, true)?;
    cx.no_view(t)?;
    let p = cx.part(
        Kind::AlterRename,
        Bind {
            t: Some(t.clone()),
            n: Some(n.clone()),
            ..Bind::default()
        },
    );
    cx.plan(
        Kind::AlterRename,
        vec![p],
        Effect::Rename(vec![(t.clone(), n)]),
        toks,
    )
}

/// `ALTER TABLE t RENAME t` of a table that exists: the "nothing to do" path (IX, SU,
/// BACKUP_DDL, then the end; `AlterCols::Nothing`, as `classify/alter_fk.rs`).
fn own_name(cx: &Cx, toks: &[Tok], t: &Tbl) -> Result<Stmt, String> {
    let effect = Effect::Alter {
        t: t.clone(),
        forget_pk: false,
        cols: AlterCols::Nothing,
    };
    let p = cx.on_table(Kind::AlterInstant, t)?;
    cx.plan(Kind::AlterInstant, vec![p], effect, toks)
}

/// A new name in another schema is the same rename with the new schema's IX taken with
/// the new name's X (`model/alter_rename.rs`); refused when a schema is a system schema
/// (`information_schema`'s 1044, `mysql`'s and `performance_schema`'s own tables). A new
/// schema that is not there: an InnoDB table renamed alone gets the catalog's 1025 after
/// every lock (`catalog/rename.rs`); with other operations (the server's 1049, measured)
/// or of another engine (MyISAM: error 7) it is refused.
fn other_schema(cx: &Cx, t: &Tbl, n: &Tbl, alone: bool) -> Result<(), String> {
    if n.db == t.db {
        return Ok(());
    }
    let system = |db: &str| {
        ["information_schema", "mysql", "performance_schema", "sys"]
            .iter()
            .any(|s| db.eq_ignore_ascii_case(s))
    };
    if system(&t.db) || system(&n.db) {
        return Err(format!(
            "`{}`: ALTER TABLE ... RENAME from or to a system schema is not modelled",
            cx.sql
        ));
    }
    if !cx.cat.has_schema(&n.db) && (!alone || cx.cat.engine_exact(t) != Some(Engine::InnoDb)) {
        return Err(format!(
            "`{}`: ALTER TABLE ... RENAME with other operations, or of a table that is not \
             InnoDB, to a schema that is not there is not modelled",
            cx.sql
        ));
    }
    Ok(())
}

/// The statement's source again from its tokens (a string quoted, a quoted identifier in
/// backticks), for the ALTER without its RENAME.
pub(super) fn text(toks: &[Tok]) -> String {
    let mut out = Vec::new();
    for t in toks {
        out.push(match t {
            Tok::Word { text, quoted: true } => format!("`{}`", text.replace('`', "``")),
            Tok::Word { text, .. } => text.clone(),
            Tok::Str(s) => format!("'{}'", s.replace('\\', "\\\\").replace('\'', "''")),
            Tok::Num(n) => n.clone(),
            Tok::P(c) => c.to_string(),
        });
    }
    out.join(" ")
}

/// `ALTER TABLE t op, ..., RENAME [TO|AS] n, ...` (`at` the token index after the table
/// name): `mysql_alter_table` (sql/sql_table.cc) takes the new name's X
/// (`target_mdl_request`, `MDL_context::acquire_locks`) right after `open_tables` (IX, SU,
/// BACKUP_DDL), fails with ER_TABLE_EXISTS_ERROR when the name is taken
/// (`ha_table_exists`), and only then prepares the other operations
/// (`mysql_prepare_alter_table`: their errors come after the X) and runs them by their
/// algorithm, renaming at the end. Played as the ALTER without the RENAME (classified
/// again), with the learned row of its algorithm and the new name
/// (`alter_copy_rename`, `alter_inplace_rename`, `alter_instant_rename`; DISABLE / ENABLE
/// KEYS with RENAME is the simple rename, `alter_rename`); the steps stop where the
/// server's error is (`model/alter_rename.rs`). `None` when the statement renames no
/// table.
pub fn with_operations(cx: &Cx, toks: &[Tok], t: &Tbl, at: usize) -> Option<Result<Stmt, String>> {
    let ops = split_ops(toks, at);
    let renames: Vec<usize> = (0..ops.len())
        .filter(|&i| renames_table(&toks[ops[i].0..ops[i].1]))
        .collect();
    let [ri] = renames[..] else {
        return (renames.len() > 1).then(|| {
            Err(format!(
                "`{}`: several RENAME TO in one ALTER TABLE are not modelled",
                cx.sql
            ))
        });
    };
    let (s, e) = ops[ri];
    let mut c = Cur {
        t: &toks[..e],
        i: s + 1,
        sql: cx.sql,
    };
    let _ = c.eat("to") || c.eat("as");
    let n = match c.table(cx.db) {
        Ok(n) if c.done() => n,
        _ => {
            return Some(Err(format!(
                "`{}`: a RENAME TO the model cannot read",
                cx.sql
            )))
        }
    };
    let mut rest: Vec<Tok> = toks[..at].to_vec();
    for (i, &(s, e)) in ops.iter().enumerate().filter(|(i, _)| *i != ri) {
        if rest.len() > at && i > 0 {
            rest.push(Tok::P(','));
        }
        rest.extend_from_slice(&toks[s..e]);
    }
    Some(combined(cx, toks, t, n, &text(&rest)))
}

/// Whether one operation's tokens rename the table (not a column, index or key).
fn renames_table(op: &[Tok]) -> bool {
    let word = |i: usize| match op.get(i) {
        Some(Tok::Word {
            text,
            quoted: false,
        }) => text.to_ascii_lowercase(),
        _ => String::new(),
    };
    word(0) == "rename" && !matches!(word(1).as_str(), "column" | "index" | "key")
}

/// The operations from token `at` on: (start, end) token ranges split at the commas
/// outside parentheses.
pub(super) fn split_ops(toks: &[Tok], at: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, at);
    for (i, t) in toks.iter().enumerate().skip(at) {
        match t {
            Tok::P('(') => depth += 1,
            Tok::P(')') => depth -= 1,
            Tok::P(',') if depth == 0 => {
                out.push((start, i));
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push((start, toks.len()));
    out.retain(|(s, e)| s < e);
    out
}

fn combined(cx: &Cx, toks: &[Tok], t: &Tbl, n: Tbl, rest: &str) -> Result<Stmt, String> {
    let sql = cx.sql;
    if n == *t {
        // Its own name: `Alter_table_ctx::is_table_renamed()` is false, so
        // `mysql_alter_table` takes no new name's X and renames nothing: the ALTER of the
        // other operations (main/trigger.test's `alter table t1 rename to test.t1, add
        // column val int default 0`; `suite/alter-rename-schema.mdl`).
        return super::classify(rest, cx.db, cx.cat, cx.has_row)
            .map_err(|e| format!("`{sql}`: without its RENAME: {e}"));
    }
    other_schema(cx, t, &n, false)?;
    cx.no_view(t)?;
    let inner = super::classify(rest, cx.db, cx.cat, cx.has_row)
        .map_err(|e| format!("`{sql}`: without its RENAME: {e}"))?;
    let Stmt::Learned(p) = inner else {
        return Err(format!(
            "`{sql}`: RENAME TO with these operations is not modelled"
        ));
    };
    let [part] = &p.parts[..] else {
        return Err(format!(
            "`{sql}`: RENAME TO with these operations is not modelled"
        ));
    };
    let bind = || Bind {
        t: Some(t.clone()),
        n: Some(n.clone()),
        ..Bind::default()
    };
    // (A name that exists: ER_TABLE_EXISTS_ERROR after the new name's X, whatever the
    // operations' algorithm and LOCK=.)
    let taken = cx.cat.exists(&n) && cx.cat.is_table(t);
    let keys = p.kind == Kind::AlterKeys && part.row == Kind::AlterKeys.as_str();
    let simple = keys || (taken && p.kind.is_alter() && p.kind != Kind::AlterUnknownEngine);
    if simple {
        let row = cx.part(Kind::AlterRename, bind());
        return cx.plan(
            Kind::AlterRename,
            vec![row],
            Effect::Rename(vec![(t.clone(), n)]),
            toks,
        );
    }
    if !matches!(
        &p.effect,
        Effect::Alter {
            cols: AlterCols::Fail(_) | AlterCols::Forget | AlterCols::Set(_),
            ..
        }
    ) {
        return Err(format!(
            "`{sql}`: RENAME TO with operations of `{}` is not modelled",
            p.kind
        ));
    }
    let kind = p.kind;
    let Some(renamed) = kind.with_rename().filter(|_| part.row == kind.as_str()) else {
        return Err(format!(
            "`{sql}`: RENAME TO with `{}` (LOCK=, or a MyISAM table) is not in the learned \
             table",
            part.row
        ));
    };
    let mut row = cx.part(renamed, bind());
    // The model's rules of the algorithm (its steps, LOCK TABLES) are its kind's.
    row.kind = kind;
    let effect = Effect::AlterRename {
        t: t.clone(),
        n,
        alter: Box::new(p.effect.clone()),
    };
    cx.plan(kind, vec![row], effect, toks)
}
