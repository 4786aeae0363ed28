//! The session's own LOCK TABLES (`sql/lock.cc`, `Locked_tables_list`): statements on the
//! tables it locked, and UNLOCK TABLES.

use super::run::RunShape;
use super::{SqlModel, Then};
use crate::catalog::Engine;
use crate::classify::{Effect, LtMode, Plan, Tbl};
use crate::compose::{keys, Ctx, Step};
use crate::kind::Kind;
use crate::mapping::{Mapping, OpKind};
use mdl_core::key::MdlKey;
use mdl_core::{Duration, LockType, Outcome, WaitOption};
use std::collections::VecDeque;

pub(super) fn lock_table_names(map: &Mapping, plan: &Plan) -> bool {
    plan.parts.iter().any(|p| {
        map.kind(&p.row)
            .is_some_and(|r| r.ops.iter().any(|o| o.op == OpKind::Bulk))
    })
}

impl SqlModel {
    pub(super) fn unlock_tables(&mut self, s: usize) {
        let id = self.sessions[s].id;
        let locks = std::mem::take(&mut self.sessions[s].session.lt_locks);
        for (k, t) in locks.iter().rev() {
            if self.table.release(id, k, Some(*t)).is_err() {
                let _ = self.table.release(id, k, None);
            }
        }
        self.sessions[s].session.lock_tables.clear();
    }

    /// Under LOCK TABLES in autocommit mode, a statement that writes a transactional
    /// table still ends with its own commit, which requests BACKUP_COMMIT while the
    /// statement holds its locks: LOCK TABLES begins no transaction (OPTION_BEGIN is not
    /// set), so trans_commit_stmt's ha_commit_trans is a real commit and takes
    /// MDL_BACKUP_COMMIT (sql/handler.cc). Measured: found/lock-tables-concurrent-update-
    /// behind-block-commit.mdl (from `mdl conform --random 150 --seed 20261203`), the
    /// UPDATE under LOCK TABLES ... WRITE CONCURRENT waits behind BACKUP STAGE BLOCK_COMMIT.
    pub(super) fn lt_autocommit_steps(&self, s: usize, plan: &Plan) -> Result<Vec<Step>, String> {
        let st = &self.sessions[s].session;
        let writes = plan
            .parts
            .iter()
            .any(|p| p.kind.is_plain_write() && !p.row.ends_with(".myisam"));
        if writes && st.autocommit && !st.in_txn {
            self.commit_steps()
        } else {
            Ok(Vec::new())
        }
    }

