//! `PREPARE name FROM source`: the text it keeps and the checks `check_prepared_statement`
//! (MariaDB `sql/sql_prepare.cc`) makes when it is prepared, before any lock
//! (`model/prepare_open.rs` plays the locks of a PREPARE that passes them).

use super::SqlModel;
use crate::catalog::ER_NO_SUCH_TABLE;
use crate::classify::{Effect, Stmt};
use crate::kind::Kind;
use crate::stmt::SessionStmt;

/// What a dynamic statement runs.
#[derive(Debug)]
pub(super) enum DynText {
    /// The text and the `USING` parameters.
    Text(String, Vec<String>),
    /// It fails before any lock with this error.
    Fails(u32),
}

/// ER_UNSUPPORTED_PS: a statement that cannot be prepared.
pub const ER_UNSUPPORTED_PS: u32 = 1295;

/// Statements the server does not prepare (`check_prepared_statement`'s default case
/// refuses SQLCOM_PREPARE, SQLCOM_EXECUTE, SQLCOM_EXECUTE_IMMEDIATE,
/// SQLCOM_DEALLOCATE_PREPARE).
pub(super) fn unpreparable(text: &str) -> bool {
    let w = crate::words::words(text);
    let at = |i: usize| w.get(i).map(String::as_str).unwrap_or("");
    matches!(at(0), "prepare" | "execute")
        || (matches!(at(0), "deallocate" | "drop") && at(1) == "prepare")
}

/// `mysql_admin_table`'s statements (sql/sql_admin.cc), not checked when prepared.
fn admin(k: Kind) -> bool {
    k.is_analyze()
        || matches!(
            k,
            Kind::Optimize
                | Kind::CheckTable
                | Kind::Repair
                | Kind::NopartAnalyze
                | Kind::NopartCheck
                | Kind::NopartOptimize
                | Kind::NopartRepair
        )
}

impl SqlModel {
    /// PREPARE `name` FROM `sql`'s source by session `s`.
    pub(super) fn classify_prepare(
        &mut self,
        s: usize,
        sql: &str,
        name: &str,
    ) -> Result<Stmt, String> {
        let fail = |code| Ok(Stmt::Session(SessionStmt::Fail(code)));
        let text = match self.dynamic_text(s, sql, "from")? {
            DynText::Fails(code) => return fail(code),
            DynText::Text(_, ps) if !ps.is_empty() => {
                return Err(format!("`{sql}`: PREPARE ... USING is not modelled"))
            }
            DynText::Text(t, _) => t,
        };
        if unpreparable(&text) {
            return fail(ER_UNSUPPORTED_PS);
        }
        // (The check plays no statement: a SET @v in the text is not run.)
        let vars = self.sessions[s].session.vars.clone();
        let checked = self
            .classify_in(s, &text)
            .or_else(|e| self.call_prepared(s, &text, e));
        self.sessions[s].session.vars = vars;
        // (Only EXECUTE makes a temporary table.)
        self.sessions[s].session.pending_temp = None;
        self.sessions[s].session.temp_fill = None;
        match checked {
            Err(e) => Err(format!("`{sql}`: {e}")),
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
            // (Nor the admin statements: `check_prepared_statement` lists SQLCOM_REPAIR,
            // SQLCOM_ANALYZE, SQLCOM_OPTIMIZE, SQLCOM_CHECK among those it does not
            // check; measured: main/ps.test `prepare stmt from "repair table t1, t2, t3"`
            // with no t3 is ok.)
            Ok(Stmt::Learned(p))
                if matches!(&p.effect, Effect::NeedTables(_))
                    && !admin(p.kind)
                    && self.catalog.error_of(&p.effect) == Some(ER_NO_SUCH_TABLE) =>
            {
                fail(ER_NO_SUCH_TABLE)
            }
            // mysql_test_create_table (sql_prepare.cc) opens CREATE TABLE's
            // source tables (LIKE, SELECT) when it is prepared (the corpus's
            // sql_sequence/concurrent_create.test: PREPARE of `CREATE TABLE s2
            // LIKE s1` with no s1 fails with 1146).
            Ok(Stmt::Learned(p))
                if matches!(p.effect.inner(), Effect::CreateTable { src, .. }
                    if src.iter().any(|t| !self.catalog.exists(t))) =>
            {
                fail(ER_NO_SUCH_TABLE)
            }
            // mysql_test_create_view (sql_prepare.cc) opens the view's tables
            // (open_normal_and_derived_tables) when it is prepared: 1146 for a missing
            // one (measured on 10.11.19: PREPARE of `create view v9 as select * from t9`
            // with no t9, and main/cte_nonrecursive.test:1236's view of a CTE).
            Ok(Stmt::Learned(p))
                if matches!(&p.effect, Effect::CreateView { def, .. }
                    if def.bases.iter().any(|t| !self.catalog.exists(t))) =>
            {
                fail(ER_NO_SUCH_TABLE)
            }
            Ok(_) => Ok(Stmt::Session(SessionStmt::Prepare(name.to_owned(), text))),
        }
    }
}
