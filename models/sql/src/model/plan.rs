//! A statement of the learned table ([`crate::classify::Plan`]): the implicit commit, the
//! session rules, the error that comes first, and the steps it requests.

use super::run::RunShape;
use super::SqlSession;
use super::{
    handlers::{closes_handler, handler_open_new_alias, handler_tables},
    lock_tables::lock_table_names,
    SqlModel, Then, ER_NONUNIQ_TABLE,
};
use crate::catalog::Engine;
use crate::classify::{AlterCols, Bind, Effect, LtMode, Part, Plan, SetTarget, Tbl};
use crate::compose::{compose, Ctx, Step};
use crate::kind::{Kind, RowVariant};
use crate::mapping::RuleRow;
use mdl_core::key::MdlKey;
use mdl_core::{Duration, LockType, Outcome};
use std::ops::ControlFlow;

/// ER_CANT_UPDATE_WITH_READLOCK, ER_BACKUP_LOCK_IS_ACTIVE: `THD::has_read_only_protection`.
pub(super) const READ_ONLY_PROTECTION: &[u32] = &[1223, 4145];

/// ER_TABLE_NOT_LOCKED, ER_TABLE_NOT_LOCKED_FOR_WRITE.
pub(super) const ER_TABLE_NOT_LOCKED: u32 = 1100;

pub(super) const ER_TABLE_NOT_LOCKED_FOR_WRITE: u32 = 1099;

/// The statements whose read-only protection is checked inside `open_table` (DML), or
/// after the locks taken before `lock_table_names` (CREATE/DROP TRIGGER's X). The others
/// (LOCK TABLES, DDL, FTWRL, BACKUP STAGE) are refused before they lock anything.
pub(super) const DEFERRED_PROTECTION: &[Kind] = &[
    Kind::Insert,
    // LOAD DATA opens its table with open_and_lock_tables too (mysql_load, sql_load.cc):
    // measured, found/seed-350029 (it waits for the table under its own BACKUP STAGE),
    // found/seed-360510 (ER_NO_SUCH_TABLE first).
    Kind::LoadData,
    Kind::Update,
    Kind::Delete,
    Kind::SelectForUpdate,
    Kind::CreateTrigger,
    Kind::DropTrigger,
];

/// The code the harness learns for an admin statement's result row that reports an error
/// without a number it reads (OPTIMIZE / REPAIR under FTWRL or a BACKUP STAGE).
const ER_ADMIN_ROW: u32 = 1;

/// What the session rules ask of a statement's plan, computed once per statement.
#[derive(Clone, Copy, Debug)]
struct Shape {
    /// Some part names a table or a view (it opens tables: LOCK TABLES' rules apply).
    opens_tables: bool,
    /// The statement is LOCK TABLES itself.
    is_lock: bool,
}

impl Shape {
    fn of(plan: &Plan) -> Shape {
        Shape {
            opens_tables: plan
                .parts
                .iter()
                .any(|p| p.bind.t.is_some() || p.bind.v.is_some()),
            is_lock: plan.kind.is_lock_tables(),
        }
    }
}

impl SqlModel {
    /// The session rule of `part` in state `state`: the learned row of its engine
    /// variant, or of the kind.
    pub(super) fn rule(
        &self,
        state: &str,
        row: &str,
        kind: Kind,
    ) -> Result<&crate::mapping::RuleRow, String> {
        self.map
            .rule(state, row)
            .or_else(|| self.map.rule(state, kind.as_str()))
            .or_else(|| {
                kind.rules_of()
                    .and_then(|k| self.map.rule(state, k.as_str()))
            })
            .ok_or_else(|| {
                format!(
                    "no session rule learned for `{kind}` in state `{state}` (mdl conform --learn)"
                )
            })
    }

