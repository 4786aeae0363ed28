//! The GRANT / REVOKE statement read into its operation (`GrantOp`, `crate::grants`) and
//! its users: the object's level, the privileges, the users (what MariaDB checks is
//! `crate::grants`' documentation).

use crate::catalog::Catalog;
use crate::catalog::ER_NO_SUCH_TABLE;
use crate::grants::{GrantOp, Level, Privs};
use crate::objects::Tbl;
use crate::routines::{RoutineKind, ER_SP_DOES_NOT_EXIST};

/// The privileges of a table or a schema a statement may name (sql/sql_acl.cc,
/// TABLE_ACLS and DB_ACLS); any other (a global one) is refused.
const TABLE_PRIVS: &[&str] = &[
    "select",
    "insert",
    "update",
    "delete",
    "create",
    "drop",
    "references",
    "index",
    "alter",
    "create view",
    "show view",
    "trigger",
    "delete history",
];

const DB_ONLY_PRIVS: &[&str] = &[
    "create temporary tables",
    "lock tables",
    "execute",
    "create routine",
    "alter routine",
    "event",
];

/// The privilege list of `w[1..on]`; Err for a column list or a privilege the model does
/// not place.
fn privileges(sql: &str, w: &[String], level: &Level) -> Result<Privs, String> {
    let mut p = Privs::default();
    for item in crate::grant_columns::items(w) {
        let name = item.join(" ");
        match name.as_str() {
            "all" | "all privileges" => p.all = true,
            "grant option" => p.grant_option = true,
            n if item.iter().any(|x| x == "(") => {
                if !matches!(level, Level::Table(_)) {
                    return Err(format!(
                        "`{sql}`: a column privilege (`{n}`) on a schema or globally is not \
                         modelled"
                    ));
                }
                crate::grant_columns::column_item(sql, item, &mut p)?;
            }
            n if TABLE_PRIVS.contains(&n)
                || (DB_ONLY_PRIVS.contains(&n) && !matches!(level, Level::Table(_))) =>
            {
                p.names.insert(n.to_owned());
            }
            n if *level == Level::Global => {
                p.names.insert(n.to_owned());
            }
            n => {
                return Err(format!(
                    "`{sql}`: the privilege `{n}` on this level is not modelled"
                ))
            }
        }
    }
    Ok(p)
}

/// The level of `w[on + 1..end]` (ON's object): `*`, `*.*`, `db.*`, `[TABLE] [db.]t`.
/// Err for a routine (handled by the caller) or a shape the model does not read.
fn level(sql: &str, w: &[String], db: &str) -> Result<Level, String> {
    let w = match w.first().map(String::as_str) {
        Some("table") => &w[1..],
        _ => w,
    };
    let text: String = w.concat();
    match text.as_str() {
        "*.*" => return Ok(Level::Global),
        "*" => return Ok(Level::Db(db.to_owned())),
        _ => {}
    }
    if let Some(d) = text.strip_suffix(".*") {
        return Ok(Level::Db(d.to_owned()));
    }
    let ok = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || "_$#".contains(c));
    match text.split_once('.') {
        Some((d, n)) if ok(d) && ok(n) => Ok(Level::Table(Tbl {
            db: d.to_owned(),
            name: n.to_owned(),
        })),
        None if ok(&text) => Ok(Level::Table(Tbl {
            db: db.to_owned(),
            name: text,
        })),
        _ => Err(format!("`{sql}`: the object `{text}` of GRANT / REVOKE")),
    }
}

