//! Accounts statements (`CREATE` / `DROP` / `ALTER` / `RENAME USER`, `GRANT ... ON *.*` /
//! `db.*`, `REVOKE ALL PRIVILEGES, GRANT OPTION`): the learned `account` row (MariaDB
//! `sql/sql_acl.cc`: `mysql_create_user`, `mysql_drop_user`, `mysql_rename_user`,
//! `mysql_grant`, `mysql_revoke_all` open the grant tables for writing with
//! `open_grant_tables`; CF_AUTO_COMMIT_TRANS), and the users they need or make, kept in
//! the catalog ([`crate::catalog::Catalog::users`]).

use super::classify::{Bind, Effect, Part, Plan, SetTarget, Stmt};

/// What an accounts statement needs or changes: users as `name@host` (host `%` when not
/// written).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Accounts {
    /// CREATE USER [IF NOT EXISTS] / CREATE OR REPLACE USER.
    Create {
        users: Vec<String>,
        if_not_exists: bool,
        or_replace: bool,
    },
    /// DROP USER [IF EXISTS].
    Drop { users: Vec<String>, if_exists: bool },
    /// GRANT, REVOKE ALL, ALTER USER: the users must exist, else the error.
    Need { users: Vec<String>, code: u32 },
    /// RENAME USER a TO b.
    Rename(Vec<(String, String)>),
}

/// ER_CANNOT_USER: CREATE USER of a user that exists, DROP / RENAME of one that does not.
pub const ER_CANNOT_USER: u32 = 1396;
/// ER_PASSWORD_NO_MATCH: GRANT / ALTER USER / SET PASSWORD of a user that does not exist.
pub const ER_PASSWORD_NO_MATCH: u32 = 1133;
/// ER_REVOKE_GRANTS: REVOKE ALL PRIVILEGES, GRANT OPTION of a user that does not exist
/// (`mysql_revoke_all`, sql/sql_acl.cc: a user not found sets `result= -1`, reported as
/// this one error at the end; measured: seed 330012).
pub const ER_REVOKE_GRANTS: u32 = 1269;

/// `user`, `'user'@'host'`, `user@host` from the words at `w[i..]` until `,` or a word in
/// `stop`; the index after it.
fn user_at(w: &[String], mut i: usize) -> Option<(String, usize)> {
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

/// The users of a list at `w[i..]` that ends at the end or at a word of `stop`.
fn user_list(w: &[String], mut i: usize, stop: &[&str]) -> Option<Vec<String>> {
    let mut out = Vec::new();
    loop {
        let (u, j) = user_at(w, i)?;
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
    has_row: &dyn Fn(&str) -> bool,
) -> Result<Stmt, String> {
    let at = |i: usize| w.get(i).map(String::as_str).unwrap_or("");
    let bad = || format!("`{sql}`: this accounts statement is not modelled");
    if !has_row("account") {
        return Err(format!(
            "`{sql}`: accounts statements are not in this dialect's table"
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
                users: user_list(w, i, USER_OPTS).ok_or_else(bad)?,
                if_not_exists,
                or_replace,
            }
        }
        "drop" => {
            let if_exists = at(2) == "if";
            let i = if if_exists { 4 } else { 2 };
            Accounts::Drop {
                users: user_list(w, i, &[]).ok_or_else(bad)?,
                if_exists,
            }
        }
        "alter" => {
            let i = if at(2) == "if" { return Err(bad()) } else { 2 };
            Accounts::Need {
                users: user_list(w, i, USER_OPTS).ok_or_else(bad)?,
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
        // GRANT privs ON what TO users [WITH ...] (`mysql_grant`, `mysql_table_grant`).
        "grant" => {
            if w.iter().any(|x| x == "identified") || w.iter().all(|x| x != "on") {
                // GRANT ... IDENTIFIED BY makes users; a role's grant has no ON.
                return Err(bad());
            }
            // Of a schema or of everything (`*`, `*.*`, `db.*`): a grant on a table or a
            // routine opens it (`mysql_table_grant`, `mysql_routine_grant`), which the
            // learned row (a grant on `test.*`) does not show.
            let on = w.iter().position(|x| x == "on").ok_or_else(bad)?;
            let whole = at(on + 1) == "*" || (at(on + 1).ends_with('.') && at(on + 2) == "*");
            if !whole {
                return Err(format!(
                    "`{sql}`: GRANT on a table or a routine (it opens the object) is not \
                     modelled; GRANT on `*.*` or `db.*` is"
                ));
            }
            let i = w.iter().position(|x| x == "to").ok_or_else(bad)?;
            Accounts::Need {
                users: user_list(w, i + 1, &["with", "require"]).ok_or_else(bad)?,
                code: ER_PASSWORD_NO_MATCH,
            }
        }
        // REVOKE ALL [PRIVILEGES], GRANT OPTION FROM users (`mysql_revoke_all`): other
        // REVOKEs fail on a grant the user does not have, which the catalog does not keep.
        "revoke" => {
            let all = at(1) == "all" && w.windows(2).any(|x| x[0] == "grant" && x[1] == "option");
            let i = w.iter().position(|x| x == "from").ok_or_else(bad)?;
            if !all {
                return Err(format!(
                    "`{sql}`: REVOKE of some privileges (it fails on a grant the user does not \
                     have, which the model does not keep) is not modelled; REVOKE ALL \
                     PRIVILEGES, GRANT OPTION is"
                ));
            }
            Accounts::Need {
                users: user_list(w, i + 1, &[]).ok_or_else(bad)?,
                code: ER_REVOKE_GRANTS,
            }
        }
        _ => return Err(bad()),
    };
    Ok(Stmt::Learned(Plan {
        kind: "account".into(),
        parts: vec![Part {
            row: "account".into(),
            kind: "account".into(),
            bind: Bind::default(),
            set_target: SetTarget::NotInList,
        }],
        lock_tables: Vec::new(),
        wait: None,
        user_lock_timeout: None,
        effect: Effect::Accounts(effect),
        aliased: None,
    }))
}

impl Accounts {
    /// The error the server gives now, or none.
    pub fn error(&self, users: &std::collections::BTreeSet<String>) -> Option<u32> {
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
            Accounts::Rename(pairs) => pairs
                .iter()
                .any(|(a, b)| !has(a) || has(b))
                .then_some(ER_CANNOT_USER),
        }
    }

    /// Applies it to the users (the users a list could make or drop are made or dropped
    /// even when another of the list fails, as `mysql_create_user` / `mysql_drop_user`
    /// go on past a failed user).
    pub fn apply(&self, users: &mut std::collections::BTreeSet<String>) {
        match self {
            Accounts::Create { users: us, .. } => users.extend(us.iter().cloned()),
            Accounts::Drop { users: us, .. } => {
                for u in us {
                    users.remove(u);
                }
            }
            Accounts::Need { .. } => {}
            Accounts::Rename(pairs) => {
                for (a, b) in pairs {
                    if users.contains(a) && !users.contains(b) {
                        users.remove(a);
                        users.insert(b.clone());
                    }
                }
            }
        }
    }
}
