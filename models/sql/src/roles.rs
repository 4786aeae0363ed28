//! `GRANT role TO grantee [, ...] [WITH ADMIN OPTION]` and `REVOKE [ADMIN OPTION FOR] role
//! FROM grantee [, ...]`: MariaDB `sql/sql_acl.cc`, `mysql_grant_role` (SQLCOM_GRANT_ROLE /
//! SQLCOM_REVOKE_ROLE: CF_AUTO_COMMIT_TRANS, the grant tables opened for writing by
//! `open_grant_tables`, then the checks). Played as the learned `account` row with the
//! role's rows of `mysql.roles_mapping` kept among the users' rows
//! ([`crate::grants::Level::Role`]).
//!
//! Measured on 10.11.19 (suite/accounts-roles-proxy.mdl), after the locks:
//!
//! - a role that does not exist (or NONE, PUBLIC, an empty name) is ER_INVALID_ROLE (1959);
//! - a grantee written without a host is the role of that name when there is one
//!   (`find_acl_role`), else `name@%`;
//! - GRANT to a user that does not exist is ER_PASSWORD_NO_MATCH (1133, no automatic
//!   creation), to the role itself or to a role the granted one already reaches (a
//!   cycle) ER_CANNOT_GRANT_ROLE (1961); granting it again is no error;
//! - REVOKE from a grantee that does not exist or was not granted the role is
//!   ER_CANNOT_REVOKE_ROLE (1962).

use crate::grant_users::{install_made, user_at};
use crate::grants::{Level, Users, CONNECTED};

/// ER_INVALID_ROLE.
pub const ER_INVALID_ROLE: u32 = 1959;
/// ER_CANNOT_GRANT_ROLE.
pub const ER_CANNOT_GRANT_ROLE: u32 = 1961;
/// ER_CANNOT_REVOKE_ROLE.
pub const ER_CANNOT_REVOKE_ROLE: u32 = 1962;

/// A grantee as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Grantee {
    /// `name@host` (or CURRENT_USER).
    Account(String),
    /// `name` without a host: the role `name` if there is one, else `name@%`.
    Bare(String),
}

/// A role granted or revoked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoleOp {
    pub revoke: bool,
    /// The role's name (its key is `name@`).
    pub role: String,
    pub grantees: Vec<Grantee>,
}

/// The statement's operation; Err for a form not read.
pub(crate) fn parse(sql: &str, w: &[String]) -> Result<RoleOp, String> {
    let bad = || format!("`{sql}`: this accounts statement is not modelled");
    let revoke = w.first().is_some_and(|x| x == "revoke");
    let mut i = 1;
    if revoke
        && w.get(1..4)
            .is_some_and(|x| x.join(" ") == "admin option for")
    {
        i = 4;
    }
    let sep = if revoke { "from" } else { "to" };
    let role = match w.get(i).map(String::as_str) {
        Some(x) if x == sep => String::new(),
        Some(x) if w.get(i + 1).is_some_and(|y| y == sep) => {
            i += 1;
            x.to_owned()
        }
        _ => return Err(bad()),
    };
    if matches!(role.as_str(), "current_role" | "current_user") {
        return Err(bad());
    }
    let mut rest = &w[i + 1..];
    if !revoke && rest.len() >= 3 && rest[rest.len() - 3..].join(" ") == "with admin option" {
        rest = &rest[..rest.len() - 3];
    }
    let mut grantees = Vec::new();
    let mut j = 0;
    loop {
        let (u, k) = user_at(rest, j).ok_or_else(bad)?;
        let bare = k == j + 1 && rest[j] != "current_user";
        if install_made(&u)
            || matches!(rest[j].as_str(), "public" | "none" | "current_role")
            || (revoke && u == CONNECTED)
        {
            return Err(format!(
                "`{sql}`: a role's grantee the server's install made (PUBLIC, the connected \
                 account, an anonymous user) or NONE is not modelled"
            ));
        }
        grantees.push(if bare {
            Grantee::Bare(rest[j].clone())
        } else {
            Grantee::Account(u)
        });
        match rest.get(k).map(String::as_str) {
            None => break,
            Some(",") => j = k + 1,
            Some(_) => return Err(bad()),
        }
    }
    Ok(RoleOp {
        revoke,
        role,
        grantees,
    })
}

