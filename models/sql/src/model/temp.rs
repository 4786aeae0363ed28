//! Temporary tables: a session's own tables, with no metadata lock (MariaDB
//! `sql/temporary_tables.cc`: `open_temporary_table` finds them before `open_table`
//! takes any lock), shadowing a base table of the same name for that session.
//!
//! Measured on 10.11 (each in a transaction holding a SELECT's SR, under LOCK TABLES, under
//! the session's own FTWRL and BACKUP LOCK):
//! - CREATE TEMPORARY TABLE and DROP TEMPORARY TABLE take no lock and do not commit
//!   (`stmt_causes_implicit_commit` skips them: `lex->tmp_table()`); CREATE TEMPORARY
//!   TABLE ... LIKE / ... SELECT takes its source tables' SR as a SELECT does;
//! - ALTER TABLE, CREATE INDEX, TRUNCATE, RENAME and DROP TABLE (no TEMPORARY) of a
//!   temporary table take no lock but commit implicitly;
//! - DML on temporary tables takes no lock; with base tables too, the base tables'
//!   locks (a statement that writes only temporary tables locks its base tables as a
//!   SELECT does);
//! - all of them run under the session's own LOCK TABLES (a temporary table needs no
//!   LOCK TABLES entry), FTWRL and BACKUP LOCK, and beside another session's FTWRL (no
//!   BACKUP lock: `main/flush_read_lock.test` 1.1.b, 8.1.b/d/f, 8.2.b, 13.1.b/c);
//! - CREATE of a name the session has: ER_TABLE_EXISTS (1050); DROP TEMPORARY of one it
//!   has not: ER_BAD_TABLE (1051).
//!
//! A statement on temporary and base tables that this module cannot split (DDL naming
//! both, a write to a base table joined with a temporary one) is refused by name.

use super::temp_txn::TempFill;
use super::{SqlModel, Then};
use crate::catalog::{Engine, ER_BAD_TABLE, ER_TABLE_EXISTS};
use crate::classify::{classify, Effect, Stmt, Tbl};
use crate::kind::Kind;
use crate::stmt::{SessionStmt, TempChange, TempOp};
use crate::words::{table_at, words};
use mdl_core::Outcome;

/// The kinds of DML whose tables may be temporary.
const DML: &[Kind] = &[
    Kind::Nextval,
    Kind::Setval,
    Kind::Lastval,
    Kind::Select,
    Kind::SelectForUpdate,
    Kind::SelectShare,
    Kind::Insert,
    Kind::Update,
    Kind::Delete,
];

fn temp(change: TempChange, commit: bool) -> Option<Result<Stmt, String>> {
    Some(Ok(Stmt::Session(SessionStmt::Temp(TempOp {
        change,
        commit,
    }))))
}

impl SqlModel {
    pub(super) fn temp_engine(&self, s: usize, t: &Tbl) -> Option<Engine> {
        let tt = &self.sessions[s].session.temp_tables;
        tt.iter().find(|(x, _)| x == t).map(|(_, e)| *e)
    }