    /// A statement of the learned table: the checks before the session rules, the
    /// implicit commit, the session rules and the HANDLERs they close, the error that
    /// comes first, then its steps (under the session's own LOCK TABLES: the learned
    /// change of its locks).
    pub(super) fn run_plan(&mut self, s: usize, plan: Plan) -> Result<Outcome, String> {
        let shape = Shape::of(&plan);
        let Shape {
            opens_tables,
            is_lock,
        } = shape;
        if let Some(out) = self.refused_before_rules(s, &plan, shape)? {
            return Ok(out);
        }
        if let Some(out) = self.read_only_refused(s, &plan) {
            return Ok(out);
        }
        let commit_deferred = self.commit_first(s, &plan)?;
        let Some(verdict) = self.session_rules(s, &plan, shape)? else {
            // lock_global_read_lock: a session that has the lock does nothing.
            return Ok(Outcome::Ok);
        };
        let Verdict {
            close_handlers,
            lt_deltas,
            errors,
        } = verdict;
        self.close_handlers_first(s, &plan, close_handlers, &errors);
        let deferred = match self.first_error(s, &plan, &errors, commit_deferred, shape)? {
            ControlFlow::Break(out) => return Ok(out),
            ControlFlow::Continue(deferred) => deferred,
        };
        if matches!(plan.kind, Kind::BackupBlockDdl | Kind::BackupBlockCommit) {
            // BACKUP STAGE BLOCK_DDL (and BLOCK_COMMIT, which passes through it) closes the
            // session's own HANDLERs, keeping them: backup_block_ddl in sql/backup.cc
            // calls mysql_ha_cleanup_no_free first (measured: found/seed-41901,
            // seed-70348; BACKUP STAGE FLUSH keeps them, seed-41480).
            self.ha_close_no_free(s);
        }
        if plan.kind == Kind::FlushTables && self.sessions[s].session.under_lock_tables() {
            return self.flush_tables_under_lock_tables(s, plan);
        }
        if self.sessions[s].session.under_lock_tables()
            && !is_lock
            && opens_tables
            && deferred.is_none()
        {
            return self.under_own_lock_tables(s, plan, lt_deltas);
        }
        let d = self.dialect.clone();
        let row = self
            .map
            .kind(&plan.parts[0].row)
            .ok_or_else(|| self.map.missing_kind(&plan.parts[0].row))?;
        let implicit_commit = row.implicit_commit;
        let trigger_missing = matches!(&plan.effect,
            Effect::DropTrigger { tr, .. } if self.catalog.trigger_table(tr).is_none());
        let own = if trigger_missing {
            // Only the trigger's X (the table is not known): see below.
            let n = d.namespace_by_name("TRIGGER").expect("TRIGGER");
            let tr = plan.parts[0].bind.tr.clone().expect("a trigger");
            vec![Step::Acquire {
                key: MdlKey::new(n, &tr.db, &tr.name),
                ty: LockType::parse("X").expect("X"),
                dur: Duration::Statement,
                ctx: Ctx::Plain,
            }]
        } else if plan.kind == Kind::SetGlobalReadOnly {
            self.read_only_steps(s, &plan)?
        } else {
            compose(&self.map, &self.dialect, &self.catalog, &plan)?
        };
        let mut pre = Vec::new();
        if implicit_commit {
            if is_lock || plan.kind == Kind::FtwrlTable {
                // LOCK TABLES ends the session's earlier LOCK TABLES first (the sessions
                // that lets in do not go first: measured, found/seed-1753).
                self.unlock_tables(s);
            }
            if self.sessions[s].session.wrote {
                pre = self.commit_steps()?;
            }
            if !cfg!(mdl_bug = "conform_skip_implicit_commit") {
                pre.push(Step::Commit);
            }
        }
        let writes = plan
            .parts
            .iter()
            .any(|p| p.kind.is_plain_write() && !p.row.ends_with(".myisam"));
        let timeout = if plan.kind == Kind::GetLock {
            plan.user_lock_timeout
                .and_then(|ms| (ms != u64::MAX).then_some(ms))
        } else {
            plan.wait
                .or(self.sessions[s].session.lock_wait_timeout)
                .map(|secs| secs.saturating_mul(1000))
        };
        let mut own = own;
        self.keep_x_on_empty_tables(&plan, &mut own);
        let st = &self.sessions[s].session;
        if writes && !implicit_commit && st.autocommit && !st.in_txn {
            // The statement's own commit (autocommit) requests BACKUP_COMMIT while the
            // statement still holds its locks (ha_commit_trans before
            // release_statement_locks).
            own.extend(self.commit_steps()?);
        }
        if is_lock || plan.kind == Kind::FtwrlTable {
            for_the_transaction(&mut own);
        }
        self.cut_at_errors(&plan, &mut own, deferred, trigger_missing);
        if plan.kind.is_backup_stage() && plan.kind != Kind::BackupEnd {
            own = self.backup_stages(s, plan.kind, own);
        }
        let mut steps = pre;
        steps.extend(own.iter().cloned());
        Ok(self.start_run(
            s,
            steps,
            own,
            RunShape {
                implicit_commit,
                writes,
            },
            timeout,
            Then::Plan(Box::new(plan)),
        ))
    }

