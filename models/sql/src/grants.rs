//! `GRANT privileges ON level TO users` and `REVOKE privileges ON level FROM users`: the
//! privilege rows the catalog keeps so that REVOKE's errors are known (the statements'
//! locks are the learned `account` row, [`crate::accounts`]).
//!
//! What MariaDB 10.11 does (sql/sql_acl.cc; measured on 10.11.19,
//! suite/grant-revoke-rows.mdl):
//!
//! - GRANT on a table (`mysql_table_grant`) without CREATE among the privileges first
//!   checks that the table exists (`ha_table_exists`, no MDL): ER_NO_SUCH_TABLE; a column
//!   list opens the table (`open_normal_and_derived_tables`: `crate::grant_columns`). GRANT on a
//!   routine (`mysql_routine_grant`, `sp_exist_routines`): ER_SP_DOES_NOT_EXIST. Then a
//!   user that does not exist is ER_PASSWORD_NO_MATCH unless the statement gives it a
//!   password (`IDENTIFIED BY`: the server's default sql_mode has NO_AUTO_CREATE_USER);
//! - REVOKE of a user that does not exist is ER_NONEXISTING_GRANT at every level; on
//!   `*.*` of a user that exists it succeeds; on `db.*` it needs the user's row in
//!   `mysql.db` (`replace_db_table`: ER_NONEXISTING_GRANT), on a table its row in
//!   `mysql.tables_priv` (`replace_table_table`: ER_NONEXISTING_TABLE_GRANT), whatever
//!   privileges it names; a row goes once it has no privilege and no GRANT OPTION left
//!   (REVOKE ALL leaves the GRANT OPTION).

use crate::objects::Tbl;
use crate::routines::RoutineKind;
use std::collections::{BTreeMap, BTreeSet};

/// ER_NONEXISTING_GRANT.
pub const ER_NONEXISTING_GRANT: u32 = 1141;
/// ER_NONEXISTING_TABLE_GRANT.
pub const ER_NONEXISTING_TABLE_GRANT: u32 = 1147;
/// ER_NONEXISTING_PROC_GRANT: REVOKE on a routine of a user with no row for it in
/// `mysql.procs_priv` (`replace_routine_table`), whether the routine exists or not.
pub const ER_NONEXISTING_PROC_GRANT: u32 = 1403;

/// The account the harness connects as (`root@localhost`, made by
/// `mariadb-install-db`): `CURRENT_USER` names it, and it always exists.
pub const CONNECTED: &str = "root@localhost";

/// Where a privilege applies.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// `*.*` (and `*` with no default schema's meaning kept apart: the model's sessions
    /// always have one, so `*` is `db.*`).
    Global,
    Db(String),
    Table(Tbl),
    /// `ON PROCEDURE | FUNCTION r` (`mysql_routine_grant`: a row of `mysql.procs_priv`).
    Routine(RoutineKind, Tbl),
    /// `GRANT PROXY ON user` (`mysql_grant` with a proxied user: a row of
    /// `mysql.proxies_priv`, `replace_proxies_priv_table`); the proxied user need not
    /// exist.
    Proxy(String),
    /// A role granted (`mysql_grant_role`: a row of `mysql.roles_mapping`), its key
    /// `name@` (`crate::roles`).
    Role(String),
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
    /// Column privileges, `priv (col)` (`crate::grant_columns`).
    pub columns: BTreeSet<String>,
}

