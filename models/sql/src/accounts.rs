//! Accounts statements (`CREATE` / `DROP` / `ALTER` / `RENAME USER`, `GRANT ... ON *.*` /
//! `db.*`, `REVOKE ALL PRIVILEGES, GRANT OPTION`): the learned `account` row (MariaDB
//! `sql/sql_acl.cc`: `mysql_create_user`, `mysql_drop_user`, `mysql_rename_user`,
//! `mysql_grant`, `mysql_revoke_all` open the grant tables for writing with
//! `open_grant_tables`; CF_AUTO_COMMIT_TRANS), and the users they need or make, kept in
//! the catalog ([`crate::catalog::Catalog::users`]).

pub use crate::effect::Accounts;
use crate::effect::Effect;
pub use crate::errors::ER_PASSWORD_NO_MATCH;
use crate::grant_stmt::user_at;
use crate::kind::Kind;
use crate::stmt::{Bind, Part, Plan, Stmt};

/// ER_CANNOT_USER: CREATE USER of a user that exists, DROP / RENAME of one that does not.
pub const ER_CANNOT_USER: u32 = 1396;
/// ER_REVOKE_GRANTS: REVOKE ALL PRIVILEGES, GRANT OPTION of a user that does not exist
/// (`mysql_revoke_all`, sql/sql_acl.cc: a user not found sets `result= -1`, reported as
/// this one error at the end; measured: seed 330012).
pub const ER_REVOKE_GRANTS: u32 = 1269;

/// The users of a list at `w[i..]` that ends at the end or at a word of `stop`.
fn user_list(w: &[String], mut i: usize, stop: &[&str]) -> Option<Vec<String>> {
    let mut out = Vec::new();
    loop {
        let (u, j) = user_at(w, i)?;
        if crate::grant_users::install_made(&u) {
            return None;
        }
        out.push(u);
        i = j;
        match w.get(i).map(String::as_str) {
            Some(",") => i += 1,
            None => return Some(out),
            Some(x) if stop.contains(&x) => return Some(out),
            Some(_) => return None,
        }
    }
}

const USER_OPTS: &[&str] = &[
    "identified",
    "require",
    "with",
    "password",
    "account",
    "default",
];

pub(crate) fn classify_accounts(
    sql: &str,
    w: &[String],
    db: &str,
    cat: &super::catalog::Catalog,
    has_row: &dyn Fn(&str) -> bool,
) -> Result<Stmt, String> {
    let at = |i: usize| w.get(i).map(String::as_str).unwrap_or("");
    let bad = || format!("`{sql}`: this accounts statement is not modelled");
    if !has_row("account") {
        return Err(format!(
            "`{sql}`: accounts statements are not in this dialect's table"
        ));
    }
    // CREATE / DROP ROLE (`mysql_create_user`, `mysql_drop_user` with `handle_as_role`):
    // a role is an account of host '' (measured: CREATE OR REPLACE ROLE twice is OK).
    let role = at(1) == "role" || (at(1) == "or" && at(3) == "role");
    let as_role = |us: Vec<String>| -> Vec<String> {
        if !role {
            return us;
        }
        us.into_iter()
            .map(|u| format!("{}@", u.strip_suffix("@%").unwrap_or(&u)))
            .collect()
    };
    if crate::role_names::parse_error(w) {
        return Ok(Stmt::Fails(crate::role_names::ER_PARSE_ERROR));
    }
    // CREATE ROLE ... WITH ADMIN grantee (`crate::role_names`).
    let w = if role {
        match crate::role_names::read(w) {
            crate::role_names::Read::Names(w) => w,
            crate::role_names::Read::ParseError => {
                return Ok(Stmt::Fails(crate::role_names::ER_PARSE_ERROR))
            }
            crate::role_names::Read::CannotUser => {
                return Ok(account_plan(Accounts::Need {
                    users: vec![crate::role_names::NEVER.to_owned()],
                    code: ER_CANNOT_USER,
                }))
            }
            crate::role_names::Read::Refused(why) => return Err(format!("`{sql}`: {why}")),
        }
    } else {
        w
    };
    let at = |i: usize| w.get(i).map(String::as_str).unwrap_or("");
    // A role name has no host, and CURRENT_USER / CURRENT_ROLE / NONE / PUBLIC are not
    // role names (sql_yacc.yy `role_name`: 1064 or ER_INVALID_ROLE): refused, not guessed.
    if role
        && w.iter().skip(2).any(|x| {
            x.contains('@')
                || matches!(
                    x.as_str(),
                    "@" | "current_user" | "current_role" | "none" | "public"
                )
        })
    {
        return Err(format!(
            "`{sql}`: a role name with a host, or a reserved role name, is not modelled"
        ));
    }
    let effect = match at(0) {
        "create" => {
            let or_replace = at(1) == "or";
            let mut i = if or_replace { 4 } else { 2 };
            let if_not_exists = at(i) == "if";
            if if_not_exists {
                i += 3;
            }
            Accounts::Create {
                users: as_role(user_list(w, i, USER_OPTS).ok_or_else(bad)?),
                if_not_exists,
                or_replace,
            }
        }
        "drop" => {
            let if_exists = at(2) == "if";
            let i = if if_exists { 4 } else { 2 };
            Accounts::Drop {
                users: as_role(user_list(w, i, &[]).ok_or_else(bad)?),
                if_exists,
            }
        }
        "alter" => {
            // ALTER USER IF EXISTS of one that does not exist is a note (measured).
            let if_exists = at(2) == "if";
            let users = user_list(w, if if_exists { 4 } else { 2 }, USER_OPTS).ok_or_else(bad)?;
            Accounts::Need {
                users: if if_exists { Vec::new() } else { users },
                code: ER_CANNOT_USER,
            }
        }
        "rename" => {
            let mut pairs = Vec::new();
            let mut i = 2;
            loop {
                let (a, j) = user_at(w, i).ok_or_else(bad)?;
                if at(j) != "to" {
                    return Err(bad());
                }
                let (b, k) = user_at(w, j + 1).ok_or_else(bad)?;
                pairs.push((a, b));
                match at(k) {
                    "," => i = k + 1,
                    "" => break,
                    _ => return Err(bad()),
                }
            }
            Accounts::Rename(pairs)
        }
        // GRANT / REVOKE privs ON what TO | FROM users (`mysql_grant`,
        // `mysql_table_grant`, `mysql_routine_grant`: `crate::grants`); a role's grant has
        // no ON.
        "grant" | "revoke" if w.iter().any(|x| x == "on") => {
            let (op, users) = super::grant_stmt::parse(sql, w, db, cat)?;
            if let Some(t) = crate::grant_columns::opened(&op) {
                if !has_row(Kind::AccountColumn.as_str()) {
                    return Err(format!(
                        "`{sql}`: `account_column` is not in the learned table"
                    ));
                }
                let effect = Accounts::Grant {
                    users,
                    op: Box::new(op),
                };
                return Ok(crate::grant_columns::plan(effect, t));
            }
            Accounts::Grant {
                users,
                op: Box::new(op),
            }
        }
        // REVOKE ALL [PRIVILEGES], GRANT OPTION FROM users (`mysql_revoke_all`).
        "revoke" if at(1) == "all" && w.windows(2).any(|x| x[0] == "grant" && x[1] == "option") => {
            let i = w.iter().position(|x| x == "from").ok_or_else(bad)?;
            let users = user_list(w, i + 1, &[]).ok_or_else(bad)?;
            let bare = crate::grant_users::grantees(&w[i + 1..], true)
                .ok_or_else(bad)?
                .bare;
            Accounts::RevokeAll { users, bare }
        }
        // GRANT role TO ... / REVOKE role FROM ... (`mysql_grant_role`: crate::roles).
        "grant" | "revoke" => Accounts::Role(crate::roles::parse(sql, w)?),
        _ => return Err(bad()),
    };
    Ok(account_plan(effect))
}

