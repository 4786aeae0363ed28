//! `SET PASSWORD FOR user = ...`: `set_var_password::update` calls `change_password`
//! (MariaDB `sql/sql_acl.cc`), which opens the grant tables for writing
//! (`open_grant_tables`) as the accounts statements do, and fails with
//! ER_PASSWORD_NO_MATCH for a user the server does not have (`find_user_exact` finds
//! none). Played as the learned `account` row (`crate::accounts`), needing the user.
//! Measured on 10.11.19: found/seed-330032.mdl (a missing user, an existing one, in a
//! transaction, under LOCK TABLES and FTWRL).
//!
//! `SET PASSWORD = ...` (the connected user's own) is not modelled: the model does not
//! know which account the connection is.

use crate::accounts::{account_plan, Accounts, ER_PASSWORD_NO_MATCH};
use crate::grant_stmt::user_at;
use crate::stmt::Stmt;

/// `w`: the statement's words (`set password for u1 = ...`).
pub(crate) fn classify_set_password(
    sql: &str,
    w: &[String],
    has_row: &dyn Fn(&str) -> bool,
) -> Result<Stmt, String> {
    let bad = || format!("`{sql}`: SET PASSWORD other than `FOR user = ...` is not modelled");
    if w.get(2).map(String::as_str) != Some("for") {
        return Err(bad());
    }
    let (user, i) = user_at(w, 3).ok_or_else(bad)?;
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
