//! Transaction chaining: `COMMIT` / `ROLLBACK [WORK] [AND [NO] CHAIN] [[NO] RELEASE]` and
//! the session's `completion_type` (MariaDB `sql/sql_parse.cc`, `mysql_execute_command`,
//! SQLCOM_COMMIT and SQLCOM_ROLLBACK; `sql/transaction.cc`, `trans_begin`).
//!
//! - The statement chains when it says `AND CHAIN`, or when `completion_type` is 1
//!   (`CHAIN`) and it does not say `AND NO CHAIN`; it releases (ends the session) when it
//!   says `RELEASE`, or when `completion_type` is 2 (`RELEASE`) and it does not say `NO
//!   RELEASE` (`tx_chain` / `tx_release` there).
//! - A chaining COMMIT commits (`trans_commit`, then `release_transactional_locks`) and
//!   begins the next transaction (`trans_begin`, which first ends LOCK TABLES with
//!   `unlock_locked_tables`): what BEGIN does (`Stmt::Begin`), so it is played as BEGIN
//!   (measured: open/refused/seed-330020 moved to found/, a `SELECT ... FOR UPDATE` after
//!   `COMMIT AND CHAIN` keeps its SW until the next commit).
//! - A chaining ROLLBACK rolls back (`trans_rollback`, the transaction's locks given back)
//!   and begins the next transaction the same way (`RollbackChain` below).
//! - RELEASE ends the session (`thd->set_killed(KILL_CONNECTION)`): the scenarios have no
//!   session that ends, so it is refused.
//! - `SET [SESSION] completion_type = 0 | 1 | 2 | NO_CHAIN | CHAIN | RELEASE | DEFAULT`
//!   takes no lock (`Sys_var_enum` in `sql/sys_vars.cc`); the model keeps the value
//!   (`SqlSession::completion_type`).

use super::SqlModel;
use crate::classify::Stmt;
use crate::stmt::SessionStmt;
use mdl_core::Outcome;

/// `completion_type`'s value from its written form.
fn completion_value(v: &str) -> Option<u8> {
    match v.to_ascii_lowercase().as_str() {
        "0" | "no_chain" | "default" => Some(0),
        "1" | "chain" => Some(1),
        "2" | "release" => Some(2),
        _ => None,
    }
}

/// `SET [SESSION | LOCAL] [@@[session.]]completion_type = value` alone: its value.
fn set_completion_type(w: &[String]) -> Option<Result<u8, String>> {
    let rest: Vec<&str> = w
        .iter()
        .map(String::as_str)
        .filter(|x| !matches!(*x, "@" | "session" | "local"))
        .collect();
    let name = rest.get(1)?.trim_start_matches("session.");
    if rest.first() != Some(&"set") || name != "completion_type" {
        return None;
    }
    Some(match rest.as_slice() {
        [_, _, "=", v] => completion_value(v).ok_or_else(|| format!("bad completion_type `{v}`")),
        _ => Err("SET completion_type in a SET of its own".to_owned()),
    })
}

/// `COMMIT` / `ROLLBACK`'s words after the first: (`AND CHAIN` / `AND NO CHAIN` said,
/// `RELEASE` / `NO RELEASE` said), `None` when they are not of that form.
fn chain_words(w: &[String]) -> Option<(Option<bool>, Option<bool>)> {
    let mut rest: Vec<&str> = w[1..].iter().map(String::as_str).collect();
    if rest.first() == Some(&"work") {
        rest.remove(0);
    }
    let (chain, rest) = match rest.as_slice() {
        ["and", "chain", r @ ..] => (Some(true), r),
        ["and", "no", "chain", r @ ..] => (Some(false), r),
        r => (None, r),
    };
    let release = match rest {
        [] => None,
        ["release"] => Some(true),
        ["no", "release"] => Some(false),
        _ => return None,
    };
    Some((chain, release))
}

/// COMMIT / ROLLBACK followed only by the words of the chain and release clauses, in an
/// order the grammar (`opt_chain opt_release`, sql/sql_yacc.yy) does not take (`COMMIT
/// CHAIN`, `COMMIT AND RELEASE`, `ROLLBACK AND RELEASE CHAIN`): ER_PARSE_ERROR, before any
/// lock, the transaction kept (measured: main/parser_not_embedded.test's Bug#46527 forms,
/// suite/commit-chain-release-syntax.mdl). `None` for other words (ROLLBACK TO ...).
fn chain_syntax_error(w: &[String]) -> Option<Result<Stmt, String>> {
    let clause = |x: &String| matches!(x.as_str(), "work" | "and" | "no" | "chain" | "release");
    if w.len() > 1 && w[1..].iter().all(clause) && chain_words(w).is_none() {
        return Some(Ok(Stmt::Fails(crate::classify::ER_PARSE_ERROR)));
    }
    None
}

