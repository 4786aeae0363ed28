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

/// The privileges of a routine (sql/privilege.h, PROC_ACLS).
const ROUTINE_PRIVS: &[&str] = &["execute", "alter routine"];

/// Privileges of `*.*` alone (sql/privilege.h, GLOBAL_ACLS without DB_ACLS).
const GLOBAL_ONLY_PRIVS: &[&str] = &[
    "file",
    "process",
    "reload",
    "shutdown",
    "super",
    "replication slave",
    "replication client",
    "create user",
    "create tablespace",
    "show databases",
    "binlog admin",
    "binlog monitor",
    "binlog replay",
    "connection admin",
    "federated admin",
    "read_only admin",
    "replication master admin",
    "replication slave admin",
    "slave monitor",
    "set user",
];

/// ER_ILLEGAL_GRANT_FOR_TABLE: a privilege its level does not have (a table's or a
/// routine's).
pub const ER_ILLEGAL_GRANT_FOR_TABLE: u32 = 1144;
/// ER_WRONG_USAGE ("DB GRANT and GLOBAL PRIVILEGES"): a global privilege on a schema.
pub const ER_WRONG_USAGE: u32 = 1221;

/// The privilege list of `w[1..on]` and the error of one its level does not have
/// (measured on 10.11.19: after the implicit commit, the grant tables' locks and the
/// users' checks, as `mysql_grant` / `mysql_table_grant` / `mysql_routine_grant` find it
/// once the users are found; suite/accounts-roles-proxy.mdl); Err for a column list or a
/// privilege the model does not place.
fn privileges(sql: &str, w: &[String], level: &Level) -> Result<(Privs, Option<u32>), String> {
    let mut p = Privs::default();
    let mut illegal = None;
    for item in crate::grant_columns::items(w) {
        let name = item.join(" ");
        let n = name.as_str();
        match (n, level) {
            ("all" | "all privileges", _) => p.all = true,
            ("grant option", _) => p.grant_option = true,
            ("usage", _) => {}
            _ if item.iter().any(|x| x == "(") => {
                if !matches!(level, Level::Table(_)) {
                    return Err(format!(
                        "`{sql}`: a column privilege (`{n}`) on a schema or globally is not \
                         modelled"
                    ));
                }
                crate::grant_columns::column_item(sql, item, &mut p)?;
            }
            (_, Level::Global) => {
                p.names.insert(n.to_owned());
            }
            (_, Level::Db(_)) if TABLE_PRIVS.contains(&n) || DB_ONLY_PRIVS.contains(&n) => {
                p.names.insert(n.to_owned());
            }
            (_, Level::Table(_)) if TABLE_PRIVS.contains(&n) => {
                p.names.insert(n.to_owned());
            }
            (_, Level::Routine(..)) if ROUTINE_PRIVS.contains(&n) => {
                p.names.insert(n.to_owned());
            }
            (_, Level::Db(_)) if GLOBAL_ONLY_PRIVS.contains(&n) => {
                illegal = Some(ER_WRONG_USAGE);
            }
            (_, Level::Table(_) | Level::Routine(..))
                if GLOBAL_ONLY_PRIVS.contains(&n)
                    || TABLE_PRIVS.contains(&n)
                    || DB_ONLY_PRIVS.contains(&n) =>
            {
                illegal = Some(ER_ILLEGAL_GRANT_FOR_TABLE);
            }
            _ => {
                return Err(format!(
                    "`{sql}`: the privilege `{n}` on this level is not modelled"
                ))
            }
        }
    }
    Ok((p, illegal))
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

/// `GRANT privs ON level TO user [IDENTIFIED ...] [, ...] [REQUIRE ...] [WITH ...]`,
/// `GRANT PROXY ON user TO ...` or `REVOKE privs | PROXY ON level FROM users`: the
/// operation and its users.
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
    let g = crate::grant_users::grantees(&w[to + 1..], revoke).ok_or_else(bad)?;
    let proxy = on == 2 && w[1] == "proxy";
    let routine = match obj.first().map(String::as_str) {
        Some("procedure") => Some(RoutineKind::Procedure),
        Some("function") => Some(RoutineKind::Function),
        Some("package") => return Err(bad()),
        _ => None,
    };
    let (lvl, missing) = match routine {
        // GRANT PROXY ON one user (`mysql_grant` with `proxied_user`).
        _ if proxy => match crate::grant_users::user_at(obj, 0) {
            Some((u, n)) if n == obj.len() && !crate::grant_users::install_made(&u) => {
                (Level::Proxy(u), None)
            }
            _ => return Err(bad()),
        },
        // `mysql_routine_grant`: GRANT checks that the routine exists
        // (`sp_exist_routines`, no MDL: measured, a session's S on the function does not
        // stop it); REVOKE does not look (a missing routine is 1403 as one not granted).
        Some(kind) => {
            let Level::Table(r) = level(sql, &obj[1..], db)? else {
                return Err(bad());
            };
            let missing = !revoke && cat.routines.get(kind, &r).is_none();
            (
                Level::Routine(kind, r),
                missing.then_some(ER_SP_DOES_NOT_EXIST),
            )
        }
        None => (level(sql, obj, db)?, None),
    };
    let (mut privs, illegal) = if proxy {
        let mut p = Privs::default();
        p.names.insert("proxy".into());
        (p, None)
    } else {
        privileges(sql, &w[1..on], &lvl)?
    };
    if illegal.is_some() && !g.creates.is_empty() {
        return Err(format!(
            "`{sql}`: a privilege its level does not have, given with IDENTIFIED (the user \
             is made, then the error), is not modelled"
        ));
    }
    privs.grant_option |= g.grant_option;
    let missing = match (&lvl, privs.columns.is_empty()) {
        (Level::Table(t), false) if !revoke => {
            crate::grant_columns::open_error(sql, t, &privs, cat)?
        }
        _ => missing,
    };
    // A system schema's table the server has is there, though not in the catalog
    // (`ha_table_exists` finds `mysql.user`; measured, suite/grant-to-role.mdl).
    let missing = missing.or(match &lvl {
        Level::Table(t) if !revoke && !privs.all && !privs.names.contains("create") => {
            (!cat.exists(t) && !crate::classify::system_tables::exists(t))
                .then_some(ER_NO_SUCH_TABLE)
        }
        _ => None,
    });
    Ok((
        GrantOp {
            revoke,
            level: lvl,
            privs,
            creates: g.creates,
            bare: g.bare,
            missing,
            later: illegal.or(g.error),
        },
        g.users,
    ))
}

/// Re-exported for the statements that name users (`crate::grant_users`).
pub(crate) use crate::grant_users::user_at;