    /// The refusals that come before the session rules and change nothing: a HANDLER
    /// OPEN of an alias the session has, a table named through an alias under LOCK
    /// TABLES (not modelled).
    fn refused_before_rules(
        &mut self,
        s: usize,
        plan: &Plan,
        shape: Shape,
    ) -> Result<Option<Outcome>, String> {
        let Shape {
            opens_tables,
            is_lock,
        } = shape;
        if plan.kind == Kind::HandlerOpen {
            if let Some(t) = &plan.parts[0].bind.t {
                let name = plan.parts[0].bind.alias.as_ref().unwrap_or(&t.name);
                if self.sessions[s]
                    .session
                    .handlers
                    .iter()
                    .any(|h| h.alias == *name)
                    && !self.sessions[s].session.under_lock_tables()
                {
                    // Not unique table/alias (mysql_ha_open, after it refuses LOCK TABLES:
                    // measured, found/seed-41173).
                    return Ok(Some(self.fail(s, ER_NONUNIQ_TABLE)));
                }
            }
        }
        if let Some(a) = plan
            .aliased
            .as_ref()
            .filter(|_| self.sessions[s].session.under_lock_tables() && !is_lock && opens_tables)
        {
            // (Checked before anything changes: a refused statement changes nothing.)
            return Err(format!(
                "a table named through an alias (`{a}`) under the session's own LOCK TABLES \
                 is not in the model (open_table matches a locked table by its alias): name \
                 the table itself"
            ));
        }
        Ok(None)
    }

    /// The implicit commit of a statement that commits (before its session rules); true
    /// when it is deferred: the transaction wrote and its BACKUP_COMMIT would wait.
    fn commit_first(&mut self, s: usize, plan: &Plan) -> Result<bool, String> {
        let id = self.sessions[s].id;
        let row0 = self
            .map
            .kind(&plan.parts[0].row)
            .ok_or_else(|| self.map.missing_kind(&plan.parts[0].row))?;
        // The implicit commit of a transaction that wrote, when its BACKUP_COMMIT would
        // wait: it is played as steps below, before the statement's own (and before the
        // error of a session rule: mysql_execute_command commits, trans_commit_implicit,
        // before it runs the statement, which raises it; measured: found/seed-51620,
        // BACKUP STAGE END with no backup waits there rather than answering
        // ER_BACKUP_WRONG_STAGE).
        let commit_deferred = row0.implicit_commit
            && self.sessions[s].session.in_txn
            && !cfg!(mdl_bug = "conform_skip_implicit_commit")
            && self.sessions[s].session.wrote
            && self.commit_would_wait(s)?;
        if row0.implicit_commit
            && self.sessions[s].session.in_txn
            && !cfg!(mdl_bug = "conform_skip_implicit_commit")
            && !commit_deferred
        {
            // (A transaction that wrote requests BACKUP_COMMIT at this commit; taken as
            // granted here: the statement's own requests below wait if the backup blocks.)
            self.sessions[s].session.wrote = false;
            // A statement that commits implicitly commits before it runs
            // (mysql_execute_command: trans_commit_implicit, then the statement), so
            // even one the session rules refuse ends the transaction. (A transaction that
            // wrote commits below, where its BACKUP_COMMIT can wait.)
            let _ = self.table.commit(id);
            self.sessions[s].session.in_txn = false;
        }
        Ok(commit_deferred)
    }

