//! The values of `SET [SESSION] autocommit = v` and `[SESSION | GLOBAL] lock_wait_timeout
//! = v`, and a session SET of several variables one of which is `lock_wait_timeout`.
//!
//! - `autocommit` is a `Sys_var_bit` (sql/sys_vars.cc, `Sys_autocommit`), whose check is
//!   `Sys_var_typelib::do_check` (sql/sys_vars.inl): a number other than 0 or 1, or a
//!   string that is not OFF / ON, is ER_WRONG_VALUE_FOR_VAR (1231) before anything runs
//!   (`sql_set_variables` checks every assignment before it updates any, sql/set_var.cc),
//!   so the transaction and its locks stay; TRUE / FALSE are the numbers 1 / 0 (measured:
//!   suite/sys_vars/t/autocommit_basic.test, `SET @@autocommit = 2`, `TRUEF`, `' '`).
//! - `lock_wait_timeout` is a `Sys_var_ulong` (`Sys_lock_wait_timeout`): a value that is
//!   not an integer is ER_WRONG_TYPE_FOR_VAR (1232, `set_var::check` through
//!   `sys_var::check_update_type`); an integer out of `VALID_RANGE(0, LONG_TIMEOUT)` is
//!   truncated with a warning (`Sys_var_integer::do_check`, `throw_bounds_warning`):
//!   `-2` is 0, `31537000` is 31536000 (measured: suite/sys_vars/t/
//!   lock_wait_timeout_basic.test).
//! - A user variable's value is not known to the classifier, and both variables change
//!   locking (a commit, a wait's length): refused with that reason.
//!
//! Measured: suite/set-session-values.mdl.

use super::Stmt;
use crate::stmt::SessionStmt;

/// ER_WRONG_VALUE_FOR_VAR.
pub(super) const ER_WRONG_VALUE_FOR_VAR: u32 = 1231;
/// ER_WRONG_TYPE_FOR_VAR.
pub(super) const ER_WRONG_TYPE_FOR_VAR: u32 = 1232;
/// `LONG_TIMEOUT` (sql/sql_class.h): the largest lock_wait_timeout, one year.
const LONG_TIMEOUT: u64 = 31_536_000;

/// A SET refused by `set_var::check` after SQLCOM_SET_OPTION's `open_and_lock_tables`
/// (the session's HANDLERs are flushed: measured, a HANDLER another session's RENAME
/// waits for is closed by `SET @@autocommit = 2`).
pub(super) fn fails(code: u32) -> Stmt {
    Stmt::Session(SessionStmt::SetFails(code))
}

/// What a lock_wait_timeout value is.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Timeout {
    /// Seconds, after the server's truncation.
    Secs(u64),
    /// DEFAULT: the global value.
    Default,
    /// The server refuses it in `set_var::check`.
    Fails(u32),
}

/// Whether `w` is one unquoted name the grammar takes as a value (`TRUEF`, `0FF`).
fn plain_name(w: &str) -> bool {
    !w.is_empty()
        && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !w.chars().all(|c| c.is_ascii_digit())
}

/// A quoted string's text (`'x'`), None for another word.
fn quoted(w: &str) -> Option<&str> {
    w.strip_prefix('\'')?.strip_suffix('\'')
}

fn unknown(var: &str, v: &[&str]) -> String {
    let what = if v.first().is_some_and(|w| w.starts_with('@')) {
        "a variable's value"
    } else {
        "an expression"
    };
    format!(
        "SET {var} to {what} (`{}`), which the model does not know, is not modelled (the \
         value decides the statement's effect on locking)",
        v.join(" ")
    )
}

/// `autocommit`'s value `v` (the words after `=`).
pub(super) fn autocommit(v: &[&str]) -> Result<Stmt, String> {
    let fails = Ok(fails(ER_WRONG_VALUE_FOR_VAR));
    match v {
        ["0" | "off" | "false"] => Ok(Stmt::SetAutocommit(false)),
        // DEFAULT is the global value, ON unless the server was started otherwise
        // (the throwaway server is not).
        ["1" | "on" | "true" | "default"] => Ok(Stmt::SetAutocommit(true)),
        ["-", n] if n.chars().all(|c| c.is_ascii_digit()) => match n.parse::<u64>() {
            Ok(0) => Ok(Stmt::SetAutocommit(false)),
            _ => fails,
        },
        [n] if n.chars().all(|c| c.is_ascii_digit()) => fails,
        [s] if quoted(s).is_some() => match quoted(s).unwrap_or("").to_ascii_lowercase().as_str() {
            "on" => Ok(Stmt::SetAutocommit(true)),
            "off" => Ok(Stmt::SetAutocommit(false)),
            t if t.trim().is_empty() => fails,
            _ => Err(unknown("autocommit", v)),
        },
        [w] if plain_name(w) => fails,
        _ => Err(unknown("autocommit", v)),
    }
}

