//! `ALTER TABLE child ADD [CONSTRAINT [name]] FOREIGN KEY [IF NOT EXISTS] [name] (cols)
//! REFERENCES parent (cols) [ON DELETE a] [ON UPDATE a]` of an InnoDB child and parent.
//!
//! MariaDB 10.11 (`sql/sql_table.cc` `mysql_alter_table`): InnoDB adds a foreign key in
//! place only with `foreign_key_checks=0` (`ha_innobase::check_if_supported_inplace_alter`,
//! "Adding foreign keys needs foreign_key_checks=OFF"), so with the checks on (the
//! model's sessions) the server's choice without ALGORITHM is COPY: the child's
//! `ALTER ... COPY` steps, and the parent opened SNW for the statement (the referenced
//! table is opened for the copy's foreign key check). Learned row `fk_add_copy` (child
//! `$t`, parent `$t2`). Afterwards the catalog has the edge, so DML writing the parent
//! prelocks the child as for CREATE TABLE's foreign keys (`classify/fk.rs`).
//!
//! A parent that is not an InnoDB table of the catalog: InnoDB's ER_CANT_CREATE_TABLE
//! where the copy creates the new table (`catalog/fks.rs`, `model/fk_checks.rs`).
//!
//! A child that is not there fails at its open (1146) as any ALTER does. Refused by
//! name: a MyISAM child (the server ignores the key; whether it still opens the parent
//! is not measured), ALGORITHM=INPLACE / NOCOPY /
//! INSTANT (the server's 1846), LOCK=, other operations in the same ALTER, a child that
//! already has foreign keys with IF NOT EXISTS (the catalog keeps no key names), a
//! self-reference.

use super::alter_rename::split_ops;
use super::{fk, kw_eq, AlterCols, Bind, Cx, Effect, Engine, Stmt, Tbl, Tok};
use crate::kind::Kind;

/// Whether one operation's tokens start `ADD [CONSTRAINT [name]] FOREIGN KEY`.
fn adds_fk(op: &[Tok]) -> bool {
    let kw = |i: usize, w: &str| op.get(i).is_some_and(|t| kw_eq(t, w));
    if !kw(0, "add") {
        return false;
    }
    let at = if kw(1, "constraint") {
        if kw(2, "foreign") {
            2
        } else {
            3
        }
    } else {
        1
    };
    kw(at, "foreign") && kw(at + 1, "key")
}

