//! The phases of DDL and of `open_table`: protection requests, a group's missing tables,
//! triggers bound again, the copy phase of ALTER, the context of a wait.

use super::{SqlModel, Then};
use crate::catalog::Engine;
use crate::classify::{LtMode, Tbl};
use crate::compose::{compose, Ctx, Step};
use crate::kind::{Kind, RowVariant};
use mdl_core::key::MdlKey;
use mdl_core::{LockType, Outcome};
use std::collections::VecDeque;

impl SqlModel {
    /// open_table's protection request is BACKUP_TRANS_DML for a transactional table and
    /// BACKUP_DML otherwise (`table->file->has_transactions()`), decided when the table is
    /// open: its engine now, not when the statement was classified (a RENAME may have
    /// put another table under the name meanwhile; measured: found/seed-1602).
    pub(super) fn protection_type(&self, s: usize, key: &MdlKey, ty: LockType) -> LockType {
        let (dml, trans) = (
            LockType::parse("BACKUP_DML").expect("type"),
            LockType::parse("BACKUP_TRANS_DML").expect("type"),
        );
        if self.dialect.namespace(key.namespace()).name != "BACKUP" || (ty != dml && ty != trans) {
            return ty;
        }
        // Whose protection it is: the `$t` of a part whose learned row takes it (LOCK
        // TABLES t2 READ, m1 WRITE: m1's, though t2 is opened after m1's group; measured:
        // found/seed-35-2.mdl); of several, the one opened right before it (DML: the
        // table's lock, then its protection).
        let Some(run) = self.sessions[s].run.as_ref() else {
            return ty;
        };
        let Then::Plan(plan) = &run.then else {
            return ty;
        };
        let owners: Vec<&Tbl> = plan
            .parts
            .iter()
            .filter(|p| {
                self.map.kind(&p.row).is_some_and(|r| {
                    r.ops
                        .iter()
                        .any(|o| o.ns == "BACKUP" && (o.ty == dml || o.ty == trans))
                })
            })
            .filter_map(|p| p.bind.t.as_ref())
            .collect();
        let last = run.last_open.as_ref().map(|k| Tbl {
            db: k.db().to_owned(),
            name: k.name().to_owned(),
        });
        let owner = match last {
            Some(l) if owners.contains(&&l) => Some(l),
            _ if owners.len() == 1 => Some(owners[0].clone()),
            _ => None,
        };
        match owner.and_then(|t| self.catalog.engine(&t)) {
            Some(Engine::InnoDb) => trans,
            Some(_) => dml,
            None => ty,
        }
    }

    /// LOCK TABLES once lock_table_names took its WRITE tables: open_tables opens the
    /// tables in statement order, so a missing WRITE table that comes before the first
    /// table opened with a lock of its own (READ, WRITE CONCURRENT) ends the statement
    /// with ER_NO_SUCH_TABLE before that table's lock is asked for (measured:
    /// found/seed-80028, LOCK TABLES t1 WRITE, m1 READ with t1 renamed away does not
    /// wait for m1).
    pub(super) fn group_missing(&mut self, s: usize) -> Option<Outcome> {
        let run = self.sessions[s].run.as_ref()?;
        let Then::Plan(p) = &run.then else {
            return None;
        };
        if !p.kind.is_lock_tables() {
            return None;
        }
        let missing = p
            .lock_tables
            .iter()
            .take_while(|(_, m)| *m == LtMode::Write)
            .any(|(t, _)| !self.catalog.exists(t));
        if !missing {
            return None;
        }
        self.sessions[s].session.last_error = Some(crate::catalog::ER_NO_SUCH_TABLE);
        Some(self.finish(s, Outcome::Error))
    }

