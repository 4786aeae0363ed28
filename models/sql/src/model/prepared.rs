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
//! - DEALLOCATE forgets it (ER_UNKNOWN_STMT_HANDLER for an unknown name).

use super::SqlModel;
use crate::catalog::ER_NO_SUCH_TABLE;
use crate::classify::{classify, Effect, Stmt};
use crate::stmt::SessionStmt;
use crate::words::words;

/// ER_UNKNOWN_STMT_HANDLER.
pub const ER_UNKNOWN_STMT_HANDLER: u32 = 1243;

/// The text of the single-quoted string that ends `sql` after its word `kw`.
fn quoted_after(sql: &str, kw: &str) -> Option<String> {
    let low = sql.to_ascii_lowercase();
    let at = low.find(&format!(" {kw} "))? + kw.len() + 2;
    let rest = sql[at..].trim().trim_end_matches(';').trim_end();
    let q = rest.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let body = rest.strip_prefix(q)?.strip_suffix(q)?;
    let dq = format!("{q}{q}");
    if body.replace(&dq, "").contains(q) {
        return None;
    }
    Some(body.replace(&dq, &q.to_string()))
}

impl SqlModel {
    /// The session statements the model classifies with the session's state: prepared
    /// statements (here), then temporary tables (`model::temp`); `None` for any other.
    pub(super) fn session_classify(&mut self, s: usize, sql: &str) -> Option<Result<Stmt, String>> {
        self.sess[s].session.pending_temp = None;
        self.sess[s].session.temp_fill = None;
        let w = words(sql);
        self.note_user_vars(s, &w);
        let at = |i: usize| w.get(i).map(String::as_str).unwrap_or("");
        let fail = |code| Some(Ok(Stmt::Session(SessionStmt::Fail(code))));
        if let Some(r) = self.chain_classify(s, &w) {
            return Some(r);
        }
        match (at(0), at(1)) {
            ("prepare", name) if at(2) == "from" => {
                let Some(text) = quoted_after(sql, "from") else {
                    return Some(Err(format!(
                        "`{sql}`: PREPARE from anything but a string literal is not modelled"
                    )));
                };
                let checked = self
                    .classify_in(s, &text)
                    .or_else(|e| self.call_prepared(s, &text, e));
                // (Only EXECUTE makes a temporary table.)
                self.sess[s].session.pending_temp = None;
                self.sess[s].session.temp_fill = None;
                match checked {
                    Err(e) => Some(Err(format!("`{sql}`: {e}"))),
                    // mysql_test_handler_read (sql_prepare.cc) looks for the HANDLER when
                    // the statement is prepared: ER_UNKNOWN_TABLE for one not open
                    // (measured: suite/handler/interface.test's `PREPARE h_r FROM 'HANDLER
                    // t1 READ ...'`, handler-syntax-errors.mdl).
                    Ok(Stmt::HandlerRead(h)) if self.handler_index(s, &h).is_none() => {
                        fail(crate::model::ER_UNKNOWN_TABLE_HANDLER)
                    }
                    Ok(Stmt::Learned(p)) if self.prepare_not_locked(s, &p) => {
                        fail(super::ER_TABLE_NOT_LOCKED)
                    }
                    // (ALTER, CREATE / DROP INDEX are not checked when prepared:
                    // `check_prepared_statement` has no test for them; measured:
                    // found/seed-340015, PREPARE of `ALTER TABLE t1 FORCE` with no t1 is ok.)
                    Ok(Stmt::Learned(p))
                        if matches!(&p.effect, Effect::NeedTables(_))
                            && self.cat.error_of(&p.effect) == Some(ER_NO_SUCH_TABLE) =>
                    {
                        fail(ER_NO_SUCH_TABLE)
                    }
                    // mysql_test_create_table (sql_prepare.cc) opens CREATE TABLE's
                    // source tables (LIKE, SELECT) when it is prepared (the corpus's
                    // sql_sequence/concurrent_create.test: PREPARE of `CREATE TABLE s2
                    // LIKE s1` with no s1 fails with 1146).
                    Ok(Stmt::Learned(p))
                        if matches!(p.effect.inner(), Effect::CreateTable { src, .. }
                            if src.iter().any(|t| !self.cat.exists(t))) =>
                    {
                        fail(ER_NO_SUCH_TABLE)
                    }
                    Ok(_) => Some(Ok(Stmt::Session(SessionStmt::Prepare(
                        name.to_owned(),
                        text,
                    )))),
                }
            }
            ("execute", "immediate") => match quoted_after(sql, "immediate") {
                Some(text) => Some(self.classify_in(s, &text)),
                None => Some(Err(format!(
                    "`{sql}`: EXECUTE IMMEDIATE of anything but a string literal is not \
                     modelled"
                ))),
            },
            ("execute", name) => {
                let text = self.sess[s]
                    .session
                    .prepared
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, t)| t.clone());
                match text {
                    Some(t) => Some(self.classify_in(s, &t)),
                    None => fail(ER_UNKNOWN_STMT_HANDLER),
                }
            }
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
        let db = self.sess[s].session.db.clone();
        let has = |r: &str| self.map.kind(r).is_some();
        classify(sql, &db, &self.cat, &has)
    }
}