/// The child's columns of one `ADD ... FOREIGN KEY ... (cols) REFERENCES` operation: the
/// words of its first parenthesized list.
fn child_columns(op: &[Tok]) -> Vec<String> {
    let Some(open) = op.iter().position(|t| *t == Tok::P('(')) else {
        return Vec::new();
    };
    op[open + 1..]
        .iter()
        .take_while(|t| **t != Tok::P(')'))
        .filter_map(|t| match t {
            Tok::Word { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect()
}

/// ER_WRONG_FK_DEF ("Key reference and table reference don't match"): the key's columns
/// and the parent's listed columns differ in number.
fn wrong_definition(op: &[Tok]) -> Option<u32> {
    let r = op.iter().position(|t| kw_eq(t, "references"))?;
    // The parent's column list right after its name (`t` or `db.t`); none: no check.
    let open = if op.get(r + 2) == Some(&Tok::P('.')) {
        r + 4
    } else {
        r + 2
    };
    if op.get(open) != Some(&Tok::P('(')) {
        return None;
    }
    let parent_cols = op[open + 1..]
        .iter()
        .take_while(|t| **t != Tok::P(')'))
        .filter(|t| matches!(t, Tok::Word { .. }))
        .count();
    (parent_cols != child_columns(op).len()).then_some(1239)
}

/// Whether an operation is `ALGORITHM [=] COPY | DEFAULT`.
fn copy_algorithm(op: &[Tok]) -> Option<bool> {
    if !op.first().is_some_and(|t| kw_eq(t, "algorithm")) {
        return None;
    }
    Some(
        op.last()
            .is_some_and(|t| kw_eq(t, "copy") || kw_eq(t, "default")),
    )
}

/// The plan of an ALTER TABLE adding a foreign key (`at` the token index after the table
/// name); `None` when it adds none.
pub fn classify(cx: &Cx, toks: &[Tok], child: &Tbl, at: usize) -> Option<Result<Stmt, String>> {
    let ops = split_ops(toks, at);
    let fk_ops: Vec<&(usize, usize)> = ops.iter().filter(|&&(s, e)| adds_fk(&toks[s..e])).collect();
    if fk_ops.is_empty() {
        return None;
    }
    Some(plan(cx, toks, child, &ops, fk_ops[0]))
}

fn plan(
    cx: &Cx,
    toks: &[Tok],
    child: &Tbl,
    ops: &[(usize, usize)],
    &(s, e): &(usize, usize),
) -> Result<Stmt, String> {
    let sql = cx.sql;
    let refuse = |why: &str| Err(format!("`{sql}`: ADD FOREIGN KEY {why} is not modelled"));
    for &(os, oe) in ops {
        if (os, oe) == (s, e) {
            continue;
        }
        match copy_algorithm(&toks[os..oe]) {
            Some(true) => {}
            Some(false) => return refuse("with ALGORITHM other than COPY (the server's 1846)"),
            None => return refuse("among other operations"),
        }
    }
    if !cx.cat.exists(child) {
        // The child fails at its open (1146) before the parent is opened: the plain
        // ALTER ... COPY's locks up to there (`Effect::Alter` of a missing table).
        let effect = Effect::Alter {
            t: child.clone(),
            forget_pk: false,
            cols: AlterCols::Forget,
        };
        let part = cx.on_table(Kind::AlterCopy, child)?;
        return cx.plan(Kind::AlterCopy, vec![part], effect, toks);
    }
    if cx.cat.engine(child) != Some(Engine::InnoDb) || !cx.cat.is_table(child) {
        return refuse("of a table that is not an InnoDB table of the catalog");
    }
    let op = &toks[s..e];
    let if_not_exists = op
        .windows(3)
        .any(|w| kw_eq(&w[0], "if") && kw_eq(&w[1], "not") && kw_eq(&w[2], "exists"));
    if if_not_exists && cx.cat.has_fk(child) {
        return refuse("IF NOT EXISTS of a table with foreign keys");
    }
    let fks = fk::create_fks(sql, op, child, cx.db)?;
    let [key] = fks.as_slice() else {
        // (`fk::create_fks` leaves out a key to the table itself.)
        return refuse("to the table itself, or with several REFERENCES,");
    };
    let parent = key.parent.clone();
    if let Some(code) = wrong_definition(op) {
        // ER_WRONG_FK_DEF (`Foreign_key::validate`-style check while the new table is
        // prepared): after IX, SU and BACKUP_DDL (measured on 10.11.19: it waits behind
        // BACKUP STAGE BLOCK_DDL; suite/innodb/t/foreign_key.test:1056).
        let effect = Effect::Alter {
            t: child.clone(),
            forget_pk: false,
            cols: AlterCols::Fail(code),
        };
        let part = cx.on_table(Kind::AlterCopy, child)?;
        return cx.plan(Kind::AlterCopy, vec![part], effect, toks);
    }
    if let Some(def) = cx.cat.columns(child) {
        if child_columns(op)
            .iter()
            .any(|c| def.col(&c.to_ascii_lowercase()).is_none())
        {
            // The key's own column is not in the table: ER_KEY_COLUMN_DOES_NOT_EXIST
            // (mysql_prepare_create_table of the new table, in mysql_alter_table) before
            // InnoDB looks at the parent (measured on 10.11.19 with a missing parent:
            // main/subselect2.test:144; after IX, SU and BACKUP_DDL as the other column
            // errors, `alter_columns.rs`). A parent that exists is not locked first
            // (measured: no wait for LOCK TABLES of the parent WRITE).
            let effect = Effect::Alter {
                t: child.clone(),
                forget_pk: false,
                cols: AlterCols::Fail(crate::alter_columns::ER_KEY_COLUMN_DOES_NOT_EXIST),
            };
            let part = cx.on_table(Kind::AlterCopy, child)?;
            return cx.plan(Kind::AlterCopy, vec![part], effect, toks);
        }
    }
    // (The key may add an index on the child's columns: the model forgets its keys.)
    let effect = Effect::WithFks(
        Box::new(Effect::Alter {
            t: child.clone(),
            forget_pk: false,
            cols: AlterCols::Forget,
        }),
        fks,
    );
    if !cx.cat.exists(&parent) {
        // No parent: the server's answer is InnoDB's ER_CANT_CREATE_TABLE, not the
        // parent's ER_NO_SUCH_TABLE (measured on 10.11.19), so its open does not fail.
        // Played as ALTER ... COPY without the parent's SNW, a lock on a name no table
        // has (a deliberate difference: only a session creating that table at the same
        // moment could see it), cut where InnoDB refuses the key (`model/fk_checks.rs`).
        let part = cx.on_table(Kind::AlterCopy, child)?;
        return cx.plan(Kind::AlterCopy, vec![part], effect, toks);
    }
    // A parent that is not an InnoDB table (MyISAM, a view) is opened SNW as any parent
    // (measured: the ALTER waits for LOCK TABLES m1 WRITE), then InnoDB refuses the key.
    let part = cx.part(
        Kind::FkAddCopy,
        Bind {
            t: Some(child.clone()),
            t2: Some(parent),
            ..Bind::default()
        },
    );
    cx.plan(Kind::FkAddCopy, vec![part], effect, toks)
}