    /// DROP TRIGGER once the trigger's X is granted: it looks for the trigger's table only
    /// now (mysql_create_or_drop_trigger, sql/sql_trigger.cc: the trigger's MDL first,
    /// then `add_table_for_trigger`), so a trigger another session created or dropped
    /// while this one waited for its X decides which table it locks, if any. The steps
    /// left are composed again for the table of now (measured: DROP TRIGGER IF EXISTS of
    /// a trigger a waiting CREATE TRIGGER then made asks for SNW on its table, behind a
    /// LOCK TABLES ... WRITE CONCURRENT, in 9 of 10 runs of
    /// known-differences/woken-race-251249.mdl; a race on the server).
    pub(super) fn trigger_rebind(&mut self, s: usize, step: &Step) {
        let Step::Acquire { key, .. } = step else {
            return;
        };
        if self.dialect.namespace(key.namespace()).name != "TRIGGER" {
            return;
        }
        let Some(run) = self.sessions[s].run.as_ref() else {
            return;
        };
        let Then::Plan(p) = &run.then else {
            return;
        };
        if p.kind != Kind::DropTrigger || p.parts.len() != 1 {
            return;
        }
        let Some(tr) = p.parts[0].bind.tr.clone() else {
            return;
        };
        let now = self.catalog.trigger_table(&tr);
        if now == p.parts[0].bind.t {
            return;
        }
        let mut plan = p.clone();
        plan.parts[0].bind.t = now.clone();
        plan.parts[0].row = match &now {
            Some(t)
                if self.catalog.engine(t) == Some(Engine::MyIsam)
                    && self
                        .map
                        .kind(Kind::DropTrigger.row_name(RowVariant::MyIsam))
                        .is_some() =>
            {
                Kind::DropTrigger.row_name(RowVariant::MyIsam).to_owned()
            }
            _ => Kind::DropTrigger.as_str().to_owned(),
        };
        let Ok(steps) = compose(&self.map, &self.dialect, &self.catalog, &plan) else {
            return;
        };
        // The trigger's X is held: the steps after it.
        let Some(at) = steps.iter().position(|x| {
            matches!(x, Step::Acquire { key: k, .. }
                if self.dialect.namespace(k.namespace()).name == "TRIGGER")
        }) else {
            return;
        };
        let rest: VecDeque<Step> = steps.into_iter().skip(at + 1).collect();
        let run = self.sessions[s].run.as_mut().expect("running");
        run.steps = rest;
        run.then = Then::Plan(plan);
    }

    /// CREATE/DROP TRIGGER once the trigger's X is granted: open_tables' mysql_ha_flush
    /// (the HANDLERs another session waits for are closed).
    pub(super) fn trigger_flush(&mut self, s: usize, step: &Step) {
        let Step::Acquire { key, .. } = step else {
            return;
        };
        let trigger = self.dialect.namespace(key.namespace()).name == "TRIGGER"
            && self.sessions[s].run.as_ref().is_some_and(|r| {
                matches!(&r.then, Then::Plan(p)
                    if p.kind.is_trigger_ddl())
                    && !self.nothing_to_drop_trigger(&r.then)
            });
        if trigger {
            self.ha_flush(s);
        }
    }

    /// The step is a copying ALTER's move up to SNW (after it created the new table), or
    /// an in-place ALTER's first move up to X (after mysql_alter_table prepared the new
    /// definition and asked the engine what it can do, sql/sql_table.cc, before
    /// mysql_inplace_alter_table; measured: found/seed-120340, a LOCK TABLES and an INSERT
    /// let in with CREATE INDEX are done before its X), or an instant ALTER's one move up
    /// to X (`mysql_inplace_alter_table`'s "Upgrade to EXCLUSIVE before commit",
    /// `wait_while_table_is_used`, after `mysql_alter_table` built the new definition,
    /// `fill_alter_inplace_info` and the engine's `prepare_inplace_alter_table`; measured:
    /// found/seed-481730, a LOCK TABLES let in by the ALTER's implicit commit takes its
    /// READ table's SRO before the ALTER's X), and the statement has not stood aside yet.
    pub(super) fn copy_phase(&self, s: usize, step: &Step) -> bool {
        let Step::Upgrade { key, ty, .. } = step else {
            return false;
        };
        let (snw, x, su) = (
            LockType::parse("SNW").expect("SNW"),
            LockType::parse("X").expect("X"),
            LockType::parse("SU").expect("SU"),
        );
        let ns = self.dialect.namespace(key.namespace()).name.as_str();
        // FLUSH TABLES WITH READ LOCK closes every table between its two locks
        // (lock_global_read_lock, then close_cached_tables, which waits for the tables
        // other statements have open, sql/sql_reload.cc reload_acl_and_cache, then
        // make_global_read_lock_block_commit): the statements let in with it end, and
        // commit, before it blocks commits (measured, in 22 of 23 runs:
        // known-differences/woken-race-151733.mdl, an ANALYZE let in with it commits,
        // with BACKUP_COMMIT, before its BACKUP_FTWRL2).
        if ns == "BACKUP" {
            return ty.abbrev() == "BACKUP_FTWRL2"
                && self.sessions[s].run.as_ref().is_some_and(|r| {
                    !r.stood_aside && matches!(&r.then, Then::Plan(p) if p.kind == Kind::Ftwrl)
                });
        }
        ns == "TABLE"
            && self.sessions[s].run.as_ref().is_some_and(|r| {
                !r.stood_aside
                    && match &r.then {
                        Then::Plan(p) if p.kind == Kind::AlterCopy => *ty == snw,
                        Then::Plan(p) if p.kind == Kind::AlterInstant => *ty == x,
                        // (The first X: the move down to SU for the rebuild follows.)
                        Then::Plan(p) if p.kind.is_inplace_alter() => {
                            *ty == x
                                && r.steps.iter().any(|st| {
                                    matches!(st, Step::Upgrade { key: k, ty: t, .. }
                                        if k == key && *t == su)
                                })
                        }
                        _ => false,
                    }
            })
    }

