//! Control statements (`sql/sql_parse.cc`, `sql/transaction.cc`, `sql/lock.cc`): the
//! statements that are not a learned plan, and the commits they request.

use super::run::RunShape;
use super::{SqlModel, Then, ER_BAD_DB, ER_UNKNOWN_TABLE_HANDLER};
use crate::catalog::Engine;
use crate::classify::{Effect, Plan, Stmt};
use crate::compose::{compose, keys, Ctx, Step};
use crate::kind::{Kind, RowVariant};
use crate::mapping::OpKind;
use mdl_core::key::MdlKey;
use mdl_core::Outcome;

impl SqlModel {
    pub(super) fn statement(
        &mut self,
        s: usize,
        st: Stmt,
        flushed: &[usize],
    ) -> Result<Outcome, String> {
        let id = self.sessions[s].id;
        Ok(match st {
            Stmt::NoLocks => Outcome::Ok,
            Stmt::Fails(code) => self.fail(s, code),
            Stmt::Session(x) => self.session_stmt(s, x)?,
            Stmt::Xa(x) => self.xa_stmt(s, x)?,
            Stmt::Use(db) => {
                if !self.catalog.has_schema(&db) && !crate::classify::is_system_schema(&db) {
                    return Ok(self.fail(s, ER_BAD_DB));
                }
                self.sessions[s].session.db = db;
                Outcome::Ok
            }
            Stmt::SetTimeout(n) => {
                self.sessions[s].session.lock_wait_timeout = Some(n);
                Outcome::Ok
            }
            Stmt::SetAutocommit(on) => {
                // SET autocommit=1 commits an open transaction (sql/sys_vars.cc,
                // fix_autocommit).
                let commit =
                    on && !self.sessions[s].session.autocommit && self.sessions[s].session.in_txn;
                self.sessions[s].session.autocommit = on;
                if commit {
                    return self.start_commit(s, Then::Commit);
                }
                Outcome::Ok
            }
            Stmt::Begin => {
                // trans_begin: ends LOCK TABLES, commits.
                self.unlock_tables(s);
                self.start_commit(s, Then::Begin)?
            }
            Stmt::Commit => self.start_commit(s, Then::Commit)?,
            Stmt::Rollback => {
                let _ = self.table.commit(id);
                self.sessions[s].session.in_txn = false;
                self.sessions[s].session.wrote = false;
                Outcome::Ok
            }
            Stmt::UnlockTables => {
                // UNLOCK TABLES: ends LOCK TABLES (committing) and FTWRL
                // (sql_parse.cc, SQLCOM_UNLOCK_TABLES).
                let had = self.sessions[s].session.under_lock_tables();
                self.unlock_tables(s);
                if let Some((k, t)) = self.sessions[s].session.ftwrl.take() {
                    let _ = self.table.release(id, &k, Some(t));
                    self.release_ftwrl_rest(s);
                }
                if had {
                    let _ = self.table.commit(id);
                    self.sessions[s].session.in_txn = false;
                    self.sessions[s].session.wrote = false;
                }
                Outcome::Ok
            }
            Stmt::HandlerClose(_) | Stmt::HandlerRead(_)
                if self.sessions[s].session.under_lock_tables() =>
            {
                // HANDLER statements are refused in LOCK TABLES mode (sql_handler.cc).
                return Ok(self.fail(s, crate::catalog::ER_LOCK_OR_ACTIVE_TRANSACTION));
            }
            Stmt::HandlerClose(name) => {
                let Some(i) = self.handler_index(s, &name) else {
                    return Ok(self.fail(s, ER_UNKNOWN_TABLE_HANDLER));
                };
                let h = self.sessions[s].session.handlers.remove(i);
                if h.open {
                    self.release_handler_lock(s, &h.table);
                }
                Outcome::Ok
            }
            Stmt::HandlerRead(name) => self.handler_read(s, &name, flushed)?,
            Stmt::ReleaseLock(n) => {
                let cnt = self.sessions[s]
                    .session
                    .user_locks
                    .get(&n)
                    .copied()
                    .unwrap_or(0);
                if cnt > 1 {
                    self.sessions[s].session.user_locks.insert(n, cnt - 1);
                } else if cnt == 1 {
                    self.sessions[s].session.user_locks.remove(&n);
                    self.release_user_lock(s, &n);
                }
                Outcome::Ok
            }
            Stmt::UserLocks(calls) => self.user_locks_start(s, calls),
            Stmt::ReleaseAllLocks => {
                self.release_all_user_locks(s);
                Outcome::Ok
            }
            Stmt::BackupUnlock => {
                // BACKUP UNLOCK is SQLCOM_BACKUP_LOCK, which commits implicitly
                // (CF_AUTO_COMMIT_TRANS, sql_parse.cc init_update_queries; measured:
                // found/seed-180864, seed-181136); then backup_unlock (sql/backup.cc) gives
                // back the session's BACKUP LOCK. (When that commit waits for
                // BACKUP_COMMIT, ours gives the BACKUP LOCK back as the wait begins.)
                let o = self.start_commit(s, Then::Commit)?;
                self.backup_unlock(s);
                o
            }
            Stmt::Learned(plan) if plan.kind == Kind::TableBackupLock => {
                // backup_lock (sql/backup.cc) gives back the previous BACKUP LOCK first.
                self.backup_unlock(s);
                self.run_plan(s, plan)?
            }
            Stmt::Learned(plan) => {
                // SHOW CREATE TABLE / SHOW COLUMNS: SH for a moment (`model::show_open`).
                self.show_open_prefix(s, &plan);
                self.run_plan(s, plan)?
            }
        })
    }