    /// A statement under the session's LOCK TABLES on tables it locked: the learned
    /// change of the session's locks (`lt_deltas`), no wait, and its effect.
    /// Under the session's LOCK TABLES, the statements that change a table's definition
    /// or files move its lock up to X first (`wait_while_table_is_used`, sql/sql_base.cc):
    /// TRUNCATE (`Sql_cmd_truncate_table::lock_table`), ALTER and CREATE INDEX
    /// (`mysql_alter_table`, `mysql_inplace_alter_table`), DROP TABLE
    /// (`mysql_rm_table_no_locks`), REPAIR and OPTIMIZE (`mysql_admin_table`), FLUSH
    /// TABLES of every locked table and FLUSH TABLE of its list (`close_cached_tables`),
    /// CREATE/DROP TRIGGER after the trigger's lock (`mysql_create_or_drop_trigger`). The
    /// learned rules show only where the locks end (SNRW again, or REPAIR's X); the move
    /// up waits for the other sessions' locks that SNRW lets in, S and SH: another
    /// session's BACKUP LOCK of the table. Measured: found/seed-210725 (FLUSH TABLES) and
    /// `lock-tables-x-behind-backup-lock.mdl` (each of the others; ANALYZE and CHECK do
    /// not wait). Each is a wait for X as a ticket of the statement's, given back at its
    /// end, as the server's upgrade ends in a downgrade or in REPAIR's own X (shown
    /// meanwhile as a pending X beside the SNRW, as the server shows it).
    pub(super) fn lt_x_waits(&self, s: usize, plan: &Plan) -> Result<Vec<Step>, String> {
        const MOVE_UP: &[Kind] = &[
            Kind::Truncate,
            Kind::AlterCopy,
            Kind::AlterInplace,
            Kind::AlterInstant,
            Kind::CreateIndex,
            Kind::Drop,
            Kind::Repair,
            Kind::Optimize,
            Kind::FlushTables,
            Kind::FlushTable,
            Kind::CreateTrigger,
            Kind::DropTrigger,
        ];
        if !MOVE_UP.contains(&plan.kind) {
            return Ok(Vec::new());
        }
        let st = &self.sessions[s].session;
        let tables: Vec<Tbl> = if plan.kind == Kind::FlushTables {
            st.lock_tables.iter().map(|(t, _)| t.clone()).collect()
        } else {
            plan.parts.iter().filter_map(|p| p.bind.t.clone()).collect()
        };
        let x = LockType::parse("X").expect("X");
        let mut keys_seen: Vec<MdlKey> = Vec::new();
        for t in tables {
            let write = st
                .lock_tables
                .iter()
                .any(|(x, m)| *x == t && *m == LtMode::Write);
            let k = self.handler_key(&t);
            // (An X the session holds already, REPAIR's or OPTIMIZE's, needs no move up.)
            if write && !keys_seen.contains(&k) && !self.holds_type(s, &k, x) {
                keys_seen.push(k);
            }
        }
        Ok(keys_seen
            .into_iter()
            .map(|key| Step::Acquire {
                key,
                ty: x,
                dur: Duration::Statement,
                ctx: Ctx::Plain,
            })
            .collect())
    }

