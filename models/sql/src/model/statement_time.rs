//! `SET STATEMENT max_statement_time=N FOR statement` (MariaDB sql/sql_parse.cc,
//! `mysql_execute_command`: the variable is set for the inner statement only;
//! `THD::set_query_timer` arms a timer of N seconds when the statement begins, and when it
//! fires `THD::awake_no_mutex(KILL_TIMEOUT)` ends it as a soft kill: a metadata lock wait
//! ends (`MDL_context::acquire_lock` sees `thd->killed`), the statement fails with
//! ER_STATEMENT_TIMEOUT (1969) and gives back what it took, the transaction stays, as
//! after KILL QUERY). Measured: suite/set-statement-max-statement-time.mdl.
//!
//! The deadline counts from the statement's start (model time, moved by `advance`); a
//! wait ends at the earlier of it and its `lock_wait_timeout`.

use super::SqlModel;
use crate::classify::Stmt;
use crate::stmt::SessionStmt;
use mdl_core::Outcome;

/// ER_STATEMENT_TIMEOUT.
pub const ER_STATEMENT_TIMEOUT: u32 = 1969;

impl SqlModel {
    /// Arms the statement's timer when `st` is `SET STATEMENT max_statement_time=N FOR
    /// inner` (and disarms the last statement's otherwise); the statement to play.
    pub(super) fn arm_statement_time(&mut self, s: usize, st: Stmt) -> Stmt {
        let now = self.now;
        let x = &mut self.sessions[s].session;
        x.stmt_time_up = false;
        match st {
            Stmt::Session(SessionStmt::StatementTime(ms, inner)) => {
                x.stmt_deadline = Some(now.saturating_add(ms));
                *inner
            }
            other => {
                x.stmt_deadline = None;
                other
            }
        }
    }

    /// A wait's deadline with the statement's timer: the earlier of the two.
    pub(super) fn with_statement_time(&self, s: usize, deadline: Option<u64>) -> Option<u64> {
        match (deadline, self.sessions[s].session.stmt_deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// At model time `dl` session `s`'s wait ends: when its statement's timer fired (not
    /// its `lock_wait_timeout`), the statement is killed as the server's KILL_TIMEOUT does
    /// (its outcome becomes ER_STATEMENT_TIMEOUT in [`Self::statement_timed_out`]); true
    /// then.
    pub(super) fn fire_statement_time(&mut self, s: usize, dl: u64) -> bool {
        if self.sessions[s]
            .session
            .stmt_deadline
            .is_none_or(|d| d > dl)
        {
            return false;
        }
        self.sessions[s].session.stmt_time_up = true;
        self.kill(s);
        true
    }

    /// A statement killed by its timer fails with ER_STATEMENT_TIMEOUT.
    pub(super) fn statement_timed_out(&mut self, s: usize, out: Outcome) -> Outcome {
        let x = &mut self.sessions[s].session;
        if out == Outcome::Killed && x.stmt_time_up {
            x.last_error = Some(ER_STATEMENT_TIMEOUT);
            return Outcome::Error;
        }
        out
    }
}