    /// The session rules of each part of the statement in each state the session is in
    /// (its LOCK TABLES, FTWRL, BACKUP STAGE, BACKUP LOCK, HANDLERs): the errors, the
    /// HANDLERs closed, the learned changes under LOCK TABLES. `None`: FTWRL of a
    /// session that has the global read lock, which does nothing.
    fn session_rules(
        &self,
        s: usize,
        plan: &Plan,
        shape: Shape,
    ) -> Result<Option<Verdict>, String> {
        let Shape {
            opens_tables,
            is_lock,
        } = shape;
        let mut close_handlers: Vec<Option<Tbl>> = Vec::new();
        let mut lt_deltas = Vec::new();
        let mut errors: Vec<u32> = Vec::new();
        let st = &self.sessions[s].session;
        for p in &plan.parts {
            // DROP TABLE under LOCK TABLES passes over the tables that do not exist
            // (they give ER_BAD_TABLE at the end).
            // DROP TRIGGER of no trigger answers before any session rule (measured:
            // ok under the session's own LOCK TABLES and FTWRL).
            if p.kind == Kind::DropTrigger
                && p.bind
                    .tr
                    .as_ref()
                    .is_some_and(|tr| self.catalog.trigger_table(tr).is_none())
            {
                continue;
            }
            let Some(mut states) = self.states_of(s, plan, p) else {
                return Ok(None);
            };
            let on_handler = on_open_handler(st, p);
            // A HANDLER the session closed and kept (`mysql_ha_flush`, FTWRL's
            // `mysql_ha_cleanup_no_free`) is forgotten by the statements that close an
            // open one: `mysql_ha_rm_tables` (sql/sql_handler.cc) removes the session's
            // HANDLERs on the tables by name, open or not. Measured: found/seed-200108,
            // TRUNCATE TABLE m1 after another statement's start closed m1's HANDLER
            // for a waiting RENAME; HANDLER m1 OPEN is then no duplicate (E1066).
            let on_closed = !on_handler
                && st.handlers.iter().any(|h| {
                    !h.open
                        && (p.bind.t.as_ref() == Some(&h.table)
                            || p.bind.n.as_ref() == Some(&h.table))
                });
            if on_closed
                && self
                    .map
                    .rule("handler", &p.row)
                    .is_some_and(|r| r.error.is_none() && closes_handler(r))
            {
                close_handlers.extend(handler_tables(p));
            }
            if cfg!(mdl_bug = "conform_no_session_rules") {
                states.clear();
            }
            for stn in states {
                // A multi-table UPDATE's table it only reads is checked as read under
                // the session's LOCK TABLES (classify::SetTarget).
                let (row, kind) = match p.set_target {
                    SetTarget::No if stn == "lt_read" => {
                        let myisam = p.row.ends_with(".myisam");
                        let variant = if myisam {
                            RowVariant::MyIsam
                        } else {
                            RowVariant::Base
                        };
                        (Kind::Select.row_name(variant), Kind::Select)
                    }
                    SetTarget::Unknown if stn == "lt_read" => {
                        return Err(format!(
                            "a multi-table UPDATE under LOCK TABLES ... READ of one of its \
                             tables with a SET column not qualified by its table (which \
                             tables it writes is not known without their columns): \
                             write `{}`.column",
                            p.bind
                                .t
                                .as_ref()
                                .map(|t| t.name.as_str())
                                .unwrap_or("table")
                        ))
                    }
                    _ => (p.row.as_str(), p.kind),
                };
                let r = self.rule(&stn, row, kind)?;
                if let Some(code) = r.error {
                    if stn == "handler" && super::nopart_ha::nopart_own_error(p, code) {
                        close_handlers.extend(handler_tables(p));
                        continue;
                    }
                    errors.push(code);
                    continue;
                }
                if stn == "handler" && closes_handler(r) {
                    close_handlers.extend(handler_tables(p));
                }
                if stn.starts_with("lt_") && !is_lock && opens_tables {
                    lt_deltas.push((r.clone(), p.bind.clone()));
                }
            }
        }
        Ok(Some(Verdict {
            close_handlers,
            lt_deltas,
            errors,
        }))
    }

    /// The states whose learned rules apply to `p`, in the order the server checks
    /// them. `None`: FTWRL of a session that has the global read lock.
    fn states_of(&self, s: usize, plan: &Plan, p: &Part) -> Option<Vec<String>> {
        let st = &self.sessions[s].session;
        let mut states: Vec<String> = Vec::new();
        if st.under_lock_tables() {
            let mode = match &p.bind.t {
                Some(t) => self.lt_mode_by_name(
                    s,
                    p,
                    st.lock_tables.iter().find(|(x, _)| x == t).map(|(_, m)| *m),
                ),
                // FLUSH TABLES needs an upgradable lock of every locked table
                // (reload_acl_and_cache; `lt_name_mode.rs`).
                None if plan.kind == Kind::FlushTables => Some(self.lt_mode_of_flush(s)),
                // Another statement that names no table (FTWRL, BACKUP STAGE,
                // GET_LOCK) is judged by the locks in force: any READ one counts.
                None if st.lock_tables.iter().any(|(_, m)| *m == LtMode::Read) => {
                    Some(LtMode::Read)
                }
                None if st
                    .lock_tables
                    .iter()
                    .any(|(_, m)| *m == LtMode::WriteConcurrent) =>
                {
                    Some(LtMode::WriteConcurrent)
                }
                None => Some(LtMode::Write),
            };
            states.push(
                match mode {
                    Some(LtMode::Read) => "lt_read",
                    Some(LtMode::Write) => "lt_write",
                    Some(LtMode::WriteConcurrent) => "lt_write_concurrent",
                    None => "lt_other",
                }
                .into(),
            );
        }
        if st.ftwrl.is_some() {
            if plan.kind == Kind::Ftwrl && st.under_lock_tables() {
                // reload_acl_and_cache refuses LOCK TABLES first (the rule of the
                // LOCK TABLES state: ER_LOCK_OR_ACTIVE_TRANSACTION; measured:
                // found/seed-11207).
            } else if plan.kind == Kind::Ftwrl {
                // lock_global_read_lock: a session that has the lock does nothing.
                return None;
            } else if p.kind.is_backup_stage() {
                // BACKUP STAGE looks at the global read lock before LOCK TABLES
                // (measured: found/seed-356 of the 2000-scenario run).
                states.insert(0, "ftwrl".into());
            } else {
                states.push("ftwrl".into());
            }
        }
        if let Some((b, _, _)) = &st.backup {
            states.push(format!("bs_{}", b.as_str().trim_start_matches("backup_")));
        } else if p.kind.is_later_backup_stage() {
            // A later stage with no backup running.
            states.push("idle".into());
        }
        if st.backup_lock.is_some() {
            // The session's BACKUP LOCK (thd->mdl_backup_lock): its learned rules,
            // - after those of its BACKUP STAGE (ER_BACKUP_LOCK_IS_ACTIVE first;
            //   measured: found/seed-181999);
            // - for LOCK TABLES, before the global read lock's
            //   (mysql_execute_command, SQLCOM_LOCK_TABLES: ER_LOCK_OR_ACTIVE_TRANSACTION
            //   for thd->mdl_backup_lock before lock_tables_open_and_lock_tables
            //   meets FTWRL; measured: found/seed-180461, seed-181401);
            // - not for the later BACKUP stages while a stage runs: they were learned
            //   with no backup running (E4146), so the stage's own state decides
            //   (measured: found/seed-191959, BACKUP STAGE END).
            let later_stage = p.kind.is_later_backup_stage();
            let ftwrl_at = states.iter().position(|x| x == "ftwrl");
            if later_stage && st.backup.is_some() {
                // the stage's state decides
            } else if let (Some(i), true) = (ftwrl_at, p.kind.is_lock_tables()) {
                states.insert(i, "backup_lock".into());
            } else {
                states.push("backup_lock".into());
            }
        }
        let on_handler = on_open_handler(st, p);
        // (The learned `handler` rules of the later BACKUP stages are those of a
        // session with no backup running, E4146: the stage's own state decides.
        // Measured: found/seed-41480, seed-41609.)
        if on_handler && !p.kind.is_later_backup_stage() {
            states.push("handler".into());
        }
        Some(states)
    }

