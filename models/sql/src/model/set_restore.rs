//! `SET GLOBAL v = @saved` where the session saved `@saved` from the variable itself
//! (`SET @saved = @@global.v`, `@@v`, `@@session.v`): the test files' restore of a value
//! they changed. The value is one the variable held, so its check passes as the check of
//! the variable's DEFAULT does (sql/set_var.cc `set_var::check`, the variable's
//! `do_check` in sql/sys_vars.inl: the same domain in either scope); `set_var::update` of a
//! variable that changes no locking takes no metadata lock and commits nothing (the
//! learned `set_global` row). The statement is classified as `SET GLOBAL v = DEFAULT`,
//! so a variable the build does not have still gives its 1193 (`classify/
//! set_global_vars.rs`). Deliberate difference: a variable with no DEFAULT (ER_NO_DEFAULT,
//! 1230) is played as restored; the ones the model knows (`gtid_*`) are left out.
//!
//! Left out, refused as before: the variables whose value changes locking (`autocommit`,
//! `lock_wait_timeout`, `max_statement_time`, `read_only`, the transaction's isolation
//! and access mode, `foreign_key_checks`, `completion_type`, `gtid_*`), a key cache's
//! (`name.var`), a user variable set any other way (its value is not known), and a SET
//! that names a session scope.
//!
//! Measured: suite/set-global-restore.mdl.

use super::SqlModel;
use crate::classify::dynamic::{find_top_word, split_top};
use crate::classify::{classify, Stmt};

/// The variables whose value changes what the model plays.
const LOCKING: &[&str] = &[
    "autocommit",
    "lock_wait_timeout",
    "max_statement_time",
    "read_only",
    "tx_isolation",
    "transaction_isolation",
    "tx_read_only",
    "transaction_read_only",
    "foreign_key_checks",
    "completion_type",
    "standard_compliant_cte",
    "sql_log_bin",
];

/// A variable's name as the grammar reads it (letters, digits, `_`), lower case.
fn name(s: &str) -> Option<String> {
    let s = s.trim();
    let ok = !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    ok.then(|| s.to_ascii_lowercase())
}

/// `@@v`, `@@global.v`, `@@session.v`, `@@local.v`: `v`.
fn system_var(s: &str) -> Option<String> {
    let rest = s.trim().strip_prefix("@@")?;
    let lower = rest.to_ascii_lowercase();
    let rest = ["global.", "session.", "local."]
        .iter()
        .find_map(|p| lower.strip_prefix(p))
        .unwrap_or(&lower);
    name(rest)
}

/// `@u` (a user variable, quotes taken off): `u`, lower case.
fn user_var(s: &str) -> Option<String> {
    let n = s.trim().strip_prefix('@')?;
    if n.starts_with('@') || n.is_empty() {
        return None;
    }
    let n = n.trim_matches(|c| c == '`' || c == '\'' || c == '"');
    (!n.contains(char::is_whitespace)).then(|| n.to_lowercase())
}

/// The assignments of `body` (the text after SET), split at top-level commas and `=`.
fn assignments(body: &str) -> Vec<(String, String)> {
    split_top(body, ',')
        .iter()
        .filter_map(|p| {
            let eq = p.find('=')?;
            let lhs = p[..eq].trim_end().trim_end_matches(':').to_owned();
            Some((lhs, p[eq + 1..].to_owned()))
        })
        .collect()
}

impl SqlModel {
    /// Notes which user variables statement `sql` (words `w`) of session `s` saves from a
    /// system variable; forgets those it sets any other way.
    pub(super) fn note_saved_sysvars(&mut self, s: usize, sql: &str, w: &[String]) {
        let body = sql.trim().trim_end_matches(';').trim_end();
        let saved = &mut self.sessions[s].session.saved_sysvars;
        if w.first().is_some_and(|x| x == "set") && w.get(1).is_some_and(|x| x == "@") {
            let at = find_top_word(body, "set").map_or(0, |i| i + 3);
            for (lhs, rhs) in assignments(&body[at..]) {
                let Some(u) = user_var(&lhs) else { continue };
                match system_var(&rhs) {
                    Some(v) => saved.insert(u, v),
                    None => saved.remove(&u),
                };
            }
            return;
        }
        // `SELECT ... INTO @u`, `@u := ...` in any other statement: forgotten.
        let into = w.iter().position(|x| x == "into").unwrap_or(w.len());
        for j in 1..w.len() {
            let assigned = j > into || (w.get(j + 1).is_some_and(|x| x == ":"));
            if w[j - 1] == "@" && (j < 2 || w[j - 2] != "@") && assigned {
                saved.remove(&w[j]);
            }
        }
    }

    /// `SET GLOBAL v = @saved [, ...]` of this file's form: the statement as `SET GLOBAL
    /// v = DEFAULT [, ...]`; None for any other.
    pub(super) fn restore_classify(&self, s: usize, sql: &str) -> Option<Result<Stmt, String>> {
        let body = sql.trim().trim_end_matches(';').trim_end();
        let at = find_top_word(body, "set")? + 3;
        if !body[..at].trim().eq_ignore_ascii_case("set") {
            return None;
        }
        let saved = &self.sessions[s].session.saved_sysvars;
        let mut names = Vec::new();
        for (i, (lhs, rhs)) in assignments(&body[at..]).iter().enumerate() {
            let lower = lhs.trim().to_ascii_lowercase();
            let v = if let Some(r) = lower.strip_prefix("@@global.") {
                name(r)?
            } else if let Some(r) = lower.strip_prefix("global ") {
                name(r)?
            } else if i > 0 {
                name(&lower)?
            } else {
                return None;
            };
            let u = user_var(rhs)?;
            if saved.get(&u) != Some(&v) || LOCKING.contains(&v.as_str()) || v.starts_with("gtid_")
            {
                return None;
            }
            names.push(v);
        }
        if names.is_empty() || split_top(&body[at..], ',').len() != names.len() {
            return None;
        }
        let list: Vec<String> = names
            .iter()
            .map(|v| format!("GLOBAL {v} = DEFAULT"))
            .collect();
        let db = self.sessions[s].session.db.clone();
        let has = |r: &str| self.map.kind(r).is_some();
        Some(
            classify(
                &format!("SET {}", list.join(", ")),
                &db,
                &self.catalog,
                &has,
            )
            .map_err(|e| format!("`{sql}` (as DEFAULT): {e}")),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_assignments() {
        assert_eq!(
            system_var("@@global.Max_Connections").as_deref(),
            Some("max_connections")
        );
        assert_eq!(system_var("@@x").as_deref(), Some("x"));
        assert_eq!(system_var("@x"), None);
        assert_eq!(system_var("@@global.x + 1"), None);
        assert_eq!(user_var("@max_con.save").as_deref(), Some("max_con.save"));
        assert_eq!(user_var("@@x"), None);
        let a = assignments(" GLOBAL a= @x, b := @y");
        assert_eq!(a.len(), 2);
        assert_eq!(a[1].0.trim(), "b");
    }
}
