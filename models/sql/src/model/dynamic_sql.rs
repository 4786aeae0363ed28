//! The text a dynamic SQL statement runs (MariaDB `sql/sql_prepare.cc`):
//! `mysql_sql_stmt_prepare` and `mysql_sql_stmt_execute_immediate` take it from
//! `LEX::get_dynamic_sql_string` (a NULL value is the text `NULL`: ER_PARSE_ERROR), and
//! `Prepared_statement::prepare` parses it (ER_EMPTY_QUERY for no statement, the parser's
//! ER_PARSE_ERROR). The `USING` parameters must match the `?` markers:
//! `mysql_sql_stmt_execute` checks before anything (ER_WRONG_ARGUMENTS), EXECUTE
//! IMMEDIATE after its prepare (`Prepared_statement::execute_immediate`).

use super::kill::ER_SUBQUERIES_NOT_SUPPORTED;
use super::prepare_check::{unpreparable, ER_UNSUPPORTED_PS};
use super::prepared::ER_UNKNOWN_STMT_HANDLER;
use super::SqlModel;
use crate::classify::dynamic::{
    find_top_word, is_default_param, marker_alone, param_refused, placeholders, source_after,
    split_top, DynValue,
};
use crate::classify::Stmt;
use crate::classify::{ER_PARSE_ERROR, ER_WRONG_ARGUMENTS};
use crate::stmt::SessionStmt;

/// ER_INVALID_DEFAULT_PARAM.
pub const ER_INVALID_DEFAULT_PARAM: u32 = 4032;

/// ER_EMPTY_QUERY.
pub const ER_EMPTY_QUERY: u32 = 1065;

/// What a dynamic statement runs.
#[derive(Debug)]
pub(super) enum DynText {
    /// The text and the `USING` parameters.
    Text(String, Vec<String>),
    /// It fails before any lock with this error.
    Fails(u32),
}

impl SqlModel {
    /// The text the dynamic statement `sql` of session `s` runs: what follows its word
    /// `kw` (`from`, `immediate`). `Err`: the model cannot tell (a refusal).
    pub(super) fn dynamic_text(&self, s: usize, sql: &str, kw: &str) -> Result<DynText, String> {
        let Some((src, params)) = source_after(sql, kw) else {
            return Err(format!("`{sql}`: no dynamic SQL source after {kw}"));
        };
        let params = params.unwrap_or_default();
        if params.iter().any(|p| subquery(p)) {
            return Ok(DynText::Fails(ER_SUBQUERIES_NOT_SUPPORTED));
        }
        if let Some(why) = params.iter().find_map(|p| param_refused(p)) {
            return Err(format!("`{sql}`: {why}"));
        }
        let text = match self.dynamic_value(s, &src) {
            DynValue::Str(t) => t,
            // get_dynamic_sql_string: "NULL", which the parser refuses.
            DynValue::Null => return Ok(DynText::Fails(ER_PARSE_ERROR)),
            DynValue::Unknown(why) => {
                return Err(format!(
                    "`{sql}`: a dynamic SQL source the model cannot compute ({why})"
                ))
            }
        };
        if only_comments(&text) {
            return Ok(DynText::Fails(ER_EMPTY_QUERY));
        }
        if crate::classify::mariadb_syntax_error(&text).is_some() {
            return Ok(DynText::Fails(ER_PARSE_ERROR));
        }
        Ok(DynText::Text(text, params))
    }

    /// The error of `text` run with `params` before its statement (`Err`: not modelled):
    /// ER_WRONG_ARGUMENTS when the markers and the parameters differ; a DEFAULT or
    /// IGNORE that does not stand alone as a value fails a SELECT without tables with
    /// ER_INVALID_DEFAULT_PARAM (main/ps.test, MDEV-11360; with tables the error comes
    /// after their locks: refused).
    pub(super) fn param_error(text: &str, params: &[String]) -> Result<Option<u32>, String> {
        if placeholders(text) != params.len() {
            return Ok(Some(ER_WRONG_ARGUMENTS));
        }
        let misplaced =
            (0..params.len()).any(|k| is_default_param(&params[k]) && !marker_alone(text, k));
        if !misplaced {
            return Ok(None);
        }
        let w = crate::words::words(text);
        if w.first().is_some_and(|x| x == "select")
            && !w
                .iter()
                .any(|x| ["from", "union", "into", "select"].contains(&x.as_str()) && x != &w[0])
        {
            return Ok(Some(ER_INVALID_DEFAULT_PARAM));
        }
        Err("a DEFAULT or IGNORE parameter that is not a value of INSERT or UPDATE".into())
    }
}