    pub(super) fn lt_apply(
        &mut self,
        s: usize,
        plan: &Plan,
        lt_deltas: &[(crate::mapping::RuleRow, crate::classify::Bind)],
    ) -> Result<Outcome, String> {
        let d = self.dialect.clone();
        let id = self.sessions[s].id;
        for (r, b) in lt_deltas {
            // What the statement adds first (REPAIR's X replaces the table's SNRW: an
            // upgrade, so a waiter on the table stays behind it), then what it gives
            // back: only the part's own table locks; the scoped and BACKUP locks stay
            // while a table is locked (they go with the last one, below).
            for l in &r.added {
                for k in keys(&d, &self.catalog, &l.ns, &l.key, b)? {
                    let _ =
                        self.table
                            .acquire(id, &k, l.ty, Duration::Explicit, WaitOption::NoWait);
                    self.sessions[s].session.lt_locks.push((k, l.ty));
                }
            }
            for l in r.removed.iter().filter(|l| l.ns == "TABLE") {
                for k in keys(&d, &self.catalog, &l.ns, &l.key, b)? {
                    let _ = self.table.release(id, &k, Some(l.ty));
                    self.sessions[s]
                        .session
                        .lt_locks
                        .retain(|(x, y)| !(*x == k && *y == l.ty));
                }
            }
        }
        if matches!(plan.kind, Kind::FlushTables | Kind::FlushTable) {
            // FLUSH TABLES [list] under LOCK TABLES takes every locked table's ticket
            // down to SNRW at its end (close_cached_tables, sql/sql_base.cc, after
            // reopen_tables: downgrade_lock(MDL_SHARED_NO_READ_WRITE) on each open table,
            // not only the flushed ones, which leaves shared ones as they are): the X an
            // earlier REPAIR or OPTIMIZE left (measured: found/seed-171569, FLUSH TABLES;
            // `lock-tables-x-behind-backup-lock.mdl`, FLUSH TABLE m1 after OPTIMIZE lets
            // a waiting BACKUP LOCK of m1 in).
            let x = LockType::parse("X").expect("X");
            let snrw = LockType::parse("SNRW").expect("SNRW");
            for i in 0..self.sessions[s].session.lt_locks.len() {
                let (k, t) = self.sessions[s].session.lt_locks[i].clone();
                if t == x {
                    let _ = self.table.downgrade(id, &k, snrw);
                    self.sessions[s].session.lt_locks[i].1 = snrw;
                }
            }
        }
        if matches!(
            plan.kind,
            Kind::Truncate
                | Kind::AlterCopy
                | Kind::AlterInplace
                | Kind::AlterInstant
                | Kind::CreateIndex
        ) {
            // TRUNCATE and ALTER under LOCK TABLES take X and go back down to SNRW at
            // their end (Sql_cmd_truncate_table::truncate_table's m_ticket_downgrade,
            // mysql_alter_table), even from the X an earlier REPAIR left (measured:
            // found/seed-11564).
            let x = LockType::parse("X").expect("X");
            let snrw = LockType::parse("SNRW").expect("SNRW");
            for p in plan.parts.iter().filter(|p| p.bind.t.is_some()) {
                for k in keys(&d, &self.catalog, "TABLE", "$t", &p.bind)? {
                    let lt = &mut self.sessions[s].session.lt_locks;
                    if let Some(e) = lt.iter_mut().find(|(y, ty)| *y == k && *ty == x) {
                        e.1 = snrw;
                        let _ = self.table.downgrade(id, &k, snrw);
                    }
                }
            }
        }
        if let Some(e) = self.catalog.error_of(&plan.effect) {
            return Ok(self.fail(s, e));
        }
        self.catalog.apply(&plan.effect);
        self.note_rows(plan);
        // (CREATE TEMPORARY TABLE ... LIKE / SELECT under LOCK TABLES: its table.)
        self.after_plan(s, plan.kind, &[]);
        if let Effect::DropTables { ts, .. } | Effect::DropSequences { ts, .. } = &plan.effect {
            self.sessions[s]
                .session
                .lock_tables
                .retain(|(t, _)| !ts.contains(t));
            if self.sessions[s].session.lock_tables.is_empty() {
                self.unlock_tables(s);
            }
        }
        // ANALYZE of a transactional table marks its transaction read-write
        // (handler::ha_analyze: mark_trx_read_write), and its end commits
        // (mysql_admin_table: trans_commit_stmt, trans_commit_implicit, which under
        // LOCK TABLES calls ha_commit_trans for the whole transaction,
        // sql/transaction.cc), so ha_commit_trans (sql/handler.cc) requests
        // BACKUP_COMMIT, which waits behind another session's FTWRL or BACKUP STAGE
        // BLOCK_COMMIT. Outside LOCK TABLES that request is the learned row's; here
        // the learned rule shows only what stays. Measured: found/seed-50018,
        // seed-51331, seed-51503.
        let commits = plan.parts.iter().find_map(|p| {
            p.bind
                .t
                .clone()
                .filter(|t| p.kind.is_analyze() && self.catalog.engine(t) == Some(Engine::InnoDb))
        });
        if let Some(t) = commits {
            let steps = self.commit_steps()?;
            return Ok(self.start_run(
                s,
                steps,
                Vec::new(),
                RunShape::PLAIN,
                None,
                Then::LtCommit(t),
            ));
        }
        Ok(Outcome::Ok)
    }