/// `GRANT privs ON level TO user [IDENTIFIED BY 'p'] [, ...] [WITH GRANT OPTION]` or
/// `REVOKE privs ON level FROM users`: the operation and its users.
pub fn parse(
    sql: &str,
    w: &[String],
    db: &str,
    cat: &Catalog,
) -> Result<(GrantOp, Vec<String>), String> {
    let revoke = w.first().map(String::as_str) == Some("revoke");
    let bad = || format!("`{sql}`: this accounts statement is not modelled");
    let on = w.iter().position(|x| x == "on").ok_or_else(bad)?;
    let to = w
        .iter()
        .position(|x| x == if revoke { "from" } else { "to" })
        .ok_or_else(bad)?;
    if to < on {
        return Err(bad());
    }
    let obj = &w[on + 1..to];
    let routine = match obj.first().map(String::as_str) {
        Some("procedure") => Some(RoutineKind::Procedure),
        Some("function") => Some(RoutineKind::Function),
        Some("package" | "proxy") => return Err(bad()),
        _ => None,
    };
    if w.get(1).is_some_and(|x| x == "proxy") {
        return Err(bad());
    }
    let (lvl, missing) = match routine {
        Some(_) if revoke => return Err(format!("`{sql}`: REVOKE on a routine is not modelled")),
        Some(kind) => {
            let Level::Table(r) = level(sql, &obj[1..], db)? else {
                return Err(bad());
            };
            let missing = cat.routines.get(kind, &r).is_none();
            (Level::Global, missing.then_some(ER_SP_DOES_NOT_EXIST))
        }
        None => (level(sql, obj, db)?, None),
    };
    let mut privs = privileges(sql, &w[1..on], &lvl)?;
    let (users, creates, with_option) = users_of(sql, &w[to + 1..], revoke)?;
    privs.grant_option |= with_option;
    let missing = match (&lvl, privs.columns.is_empty()) {
        (Level::Table(t), false) if !revoke => {
            crate::grant_columns::open_error(sql, t, &privs, cat)?
        }
        _ => missing,
    };
    let missing = missing.or(match &lvl {
        Level::Table(t) if !revoke && !privs.all && !privs.names.contains("create") => {
            (!cat.exists(t)).then_some(ER_NO_SUCH_TABLE)
        }
        _ => None,
    });
    if routine.is_some() && missing.is_none() {
        return Err(format!(
            "`{sql}`: GRANT on a routine that exists is not modelled"
        ));
    }
    Ok((
        GrantOp {
            revoke,
            level: lvl,
            privs,
            creates,
            missing,
        },
        users,
    ))
}

/// The users after TO / FROM: each `user [IDENTIFIED BY 'p']` (GRANT), then `WITH GRANT
/// OPTION`; the users, those given a password, and whether WITH GRANT OPTION was there.
fn users_of(
    sql: &str,
    w: &[String],
    revoke: bool,
) -> Result<(Vec<String>, Vec<String>, bool), String> {
    let bad = || format!("`{sql}`: this accounts statement is not modelled");
    let mut users = Vec::new();
    let mut creates = Vec::new();
    let mut i = 0;
    loop {
        let (u, j) = user_at(w, i).ok_or_else(bad)?;
        i = j;
        if !revoke && w.get(i).is_some_and(|x| x == "identified") {
            if w.get(i + 1).map(String::as_str) != Some("by") || w.get(i + 2).is_none() {
                return Err(bad());
            }
            creates.push(u.clone());
            i += 3;
        }
        users.push(u);
        match w.get(i).map(String::as_str) {
            Some(",") => i += 1,
            None => return Ok((users, creates, false)),
            Some("with") if !revoke && w[i + 1..].join(" ") == "grant option" => {
                return Ok((users, creates, true))
            }
            Some(_) => return Err(bad()),
        }
    }
}

/// `user`, `'user'@'host'`, `user@host` from the words at `w[i..]` until `,` or a word in
/// `stop`; the index after it.
pub(crate) fn user_at(w: &[String], mut i: usize) -> Option<(String, usize)> {
    let name = w.get(i)?.clone();
    i += 1;
    let mut host = "%".to_owned();
    if w.get(i).map(String::as_str) == Some("@") {
        host = w.get(i + 1)?.clone();
        i += 2;
    } else if let Some((n, h)) = name.split_once('@') {
        return Some((format!("{n}@{h}"), i));
    }
    Some((format!("{name}@{host}"), i))
}