    /// The HANDLERs the statement closes, closed before its own checks.
    fn close_handlers_first(
        &mut self,
        s: usize,
        plan: &Plan,
        mut close_handlers: Vec<Option<Tbl>>,
        errors: &[u32],
    ) {
        close_handlers.extend(self.temp_ha_close(s, plan));
        close_handlers.extend(self.nopart_ha_close(s, plan));
        // A statement made of other kinds' rows (CREATE TABLE ... SELECT) has its own
        // learned rule too: the HANDLERs it closes on the tables it reads.
        if !plan.parts.iter().any(|p| p.kind == plan.kind)
            && self.sessions[s].session.handlers.iter().any(|h| h.open)
        {
            if let Some(r) = self.map.rule("handler", plan.kind.as_str()) {
                if r.removed
                    .iter()
                    .any(|l| l.ns == "TABLE" && l.key == "$t" && l.ty.abbrev() == "SR")
                {
                    for p in &plan.parts {
                        if p.bind.t.is_some() {
                            close_handlers.push(p.bind.t.clone());
                        }
                    }
                }
            }
        }
        // CREATE TABLE closes the session's HANDLERs on its name, even when the table
        // exists and IF NOT EXISTS makes it do nothing (mysql_ha_rm_tables in
        // Sql_cmd_create_table_like::execute, MariaDB sql/sql_table.cc; MySQL 5.5:
        // sql_parse.cc, SQLCOM_CREATE_TABLE). Measured:
        // suite/handler-closed-by-rename-and-create.mdl.
        if let Effect::CreateTable { t, .. } = plan.effect.inner() {
            close_handlers.push(Some(t.clone()));
        }
        // HANDLERs a statement closes are closed before its own checks (mysql_ha_rm_tables
        // comes first; measured: a CREATE TRIGGER refused under LOCK TABLES still closes
        // the HANDLER on its table).
        // (FTWRL checks the session's backup stage before it closes its HANDLERs:
        // Global_read_lock::lock_global_read_lock; measured: found/seed-950.)
        // (RENAME refuses LOCK TABLES before it closes them: mysql_rename_tables;
        // measured: found/seed-10963.)
        let refused_first = matches!(plan.kind, Kind::Ftwrl | Kind::FlushTable)
            || (plan.kind == Kind::Rename
                && errors.contains(&crate::catalog::ER_LOCK_OR_ACTIVE_TRANSACTION));
        if errors.is_empty() || !refused_first {
            for t in std::mem::take(&mut close_handlers) {
                if matches!(plan.kind, Kind::Ftwrl | Kind::SetGlobalReadOnly) && t.is_none() {
                    // FTWRL closes the session's HANDLERs but keeps them
                    // (Global_read_lock::lock_global_read_lock, sql/lock.cc:
                    // mysql_ha_cleanup_no_free): a later HANDLER ... READ opens the table
                    // again. Measured: found/seed-51438.
                    self.ha_close_no_free(s);
                } else if let (true, Some(t)) = (plan.kind == Kind::FlushTable, t.as_ref()) {
                    // FLUSH TABLE t1 closes the session's HANDLERs of its tables and keeps
                    // them (close_cached_tables, sql/sql_base.cc: mysql_ha_flush_tables;
                    // outside LOCK TABLES mysql_ha_flush at the next statement): the
                    // next HANDLER ... READ opens the table again. Measured:
                    // suite/handler-kept-by-flush.mdl.
                    self.ha_close_keep_on(s, t);
                } else {
                    self.close_handlers_on(s, t.as_ref());
                }
            }
        }
    }

