//! DML statements: the tables they write and read (`sql/sql_insert.cc`, `sql/sql_update.cc`,
//! `sql/sql_delete.cc`).

use super::{
    delete_targets_unknown, from_tables, from_tables_aliased, kw_eq, kw_eq_at, set_targets, Cur,
    Cx, Effect, SetTarget, Stmt, Tbl, Tok,
};
use crate::kind::Kind;
/// INSERT and REPLACE (`mysql_insert`, sql/sql_insert.cc).
pub(super) fn classify_insert(cx: &Cx, c: &mut Cur, toks: &[Tok]) -> Result<Stmt, String> {
    let db = cx.db;
    c.i = 1;
    while c.eat("low_priority") || c.eat("delayed") || c.eat("high_priority") || c.eat("ignore") {}
    c.eat("into");
    let target = c.table(db)?;
    let mut parts = vec![cx.on_table(Kind::Insert, &target)?];
    let mut need = vec![target.clone()];
    for t in from_tables(&toks[c.i..], db)? {
        parts.push(cx.on_table(Kind::Select, &t)?);
        need.push(t);
    }
    let need = super::system_tables::dml_need(cx.sql, &[target], need)?;
    cx.plan(Kind::Insert, parts, Effect::NeedTables(need), toks)
}

/// UPDATE, single- and multi-table (`mysql_update`, `mysql_multi_update_prepare`).
pub(super) fn classify_update(cx: &Cx, c: &mut Cur, toks: &[Tok]) -> Result<Stmt, String> {
    let sql = cx.sql;
    let db = cx.db;
    c.i = 1;
    while c.eat("low_priority") || c.eat("ignore") {}
    // UPDATE t1 [, t2 ...] SET ...: every table of the list is written (multi-update
    // opens each for writing); tables in subqueries are read.
    let set_at = toks
        .iter()
        .position(|t| kw_eq(t, "set"))
        .ok_or_else(|| format!("no SET in `{sql}`"))?;
    let mut list = vec![Tok::Word {
        text: "update".into(),
        quoted: false,
    }];
    // Derived tables and subqueries of the list are read (`update_derived`).
    let split = super::update_derived::split(&toks[c.i..set_at], db)?;
    list.extend(split.list);
    let written = from_tables_aliased(&list, db)?;
    let targets = set_targets(&toks[set_at + 1..]);
    let sets_derived = targets.as_ref().is_some_and(|q| {
        q.iter()
            .any(|(d, a)| d.is_none() && split.aliases.iter().any(|x| x == a))
    });
    if written.is_empty() {
        if sets_derived {
            return Ok(Stmt::Fails(super::update_derived::ER_NON_UPDATABLE_TABLE));
        }
        return Err(format!("no table in `{sql}`"));
    }
    let mut parts = Vec::new();
    let mut need = Vec::new();
    let mut read = split.read.into_iter().peekable();
    for (n, (t, alias)) in written.iter().enumerate() {
        while let Some((_, r)) = read.next_if(|(k, _)| *k <= n) {
            parts.push(cx.on_table(Kind::Select, &r)?);
            need.push(r);
        }
        let mut p = cx.on_table(Kind::Update, t)?;
        if written.len() > 1 {
            p.set_target = match &targets {
                None => SetTarget::Unknown,
                Some(q)
                    if q.iter().any(|(qd, qt)| match alias {
                        Some(a) => qd.is_none() && qt == a,
                        None => qt == &t.name && qd.as_ref().is_none_or(|d| d == &t.db),
                    }) =>
                {
                    SetTarget::Yes
                }
                Some(_) => SetTarget::No,
            };
        }
        parts.push(p);
        need.push(t.clone());
    }
    for t in read
        .map(|(_, t)| t)
        .chain(from_tables(&toks[set_at..], db)?)
    {
        parts.push(cx.on_table(Kind::Select, &t)?);
        need.push(t);
    }
    // A derived table's column set: 1288 once the tables are open; a missing table's
    // 1146 comes first (`open_tables`), decided here from the catalog as it is now.
    // The tables written: those the SET names (or may name).
    let updated: Vec<Tbl> = written
        .iter()
        .zip(parts.iter().filter(|p| p.kind == Kind::Update))
        .filter(|(_, p)| p.set_target != SetTarget::No)
        .map(|((t, _), _)| t.clone())
        .collect();
    let need = super::system_tables::dml_need(sql, &updated, need)?;
    let effect = if sets_derived && need.iter().all(|t| cx.cat.exists(t)) {
        Effect::Fail(super::update_derived::ER_NON_UPDATABLE_TABLE)
    } else {
        Effect::NeedTables(need)
    };
    cx.plan(Kind::Update, parts, effect, toks)
}