/// `lock_wait_timeout`'s value `v` (the words after `=`).
pub(super) fn timeout(v: &[&str]) -> Result<Timeout, String> {
    let digits = |n: &str| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit());
    match v {
        ["default"] => Ok(Timeout::Default),
        ["true"] => Ok(Timeout::Secs(1)),
        ["false"] => Ok(Timeout::Secs(0)),
        [n] if digits(n) => Ok(Timeout::Secs(
            n.parse::<u64>()
                .map_or(LONG_TIMEOUT, |n| n.min(LONG_TIMEOUT)),
        )),
        ["-", n] if digits(n) => Ok(Timeout::Secs(0)),
        [s] if quoted(s).is_some() => Ok(Timeout::Fails(ER_WRONG_TYPE_FOR_VAR)),
        [w] if plain_name(w) => Ok(Timeout::Fails(ER_WRONG_TYPE_FOR_VAR)),
        _ => Err(unknown("lock_wait_timeout", v)),
    }
}

/// `SET [SESSION] lock_wait_timeout = v`.
pub(super) fn session_timeout(v: &[&str]) -> Result<Stmt, String> {
    match timeout(v)? {
        Timeout::Secs(n) => Ok(Stmt::SetTimeout(n)),
        Timeout::Fails(e) => Ok(fails(e)),
        Timeout::Default => Err(
            "SET lock_wait_timeout = DEFAULT (the session takes the global value) is not \
             modelled"
                .to_owned(),
        ),
    }
}

/// `SET a = n, lock_wait_timeout = m, ...` (session variables; `w`: the words after
/// `SET`, scope words taken off): the lock_wait_timeout, when every other value is one
/// number (a numeric session variable takes any number, truncated with a warning) and
/// none is `autocommit`; None otherwise. `sql_set_variables` checks them all, then
/// updates them all.
pub(super) fn several(w: &[&str]) -> Option<Result<Stmt, String>> {
    let mut timeout = None;
    for a in w.split(|x| *x == ",") {
        let (name, value) = match a {
            [n, "=", v @ ..] | [n, ":", "=", v @ ..] => (n.trim_start_matches("@@"), v),
            _ => return None,
        };
        match name {
            "lock_wait_timeout" if timeout.is_none() => timeout = Some(session_timeout(value)),
            "lock_wait_timeout" | "autocommit" | "global" | "standard_compliant_cte" => {
                return None
            }
            _ if matches!(value, [n] if n.parse::<u64>().is_ok()) => {}
            _ => return None,
        }
    }
    timeout
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn autocommit_values() {
        assert_eq!(autocommit(&["true"]), Ok(Stmt::SetAutocommit(true)));
        assert_eq!(autocommit(&["false"]), Ok(Stmt::SetAutocommit(false)));
        assert_eq!(autocommit(&["'on'"]), Ok(Stmt::SetAutocommit(true)));
        for v in [
            &["2"][..],
            &["-", "1"],
            &["truef"],
            &["0ff"],
            &["' '"],
            &["''"],
        ] {
            assert_eq!(autocommit(v), Ok(fails(ER_WRONG_VALUE_FOR_VAR)), "{v:?}");
        }
        assert!(autocommit(&["@start_value"]).is_err());
        assert!(autocommit(&["t1_min", "(", ")"]).is_err());
    }

    #[test]
    fn timeout_values() {
        assert_eq!(timeout(&["-", "2"]), Ok(Timeout::Secs(0)));
        assert_eq!(timeout(&["31537000"]), Ok(Timeout::Secs(LONG_TIMEOUT)));
        assert_eq!(timeout(&["on"]), Ok(Timeout::Fails(ER_WRONG_TYPE_FOR_VAR)));
        assert_eq!(timeout(&["true"]), Ok(Timeout::Secs(1)));
        assert!(timeout(&["@old"]).is_err());
        assert!(session_timeout(&["default"]).is_err());
    }

    #[test]
    fn several_variables() {
        let w = [
            "innodb_lock_wait_timeout",
            "=",
            "1",
            ",",
            "lock_wait_timeout",
            "=",
            "2",
        ];
        assert_eq!(several(&w), Some(Ok(Stmt::SetTimeout(2))));
        let w = ["a", "=", "x", ",", "lock_wait_timeout", "=", "2"];
        assert_eq!(several(&w), None);
        let w = ["autocommit", "=", "1", ",", "lock_wait_timeout", "=", "2"];
        assert_eq!(several(&w), None);
    }
}
