//! Prepared statements: `PREPARE name FROM 'text'`, `EXECUTE name [USING ...]`,
//! `EXECUTE IMMEDIATE 'text'`, `DEALLOCATE PREPARE name` (MariaDB `sql/sql_prepare.cc`).
//!
//! - PREPARE checks the statement and keeps it; it changes no data (compatible with FTWRL:
//!   `main/flush_read_lock.test` 9.1) and holds no lock after it, in a transaction too
//!   (`Prepared_statement::prepare` gives back what it took with
//!   `rollback_to_savepoint`). Measured on 10.11: PREPARE of `SELECT * FROM t1` does not
//!   wait for another session's LOCK TABLES t1 WRITE, and PREPARE of DDL does not commit.
//!   A table that does not exist fails it (ER_NO_SUCH_TABLE; not for ALTER). A DML
//!   statement's tables are opened with S for the moment of the PREPARE
//!   (`model/prepare_open.rs`).
//! - EXECUTE plays the kept statement: its locks, implicit commit, session rules and
//!   errors are the statement's (`main/flush_read_lock.test` 9.2); an unknown name is
//!   ER_UNKNOWN_STMT_HANDLER.
//! - A statement that DDL invalidated since its PREPARE is reprepared inside EXECUTE
//!   (`Reprepare_observer` reports ER_NEED_REPREPARE from `open_tables`, and
//!   `Prepared_statement::execute_loop` prepares and executes again): played as the
//!   statement classified anew on the catalog of now. Its locks are the statement's: in a
//!   transaction the failed first try keeps its transactional locks, so the reprepare's S
//!   and the second try find them held; in autocommit the first try's locks are given
//!   back and taken again with no wait in between (a lock the first try was granted has
//!   no pending conflicting request ahead of it). suite/ps-ddl-reprepare.mdl.
//! - DEALLOCATE forgets it (ER_UNKNOWN_STMT_HANDLER for an unknown name).
//! - The source may be any expression the model computes (`model/dynamic_sql.rs`, user
//!   variables in `model/user_vars.rs`); PREPARE's checks are in `model/prepare_check.rs`,
//!   EXECUTE IMMEDIATE's prepare phase in `model/prepare_open.rs` (`immediate_prefix`).

use super::SqlModel;
use crate::classify::{classify, Stmt};
use crate::stmt::SessionStmt;
use crate::words::words;

/// ER_UNKNOWN_STMT_HANDLER.
pub const ER_UNKNOWN_STMT_HANDLER: u32 = 1243;

impl SqlModel {
    /// The session statements the model classifies with the session's state: prepared
    /// statements (here), then temporary tables (`model::temp`); `None` for any other.
    pub(super) fn session_classify(&mut self, s: usize, sql: &str) -> Option<Result<Stmt, String>> {
        self.sessions[s].session.pending_temp = None;
        self.sessions[s].session.temp_fill = None;
        self.sessions[s].session.prepare_prefix.clear();
        let w = words(sql);
        self.note_user_vars(s, &w);
        self.note_var_values(s, sql, &w);
        let at = |i: usize| w.get(i).map(String::as_str).unwrap_or("");
        if let Some(r) = self.oracle_classify(s, sql) {
            return Some(r);
        }
        if let Some(r) = self.fk_checks_classify(s, sql, &w) {
            return Some(r);
        }
        if let Some(r) = self.chain_classify(s, &w) {
            return Some(r);
        }
        if let Some(r) = self.gtid_pos_classify(s, sql) {
            return Some(r);
        }
        if let Some(r) = self.binlog_classify(s, sql) {
            return Some(r);
        }
        match (at(0), at(1)) {
            ("prepare", name) if at(2) == "from" => {
                let r = self.classify_prepare(s, sql, name);
                if let Ok(Stmt::Session(SessionStmt::Fail(_))) = r {
                    // mysql_sql_stmt_prepare deallocates a statement of the same name
                    // first, "ok to remove old and fail to insert a new one".
                    self.sessions[s].session.prepared.retain(|(n, _)| n != name);
                }
                Some(r)
            }
            ("execute", "immediate") => Some(self.classify_immediate(s, sql)),
            ("execute", name) => Some(self.classify_execute(s, sql, name)),
            ("deallocate" | "drop", "prepare") if w.len() == 3 => {
                Some(Ok(Stmt::Session(SessionStmt::Deallocate(at(2).to_owned()))))
            }
            ("kill", _) => Some(self.classify_kill(s, sql, &w)),
            ("stop" | "change" | "start", _) if self.classify_replication(s, &w).is_some() => {
                self.classify_replication(s, &w).map(Ok)
            }
            _ => self.temp_classify(s, sql),
        }
    }

    /// The session `KILL [HARD | SOFT] QUERY NAME` names (`SqlModel::name_sessions`).
    /// `KILL [CONNECTION]` (the session ends) and a numeric id are refused.
    pub(super) fn kill_target(&self, sql: &str, w: &[String]) -> Result<usize, String> {
        let Some(q) = w.iter().position(|x| x == "query") else {
            return Err(format!(
                "`{sql}`: KILL [CONNECTION] (the session ends) is not modelled; KILL QUERY is"
            ));
        };
        if w.len() != q + 2 {
            return Err(format!("`{sql}`: KILL QUERY SESSION, one session's name"));
        }
        // (`words` lowers the case; the file's names keep theirs.)
        let raw = sql.trim().trim_end_matches(';').split_whitespace().last();
        self.names
            .iter()
            .position(|n| Some(n.as_str()) == raw)
            .ok_or_else(|| {
                format!(
                    "`{sql}`: name the session to kill (its connection id is given on the \
                     server)"
                )
            })
    }

    /// Classifies `sql` as session `s` would run it.
    pub(super) fn classify_in(&mut self, s: usize, sql: &str) -> Result<Stmt, String> {
        if let Some(r) = self.session_classify(s, sql) {
            return r;
        }
        let db = self.sessions[s].session.db.clone();
        let has = |r: &str| self.map.kind(r).is_some();
        classify(sql, &db, &self.catalog, &has)
    }
}