    /// Classifies a statement that names a temporary table of session `s` (or makes or
    /// drops one); `None` for any other statement.
    pub(super) fn temp_classify(&mut self, s: usize, sql: &str) -> Option<Result<Stmt, String>> {
        let w = words(sql);
        let at = |i: usize| w.get(i).map(String::as_str).unwrap_or("");
        let db = self.sessions[s].session.db.clone();
        if at(0) == "create" && at(1) == "temporary" && at(2) == "sequence" {
            return self.temp_create_sequence(s, sql);
        }
        if at(0) == "create" && at(1) == "temporary" {
            return self.temp_create(s, sql, &w, &db, false);
        }
        if at(0) == "create" && at(1) == "or" && at(2) == "replace" && at(3) == "temporary" {
            // CREATE OR REPLACE TEMPORARY TABLE (sql/sql_table.cc, `create_table_impl`:
            // an existing temporary table of the name is dropped, `drop_temporary_table`,
            // no MDL; no implicit commit, as CREATE TEMPORARY: `stmt_causes_implicit_commit`
            // skips `lex->tmp_table()`). Measured on 10.11.19: temp-create-or-replace.mdl.
            if at(4) == "sequence" {
                return Some(Err(format!(
                    "`{sql}`: CREATE OR REPLACE TEMPORARY SEQUENCE is not modelled"
                )));
            }
            let mut w2 = vec![w[0].clone()];
            w2.extend(w[3..].iter().cloned());
            return self.temp_create(s, sql, &w2, &db, true);
        }
        if at(0) == "drop" && at(1) == "temporary" && at(2) == "sequence" {
            return self.temp_drop_sequence(s, &w, &db, true);
        }
        if at(0) == "drop" && at(1) == "temporary" {
            return self.temp_drop(s, &w, &db, true);
        }
        if self.sessions[s].session.temp_tables.is_empty() {
            return None;
        }
        let is_temp = |i: usize| table_at(&w, i, &db).and_then(|t| self.temp_engine(s, &t));
        match (at(0), at(1)) {
            ("drop", "table" | "tables") => return self.temp_drop(s, &w, &db, false),
            ("drop", "sequence") => return self.temp_drop_sequence(s, &w, &db, false),
            ("alter", "sequence") if is_temp(2).is_some() || is_temp(4).is_some() => {
                return Some(Err(format!(
                    "`{sql}`: ALTER SEQUENCE of a temporary sequence is not modelled"
                )))
            }
            ("alter", "table") | ("truncate", "table") if is_temp(2).is_some() => {
                if at(0) == "alter" {
                    if let Some(r) = self.temp_partition(s, sql, &w) {
                        return Some(r);
                    }
                }
                return temp(TempChange::None, true);
            }
            ("truncate", _) if is_temp(1).is_some() => return temp(TempChange::None, true),
            ("create", "index" | "unique" | "fulltext" | "spatial") | ("drop", "index") => {
                let on = w.iter().position(|x| x == "on")?;
                if is_temp(on + 1).is_some() {
                    return temp(TempChange::None, true);
                }
            }
            ("rename", "table" | "tables") => return self.temp_rename(s, sql, &w, &db),
            _ => {}
        }
        let has = |r: &str| self.map.kind(r).is_some();
        let p = match classify(sql, &db, &self.catalog, &has) {
            Ok(Stmt::Learned(p)) => p,
            _ => return None,
        };
        let tables: Vec<Tbl> = p
            .parts
            .iter()
            .flat_map(|x| x.bind.tables())
            .cloned()
            .collect();
        if !tables.iter().any(|t| self.temp_engine(s, t).is_some()) {
            return None;
        }
        if let Some(r) = self.temp_sequence_check(s, &p) {
            return Some(r);
        }
        if matches!(p.kind, Kind::ShowColumns | Kind::ShowCreate)
            && tables.iter().all(|t| self.temp_engine(s, t).is_some())
        {
            // SHOW COLUMNS / SHOW CREATE TABLE of a temporary table: it is found by
            // `THD::open_temporary_tables` before any MDL is asked for
            // (`open_tables_only_view_structure`, sql/sql_base.cc): no lock, no effect.
            // Also the table of a `TYPE OF t.c` variable (`classify/routine_anchor.rs`).
            return Some(Ok(Stmt::NoLocks));
        }
        if !DML.contains(&p.kind) {
            return Some(Err(format!(
                "`{sql}`: this statement on a temporary table is not modelled"
            )));
        }
        let mut p2 = p;
        let (tmp, base): (Vec<_>, Vec<_>) =
            std::mem::take(&mut p2.parts).into_iter().partition(|x| {
                x.bind
                    .t
                    .as_ref()
                    .and_then(|t| self.temp_engine(s, t))
                    .is_some()
            });
        if base.is_empty() {
            let innodb = tmp.iter().any(|x| {
                x.bind.t.as_ref().and_then(|t| self.temp_engine(s, t)) == Some(Engine::InnoDb)
            });
            return temp(TempChange::Dml { innodb }, false);
        }
        // Temporary and base tables: the base tables' locks. A statement that writes only
        // temporary tables reads its base tables as a SELECT does.
        self.note_temp_engine(s, &tmp);
        let reads_only = base.iter().all(|x| x.kind.is_select());
        p2.parts = base;
        if reads_only && !p2.kind.is_select() {
            p2.kind = Kind::Select;
        }
        if let Effect::NeedTables(ts) = &p2.effect {
            let ts = ts
                .iter()
                .filter(|t| self.temp_engine(s, t).is_none())
                .cloned()
                .collect();
            p2.effect = Effect::NeedTables(ts);
        }
        p2.effect = self.temp_needs(s, p2.effect);
        Some(Ok(Stmt::Learned(p2)))
    }

