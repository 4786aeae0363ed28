//! User variables' values, kept per session for dynamic SQL (`PREPARE name FROM @s`,
//! `EXECUTE IMMEDIATE @s`): `SET @s = expr` and `SELECT expr INTO @s` without a table
//! (MariaDB `sql/item_func.cc`, `Item_func_set_user_var`; `sql/sql_class.cc`,
//! `select_dumpvar::send_data`). A value the model cannot compute (read from a table, a
//! function, `@s := ...` inside another statement) is kept as unknown with the reason; a
//! variable never set is NULL (`get_variable` in sql/item_func.cc finds none).

use super::SqlModel;
use crate::classify::dynamic::{eval, find_top_word, split_top, DynValue};

/// A variable's name as written after `@` (quotes taken off), lower case: user variable
/// names are not case sensitive.
fn var_name(s: &str) -> Option<String> {
    let n = s.trim().strip_prefix('@')?;
    if n.starts_with('@') || n.is_empty() {
        return None;
    }
    let n = n.trim_matches(|c| c == '`' || c == '\'' || c == '"');
    Some(n.to_lowercase())
}

impl SqlModel {
    /// The value of session `s`'s user variable `name` (`None`: never set, NULL).
    pub(super) fn var_value(&self, s: usize, name: &str) -> Option<DynValue> {
        self.sessions[s].session.vars.get(name).cloned()
    }

    /// The value of a dynamic SQL source expression in session `s`.
    pub(super) fn dynamic_value(&self, s: usize, src: &str) -> DynValue {
        eval(src, &|n| self.var_value(s, n))
    }

    /// Notes the user variables statement `sql` of session `s` assigns (`w`: its words).
    pub(super) fn note_var_values(&mut self, s: usize, sql: &str, w: &[String]) {
        let body = sql.trim().trim_end_matches(';').trim_end();
        let mut set: Vec<(String, DynValue)> = Vec::new();
        match w.first().map(String::as_str) {
            Some("set") if w.get(1).is_some_and(|x| x == "@") => {
                let at = find_top_word(body, "set").map_or(0, |i| i + 3);
                for part in split_top(&body[at..], ',') {
                    let Some(eq) = part.find('=') else { continue };
                    let lhs = part[..eq].trim_end_matches(':');
                    if let Some(n) = var_name(lhs) {
                        let v = self.dynamic_value(s, &part[eq + 1..]);
                        set.push((n, v));
                    }
                }
            }
            Some("select") => set = self.select_into_vars(s, body),
            _ => {}
        }
        // `@v := expr` anywhere else: a value the model does not follow.
        for j in 0..w.len() {
            if w[j] == "@" && w.get(j + 2).is_some_and(|x| x == ":") && (j == 0 || w[j - 1] != "@")
            {
                if let Some(n) = w.get(j + 1) {
                    if !set.iter().any(|(x, _)| x == n) {
                        let why = format!("@{n} is assigned inside a statement");
                        set.push((n.clone(), DynValue::Unknown(why)));
                    }
                }
            }
        }
        for (n, v) in set {
            self.sessions[s].session.vars.insert(n, v);
        }
    }

    /// `SELECT e1, e2 INTO @a, @b` (no table: each computed) or with a table (unknown).
    fn select_into_vars(&self, s: usize, body: &str) -> Vec<(String, DynValue)> {
        let Some(into) = find_top_word(body, "into") else {
            return Vec::new();
        };
        let after = &body[into + 4..];
        let end = ["from", "where", "for", "limit", "order", "group"]
            .iter()
            .filter_map(|k| find_top_word(after, k))
            .min()
            .unwrap_or(after.len());
        let names: Vec<Option<String>> = split_top(&after[..end], ',')
            .iter()
            .map(|x| var_name(x))
            .collect();
        if names.iter().any(Option::is_none) {
            return Vec::new();
        }
        let exprs = split_top(&body[6..into], ',');
        let computed = find_top_word(body, "from").is_none() && exprs.len() == names.len();
        names
            .into_iter()
            .flatten()
            .enumerate()
            .map(|(i, n)| {
                let v = match exprs.get(i) {
                    Some(e) if computed => self.dynamic_value(s, e),
                    _ => DynValue::Unknown(format!("@{n} holds a value read from a table")),
                };
                (n, v)
            })
            .collect()
    }
}