    /// OPTIMIZE TABLE of one table the catalog does not have.
    fn optimizes_a_missing_table(&self, plan: &Plan) -> bool {
        plan.kind == Kind::Optimize
            && plan.parts.len() == 1
            && plan.parts[0]
                .bind
                .t
                .as_ref()
                .is_some_and(|t| !self.catalog.exists(t))
    }

    /// The error of the session rules that comes first: the statement fails now
    /// (`Break`), or later, inside `open_table` (`Continue(Some(code))`), or goes on.
    fn first_error(
        &mut self,
        s: usize,
        plan: &Plan,
        errors: &[u32],
        commit_deferred: bool,
        shape: Shape,
    ) -> Result<ControlFlow<Outcome, Option<u32>>, String> {
        let is_lock = shape.is_lock;
        let mut deferred: Option<u32> = None;
        if !errors.is_empty() {
            // Under LOCK TABLES a table that is not locked is found while the tables are
            // opened (ER_TABLE_NOT_LOCKED), before one locked READ is found written
            // (ER_TABLE_NOT_LOCKED_FOR_WRITE, when they are locked): that error first.
            // (DDL under LOCK TABLES looks at its tables one by one: the first error.)
            let code = if lock_table_names(&self.map, plan) {
                errors[0]
            } else if let Some(c) = errors
                .iter()
                .copied()
                .find(|c| plan.kind.is_analyze() && READ_ONLY_PROTECTION.contains(c))
            {
                // ANALYZE TABLE checks the read-only protection before it opens anything
                // (Sql_cmd_analyze_table::execute: thd->has_read_only_protection(); measured:
                // found/seed-10719, ER_CANT_UPDATE_WITH_READLOCK before ER_TABLE_NOT_LOCKED).
                c
            } else {
                errors
                    .iter()
                    .copied()
                    .find(|c| *c == 1100)
                    .unwrap_or(errors[0])
            };
            // (LOCK TABLES checks the session's BACKUP STAGE first, in
            // mysql_execute_command; its own FTWRL only when open_table opens a table for
            // writing: measured, found/seed-1127 and seed-155.)
            // (CREATE/DROP TRIGGER take the trigger's X before they look at LOCK TABLES
            // too: mysql_create_or_drop_trigger, then find_table_for_mdl_upgrade;
            // measured: found/seed-31117, a deadlock on the trigger's X rather than
            // ER_TABLE_NOT_LOCKED.)
            if code == ER_ADMIN_ROW && self.optimizes_a_missing_table(plan) {
                // OPTIMIZE of a table that does not exist: its open fails first
                // (ER_NO_SUCH_TABLE in its result row, mysql_admin_table), whatever FTWRL
                // or a BACKUP STAGE answers for a table that exists (measured:
                // found/seed-481773, under FTWRL, BACKUP STAGE START and FLUSH).
                return Ok(ControlFlow::Break(
                    self.fail(s, crate::catalog::ER_NO_SUCH_TABLE),
                ));
            }
            let trigger_lt = plan.kind.is_trigger_ddl()
                && [ER_TABLE_NOT_LOCKED, ER_TABLE_NOT_LOCKED_FOR_WRITE].contains(&code);
            if trigger_lt
                || (READ_ONLY_PROTECTION.contains(&code)
                    && (DEFERRED_PROTECTION.contains(&plan.kind)
                        || super::sequence::writes_sequence(plan)
                        || (code == 1223 && is_lock)))
            {
                // open_table checks the read-only protection right before the BACKUP lock
                // of the first table it opens for writing: the tables before it are
                // locked (and may be waited for) first; lock_table_names checks it before
                // its group, after the locks taken before (CREATE/DROP TRIGGER's X).
                deferred = Some(code);
            } else if commit_deferred {
                // The implicit commit comes first and waits for BACKUP_COMMIT; the error
                // after it.
                let mut steps = self.commit_steps()?;
                steps.push(Step::Commit);
                steps.push(Step::Fail(code));
                return Ok(ControlFlow::Break(self.start_run(
                    s,
                    steps,
                    Vec::new(),
                    RunShape {
                        implicit_commit: true,
                        writes: false,
                    },
                    None,
                    Then::Commit,
                )));
            } else {
                return Ok(ControlFlow::Break(self.fail(s, code)));
            }
        }

        Ok(ControlFlow::Continue(deferred))
    }