    /// HANDLER ... READ: on a HANDLER whose table is closed, it opens it again.
    fn handler_read(&mut self, s: usize, name: &str, flushed: &[usize]) -> Result<Outcome, String> {
        let Some(i) = self.handler_index(s, name) else {
            return Ok(self.fail(s, ER_UNKNOWN_TABLE_HANDLER));
        };
        let t = self.sessions[s].session.handlers[i].table.clone();
        Ok(if flushed.contains(&i) {
            // Closed by this statement's flush: the read goes on without a lock;
            // the next one opens the table again.
            Outcome::Ok
        } else if !self.catalog.exists(&t) {
            // The table was dropped under the HANDLER.
            return Ok(self.fail(s, crate::catalog::ER_NO_SUCH_TABLE));
        } else if self.sessions[s].session.handlers[i].open {
            Outcome::Ok
        } else {
            // Opened again (mysql_ha_read -> mysql_ha_open with reopen).
            let t = self.sessions[s].session.handlers[i].table.clone();
            let row = if self.catalog.engine(&t) == Some(Engine::MyIsam)
                && self
                    .map
                    .kind(Kind::HandlerOpen.row_name(RowVariant::MyIsam))
                    .is_some()
            {
                Kind::HandlerOpen.row_name(RowVariant::MyIsam)
            } else {
                Kind::HandlerOpen.as_str()
            };
            let bind = crate::classify::Bind {
                t: Some(t.clone()),
                ..Default::default()
            };
            let part = crate::classify::Part::on_row(row, Kind::HandlerOpen, bind);
            let plan = Plan::of(Kind::HandlerOpen, vec![part], Effect::NeedTables(vec![t]));
            let steps = compose(&self.map, &self.dialect, &self.catalog, &plan)?;
            self.start_run(s, steps, Vec::new(), RunShape::PLAIN, None, Then::Reopen(i))
        })
    }

    pub(super) fn release_user_lock(&mut self, s: usize, n: &str) {
        let d = self.dialect.clone();
        let id = self.sessions[s].id;
        let ns = self.user_lock_namespace(&d);
        let _ = self.table.release(id, &MdlKey::new(ns, n, ""), None);
    }

    /// COMMIT (or BEGIN's implicit commit): BACKUP_COMMIT first when the transaction
    /// wrote a transactional table.
    pub(super) fn start_commit(&mut self, s: usize, then: Then) -> Result<Outcome, String> {
        let mut steps = Vec::new();
        if self.sessions[s].session.wrote {
            steps = self.commit_steps()?;
        }
        steps.push(Step::Commit);
        Ok(self.start_run(s, steps, Vec::new(), RunShape::PLAIN, None, then))
    }

    /// Whether the BACKUP_COMMIT of a transaction that wrote would wait (another
    /// session's FTWRL or BACKUP STAGE BLOCK_COMMIT): then a statement that commits
    /// implicitly waits there, before anything else (measured: found/seed-11852).
    pub(super) fn commit_would_wait(&self, s: usize) -> Result<bool, String> {
        let me = self.sessions[s].id;
        Ok(self.commit_steps()?.iter().any(|st| match st {
            Step::Acquire { key, ty, .. } => {
                let strat = self.dialect.strategy(key.namespace());
                self.table.lock(key).is_some_and(|l| {
                    l.granted()
                        .iter()
                        .any(|g| g.owner != me && strat.conflicts_granted(*ty, g.ty))
                })
            }
            _ => false,
        }))
    }

    /// What COMMIT of a transaction that wrote requests (the `commit_write` kind).
    pub(super) fn commit_steps(&self) -> Result<Vec<Step>, String> {
        let Some(r) = self.map.kind(Kind::CommitWrite.as_str()) else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for o in r.ops.iter().filter(|o| o.op == OpKind::Acquire) {
            for key in keys(
                &self.dialect,
                &self.catalog,
                &o.ns,
                &o.key,
                &Default::default(),
            )? {
                out.push(Step::Acquire {
                    key,
                    ty: o.ty,
                    dur: o.dur,
                    ctx: Ctx::Plain,
                });
            }
        }
        Ok(out)
    }
}