/// A parameter with a subquery (`(SELECT 1)`).
fn subquery(p: &str) -> bool {
    crate::words::words(p).iter().any(|w| w == "select")
}

/// No statement in `text`: blanks and comments only (`/*!` comments are statements).
fn only_comments(text: &str) -> bool {
    let mut t = text.trim();
    loop {
        if let Some(r) = t.strip_prefix("/*").filter(|r| !r.starts_with('!')) {
            match r.find("*/") {
                Some(e) => t = r[e + 2..].trim_start(),
                None => return false,
            }
        } else if t.starts_with('#') || t.starts_with("-- ") {
            t = t.find('\n').map_or("", |e| t[e..].trim_start());
        } else {
            return t.trim_end_matches(';').trim().is_empty();
        }
    }
}

impl SqlModel {
    /// `EXECUTE IMMEDIATE source [USING ...]` by session `s`: the statement the source
    /// holds, after its prepare's moment of S on its tables (the run's prefix,
    /// `SqlModel::immediate_prefix`).
    pub(super) fn classify_immediate(&mut self, s: usize, sql: &str) -> Result<Stmt, String> {
        let fail = |code| Ok(Stmt::Session(SessionStmt::Fail(code)));
        let (text, params) = match self.dynamic_text(s, sql, "immediate")? {
            DynText::Fails(code) => return fail(code),
            DynText::Text(t, ps) => (t, ps),
        };
        if unpreparable(&text) {
            return fail(ER_UNSUPPORTED_PS);
        }
        let err = Self::param_error(&text, &params).map_err(|e| format!("`{sql}`: {e}"))?;
        if let Some(code) = err {
            if !self.prepare_tables(s, &text).is_empty() {
                return Err(format!(
                    "`{sql}`: a parameter count that differs, after a prepare that opens \
                     tables, is not modelled"
                ));
            }
            return fail(code);
        }
        let st = self.classify_in(s, &text)?;
        self.immediate_prefix(s, &text);
        Ok(st)
    }

    /// `EXECUTE name [USING ...]` by session `s`.
    pub(super) fn classify_execute(
        &mut self,
        s: usize,
        sql: &str,
        name: &str,
    ) -> Result<Stmt, String> {
        let fail = |code| Ok(Stmt::Session(SessionStmt::Fail(code)));
        // mysql_sql_stmt_execute fixes the parameters first
        // (`LEX::prepared_stmt_params_fix_fields`): a subquery is
        // ER_SUBQUERIES_NOT_SUPPORTED whatever the name (main/ps.test, MDEV-10709).
        let body = sql.trim().trim_end_matches(';').trim_end();
        let params: Vec<String> = match find_top_word(body, "using") {
            Some(u) => split_top(&body[u + 5..], ',')
                .into_iter()
                .map(|p| p.trim().to_owned())
                .collect(),
            None => Vec::new(),
        };
        if params.iter().any(|p| subquery(p)) {
            return fail(ER_SUBQUERIES_NOT_SUPPORTED);
        }
        if let Some(why) = params.iter().find_map(|p| param_refused(p)) {
            return Err(format!("`{sql}`: {why}"));
        }
        let text = self.sess[s]
            .session
            .prepared
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t.clone());
        let Some(text) = text else {
            return fail(ER_UNKNOWN_STMT_HANDLER);
        };
        // mysql_sql_stmt_execute: the count is checked before the statement runs.
        if let Some(code) =
            Self::param_error(&text, &params).map_err(|e| format!("`{sql}`: {e}"))?
        {
            return fail(code);
        }
        self.classify_in(s, &text)
    }
}
