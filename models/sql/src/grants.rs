//! `GRANT privileges ON level TO users` and `REVOKE privileges ON level FROM users`: the
//! privilege rows the catalog keeps so that REVOKE's errors are known (the statements'
//! locks are the learned `account` row, [`crate::accounts`]).
//!
//! What MariaDB 10.11 does (sql/sql_acl.cc; measured on 10.11.19,
//! suite/grant-revoke-rows.mdl):
//!
//! - GRANT on a table (`mysql_table_grant`) without CREATE among the privileges first
//!   checks that the table exists (`ha_table_exists`, no MDL): ER_NO_SUCH_TABLE; a column
//!   list opens the table (`open_normal_and_derived_tables`: not modelled). GRANT on a
//!   routine (`mysql_routine_grant`, `sp_exist_routines`): ER_SP_DOES_NOT_EXIST. Then a
//!   user that does not exist is ER_PASSWORD_NO_MATCH unless the statement gives it a
//!   password (`IDENTIFIED BY`: the server's default sql_mode has NO_AUTO_CREATE_USER);
//! - REVOKE of a user that does not exist is ER_NONEXISTING_GRANT at every level; on
//!   `*.*` of a user that exists it succeeds; on `db.*` it needs the user's row in
//!   `mysql.db` (`replace_db_table`: ER_NONEXISTING_GRANT), on a table its row in
//!   `mysql.tables_priv` (`replace_table_table`: ER_NONEXISTING_TABLE_GRANT), whatever
//!   privileges it names; a row goes once it has no privilege and no GRANT OPTION left
//!   (REVOKE ALL leaves the GRANT OPTION).

use super::classify::Tbl;
use super::routines::{RoutineKind, ER_SP_DOES_NOT_EXIST};
use std::collections::{BTreeMap, BTreeSet};

/// ER_NONEXISTING_GRANT.
pub const ER_NONEXISTING_GRANT: u32 = 1141;
/// ER_NONEXISTING_TABLE_GRANT.
pub const ER_NONEXISTING_TABLE_GRANT: u32 = 1147;

/// Where a privilege applies.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// `*.*` (and `*` with no default schema's meaning kept apart: the model's sessions
    /// always have one, so `*` is `db.*`).
    Global,
    Db(String),
    Table(Tbl),
}

/// The privileges a statement names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Privs {
    /// `ALL [PRIVILEGES]`.
    pub all: bool,
    /// The others, lower case (`select`, `create view`, ...).
    pub names: BTreeSet<String>,
    /// `GRANT OPTION` (REVOKE's list, GRANT's `WITH GRANT OPTION`).
    pub grant_option: bool,
}

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

/// A GRANT or REVOKE with ON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GrantOp {
    pub revoke: bool,
    pub level: Level,
    pub privs: Privs,
    /// GRANT: the users given a password (`IDENTIFIED BY`), made when missing.
    pub creates: Vec<String>,
    /// GRANT: the error of the object it names (found when classified: nothing that
    /// could change it runs while a GRANT waits, which is only for FTWRL or BACKUP).
    pub missing: Option<u32>,
}

/// The accounts that exist and their privilege rows on schemas and tables.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Users {
    /// `name@host`.
    pub names: BTreeSet<String>,
    rows: BTreeMap<(String, Level), Privs>,
}

impl Users {
    pub fn contains(&self, u: &str) -> bool {
        self.names.contains(u)
    }

    /// Drops `u` and its rows.
    pub fn remove(&mut self, u: &str) {
        self.names.remove(u);
        self.rows.retain(|(x, _), _| x != u);
    }

    /// `RENAME USER a TO b`: its rows go with it.
    pub fn rename(&mut self, a: &str, b: &str) {
        self.names.remove(a);
        self.names.insert(b.to_owned());
        let moved: Vec<_> = self
            .rows
            .iter()
            .filter(|((x, _), _)| x == a)
            .map(|((_, l), p)| (l.clone(), p.clone()))
            .collect();
        self.rows.retain(|(x, _), _| x != a);
        for (l, p) in moved {
            self.rows.insert((b.to_owned(), l), p);
        }
    }

    /// The error of `op` for `users` now, or none.
    pub fn error(&self, op: &GrantOp, users: &[String]) -> Option<u32> {
        if !op.revoke {
            if op.missing.is_some() {
                return op.missing;
            }
            let missing = users
                .iter()
                .any(|u| !self.contains(u) && !op.creates.contains(u));
            return missing.then_some(super::accounts::ER_PASSWORD_NO_MATCH);
        }
        if users.iter().any(|u| !self.contains(u)) {
            return Some(ER_NONEXISTING_GRANT);
        }
        let code = match op.level {
            Level::Global => return None,
            Level::Db(_) => ER_NONEXISTING_GRANT,
            Level::Table(_) => ER_NONEXISTING_TABLE_GRANT,
        };
        users
            .iter()
            .any(|u| !self.rows.contains_key(&(u.clone(), op.level.clone())))
            .then_some(code)
    }

    /// Applies `op` (without error) to `users`' rows.
    pub fn apply(&mut self, op: &GrantOp, users: &[String]) {
        for u in users {
            if !op.revoke {
                self.names.insert(u.clone());
            }
            if op.level == Level::Global {
                continue;
            }
            let key = (u.clone(), op.level.clone());
            if !op.revoke {
                let r = self.rows.entry(key).or_default();
                r.all |= op.privs.all;
                r.names.extend(op.privs.names.iter().cloned());
                r.grant_option |= op.privs.grant_option;
                continue;
            }
            let Some(r) = self.rows.get_mut(&key) else {
                continue;
            };
            if op.privs.all {
                r.all = false;
                r.names.clear();
            }
            for n in &op.privs.names {
                r.names.remove(n);
            }
            if op.privs.grant_option {
                r.grant_option = false;
            }
            if !r.all && r.names.is_empty() && !r.grant_option {
                self.rows.remove(&key);
            }
        }
    }
}

/// The privilege list of `w[1..on]`; Err for a column list or a privilege the model does
/// not place.
fn privileges(sql: &str, w: &[String], level: &Level) -> Result<Privs, String> {
    let mut p = Privs::default();
    for item in w.split(|x| x == ",") {
        let name = item.join(" ");
        match name.as_str() {
            "all" | "all privileges" => p.all = true,
            "grant option" => p.grant_option = true,
            n if item.iter().any(|x| x == "(") => {
                return Err(format!(
                    "`{sql}`: a column privilege (`{n}`: it opens the table) is not modelled"
                ))
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
    cat: &super::catalog::Catalog,
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
    let missing = missing.or(match &lvl {
        Level::Table(t) if !revoke && !privs.all && !privs.names.contains("create") => {
            (!cat.exists(t)).then_some(super::catalog::ER_NO_SUCH_TABLE)
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
        let (u, j) = super::accounts::user_at(w, i).ok_or_else(bad)?;
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
