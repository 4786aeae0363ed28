//! Session statements with no lock of their own ([`SessionStmt`]): savepoints and SET
//! TRANSACTION.
//!
//! - `SAVEPOINT n` (MariaDB `sql/transaction.cc`, `trans_savepoint`): nothing outside a
//!   multi-statement transaction (BEGIN, or autocommit off); otherwise a savepoint that
//!   remembers the session's lock lists (`MDL_context::mdl_savepoint`). A savepoint of the
//!   same name is replaced.
//! - `ROLLBACK TO SAVEPOINT n` (`trans_rollback_to_savepoint`): ER_SP_DOES_NOT_EXIST
//!   for a name not set in this transaction; otherwise later savepoints are gone, and the
//!   statement and transaction locks taken since the savepoint are given back
//!   (`MDL_context::rollback_to_savepoint`) when no binary log is written (the throwaway
//!   server runs with `--skip-log-bin`) and every engine of the transaction allows it
//!   (`ha_rollback_to_savepoint_can_release_mdl`): InnoDB allows it when the transaction
//!   holds no InnoDB lock after its rollback (`innobase_rollback_to_savepoint_can_release_mdl`).
//!   Measured on 10.11: the rollback gives back the InnoDB locks taken after the
//!   savepoint, so the locks stay exactly when a statement that takes InnoDB locks (a
//!   write, SELECT ... FOR UPDATE, LOCK IN SHARE MODE) ran before the savepoint. HANDLER
//!   locks are explicit (`mysql_ha_open` moves them out of the transaction list): a
//!   rollback never gives them back (suite/handler/savepoint.inc).
//! - `RELEASE SAVEPOINT n` (`trans_release_savepoint`): ER_SP_DOES_NOT_EXIST, or the
//!   savepoint and later ones are gone; no lock changes.
//! - `SET TRANSACTION ...` (`Sys_var_tx_isolation::on_check`, sql/sys_vars.cc):
//!   ER_CANT_CHANGE_TX_CHARACTERISTICS in an active transaction, otherwise nothing.
//!
//! The savepoints the model knows are the session's list (`SqlSession::savepoints`, with
//! whether InnoDB held locks when each was set) and, for their lock marks, the lock
//! table's own (`LockTable::savepoint`); a commit clears the latter, so a name is set
//! when both know it.

use super::SqlModel;
use crate::catalog::Engine;
use crate::classify::Tbl;
use crate::kind::Kind;
use crate::stmt::SessionStmt;
use mdl_core::key::MdlKey;
use mdl_core::lock::TicketId;
use mdl_core::{Duration, LockType, Outcome};

/// ER_SP_DOES_NOT_EXIST: "SAVEPOINT n does not exist".
pub const ER_SP_DOES_NOT_EXIST: u32 = 1305;
/// ER_CANT_CHANGE_TX_CHARACTERISTICS.
pub const ER_CANT_CHANGE_TX_CHARACTERISTICS: u32 = 1568;

