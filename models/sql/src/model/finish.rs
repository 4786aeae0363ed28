//! The end of a statement: its effect on the catalog and the session, or its failure.

use super::{Handler, Run, SqlModel, Then};
use crate::catalog::Engine;
use crate::classify::{Effect, Plan};
use crate::compose::Step;
use crate::kind::Kind;
use mdl_core::key::MdlKey;
use mdl_core::{Duration, LockType, Outcome};

impl SqlModel {
    pub(super) fn holds_type(&self, s: usize, k: &MdlKey, t: LockType) -> bool {
        self.table
            .session(self.sessions[s].id)
            .is_some_and(|x| x.book.on_key(k).any(|h| h.ty == t))
    }

    /// Ends the running statement with `out`; the outcome as the server reports it.
    pub(super) fn finish(&mut self, s: usize, mut out: Outcome) -> Outcome {
        let id = self.sessions[s].id;
        let Some(run) = self.sessions[s].run.clone() else {
            return out;
        };
        if out == Outcome::Granted {
            out = Outcome::Ok;
        }
        out = self.statement_timed_out(s, out);
        if out == Outcome::Ok {
            out = self.catalog_error(s, &run);
        }
        out = super::checksum_open::checksum_open_failed(&run, out);
        if let (Outcome::Ok, Then::LtRest(plan, deltas)) = (out, &run.then) {
            // The lock taken first is granted: the statement goes on with the locks of
            // LOCK TABLES; the lock is the statement's (statement duration). Its end gives
            // the statement's locks back unless `lt_apply` started another run (ANALYZE's
            // commit), also when it is an instruction of a CALL: `sp_lex_keeper::
            // reset_lex_and_exec_core` (sql/sp_head.cc) releases each instruction's
            // statement locks (`release_statement_locks`), and `ha_commit_trans`
            // (sql/handler.cc) gives its BACKUP_COMMIT back at the commit's end anyway.
            // Measured: found/seed-481640, a CALL whose UPDATE of an InnoDB table under
            // LOCK TABLES ... WRITE CONCURRENT commits keeps no BACKUP_COMMIT.
            self.sessions[s].run = None;
            let o = self.lt_apply(s, plan, deltas).unwrap_or(Outcome::Error);
            if self.sessions[s].run.is_none() {
                let _ = self.table.end_statement(id);
            }
            return o;
        }
        if let (Outcome::Killed, Then::LtCommit(t)) = (out, &run.then) {
            // A killed commit of ANALYZE under LOCK TABLES: mysql_admin_table's `err:`
            // marks the table for reopen (sql/sql_admin.cc), the reopen fails for a killed
            // thread (open_table), so Locked_tables_list::unlink_all_closed_tables
            // (sql/sql_base.cc) drops it from LOCK TABLES, keeping its lock, and ends LOCK
            // TABLES when no table is left (unlock_locked_tables). Measured:
            // found/seed-111355 (no table left: no lock left); with another table locked
            // the analyzed one is ER_TABLE_NOT_LOCKED after; a timeout keeps it.
            self.sessions[s].session.lock_tables.retain(|(x, _)| x != t);
            if self.sessions[s].session.lock_tables.is_empty() {
                self.unlock_tables(s);
            }
        }
        if out != Outcome::Ok {
            return self.failed(s, &run, out);
        }
        self.sessions[s].run = None;
        let new_locks: Vec<(MdlKey, LockType)> = run
            .new
            .iter()
            .filter_map(|(tid, k)| {
                self.table
                    .session(id)
                    .and_then(|x| x.book.get(*tid))
                    .map(|h| (k.clone(), h.ty))
            })
            .collect();
        match &run.then {
            Then::Begin => {
                self.sessions[s].session.in_txn = true;
                self.sessions[s].session.wrote = false;
            }
            Then::Commit => {
                self.sessions[s].session.in_txn = false;
                self.sessions[s].session.wrote = false;
            }
            Then::Xa(x) => self.xa_then(s, *x),
            Then::Reopen(i) => {
                self.sessions[s].session.handlers[*i].open = true;
            }
            Then::LtCommit(_) | Then::LtRest(..) => {}
            Then::Prepared(n, t) => self.prepared_keep(s, n, t),
            Then::Plan(p) => {
                self.catalog.apply(&p.effect);
                self.note_rows(p);
                self.session_after_plan(s, p, &new_locks);
                self.after_plan(s, p.kind, &run.new);
                if run.writes {
                    self.sessions[s].session.wrote = true;
                }
            }
        }
        let _ = self.table.end_statement(id);
        self.statement_end(s, &run);
        Outcome::Ok
    }