impl SqlModel {
    /// `SET completion_type`, and `COMMIT` / `ROLLBACK` that chain or release (with the
    /// session's `completion_type`); `None` for any other statement.
    pub(super) fn chain_classify(&self, s: usize, w: &[String]) -> Option<Result<Stmt, String>> {
        if let Some(v) = set_completion_type(w) {
            return Some(v.map(|v| Stmt::Session(SessionStmt::CompletionType(v))));
        }
        let commit = match w.first().map(String::as_str) {
            Some("commit") => true,
            Some("rollback") => false,
            _ => return None,
        };
        let Some((chain, release)) = chain_words(w) else {
            return chain_syntax_error(w);
        };
        if chain == Some(true) && release == Some(true) {
            // `AND CHAIN RELEASE`: the grammar's own refusal (Bug#46527, sql_yacc.yy:
            // MYSQL_YYABORT when both are said).
            return Some(Ok(Stmt::Fails(crate::classify::ER_PARSE_ERROR)));
        }
        let ct = self.sessions[s].session.completion_type;
        if release.unwrap_or(ct == 2) {
            return Some(Err(format!(
                "`{}` ends the session (RELEASE, or completion_type = RELEASE): not modelled",
                w.join(" ")
            )));
        }
        Some(Ok(match (chain.unwrap_or(ct == 1), commit) {
            (true, true) => Stmt::Begin,
            (true, false) => Stmt::Session(SessionStmt::RollbackChain),
            (false, true) => Stmt::Commit,
            (false, false) => Stmt::Rollback,
        }))
    }

    /// Plays `SET completion_type` and `ROLLBACK AND CHAIN`.
    pub(super) fn chain_stmt(&mut self, s: usize, x: SessionStmt) -> Outcome {
        match x {
            SessionStmt::CompletionType(v) => self.sessions[s].session.completion_type = v,
            _ => {
                // trans_rollback, release_transactional_locks (LOCK TABLES' locks are
                // explicit, kept), then trans_begin: unlock_locked_tables, a transaction.
                let id = self.sessions[s].id;
                let _ = self.table.commit(id);
                self.unlock_tables(s);
                self.sessions[s].session.in_txn = true;
                self.sessions[s].session.wrote = false;
            }
        }
        Outcome::Ok
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::words::words;

    #[test]
    fn chain_and_release_clauses_out_of_the_grammar_are_parse_errors() {
        let parse_error = Some(Ok(Stmt::Fails(crate::classify::ER_PARSE_ERROR)));
        for sql in [
            "COMMIT CHAIN RELEASE",
            "COMMIT AND RELEASE",
            "ROLLBACK AND RELEASE CHAIN",
            "ROLLBACK NO CHAIN NO RELEASE",
        ] {
            assert_eq!(chain_syntax_error(&words(sql)), parse_error, "{sql}");
        }
        for sql in ["ROLLBACK TO SAVEPOINT a", "COMMIT", "ROLLBACK WORK"] {
            assert_eq!(chain_syntax_error(&words(sql)), None, "{sql}");
        }
    }

    #[test]
    fn completion_type_forms() {
        for (sql, v) in [
            ("SET completion_type = 1", Some(Ok(1))),
            ("SET @@completion_type=2", Some(Ok(2))),
            ("SET SESSION completion_type = 'CHAIN'", Some(Ok(1))),
            ("set @@session.completion_type = NO_CHAIN", Some(Ok(0))),
            ("SET completion_type = DEFAULT", Some(Ok(0))),
            ("SET autocommit = 1", None),
        ] {
            assert_eq!(set_completion_type(&words(sql)), v, "{sql}");
        }
        assert!(matches!(
            set_completion_type(&words("SET completion_type = 3")),
            Some(Err(_))
        ));
    }

    #[test]
    fn chain_forms() {
        for (sql, v) in [
            ("COMMIT", Some((None, None))),
            ("COMMIT WORK AND CHAIN", Some((Some(true), None))),
            (
                "ROLLBACK AND NO CHAIN NO RELEASE",
                Some((Some(false), Some(false))),
            ),
            ("COMMIT RELEASE", Some((None, Some(true)))),
            ("ROLLBACK TO SAVEPOINT a", None),
        ] {
            assert_eq!(chain_words(&words(sql)), v, "{sql}");
        }
    }
}