impl SqlModel {
    pub(super) fn session_stmt(&mut self, s: usize, x: SessionStmt) -> Result<Outcome, String> {
        let id = self.sessions[s].id;
        Ok(match x {
            SessionStmt::Temp(op) => return self.temp_stmt(s, op),
            SessionStmt::Fail(code) | SessionStmt::SetFails(code) => self.fail(s, code),
            SessionStmt::OpensNothing => Outcome::Ok,
            SessionStmt::GlobalLockWaitTimeout(secs) => {
                self.set_global_lock_wait_timeout(secs);
                Outcome::Ok
            }
            // Unwrapped when the statement begins (`arm_statement_time`): only a nested
            // one gets here.
            SessionStmt::StatementTime(..) => {
                return Err(
                    "a SET STATEMENT max_statement_time inside another is not modelled".into(),
                )
            }
            x @ (SessionStmt::CompletionType(_) | SessionStmt::RollbackChain) => {
                self.chain_stmt(s, x)
            }
            SessionStmt::KillQuery(t) => {
                // Ends t's wait (`killed`) as a `kill` line does; the killer's statement
                // takes no lock (`sql_kill`, sql/sql_parse.cc).
                let _ = self.table.kill(self.sessions[t].id);
                Outcome::Ok
            }
            SessionStmt::Prepare(name, text) => {
                self.prepare_ha_close(s, &text);
                self.prepare_open(s, name, text)
            }
            SessionStmt::Deallocate(name) => {
                let p = &mut self.sessions[s].session.prepared;
                let had = p.len();
                p.retain(|(n, _)| *n != name);
                if p.len() == had {
                    return Ok(self.fail(s, super::prepared::ER_UNKNOWN_STMT_HANDLER));
                }
                Outcome::Ok
            }
            SessionStmt::SetNextTransaction => {
                if self.sessions[s].session.in_txn {
                    return Ok(self.fail(s, ER_CANT_CHANGE_TX_CHARACTERISTICS));
                }
                Outcome::Ok
            }
            SessionStmt::Savepoint(n) => {
                let st = &self.sessions[s].session;
                // in_multi_stmt_transaction_mode(): BEGIN, or autocommit off.
                if !st.in_txn && st.autocommit {
                    return Ok(Outcome::Ok);
                }
                let locked = self.innodb_locked(s);
                let _ = self.table.savepoint(id, &n);
                let sv = &mut self.sessions[s].session.savepoints;
                sv.retain(|(x, _)| *x != n);
                sv.push((n, locked));
                Outcome::Ok
            }
            SessionStmt::RollbackTo(n) => {
                let Some(i) = self.savepoint_index(s, &n) else {
                    return Ok(self.fail(s, ER_SP_DOES_NOT_EXIST));
                };
                let locked = self.sessions[s].session.savepoints[i].1;
                self.sessions[s].session.savepoints.truncate(i + 1);
                if !locked {
                    let _ = self.table.rollback_to(id, &n);
                    // (InnoDB gave back its locks taken since: those reads are gone.)
                    let held = self.ids(s);
                    self.sessions[s]
                        .session
                        .locking_reads
                        .retain(|x| held.contains(x));
                    self.pump();
                }
                Outcome::Ok
            }
            SessionStmt::Release(n) => {
                let Some(i) = self.savepoint_index(s, &n) else {
                    return Ok(self.fail(s, ER_SP_DOES_NOT_EXIST));
                };
                self.sessions[s].session.savepoints.truncate(i);
                Outcome::Ok
            }
        })
    }

    /// The position of savepoint `n` in the session's list, when the lock table knows it
    /// too (its savepoints go at every commit).
    fn savepoint_index(&self, s: usize, n: &str) -> Option<usize> {
        let core = self.table.session(self.sessions[s].id)?.book.savepoints();
        let i = self.sessions[s]
            .session
            .savepoints
            .iter()
            .rposition(|(x, _)| x == n)?;
        core.iter().any(|(x, _)| x == n).then_some(i)
    }

    /// Whether the session's InnoDB transaction holds locks: it holds a transaction lock
    /// of a writer (SW or stronger: a write or SELECT ... FOR UPDATE) on an InnoDB table,
    /// or a LOCK IN SHARE MODE read's lock is still held.
    fn innodb_locked(&self, s: usize) -> bool {
        let Some(x) = self.table.session(self.sessions[s].id) else {
            return false;
        };
        let reads = &self.sessions[s].session.locking_reads;
        x.book.held().iter().any(|h| {
            h.dur == Duration::Transaction
                && (reads.contains(&h.id)
                    || ([LockType::SW, LockType::SWLP, LockType::SU, LockType::SNW]
                        .contains(&h.ty)
                        && self.innodb_key(&h.key)))
        })
    }

    fn innodb_key(&self, k: &MdlKey) -> bool {
        self.dialect.namespace(k.namespace()).name == "TABLE"
            && self.catalog.engine(&Tbl {
                db: k.db().to_owned(),
                name: k.name().to_owned(),
            }) == Some(Engine::InnoDb)
    }

    /// At the end of a statement of the learned table that succeeded: the temporary
    /// table it makes (`model::temp`), the locking reads it did.
    pub(super) fn after_plan(&mut self, s: usize, kind: Kind, new: &[(TicketId, MdlKey)]) {
        if let Some(t) = self.sessions[s].session.pending_temp.take() {
            // (CREATE OR REPLACE TEMPORARY: the old one of the name goes.)
            self.sessions[s]
                .session
                .temp_tables
                .retain(|(x, _)| *x != t.0);
            self.sessions[s].session.temp_tables.push(t);
        }
        self.note_locking_read(s, kind, new);
    }

    /// At the end of a LOCK IN SHARE MODE read: the tickets it took on InnoDB tables
    /// (InnoDB holds S locks for it until the transaction ends or a savepoint before it is
    /// rolled back to).
    fn note_locking_read(&mut self, s: usize, kind: Kind, new: &[(TicketId, MdlKey)]) {
        if kind != Kind::SelectShare {
            return;
        }
        let ids: Vec<TicketId> = new
            .iter()
            .filter(|(_, k)| self.innodb_key(k))
            .map(|(i, _)| *i)
            .collect();
        let held = self.ids(s);
        let reads = &mut self.sessions[s].session.locking_reads;
        reads.retain(|x| held.contains(x));
        reads.extend(ids);
    }
}