    /// FLUSH TABLES under the session's own LOCK TABLES.
    fn flush_tables_under_lock_tables(&mut self, s: usize, plan: Plan) -> Result<Outcome, String> {
        // FLUSH TABLES under LOCK TABLES, once it passed the session rules, reopens the
        // locked tables and closes the session's HANDLERs on them (measured:
        // found/seed-1433; found/seed-11266: a HANDLER on another table stays, and
        // one refused with ER_TABLE_NOT_LOCKED_FOR_WRITE closes none). It keeps them
        // (close_cached_tables, sql/sql_base.cc: mysql_ha_flush_tables; measured:
        // suite/handler-closed-by-admin-under-lock-tables.mdl, FLUSH TABLE t1).
        let locked: Vec<Tbl> = self.sessions[s]
            .session
            .lock_tables
            .iter()
            .map(|(t, _)| t.clone())
            .collect();
        for t in locked {
            self.ha_close_keep_on(s, &t);
        }
        // Then X on each locked table, and every one back down to SNRW (`lt_x_waits`,
        // `lt_apply`).
        let steps = self.lt_x_waits(s, &plan)?;
        if steps.is_empty() {
            return self.lt_apply(s, &plan, &[]);
        }
        Ok(self.start_run(
            s,
            steps,
            Vec::new(),
            RunShape::PLAIN,
            plan.wait.map(|secs| secs.saturating_mul(1000)),
            Then::LtRest(Box::new(plan), Vec::new()),
        ))
    }

    /// Under LOCK TABLES a statement on locked tables uses their locks: the learned
    /// change, no wait. CREATE/DROP TRIGGER take the trigger's X first, which may
    /// wait (mysql_create_or_drop_trigger, sql/sql_trigger.cc: the trigger's MDL before
    /// the table's; measured: found/seed-50940, a deadlock with another session's
    /// CREATE TRIGGER that holds it and waits for a table this session locked).
    fn under_own_lock_tables(
        &mut self,
        s: usize,
        plan: Plan,
        lt_deltas: Vec<(RuleRow, Bind)>,
    ) -> Result<Outcome, String> {
        let d = self.dialect.clone();
        let mut steps = Vec::new();
        if plan.kind.is_trigger_ddl() {
            if let Some(tr) = plan.parts[0].bind.tr.clone() {
                let n = d.namespace_by_name("TRIGGER").expect("TRIGGER");
                steps.push(Step::Acquire {
                    key: MdlKey::new(n, &tr.db, &tr.name),
                    ty: LockType::parse("X").expect("X"),
                    dur: Duration::Statement,
                    ctx: Ctx::Plain,
                });
            }
        }
        steps.extend(self.lt_x_waits(s, &plan)?);
        steps.extend(self.lt_autocommit_steps(s, &plan)?);
        if !steps.is_empty() {
            let timeout = plan.wait.map(|secs| secs.saturating_mul(1000));
            return Ok(self.start_run(
                s,
                steps,
                Vec::new(),
                RunShape::PLAIN,
                timeout,
                Then::LtRest(Box::new(plan), lt_deltas),
            ));
        }
        self.lt_apply(s, &plan, &lt_deltas)
    }

    /// An in-place ALTER of an InnoDB table with no row keeps its X to the end: no
    /// move down to SU while the engine rebuilds (measured, 4 runs each way:
    /// known-differences/truncated-table-inplace-alter.mdl, after TRUNCATE or
    /// CREATE TABLE, also CREATE INDEX; a table with rows, after DELETE too, has the
    /// SU phase). The engine's reason was not found in the source read.
    fn keep_x_on_empty_tables(&self, plan: &Plan, own: &mut Vec<Step>) {
        if !plan.kind.is_inplace_alter() {
            return;
        }
        let empty: Vec<MdlKey> = plan
            .parts
            .iter()
            .filter_map(|p| p.bind.t.as_ref())
            .filter(|t| {
                self.catalog.has_no_row(t) && self.catalog.engine(t) == Some(Engine::InnoDb)
            })
            .map(|t| self.handler_key(t))
            .collect();
        let su = LockType::parse("SU").expect("SU");
        for k in empty {
            let at = own.iter().position(
                |st| matches!(st, Step::Upgrade { key, ty, .. } if *key == k && *ty == su),
            );
            if let Some(at) = at {
                // The move down to SU and the X after it.
                own.remove(at);
                if matches!(own.get(at), Some(Step::Upgrade { key, .. }) if *key == k) {
                    own.remove(at);
                }
            }
        }
    }