    /// The catalog's error of a statement whose locks were granted (the catalog's errors
    /// come after the locks): `Error`, or `Ok`.
    fn catalog_error(&mut self, s: usize, run: &Run) -> Outcome {
        let mut out = Outcome::Ok;
        // The catalog's errors come after the locks.
        let err = match &run.then {
            // (A trigger that writes a table the statement uses: `model::trigger_used_table`.)
            Then::Plan(p) => self
                .catalog
                .error_of(&p.effect)
                .or_else(|| self.trigger_used_table(p)),
            Then::Reopen(i) => {
                let t = &self.sessions[s].session.handlers[*i].table;
                (!self.catalog.exists(t)).then_some(crate::catalog::ER_NO_SUCH_TABLE)
            }
            _ => None,
        };
        if let Some(code) = err {
            self.sessions[s].session.last_error = Some(code);
            out = Outcome::Error;
            if let Then::Plan(p) = &run.then {
                // DROP TABLE / DROP VIEW / DROP SEQUENCE of a list drops the tables
                // (views, sequences) that exist (mysql_rm_table_no_locks,
                // mysql_drop_view).
                if matches!(
                    p.effect,
                    Effect::DropTables { .. }
                        | Effect::DropView { .. }
                        | Effect::DropSequences { .. }
                        | Effect::DropThenFail { .. }
                ) {
                    self.catalog.apply(&p.effect);
                }
            }
        }
        out
    }

    /// A statement that failed (error, timeout, deadlock, kill): it gives back what it
    /// took, and a failed commit ends the transaction.
    fn failed(&mut self, s: usize, run: &Run, out: Outcome) -> Outcome {
        let id = self.sessions[s].id;
        if self.sessions[s].session.in_txn && !run.implicit_commit && run.keep_on_error {
            // In a transaction a statement that failed after open_tables keeps the
            // transaction locks it took (no rollback to the statement's savepoint);
            // the others go.
            let keep: Vec<mdl_core::lock::TicketId> = self
                .table
                .session(id)
                .map(|x| {
                    x.book
                        .held()
                        .iter()
                        .filter(|h| h.dur == Duration::Transaction)
                        .map(|h| h.id)
                        .collect()
                })
                .unwrap_or_default();
            if let Some(r) = self.sessions[s].run.as_mut() {
                r.new.retain(|(t, _)| !keep.contains(t));
            }
        }
        self.give_back(s, 0);
        self.sessions[s].run = None;
        let _ = self.table.end_statement(id);
        if matches!(&run.then, Then::Plan(p)
            if matches!(p.kind, Kind::BackupFlush | Kind::BackupBlockDdl | Kind::BackupBlockCommit))
        {
            self.backup_stage_failed(s);
        }
        if matches!(run.then, Then::Commit | Then::Begin) {
            // A COMMIT whose BACKUP_COMMIT wait failed (killed, timeout) has rolled the
            // transaction back (ha_commit_trans: ha_rollback_trans) and gives back its
            // locks all the same (mysql_execute_command, SQLCOM_COMMIT:
            // release_transactional_locks whatever trans_commit returned, "COMMIT
            // failed, MDL released"); so does BEGIN's commit (trans_begin clears
            // OPTION_BEGIN). Measured: found/seed-130635 (kill), seed-130635-2
            // (timeout), seed-130635-3 (autocommit off), seed-130635-4 (BEGIN).
            self.sessions[s].session.in_txn = false;
            self.sessions[s].session.wrote = false;
        }
        // A commit (COMMIT, or a statement's implicit commit) whose BACKUP_COMMIT
        // wait failed rolls the transaction back (ha_commit_trans, sql/handler.cc:
        // ha_rollback_trans when the backup lock cannot be taken): the transaction is
        // over and its next commit takes no BACKUP_COMMIT. Measured:
        // suite/backup-stage-block-commit.mdl, a second DROP TABLE waits for
        // BACKUP_DDL, not BACKUP_COMMIT.
        let commit_failed = run.steps.contains(&Step::Commit);
        if !self.sessions[s].session.in_txn || run.implicit_commit || commit_failed {
            let _ = self.table.commit(id);
        }
        if commit_failed {
            self.sessions[s].session.in_txn = false;
            self.sessions[s].session.wrote = false;
        }
        out
    }

