//! The text a dynamic SQL statement runs (MariaDB `sql/sql_prepare.cc`):
//! `mysql_sql_stmt_prepare` and `mysql_sql_stmt_execute_immediate` take it from
//! `LEX::get_dynamic_sql_string` (a NULL value is the text `NULL`: ER_PARSE_ERROR), and
//! `Prepared_statement::prepare` parses it (ER_EMPTY_QUERY for no statement, the parser's
//! ER_PARSE_ERROR). The `USING` parameters must match the `?` markers:
//! `mysql_sql_stmt_execute` checks before anything (ER_WRONG_ARGUMENTS), EXECUTE
//! IMMEDIATE after its prepare (`Prepared_statement::execute_immediate`).

use super::kill::ER_SUBQUERIES_NOT_SUPPORTED;
use super::prepare_check::{unpreparable, DynText, ER_UNSUPPORTED_PS};
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
        let value = self.dynamic_value(s, &src);
        if let (DynValue::Unknown(_), Some(code)) =
            (&value, super::dynamic_source::source_error(&src))
        {
            return Ok(DynText::Fails(code));
        }
        let text = match value {
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

    /// The error of `text` run with `params` (`Err`: not modelled): ER_WRONG_ARGUMENTS
    /// when the markers and the parameters differ, before the statement; a DEFAULT or
    /// IGNORE that does not stand alone as a value is ER_INVALID_DEFAULT_PARAM once the
    /// item that uses it is fixed or evaluated (`Item_param::set_default` /
    /// `set_ignore`, sql/item.cc), after the statement's tables are locked (measured on
    /// 10.11.19: `INSERT INTO t1 VALUES (?+1)`, `SELECT * FROM t1 LIMIT ?`, `... WHERE ?`
    /// wait behind another session's LOCK TABLES t1 WRITE, then fail; main/default.test,
    /// MDEV-11360). `EXPLAIN ... SELECT ?` does not evaluate a bare select item: it runs.
    /// Not modelled: UPDATE (`SET a=?+1` is evaluated per row: no error on an empty
    /// table), CREATE (CREATE OR REPLACE drops the table before it fails), CALL and the
    /// other statements.
    pub(super) fn param_error(text: &str, params: &[String]) -> Result<ParamError, String> {
        if placeholders(text) != params.len() {
            return Ok(ParamError::Before(ER_WRONG_ARGUMENTS));
        }
        let misplaced: Vec<usize> = (0..params.len())
            .filter(|&k| is_default_param(&params[k]) && !marker_alone(text, k))
            .collect();
        if misplaced.is_empty() {
            return Ok(ParamError::None);
        }
        let w = crate::words::words(text);
        let first = w.first().map(String::as_str).unwrap_or("");
        match first {
            "explain" if misplaced.iter().all(|&k| bare_select_item(text, k)) => {
                Ok(ParamError::None)
            }
            "begin" | "show" => Ok(ParamError::Before(ER_INVALID_DEFAULT_PARAM)),
            "select" | "values" | "insert" | "replace" | "explain" => {
                Ok(ParamError::AfterLocks(ER_INVALID_DEFAULT_PARAM))
            }
            _ => Err(format!(
                "a DEFAULT or IGNORE parameter that is not a value of INSERT in `{first}` \
                 (UPDATE evaluates it per row; CREATE OR REPLACE drops first; CALL) is not \
                 modelled"
            )),
        }
    }
}

/// What a dynamic statement's parameters do to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ParamError {
    None,
    /// The statement fails with this error before it runs.
    Before(u32),
    /// The statement takes its locks and fails with this error.
    AfterLocks(u32),
}

/// Whether the `k`-th marker of `text` is a select item of its own right after SELECT
/// (`EXPLAIN [EXTENDED] SELECT ?`).
fn bare_select_item(text: &str, k: usize) -> bool {
    let w = crate::words::words(text);
    let lower = text.to_lowercase();
    k == 0
        && placeholders(text) == 1
        && !w.iter().any(|x| x == "from")
        && lower
            .split_whitespace()
            .collect::<Vec<_>>()
            .windows(2)
            .any(|p| p[0] == "select" && p[1] == "?")
        && lower.trim_end_matches(';').trim_end().ends_with('?')
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
        if let ParamError::Before(code) = err {
            if !self.prepare_tables(s, &text).is_empty() {
                return Err(format!(
                    "`{sql}`: a parameter count that differs, after a prepare that opens \
                     tables, is not modelled"
                ));
            }
            return fail(code);
        }
        let st = self.classify_in(s, &text)?;
        let st = self.fails_after_locks(st, err);
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
        let text = self.sessions[s]
            .session
            .prepared
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t.clone());
        let Some(text) = text else {
            return fail(ER_UNKNOWN_STMT_HANDLER);
        };
        // mysql_sql_stmt_execute: the count is checked before the statement runs.
        let err = Self::param_error(&text, &params).map_err(|e| format!("`{sql}`: {e}"))?;
        if let ParamError::Before(code) = err {
            return fail(code);
        }
        let st = self.classify_in(s, &text)?;
        Ok(self.fails_after_locks(st, err))
    }
}

impl SqlModel {
    /// The statement `st` with the error its parameters give after its locks: a learned
    /// plan takes its locks and fails (`Effect::Fail`) unless its own error comes first
    /// (a missing table: the tables are opened before the parameter is used); a
    /// statement without locks fails.
    fn fails_after_locks(&self, st: Stmt, err: ParamError) -> Stmt {
        let ParamError::AfterLocks(code) = err else {
            return st;
        };
        match st {
            Stmt::Learned(mut p) => {
                if self.catalog.error_of(&p.effect).is_none() {
                    p.effect = crate::classify::Effect::Fail(code);
                }
                Stmt::Learned(p)
            }
            Stmt::Fails(c) => Stmt::Fails(c),
            _ => Stmt::Session(SessionStmt::Fail(code)),
        }
    }
}
