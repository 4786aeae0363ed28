//! Private steps: what `mdl check`'s SQL search needs of the model for its reduction
//! (issue 28, item 3; the check's side is `mdl_check::sql::quiet`).
//!
//! A session's next statement is *private* when it touches nothing but the session's
//! own SQL state, in this state and in every state another session's steps lead to: a
//! transaction statement (`BEGIN`, `START TRANSACTION`, `COMMIT`, `ROLLBACK`, with no
//! other clause) of a session that holds no lock, waits for none, wrote nothing, and has
//! nothing a commit or a rollback would give back (LOCK TABLES, FTWRL, BACKUP STAGE or
//! BACKUP LOCK, HANDLERs, user locks, savepoints, locking reads, an XA transaction,
//! temporary tables). Such a statement only sets `in_txn` (`trans_begin`,
//! `trans_commit`, `trans_rollback` in sql/transaction.cc: with nothing written and no
//! ticket, the implicit commit and the release of the transaction's locks
//! (`MDL_context::release_transactional_locks`, sql/mdl.cc) do nothing), it is
//! classified the same whatever the catalog (no table named), and no other session's
//! step reads another session's `in_txn`: they see each other through the lock table
//! (holds and waits) and `KILL QUERY`'s target's statement in progress, which a private
//! step has none of before and after. Other sessions' steps cannot give the session a
//! lock or a wait either (it waits for nothing), so it stays private until it runs.

use super::SqlModel;

/// The statement text is exactly a transaction statement with no other clause.
fn transaction_statement(sql: &str) -> bool {
    let w: Vec<String> = sql
        .trim()
        .trim_end_matches(';')
        .split_whitespace()
        .map(|x| x.to_ascii_lowercase())
        .collect();
    let w: Vec<&str> = w.iter().map(String::as_str).collect();
    matches!(
        w.as_slice(),
        ["begin"]
            | ["begin", "work"]
            | ["start", "transaction"]
            | ["commit"]
            | ["commit", "work"]
            | ["rollback"]
            | ["rollback", "work"]
    )
}

impl SqlModel {
    /// Session `s`'s statement `sql` is private here (see the module documentation).
    pub fn private_step(&self, s: usize, sql: &str) -> bool {
        let x = &self.sessions[s];
        if cfg!(mdl_bug = "sql_quiet_any_step") {
            // Seeded bug: any statement of a session that does not wait is private.
            return x.run.is_none();
        }
        let st = &x.session;
        transaction_statement(sql)
            && x.run.is_none()
            && x.user_locks_run.is_none()
            && self.table.session(x.id).is_none_or(|t| {
                t.wait.is_none()
                    && t.resume.is_none()
                    && t.foreign.is_none()
                    && t.book.held().is_empty()
            })
            && !st.wrote
            && st.lock_tables.is_empty()
            && st.lt_locks.is_empty()
            && st.ftwrl.is_none()
            && st.backup.is_none()
            && st.backup_lock.is_none()
            && st.handlers.is_empty()
            && st.user_locks.is_empty()
            && st.savepoints.is_empty()
            && st.locking_reads.is_empty()
            && st.xa.is_none()
            && st.temp_tables.is_empty()
            && st.pending_temp.is_none()
    }

    /// `self` is `pre` after a step of session `s` that changed only that session's SQL
    /// state: the same lock table, catalog, clock and other sessions (shared, not
    /// copied), and no outcome of another session's statement.
    pub fn only_session_changed(&self, pre: &SqlModel, s: usize) -> bool {
        use super::encode::Shared;
        self.table == pre.table
            && Shared::same(&self.catalog, &pre.catalog)
            && self.now == pre.now
            && self.events.is_empty()
            && self.sessions.len() == pre.sessions.len()
            && (0..self.sessions.len())
                .all(|o| o == s || Shared::same(&self.sessions[o], &pre.sessions[o]))
    }
}

#[cfg(test)]
mod tests {
    use super::transaction_statement;

    #[test]
    fn only_bare_transaction_statements_are_private() {
        for q in [
            "BEGIN",
            "begin;",
            "START  TRANSACTION",
            "COMMIT WORK",
            "rollback",
        ] {
            assert!(transaction_statement(q), "{q}");
        }
        for q in [
            "COMMIT AND CHAIN",
            "ROLLBACK TO SAVEPOINT a",
            "START TRANSACTION READ ONLY",
            "SELECT 1",
            "BEGIN NOT ATOMIC",
        ] {
            assert!(!transaction_statement(q), "{q}");
        }
    }
}