/// An accounts statement as the learned `account` row: its one part, no table, and
/// `effect` on the accounts (`mysql_grant`, `mysql_create_user`, `change_password`, ...).
pub(crate) fn account_plan(effect: Accounts) -> Stmt {
    let part = Part::on_row("account", Kind::Account, Bind::default());
    Stmt::Learned(Plan::of(
        Kind::Account,
        vec![part],
        Effect::Accounts(effect),
    ))
}

impl Accounts {
    /// The error the server gives now, or none.
    pub fn error(&self, users: &super::grants::Users) -> Option<u32> {
        let has = |u: &String| users.contains(u);
        match self {
            Accounts::Create {
                users: us,
                if_not_exists,
                or_replace,
            } => (!if_not_exists && !or_replace && us.iter().any(has)).then_some(ER_CANNOT_USER),
            Accounts::Drop {
                users: us,
                if_exists,
            } => (!if_exists && !us.iter().all(has)).then_some(ER_CANNOT_USER),
            Accounts::Need { users: us, code } => (!us.iter().all(has)).then_some(*code),
            // mysql_revoke_all: a user that is not there fails the statement with
            // ER_REVOKE_GRANTS (measured: found/ of the random run, seed 330052's cause).
            Accounts::RevokeAll { users: us, bare } => us
                .iter()
                .any(|u| !users.contains(&users.resolve(bare, u)))
                .then_some(ER_REVOKE_GRANTS),
            Accounts::Grant { users: us, op } => users.error(op, us),
            Accounts::Rename(pairs) => pairs
                .iter()
                .any(|(a, b)| !has(a) || has(b))
                .then_some(ER_CANNOT_USER),
            Accounts::Role(op) => op.error(users),
        }
    }

    /// Applies it to the users (the users a list could make or drop are made or dropped
    /// even when another of the list fails, as `mysql_create_user` / `mysql_drop_user`
    /// go on past a failed user).
    pub fn apply(&self, users: &mut super::grants::Users) {
        match self {
            Accounts::Create {
                users: us,
                or_replace,
                ..
            } => {
                for u in us {
                    if *or_replace {
                        users.remove(u);
                    }
                    users.names.insert(u.clone());
                }
            }
            Accounts::Drop { users: us, .. } => {
                for u in us {
                    users.remove(u);
                }
            }
            Accounts::RevokeAll { users: us, bare } => {
                for u in us {
                    let u = users.resolve(bare, u);
                    users.revoke_all(&u);
                }
            }
            Accounts::Need { .. } => {}
            Accounts::Grant { users: us, op } => users.apply(op, us),
            Accounts::Role(op) => op.apply(users),
            Accounts::Rename(pairs) => {
                for (a, b) in pairs {
                    if users.contains(a) && !users.contains(b) {
                        users.rename(a, b);
                    }
                }
            }
        }
    }
}