    fn temp_create(
        &mut self,
        s: usize,
        sql: &str,
        w: &[String],
        db: &str,
        or_replace: bool,
    ) -> Option<Result<Stmt, String>> {
        let at = |i: usize| w.get(i).map(String::as_str).unwrap_or("");
        if at(2) != "table" {
            return Some(Err(format!("`{sql}`: expected TABLE")));
        }
        let mut i = 3;
        let if_not_exists = at(i) == "if";
        if if_not_exists {
            i += 3;
        }
        let t = match table_at(w, i, db) {
            Some(t) => t,
            None => return Some(Err(format!("`{sql}`: no table name"))),
        };
        let engine = match w.iter().position(|x| x == "engine") {
            Some(e) => {
                let v = if at(e + 1) == "=" {
                    at(e + 2)
                } else {
                    at(e + 1)
                };
                match Engine::parse(v) {
                    Some(e) => e,
                    None => return Some(Err(format!("`{sql}`: engine `{v}` is not modelled"))),
                }
            }
            None => Engine::InnoDb,
        };
        if or_replace && if_not_exists {
            // (A syntax error on the server: not modelled.)
            return Some(Err(format!(
                "`{sql}`: CREATE OR REPLACE ... IF NOT EXISTS is not modelled"
            )));
        }
        // The name is a temporary table already: ER_TABLE_EXISTS (a note with IF NOT
        // EXISTS), after the source's open (`model::temp_exists`).
        let exists = self.temp_engine(s, &t).is_some() && !or_replace;
        let exists_change = if if_not_exists {
            TempChange::None
        } else {
            TempChange::Fail(ER_TABLE_EXISTS)
        };
        // LIKE base / [AS] SELECT ...: the source's locks, as a SELECT.
        let like = at(i + 1) == "like";
        if exists && !like && !sql.to_ascii_lowercase().contains("select") {
            return temp(exists_change, false);
        }
        let (src_sql, made) = if like {
            let src = table_at(w, i + 2, db)?;
            let e = self
                .temp_engine(s, &src)
                .or_else(|| self.catalog.engine(&src));
            (
                format!("SELECT * FROM {}.{}", src.db, src.name),
                (t, e.unwrap_or(Engine::InnoDb)),
            )
        } else if let Some(sel) = sql.to_ascii_lowercase().find("select") {
            (sql[sel..].to_owned(), (t, engine))
        } else {
            return temp(TempChange::Create(t, engine), false);
        };
        let r = match self.temp_classify(s, &src_sql) {
            Some(r) => r,
            None => {
                let has = |r: &str| self.map.kind(r).is_some();
                classify(&src_sql, db, &self.catalog, &has)
            }
        };
        if exists {
            let change = match self.temp_source_error(s, &r) {
                Some(code) => TempChange::Fail(code),
                None => exists_change,
            };
            return temp(change, false);
        }
        match r {
            // Only temporary tables, or none.
            Ok(Stmt::Session(SessionStmt::Temp(TempOp {
                change: TempChange::Dml { .. },
                ..
            })))
            | Ok(Stmt::NoLocks) => temp(TempChange::Create(made.0, made.1), false),
            Ok(Stmt::Learned(p)) if p.kind == Kind::Select => {
                self.sessions[s].session.temp_fill = Some(if like {
                    TempFill::Like
                } else {
                    TempFill::Select(made.1)
                });
                self.sessions[s].session.pending_temp = Some(made);
                Some(Ok(Stmt::Learned(p)))
            }
            Err(e) => Some(Err(e)),
            Ok(_) => Some(Err(format!(
                "`{sql}`: CREATE TEMPORARY TABLE ... SELECT of this SELECT is not modelled"
            ))),
        }
    }

    /// The tables whose HANDLERs a CREATE [OR REPLACE] TEMPORARY TABLE ... LIKE / SELECT
    /// of base tables (played as its SELECT, `pending_temp`) closes first: every table
    /// the statement names (sql/sql_parse.cc, `mysql_execute_command`: SQLCOM_CREATE_TABLE
    /// has CF_HA_CLOSE, `mysql_ha_rm_tables(thd, all_tables)` before anything else;
    /// measured: found/seed-300253.mdl).
    pub(super) fn temp_ha_close(&self, s: usize, plan: &crate::classify::Plan) -> Vec<Option<Tbl>> {
        let Some((t, _)) = &self.sessions[s].session.pending_temp else {
            return Vec::new();
        };
        let mut v = vec![Some(t.clone())];
        v.extend(plan.parts.iter().filter_map(|p| p.bind.t.clone()).map(Some));
        v
    }

    fn temp_drop(
        &self,
        s: usize,
        w: &[String],
        db: &str,
        temporary: bool,
    ) -> Option<Result<Stmt, String>> {
        let (if_exists, ts) = drop_list(w, db, temporary);
        let (mine, other): (Vec<Tbl>, Vec<Tbl>) = ts
            .into_iter()
            .partition(|t| self.temp_engine(s, t).is_some());
        if !temporary {
            return match (mine.is_empty(), other.is_empty()) {
                (true, _) => None,
                (false, true) => temp(TempChange::Drop(mine), true),
                (false, false) => Some(Err(
                    "DROP TABLE of temporary and base tables together is not modelled".into(),
                )),
            };
        }
        if other.is_empty() || if_exists {
            return temp(TempChange::Drop(mine), false);
        }
        if mine.is_empty() {
            return temp(TempChange::Fail(ER_BAD_TABLE), false);
        }
        // mysql_rm_table_no_locks drops what it can, then ER_BAD_TABLE: not followed.
        Some(Err(
            "DROP TEMPORARY TABLE of existing and missing tables together is not modelled".into(),
        ))
    }