/// DELETE, single- and multi-table (`mysql_delete`, `mysql_multi_delete_prepare`).
pub(super) fn classify_delete(cx: &Cx, c: &mut Cur, toks: &[Tok]) -> Result<Stmt, String> {
    let db = cx.db;
    c.i = 1;
    while c.eat("low_priority") || c.eat("quick") || c.eat("ignore") {}
    if kw_eq_at(toks, c.i, "history") && kw_eq_at(toks, c.i + 1, "from") {
        // System versioning's `DELETE HISTORY FROM t [BEFORE SYSTEM_TIME ...]`
        // (sql_yacc.yy `delete_history`), not a multi-table DELETE of a table `history`:
        // its locks and errors (ER_NO_SUCH_TABLE of a missing table) are not modelled.
        return Err(format!("`{}`: DELETE HISTORY is not modelled", cx.sql));
    }
    let (names, list) = if c.eat("from") {
        let Some(u) = toks.iter().position(|t| kw_eq(t, "using")) else {
            // DELETE FROM t [WHERE ... (subqueries)]: one table, the rest is read.
            let first = c.table(db)?;
            let read = from_tables(&toks[c.i..], db)?;
            return delete_plan(cx, &[first], read, toks);
        };
        let first = wild_target(c, db)?;
        // DELETE FROM t1 [, alias] USING t1 JOIN t2 alias: the names before USING are
        // tables or aliases of the USING list, as the names before FROM are below
        // (sql_yacc.yy `delete_multi_table` builds both forms with the same
        // `table_wild_list`; main/delete.test).
        let mut names = vec![first];
        while c.eat_p(',') {
            names.push(wild_target(c, db)?);
        }
        let mut list = vec![Tok::Word {
            text: "from".into(),
            quoted: false,
        }];
        list.extend(toks[u + 1..].iter().cloned());
        (names, from_tables_aliased(&list, db)?)
    } else {
        // DELETE t1 [, t2] FROM t1 JOIN t2 ...: the names before FROM are tables or
        // aliases of the FROM list.
        let mut names = vec![wild_target(c, db)?];
        while c.eat_p(',') {
            names.push(wild_target(c, db)?);
        }
        (names, from_tables_aliased(&toks[c.i..], db)?)
    };
    if names.iter().any(|n| derived_alias(toks, &n.name)) {
        // A derived table's alias as a target: the server checks the derived table's
        // columns, then refuses it (ER_NON_UPDATABLE_TABLE, main/derived.test).
        return Err(format!(
            "`{}`: DELETE of a derived table is not modelled",
            cx.sql
        ));
    }
    if let Some(code) = delete_targets_unknown(&names, &list) {
        return Ok(Stmt::Fails(code));
    }
    let deleted: Vec<Tbl> = names
        .into_iter()
        .map(|n| {
            list.iter()
                .find(|(_, a)| a.as_deref() == Some(n.name.as_str()))
                .map(|(t, _)| t.clone())
                .unwrap_or(n)
        })
        .collect();
    let read = list
        .into_iter()
        .map(|(t, _)| t)
        .filter(|x| !deleted.contains(x))
        .collect();
    delete_plan(cx, &deleted, read, toks)
}

/// Whether `name` is the alias of a derived table (`(SELECT ...) [AS] name`) in `toks`.
fn derived_alias(toks: &[Tok], name: &str) -> bool {
    let is = |t: Option<&Tok>| matches!(t, Some(Tok::Word { text, .. }) if text == name);
    toks.iter().enumerate().any(|(i, t)| {
        *t == Tok::P(')')
            && (is(toks.get(i + 1)) || (kw_eq_at(toks, i + 1, "as") && is(toks.get(i + 2))))
    })
}

/// One name of a multi-table DELETE's list: `t`, `db.t`, `t.*`, `db.t.*` (sql_yacc.yy's
/// `table_wild_one`: `ident opt_wild | ident '.' ident opt_wild`, `opt_wild` being `.*`;
/// the name is a table or an alias of the FROM / USING list either way).
fn wild_target(c: &mut Cur, db: &str) -> Result<Tbl, String> {
    let wild = |c: &mut Cur| {
        if c.peek() == Some(&Tok::P('.')) && c.t.get(c.i + 1) == Some(&Tok::P('*')) {
            c.i += 2;
            true
        } else {
            false
        }
    };
    let a = c.ident()?;
    if wild(c) || c.peek() != Some(&Tok::P('.')) {
        return Ok(Tbl {
            db: db.to_owned(),
            name: a,
        });
    }
    c.i += 1;
    let name = c.ident()?;
    wild(c);
    Ok(Tbl { db: a, name })
}

/// The plan of a DELETE: SW on each deleted table, SR on each table only read.
fn delete_plan(cx: &Cx, deleted: &[Tbl], read: Vec<Tbl>, toks: &[Tok]) -> Result<Stmt, String> {
    let mut parts = Vec::new();
    let mut need = Vec::new();
    for t in deleted {
        parts.push(cx.on_table(Kind::Delete, t)?);
        need.push(t.clone());
    }
    for t in read {
        parts.push(cx.on_table(Kind::Select, &t)?);
        need.push(t);
    }
    let need = super::system_tables::dml_need(cx.sql, deleted, need)?;
    cx.plan(Kind::Delete, parts, Effect::NeedTables(need), toks)
}