    /// Where the statement's steps stop: at an error found inside `open_table`, at the
    /// existing name of a CREATE, at an ALTER with nothing to do, after a missing
    /// trigger's X.
    fn cut_at_errors(
        &self,
        plan: &Plan,
        own: &mut Vec<Step>,
        deferred: Option<u32>,
        trigger_missing: bool,
    ) {
        let d = &self.dialect;
        if let Effect::FailBeforeLocks(code) = plan.effect {
            // Checked after the implicit commit and the session rules, before any lock.
            own.clear();
            own.push(Step::Fail(code));
            return;
        }
        if let Some(code) = deferred {
            let at = if lock_table_names(&self.map, plan) {
                own.iter().position(|st| matches!(st, Step::Bulk(_)))
            } else {
                // (MySQL 8.0: before the GLOBAL IX it takes first, open_table.)
                own.iter().position(|st| {
                    st.key().is_some_and(|k| {
                        matches!(
                            d.namespace(k.namespace()).name.as_str(),
                            "BACKUP" | "GLOBAL"
                        )
                    })
                })
            }
            .unwrap_or(own.len());
            own.truncate(at);
            own.push(Step::Fail(code));
        }
        if let Effect::CreateTable {
            t, if_not_exists, ..
        }
        // (CREATE SEQUENCE is a CREATE TABLE: Sql_cmd_create_table, sql_table.cc.)
        | Effect::CreateSequence {
            t,
            if_not_exists,
            replace: false,
            ..
        } = plan.effect.inner()
        {
            if self.catalog.exists(t) {
                // lock_table_names, upgrade_lock_if_not_exists: the new name exists:
                // ER_TABLE_EXISTS_ERROR (IF NOT EXISTS: a note, the statement stops) once
                // the group is taken, before BACKUP_DDL and the tables it reads.
                if let Some(at) = own.iter().position(|st| matches!(st, Step::Bulk(_))) {
                    own.truncate(at + 1);
                    if !if_not_exists {
                        own.push(Step::Fail(crate::catalog::ER_TABLE_EXISTS));
                    }
                }
            }
        }
        if let Effect::Alter {
            t,
            cols: AlterCols::Nothing | AlterCols::Fail(_),
            ..
        } = &plan.effect
        {
            // alter_columns.rs: nothing to do, or an error about the columns, once IX, SU
            // and BACKUP_DDL are taken (mysql_alter_table); the error comes from
            // `Catalog::error_of` at the end.
            let backoff = own.iter().position(|st| matches!(st, Step::Backoff { .. }));
            if let (true, Some(at)) = (self.catalog.exists(t), backoff) {
                own.truncate(at + 1);
            }
        }
        self.alter_rename_stops(plan, own);
        self.fk_create_stops(plan, own);
        if trigger_missing {
            // mysql_create_or_drop_trigger takes the trigger's X, then finds no trigger:
            // IF EXISTS is a note, otherwise ER_TRG_DOES_NOT_EXIST; nothing else.
            own.truncate(1);
        }
    }
}

/// What the session rules say of a statement (`SqlModel::session_rules`).
struct Verdict {
    /// The HANDLERs it closes (`None`: all of them).
    close_handlers: Vec<Option<Tbl>>,
    /// Under LOCK TABLES: the learned change of the session's locks, per part.
    lt_deltas: Vec<(RuleRow, Bind)>,
    /// The errors of the rules, in order.
    errors: Vec<u32>,
}

/// `p` is on a table of an open HANDLER of the session (not a HANDLER OPEN of a new
/// alias).
fn on_open_handler(st: &SqlSession, p: &Part) -> bool {
    st.handlers.iter().any(|h| {
        h.open
            && (p.bind.t.is_none()
                || p.bind.t.as_ref() == Some(&h.table)
                || p.bind.n.as_ref() == Some(&h.table))
    }) && !handler_open_new_alias(p, &st.handlers)
}

/// LOCK TABLES requests its locks for the transaction and makes them explicit
/// once every table is locked (Locked_tables_list::init_locked_tables), so a
/// lock the session already holds explicitly (a HANDLER's) is not reused.
fn for_the_transaction(own: &mut [Step]) {
    let tx = |d: Duration| {
        if d == Duration::Explicit {
            Duration::Transaction
        } else {
            d
        }
    };
    for st in own.iter_mut() {
        match st {
            Step::Acquire { dur, .. } | Step::Upgrade { dur, .. } => *dur = tx(*dur),
            Step::Backoff {
                dur,
                group,
                between,
                ..
            } => {
                *dur = tx(*dur);
                for g in group.iter_mut() {
                    g.2 = tx(g.2);
                }
                for b in between.iter_mut() {
                    if let Step::Upgrade { dur, .. } = b {
                        *dur = tx(*dur);
                    }
                }
            }
            Step::Bulk(group) => {
                for g in group.iter_mut() {
                    g.2 = tx(g.2);
                }
            }
            _ => {}
        }
    }
}