/// A GRANT or REVOKE with ON.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GrantOp {
    pub revoke: bool,
    pub level: Level,
    pub privs: Privs,
    /// GRANT: the users given a password (`IDENTIFIED BY`), made when missing.
    pub creates: Vec<String>,
    /// The users written without a host (and without IDENTIFIED), as `name@%`: each is
    /// the role `name` when the catalog has one ([`Users::resolve`]).
    pub bare: Vec<String>,
    /// GRANT: the error of the object it names (found when classified: nothing that
    /// could change it runs while a GRANT waits, which is only for FTWRL or BACKUP).
    pub missing: Option<u32>,
    /// The error found once the users are (a privilege its level does not have: 1221,
    /// 1144; a plugin not loaded: 1524).
    pub later: Option<u32>,
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
        u == CONNECTED || self.names.contains(u)
    }

    /// Drops `u` and its rows (a role's grants to others go with it).
    pub fn remove(&mut self, u: &str) {
        self.names.remove(u);
        self.rows
            .retain(|(x, l), _| x != u && *l != Level::Role(u.to_owned()));
    }

    /// REVOKE ALL PRIVILEGES, GRANT OPTION FROM `u` (`mysql_revoke_all`): its rows go
    /// (the roles granted to it among them), `u` stays, and so do the grants of `u` (a
    /// role) to others.
    pub fn revoke_all(&mut self, u: &str) {
        self.rows.retain(|(x, _), _| x != u);
    }

    /// `u` has a row on `level`.
    pub fn has_row(&self, u: &str, level: &Level) -> bool {
        self.rows.contains_key(&(u.to_owned(), level.clone()))
    }

    /// The rows of a routine go when it is dropped (`sp_revoke_privileges`, called by
    /// sql_parse.cc's SQLCOM_DROP_PROCEDURE / FUNCTION with `automatic_sp_privileges`).
    pub fn drop_routine(&mut self, kind: RoutineKind, r: &Tbl) {
        let l = Level::Routine(kind, r.clone());
        self.rows.retain(|(_, x), _| *x != l);
    }

    /// Adds the row of `level` for `u` (a role granted: `crate::roles`).
    pub(crate) fn add_row(&mut self, u: &str, level: Level) {
        self.rows.entry((u.to_owned(), level)).or_default();
    }

    /// Removes the row of `level` for `u`.
    pub(crate) fn remove_row(&mut self, u: &str, level: &Level) {
        self.rows.remove(&(u.to_owned(), level.clone()));
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

    /// The account `u` of `op` names now: a user written without a host is the role of
    /// that name when there is one, else `name@%` (MariaDB sql/sql_acl.cc
    /// `get_current_user`, which `mysql_grant`, `mysql_table_grant`,
    /// `mysql_routine_grant` and `mysql_revoke_all` call for each user: a LEX_USER with no host is looked up with
    /// `find_acl_role`, found: host `""` (the role), else `host_not_specified`, `%`;
    /// measured on 10.11.19, suite/grant-to-role.mdl: a role `r1` and a user `r1@%` both
    /// there, `GRANT ... TO r1` gives the role the row).
    pub fn resolve(&self, bare: &[String], u: &str) -> String {
        match u.strip_suffix("@%") {
            Some(n) if bare.iter().any(|b| b == u) && self.names.contains(&format!("{n}@")) => {
                format!("{n}@")
            }
            _ => u.to_owned(),
        }
    }

    /// The error of `op` for `users` now, or none.
    pub fn error(&self, op: &GrantOp, users: &[String]) -> Option<u32> {
        let users: Vec<String> = users.iter().map(|u| self.resolve(&op.bare, u)).collect();
        let users = users.as_slice();
        if op.missing.is_some() {
            return op.missing;
        }
        if !op.revoke {
            let missing = users
                .iter()
                .any(|u| !self.contains(u) && !op.creates.contains(u));
            return missing
                .then_some(crate::errors::ER_PASSWORD_NO_MATCH)
                .or(op.later);
        }
        if users.iter().any(|u| !self.contains(u)) {
            return Some(ER_NONEXISTING_GRANT);
        }
        if op.later.is_some() {
            return op.later;
        }
        let code = match op.level {
            Level::Global => return None,
            Level::Db(_) | Level::Proxy(_) | Level::Role(_) => ER_NONEXISTING_GRANT,
            Level::Table(_) => ER_NONEXISTING_TABLE_GRANT,
            Level::Routine(..) => ER_NONEXISTING_PROC_GRANT,
        };
        // A column privilege not given is ER_NONEXISTING_TABLE_GRANT too
        // (`replace_column_table`).
        users
            .iter()
            .any(|u| match self.rows.get(&(u.clone(), op.level.clone())) {
                None => true,
                Some(r) => !op.privs.columns.is_subset(&r.columns),
            })
            .then_some(code)
    }

    /// Applies `op` (without error) to `users`' rows.
    pub fn apply(&mut self, op: &GrantOp, users: &[String]) {
        let users: Vec<String> = users.iter().map(|u| self.resolve(&op.bare, u)).collect();
        for u in &users {
            if !op.revoke {
                self.names.insert(u.clone());
            }
            if op.level == Level::Global {
                continue;
            }
            let key = (u.clone(), op.level.clone());
            let nothing = !op.privs.all
                && op.privs.names.is_empty()
                && op.privs.columns.is_empty()
                && !op.privs.grant_option;
            if !op.revoke && nothing {
                // GRANT USAGE makes no row (measured: a REVOKE after it is 1141).
                continue;
            }
            if !op.revoke {
                let r = self.rows.entry(key).or_default();
                r.all |= op.privs.all;
                r.names.extend(op.privs.names.iter().cloned());
                r.columns.extend(op.privs.columns.iter().cloned());
                r.grant_option |= op.privs.grant_option;
                continue;
            }
            let Some(r) = self.rows.get_mut(&key) else {
                continue;
            };
            if op.privs.all {
                r.all = false;
                r.names.clear();
                r.columns.clear();
            }
            for n in &op.privs.names {
                r.names.remove(n);
            }
            for c in &op.privs.columns {
                r.columns.remove(c);
            }
            if op.privs.grant_option {
                r.grant_option = false;
            }
            if !r.all && r.names.is_empty() && r.columns.is_empty() && !r.grant_option {
                self.rows.remove(&key);
            }
        }
    }
}
