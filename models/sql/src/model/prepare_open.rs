//! PREPARE of a DML statement opens its tables with MDL_SHARED for a moment:
//! `check_prepared_statement` (MariaDB `sql/sql_prepare.cc`: `mysql_test_select`,
//! `mysql_test_update`, ...) calls `open_normal_and_derived_tables` with
//! MYSQL_OPEN_FORCE_SHARED_MDL, and `Prepared_statement::prepare` gives the locks back
//! (`rollback_to_savepoint`) when it is done. S is compatible with every granted lock but
//! X, and waits behind a pending X (the MDL matrix's pending row), so a PREPARE waits
//! behind a TRUNCATE waiting for another session's LOCK TABLES. Measured on 10.11.19:
//! found/seed-361198.mdl (`TABLE test.t1 S (pending)`). Its `open_tables` flushes the
//! session's HANDLERs first (found/seed-421367).
//!
//! Played as S of statement duration on each of the statement's tables, then the
//! statement kept; not under LOCK TABLES (the locked tables are used, `model/prepare_lt.rs`),
//! not for views or temporary tables (as before: no lock).

use super::run::RunShape;
use super::{SqlModel, Then};
use crate::classify::{classify, Plan, Stmt, Tbl};
use crate::compose::{Ctx, Step};
use crate::kind::Kind;
use mdl_core::{Duration, LockType, Outcome};

/// The statement kinds whose PREPARE opens their tables (`check_prepared_statement`'s
/// DML cases).
fn opens_at_prepare(p: &Plan) -> bool {
    matches!(
        p.kind,
        Kind::Select
            | Kind::SelectForUpdate
            | Kind::SelectShare
            | Kind::Insert
            | Kind::Update
            | Kind::Delete
    )
}

impl SqlModel {
    /// PREPARE `name` FROM `text` by session `s` (its HANDLERs closed already).
    pub(super) fn prepare_open(&mut self, s: usize, name: String, text: String) -> Outcome {
        let tables = self.prepare_tables(s, &text);
        if tables.is_empty() {
            self.prepared_keep(s, &name, &text);
            return Outcome::Ok;
        }
        // open_tables begins with mysql_ha_flush (sql/sql_base.cc): the session's
        // HANDLERs another session waits for are closed first (measured:
        // found/seed-421367).
        self.ha_flush(s);
        let ty = LockType::parse("S").expect("S");
        let steps: Vec<Step> = tables
            .iter()
            .map(|t| Step::Acquire {
                key: self.handler_key(t),
                ty,
                dur: Duration::Statement,
                ctx: Ctx::Plain,
            })
            .collect();
        self.start_run(
            s,
            steps,
            Vec::new(),
            RunShape::PLAIN,
            None,
            Then::Prepared(name, text),
        )
    }

    /// The tables PREPARE of `text` locks S (none: it takes no lock).
    pub(super) fn prepare_tables(&self, s: usize, text: &str) -> Vec<Tbl> {
        let st = &self.sessions[s].session;
        if st.under_lock_tables() {
            return Vec::new();
        }
        let has = |r: &str| self.map.kind(r).is_some();
        let Ok(Stmt::Learned(p)) = classify(text, &st.db, &self.catalog, &has) else {
            return Vec::new();
        };
        if !opens_at_prepare(&p) {
            return Vec::new();
        }
        let mut ts: Vec<Tbl> = Vec::new();
        for t in p.parts.iter().flat_map(|x| x.bind.tables()) {
            if self.catalog.is_view(t) || st.temp_tables.iter().any(|(x, _)| x == t) {
                return Vec::new();
            }
            if !ts.contains(t) {
                ts.push(t.clone());
            }
        }
        ts
    }

    /// The prepare phase of `EXECUTE IMMEDIATE 'text'` by session `s`, kept as the prefix
    /// of its statement's run (`SqlSession::prepare_prefix`, taken by `start_run`):
    /// `mysql_sql_stmt_execute_immediate` → `Prepared_statement::execute_immediate`
    /// prepares first (`prepare`: `check_prepared_statement` opens the tables with
    /// MYSQL_OPEN_FORCE_SHARED_MDL, then `rollback_to_savepoint` gives the S back), then
    /// executes, which opens them again with the statement's own locks. So the statement
    /// waits for S first, as PREPARE does (measured on 10.11.19: seed-440522, S pending
    /// behind a RENAME's pending X). A key the session holds already is not asked again
    /// (`MDL_context::find_ticket` finds a stronger or equal ticket) nor given back.
    pub(super) fn immediate_prefix(&mut self, s: usize, text: &str) {
        // Seeded bug `sql_immediate_no_prepare`: no prepare phase.
        if cfg!(mdl_bug = "sql_immediate_no_prepare") {
            return;
        }
        let id = self.sessions[s].id;
        let ty = LockType::parse("S").expect("S");
        let keys: Vec<_> = self
            .prepare_tables(s, text)
            .iter()
            .filter(|t| self.catalog.exists(t))
            .map(|t| self.handler_key(t))
            .filter(|k| {
                self.table
                    .session(id)
                    .is_none_or(|x| x.book.on_key(k).next().is_none())
            })
            .collect();
        let take = keys.iter().map(|k| Step::Acquire {
            key: k.clone(),
            ty,
            dur: Duration::Statement,
            ctx: Ctx::Plain,
        });
        let give = keys.iter().map(|k| Step::Release { key: k.clone(), ty });
        self.sessions[s].session.prepare_prefix = take.chain(give).collect();
    }

    /// Keeps the prepared statement (a name prepared again is replaced).
    pub(super) fn prepared_keep(&mut self, s: usize, name: &str, text: &str) {
        let p = &mut self.sessions[s].session.prepared;
        p.retain(|(n, _)| n != name);
        p.push((name.to_owned(), text.to_owned()));
    }
}