    fn temp_rename(
        &self,
        s: usize,
        sql: &str,
        w: &[String],
        db: &str,
    ) -> Option<Result<Stmt, String>> {
        let mut pairs = Vec::new();
        let mut i = 2;
        loop {
            let a = table_at(w, i, db)?;
            if w.get(i + 1).map(String::as_str) != Some("to") {
                return None;
            }
            let b = table_at(w, i + 2, db)?;
            pairs.push((a, b));
            if w.get(i + 3).map(String::as_str) != Some(",") {
                break;
            }
            i += 4;
        }
        let temps = pairs
            .iter()
            .filter(|(a, _)| self.temp_engine(s, a).is_some())
            .count();
        match temps {
            0 => None,
            n if n == pairs.len() => temp(TempChange::Rename(pairs), true),
            _ => Some(Err(format!(
                "`{sql}`: RENAME of temporary and base tables together is not modelled"
            ))),
        }
    }

    /// Plays a statement on temporary tables only.
    pub(super) fn temp_stmt(&mut self, s: usize, op: TempOp) -> Result<Outcome, String> {
        let st = &mut self.sessions[s].session;
        match op.change {
            TempChange::Fail(code) => return Ok(self.fail(s, code)),
            TempChange::None => {}
            TempChange::Dml { innodb } => {
                if innodb && !st.autocommit {
                    st.in_txn = true;
                }
            }
            TempChange::Create(t, e) => {
                // (OR REPLACE: the old one of the name goes.)
                st.temp_tables.retain(|(x, _)| *x != t);
                st.temp_tables.push((t, e));
            }
            TempChange::CreateSequence(t, e) => {
                st.temp_tables.push((t.clone(), e));
                st.temp_sequences.push(t);
            }
            TempChange::Drop(ts) => {
                st.temp_tables.retain(|(x, _)| !ts.contains(x));
                st.temp_sequences.retain(|x| !ts.contains(x));
            }
            // mysql_rename_tables (sql/sql_rename.cc) refuses LOCK TABLES before it looks
            // at the tables, temporary ones too (measured: found/seed-401866).
            TempChange::Rename(_) if st.under_lock_tables() => {
                return Ok(self.fail(s, crate::catalog::ER_LOCK_OR_ACTIVE_TRANSACTION));
            }
            TempChange::Rename(pairs) => {
                // SQLCOM_RENAME_TABLE has CF_HA_CLOSE: `mysql_execute_command` first closes
                // the session's HANDLERs on every table the statement names, the target
                // names too (`mysql_ha_rm_tables`, sql/sql_parse.cc; measured: a HANDLER on
                // t1 closed by `RENAME TABLE t4 TO t1` of a temporary t4, random seed
                // 460827).
                for (a, b) in &pairs {
                    self.close_handlers_on(s, Some(a));
                    self.close_handlers_on(s, Some(b));
                }
                let st = &mut self.sessions[s].session;
                for (a, b) in pairs {
                    if let Some(x) = st.temp_sequences.iter_mut().find(|x| **x == a) {
                        *x = b.clone();
                    }
                    if let Some(x) = st.temp_tables.iter_mut().find(|(x, _)| *x == a) {
                        x.0 = b;
                    }
                }
            }
        }
        if op.commit && self.sessions[s].session.in_txn {
            return self.start_commit(s, Then::Commit);
        }
        Ok(Outcome::Ok)
    }
}

/// `DROP [TEMPORARY] TABLE | SEQUENCE [IF EXISTS] a, b, ...` from its words: whether IF
/// EXISTS was given, and the names of the list.
pub(super) fn drop_list(w: &[String], db: &str, temporary: bool) -> (bool, Vec<Tbl>) {
    let at = |i: usize| w.get(i).map(String::as_str).unwrap_or("");
    let mut i = if temporary { 3 } else { 2 };
    let if_exists = at(i) == "if";
    if if_exists {
        i += 2;
    }
    let mut ts = Vec::new();
    while let Some(t) = table_at(w, i, db) {
        ts.push(t);
        if at(i + 1) != "," {
            break;
        }
        i += 2;
    }
    (if_exists, ts)
}
