//! `SET GLOBAL lock_wait_timeout = N | DEFAULT` (sql/sys_vars.cc, `Sys_lock_wait_timeout`:
//! a session variable whose global value is the one a new connection starts with,
//! `plugin_thdvar_init` copying `global_system_variables`; no lock, no commit, the
//! sessions already connected keep theirs). Played by `crate::model::global_timeout`.
//! Measured: suite/set-global-lock-wait-timeout.mdl.

use super::set_session_values::{timeout, Timeout};
use crate::classify::Stmt;
use crate::stmt::SessionStmt;

/// The statement when it is `SET GLOBAL lock_wait_timeout = value` alone (`words`: its
/// words, lower case); `None` for any other SET GLOBAL.
pub(super) fn classify(sql: &str, words: &[String]) -> Option<Result<Stmt, String>> {
    let at = words.iter().position(|w| w == "lock_wait_timeout")?;
    if words.iter().any(|w| w == ",") {
        return Some(Err(format!(
            "`{sql}`: SET GLOBAL lock_wait_timeout beside other variables is not modelled"
        )));
    }
    let rest: Vec<&str> = words[at + 1..].iter().map(String::as_str).collect();
    // The value as the session's (`set_session_values::timeout`: truncation, 1232).
    let secs = match rest.as_slice() {
        ["=" | ":=", v @ ..] | [":", "=", v @ ..] => match timeout(v) {
            Ok(Timeout::Secs(n)) => Some(n),
            Ok(Timeout::Default) => None,
            Ok(Timeout::Fails(e)) => return Some(Ok(super::set_session_values::fails(e))),
            Err(e) => return Some(Err(format!("`{sql}`: {e}"))),
        },
        _ => {
            return Some(Err(format!(
                "`{sql}`: this SET GLOBAL lock_wait_timeout is not modelled"
            )))
        }
    };
    Some(Ok(Stmt::Session(SessionStmt::GlobalLockWaitTimeout(secs))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(q: &str) -> Vec<String> {
        q.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn values_default_and_refusals() {
        let st = |q: &str| classify(q, &words(q));
        assert_eq!(
            st("set global lock_wait_timeout = 0").unwrap(),
            Ok(Stmt::Session(SessionStmt::GlobalLockWaitTimeout(Some(0))))
        );
        assert_eq!(
            st("set global lock_wait_timeout = default").unwrap(),
            Ok(Stmt::Session(SessionStmt::GlobalLockWaitTimeout(None)))
        );
        assert!(st("set global lock_wait_timeout = 1 , read_only = 0")
            .unwrap()
            .is_err());
        assert_eq!(
            st("set global lock_wait_timeout = x").unwrap(),
            Ok(Stmt::Session(SessionStmt::SetFails(
                super::super::set_session_values::ER_WRONG_TYPE_FOR_VAR
            )))
        );
        assert!(st("set global lock_wait_timeout = @x").unwrap().is_err());
        assert!(st("set global concurrent_insert = 0").is_none());
    }
}