impl RoleOp {
    fn key(&self) -> String {
        format!("{}@", self.role)
    }

    /// The account a grantee names now.
    fn resolve(g: &Grantee, users: &Users) -> String {
        match g {
            Grantee::Account(u) => u.clone(),
            Grantee::Bare(n) if users.contains(&format!("{n}@")) => format!("{n}@"),
            Grantee::Bare(n) => format!("{n}@%"),
        }
    }

    /// Whether role `from` reaches `to` through the roles granted to roles.
    fn reaches(users: &Users, from: &str, to: &str) -> bool {
        let mut seen = vec![from.to_owned()];
        let mut i = 0;
        while i < seen.len() {
            if seen[i] == to {
                return true;
            }
            let cur = seen[i].clone();
            for r in users.names.iter().filter(|r| r.ends_with('@')) {
                if !seen.contains(r) && users.has_row(&cur, &Level::Role(r.clone())) {
                    seen.push(r.clone());
                }
            }
            i += 1;
        }
        false
    }

    /// The error the server gives now, or none.
    pub fn error(&self, users: &Users) -> Option<u32> {
        let key = self.key();
        if self.role.is_empty() || self.role == "none" || !users.contains(&key) {
            return Some(ER_INVALID_ROLE);
        }
        for g in &self.grantees {
            let u = Self::resolve(g, users);
            let has = users.contains(&u);
            let err = match (self.revoke, has) {
                (false, false) => Some(crate::errors::ER_PASSWORD_NO_MATCH),
                (false, true) => Self::reaches(users, &key, &u).then_some(ER_CANNOT_GRANT_ROLE),
                (true, _) => {
                    (!users.has_row(&u, &Level::Role(key.clone()))).then_some(ER_CANNOT_REVOKE_ROLE)
                }
            };
            if err.is_some() {
                return err;
            }
        }
        None
    }

    /// Applies it (without error).
    pub fn apply(&self, users: &mut Users) {
        let level = Level::Role(self.key());
        for g in &self.grantees {
            let u = Self::resolve(g, users);
            if self.revoke {
                users.remove_row(&u, &level);
            } else {
                users.add_row(&u, level.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(s: &str) -> RoleOp {
        parse(s, &crate::words::words(s)).unwrap()
    }

    #[test]
    fn grants_of_roles_and_their_errors() {
        let mut u = Users::default();
        u.names.insert("r1@".into());
        u.names.insert("r2@".into());
        u.names.insert("u1@%".into());
        assert_eq!(op("grant nosuch to u1").error(&u), Some(ER_INVALID_ROLE));
        assert_eq!(op("grant r1 to u2").error(&u), Some(1133));
        assert_eq!(
            op("revoke r1 from u1").error(&u),
            Some(ER_CANNOT_REVOKE_ROLE)
        );
        assert_eq!(op("grant r1 to r1").error(&u), Some(ER_CANNOT_GRANT_ROLE));
        let g = op("grant r2 to r1 with admin option");
        assert_eq!(g.error(&u), None);
        g.apply(&mut u);
        assert_eq!(op("grant r1 to r2").error(&u), Some(ER_CANNOT_GRANT_ROLE));
        op("grant r1 to 'u1'@'%'").apply(&mut u);
        assert_eq!(op("revoke admin option for r1 from u1").error(&u), None);
        u.remove("r1@");
        assert_eq!(
            op("revoke r2 from r1").error(&u),
            Some(ER_CANNOT_REVOKE_ROLE)
        );
        assert!(parse("x", &crate::words::words("grant r1, r2 to u1")).is_err());
    }
}
