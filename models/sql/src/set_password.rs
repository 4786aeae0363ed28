//! `SET PASSWORD FOR user = ...`: `set_var_password::update` calls `change_password`
//! (MariaDB `sql/sql_acl.cc`), which opens the grant tables for writing
//! (`open_grant_tables`) as the accounts statements do, and fails with
//! ER_PASSWORD_NO_MATCH for a user the server does not have (`find_user_exact` finds
//! none). Played as the learned `account` row (`crate::accounts`), needing the user.
//! Measured on 10.11.19: found/seed-330032.mdl (a missing user, an existing one, in a
//! transaction, under LOCK TABLES and FTWRL).
//!
//! `SET PASSWORD = ...` is the connected account's own (`root@localhost` for the harness,
//! [`crate::grants::CONNECTED`]), as is `FOR CURRENT_USER()`: the same row, no error.

use crate::accounts::{account_plan, Accounts, ER_PASSWORD_NO_MATCH};
use crate::grant_stmt::user_at;
use crate::stmt::Stmt;

/// `w`: the statement's words (`set password for u1 = ...`).
pub(crate) fn classify_set_password(
    sql: &str,
    w: &[String],
    has_row: &dyn Fn(&str) -> bool,
) -> Result<Stmt, String> {
    let bad = || format!("`{sql}`: SET PASSWORD other than `[FOR user] = ...` is not modelled");
    let (user, i) = match w.get(2).map(String::as_str) {
        Some("for") => user_at(w, 3).ok_or_else(bad)?,
        _ => (crate::grants::CONNECTED.to_owned(), 2),
    };
    if crate::grant_users::install_made(&user) {
        return Err(bad());
    }
    if w.get(i).map(String::as_str) != Some("=") {
        return Err(bad());
    }
    if !has_row("account") {
        return Err(format!(
            "`{sql}`: accounts statements are not in this dialect's table"
        ));
    }
    Ok(account_plan(Accounts::Need {
        users: vec![user],
        code: ER_PASSWORD_NO_MATCH,
    }))
}