    /// The step is an in-place ALTER's move down to SU before the engine's rebuild (the
    /// learned `upgrade ... SU` after its first X, written from mysql_inplace_alter_table).
    pub(super) fn rebuild_step(&self, s: usize, step: &Step) -> bool {
        let Step::Upgrade { key, ty, .. } = step else {
            return false;
        };
        *ty == LockType::parse("SU").expect("SU")
            && self.dialect.namespace(key.namespace()).name == "TABLE"
            && self.sessions[s].run.as_ref().is_some_and(|r| {
                matches!(&r.then, Then::Plan(p)
                    if p.kind.is_inplace_alter())
            })
    }

    pub(super) fn set_last_open(&mut self, s: usize, step: &Step) {
        let k = match step {
            Step::Acquire {
                key,
                ctx: Ctx::OpenTable,
                ..
            } => Some(key.clone()),
            _ => None,
        };
        if let Some(r) = self.sessions[s].run.as_mut() {
            r.last_open = k;
        }
    }

    /// `open_table`: right after its lock, a table that does not exist ends the
    /// statement with ER_NO_SUCH_TABLE (before its BACKUP lock and the read-only
    /// protection check).
    pub(super) fn opened_missing(&mut self, s: usize, step: &Step) -> Option<Outcome> {
        let Step::Acquire {
            key,
            ctx: Ctx::OpenTable,
            ..
        } = step
        else {
            return None;
        };
        if self.dialect.namespace(key.namespace()).name != "TABLE" {
            return None;
        }
        let t = Tbl {
            db: key.db().to_owned(),
            name: key.name().to_owned(),
        };
        // (A Sequence engine table is discovered by its name: `classify/sequence_engine.rs`.)
        // (A system schema's table is the server's: `classify/system_tables.rs` kept only
        // those it has.)
        if self.catalog.exists(&t)
            || crate::classify::is_engine_table(&t.name)
            || crate::classify::is_system_schema(&t.db)
        {
            return None;
        }
        // (A sequence's own error: `model/sequence.rs`.)
        let code = self.missing_code(s, &t)?;
        self.sessions[s].session.last_error = Some(code);
        Some(self.finish(s, Outcome::Error))
    }

    /// How a deadlock that picks `s` as the victim during `step` ends.
    pub(super) fn ctx_of(&self, s: usize, step: &Step) -> Ctx {
        match step {
            Step::Acquire { ctx, .. } => *ctx,
            // LOCK TABLES ... READ's move from SR to SRO is not given up when its session
            // is the victim: it waits again, heavier by the victim's overweight
            // (m_deadlock_overweight), so that the other waiter of the cycle is the victim
            // next. Measured: found/seed-328.mdl, seed-745.mdl (a DML statement waiting for
            // the BACKUP lock behind the session's FTWRL is the victim and retries), while
            // FLUSH TABLES t1 WITH READ LOCK, at the same place, is the victim itself
            // (found/seed-1794.mdl; ties go to the session that began the search:
            // Deadlock_detection_visitor::opt_change_victim_to, sql/mdl.cc).
            // A session that held no lock before the statement backs off and opens its
            // tables again instead (OT_BACKOFF_AND_RETRY, Open_table_context in
            // sql/sql_base.cc; measured: found/seed-90532, LOCK TABLES t2 READ, t1 WRITE
            // CONCURRENT gives way to the RENAME of t2 it deadlocked with, then finds no
            // t2).
            Step::Upgrade { ty, .. }
                if *ty == LockType::SRO
                    && self.sessions[s].run.as_ref().is_some_and(
                        |r| matches!(&r.then, Then::Plan(p) if p.kind.is_lock_tables()),
                    ) =>
            {
                if self.sessions[s].run.as_ref().is_some_and(|r| r.had_locks) {
                    Ctx::Retry
                } else {
                    Ctx::OpenTable
                }
            }
            // BACKUP STAGE BLOCK_DDL's wait for the running DDL (`backup_block_ddl`).
            Step::Upgrade { ty, .. }
                if *ty == LockType::parse("BACKUP_WAIT_DDL").expect("a backup lock type")
                    && self.sessions[s].run.as_ref().is_some_and(
                        |r| matches!(&r.then, Then::Plan(p) if p.kind.is_backup_block()),
                    ) =>
            {
                Ctx::BlockDdl
            }
            _ => Ctx::Plain,
        }
    }
}