    /// What a statement of the learned table leaves in the session's state (its LOCK
    /// TABLES, FTWRL, BACKUP STAGE, BACKUP LOCK, HANDLERs, user locks, database).
    fn session_after_plan(&mut self, s: usize, p: &Plan, new_locks: &[(MdlKey, LockType)]) {
        let d = self.dialect.clone();
        let id = self.sessions[s].id;
        let st = &mut self.sessions[s].session;
        match p.kind {
            k if k.is_lock_tables() || k == Kind::FtwrlTable => {
                let _ = self.table.set_duration(id, Duration::Explicit);
                let st = &mut self.sessions[s].session;
                st.lock_tables = p.lock_tables.clone();
                st.lt_locks = new_locks
                    .iter()
                    .filter(|(k, _)| {
                        self.table
                            .session(id)
                            .is_some_and(|x| x.book.on_key(k).any(|h| h.dur == Duration::Explicit))
                    })
                    .cloned()
                    .collect();
            }
            Kind::Ftwrl => {
                st.ftwrl = new_locks.last().cloned();
            }
            k if k.is_backup_stage() => {
                if k == Kind::BackupEnd {
                    st.backup = None;
                } else {
                    let l = self.table.session(id).and_then(|x| {
                        x.book
                            .held()
                            .iter()
                            .find(|h| {
                                d.namespace(h.key.namespace()).name == "BACKUP"
                                    && h.dur == Duration::Explicit
                            })
                            .map(|h| (h.key.clone(), h.ty))
                    });
                    st.backup = l.map(|(k2, t)| (k, k2, t));
                }
            }
            Kind::TableBackupLock => {
                if let Some(t) = &p.parts[0].bind.t {
                    let k = self.handler_key(t);
                    let l = self.table.session(id).and_then(|x| {
                        x.book
                            .held()
                            .iter()
                            .find(|h| h.key == k && h.dur == Duration::Explicit)
                            .map(|h| (h.key.clone(), h.ty))
                    });
                    self.sessions[s].session.backup_lock = l;
                }
            }
            Kind::HandlerOpen => {
                if let Some(t) = p.parts[0].bind.t.clone() {
                    st.handlers.push(Handler {
                        alias: p.parts[0]
                            .bind
                            .alias
                            .clone()
                            .unwrap_or_else(|| t.name.clone()),
                        table: t,
                        open: true,
                    });
                }
            }
            Kind::GetLock => {
                if let Some(n) = &p.parts[0].bind.lock {
                    *st.user_locks.entry(n.clone()).or_insert(0) += 1;
                }
            }
            Kind::DropDb => {
                if let Effect::DropDb { db, .. } = &p.effect {
                    if st.db == *db {
                        st.db = String::new();
                    }
                }
            }
            _ => {}
        }
    }

    /// The end of a statement that succeeded: its commit (autocommit, implicit) or the
    /// transaction it starts.
    fn statement_end(&mut self, s: usize, run: &Run) {
        let id = self.sessions[s].id;
        let st = &self.sessions[s].session;
        // With autocommit off and no BEGIN, the transaction becomes active only when a
        // transactional engine takes part (trans_register_ha sets SERVER_STATUS_IN_TRANS);
        // until then a statement's locks go at its end, as in autocommit mode
        // (mysql_execute_command, sql/sql_parse.cc: release_transactional_locks unless
        // thd->in_active_multi_stmt_transaction()). Measured: a MyISAM INSERT or SELECT
        // with autocommit off holds nothing after it
        // (suite/handler-and-ftwrl-statements.mdl).
        // (A CREATE TEMPORARY TABLE ... LIKE / SELECT: `model::temp_txn`.)
        let engine_less = match &run.then {
            Then::Plan(p) if !st.autocommit && !st.in_txn => {
                self.temp_fill_engine_less(s, p).unwrap_or_else(|| {
                    !p.parts.iter().any(|part| {
                        part.bind
                            .tables()
                            .any(|t| self.catalog.engine(t) == Some(Engine::InnoDb))
                    })
                })
            }
            _ => false,
        };
        let autocommit_end = (st.autocommit || engine_less) && !st.in_txn;
        if matches!(run.then, Then::Plan(_)) && (run.implicit_commit || autocommit_end) {
            let _ = self.table.commit(id);
            self.sessions[s].session.in_txn = false;
            self.sessions[s].session.wrote = false;
        } else if matches!(run.then, Then::Plan(_)) && !self.sessions[s].session.autocommit {
            self.sessions[s].session.in_txn = true;
        }
        // (No `mysql_ha_flush` at a statement's end: only the next statement that opens
        // tables closes the HANDLERs others came to wait for meanwhile. The old harness's
        // end marker, a SELECT after every statement, did it at once; measured through
        // the protocol client, found/seed-10482 and known-differences/woken-race-110773.)
    }
}