    /// LOCK TABLES ... WRITE of a MyISAM table also takes BACKUP_DML once the table is
    /// open (the learned `lock_write.myisam` row; InnoDB's `lock_write` takes none), by
    /// the engine of the table it opened: a RENAME it waited for may have put a table of
    /// the other engine under the name since the statement was classified (measured:
    /// found/seed-251009, LOCK TABLES t1 WRITE, t2 READ LOCAL after a RENAME moved MyISAM
    /// m1 to t1 holds BACKUP_DML). Called when the WRITE tables' group is granted; the
    /// protection is asked for first among the steps left (the tables are opened in
    /// statement order, so this is exact when the first table opened is the WRITE one).
    /// A statement with WRITE CONCURRENT tables, which take their own protection, is left
    /// as learned.
    pub(super) fn lt_write_engines(&mut self, s: usize) {
        let Some(run) = self.sessions[s].run.as_ref() else {
            return;
        };
        let Then::Plan(p) = &run.then else {
            return;
        };
        // Every entry of the list counts, aliased ones too (`p.parts`; `p.lock_tables` is
        // what plain names see): `LOCK TABLES m1 READ, m1 AS x WRITE` opens m1 for write
        // (measured: found/seed-420049).
        if !p.kind.is_lock_tables() || p.parts.iter().any(|x| x.kind == Kind::LockWriteConcurrent) {
            return;
        }
        let dml = LockType::parse("BACKUP_DML").expect("type");
        let myisam_write = p.parts.iter().any(|x| {
            x.kind == Kind::LockWrite
                && x.bind.t.as_ref().and_then(|t| self.catalog.engine(t)) == Some(Engine::MyIsam)
        });
        let is_dml = |st: &Step| {
            matches!(st, Step::Acquire { key, ty, .. }
                if *ty == dml && self.dialect.namespace(key.namespace()).name == "BACKUP")
        };
        let planned = run.steps.iter().any(is_dml);
        let backup = MdlKey::parse(&self.dialect, "BACKUP", "-").expect("BACKUP key");
        if myisam_write && !planned && !self.holds_type(s, &backup, dml) {
            let run = self.sessions[s].run.as_mut().expect("running");
            run.steps.push_front(Step::Acquire {
                key: backup,
                ty: dml,
                dur: Duration::Explicit,
                ctx: Ctx::Plain,
            });
        } else if !myisam_write && planned {
            let run = self.sessions[s].run.as_mut().expect("running");
            let rest: VecDeque<Step> = run.steps.drain(..).filter(|st| !is_dml(st)).collect();
            run.steps = rest;
        }
    }

    /// LOCK TABLES, once every table is open, moves its READ tables to SRO by the engine of
    /// the table it opened (InnoDB: SR to SRO; MyISAM keeps SR, its THR_LOCK does the
    /// rest; the learned `lock_read` and `lock_read.myisam` rows): a RENAME it waited for
    /// may have put a table of another engine under the name since the statement was
    /// classified (measured: found/seed-141174, LOCK TABLES m1 READ after a RENAME moved
    /// InnoDB t2 to m1 holds SRO on m1; found/seed-20484 (once a known limit of the model)
    /// the same with READ LOCAL). Changes the pending upgrades only when an engine changed.
    pub(super) fn lt_read_engines(&mut self, s: usize) {
        let Some(run) = self.sessions[s].run.as_ref() else {
            return;
        };
        let Then::Plan(p) = &run.then else {
            return;
        };
        let opening = run.steps.iter().any(|st| {
            matches!(
                st,
                Step::Acquire { .. } | Step::Bulk(_) | Step::Backoff { .. } | Step::Commit
            )
        });
        if !p.kind.is_lock_tables() || opening {
            return;
        }
        let sro = LockType::SRO;
        let changed = p.parts.iter().any(|part| {
            part.kind.is_lock_read()
                && part.bind.t.as_ref().is_some_and(|t| {
                    let was_myisam = part.row.ends_with(".myisam");
                    match self.catalog.engine(t) {
                        Some(Engine::InnoDb) => was_myisam,
                        Some(_) => !was_myisam,
                        None => false,
                    }
                })
        });
        if !changed {
            return;
        }
        let wanted: Vec<MdlKey> = p
            .lock_tables
            .iter()
            .filter(|(t, m)| *m == LtMode::Read && self.catalog.engine(t) == Some(Engine::InnoDb))
            .map(|(t, _)| self.handler_key(t))
            .filter(|k| !self.holds_type(s, k, sro))
            .collect();
        let is_sro = |st: &Step| {
            matches!(st, Step::Upgrade { key, ty, .. }
                if *ty == sro && self.dialect.namespace(key.namespace()).name == "TABLE")
        };
        let run = self.sessions[s].run.as_mut().expect("running");
        let mut rest: VecDeque<Step> = run.steps.drain(..).filter(|st| !is_sro(st)).collect();
        for k in wanted.into_iter().rev() {
            rest.push_front(Step::Upgrade {
                key: k,
                ty: sro,
                dur: Duration::Transaction,
                from: None,
            });
        }
        run.steps = rest;
    }
}
