//! Foreign keys that change their child's columns, beside CHECK constraints and
//! generated columns (CREATE TABLE's definitions).
//!
//! MariaDB refuses a CHECK constraint or a stored generated column that reads a column a
//! foreign key's action changes (ON UPDATE CASCADE / SET NULL, ON DELETE SET NULL),
//! directly or through virtual columns: ER_GENERATED_COLUMN_FUNCTION_IS_NOT_ALLOWED
//! (1901, "Function or expression 'id' cannot be used in the CHECK clause of ...";
//! sql/sql_table.cc, `mysql_prepare_create_table` → `fk_check_column_changes`-style
//! walks with `Item::check_vcol_func_processor` over `VCOL_FIELD_REF` of the key's
//! columns). A virtual column alone (indexed or not), a DEFAULT expression, ON DELETE
//! CASCADE and RESTRICT / NO ACTION are accepted. The rows of
//! suite/vcol/r/innodb_virtual_fk.result and suite/innodb/r/foreign_key.result (MDEV-
//! 18114 ... ) are the measure. The model does not play that error: such a statement is
//! refused by name; the others go on as any CREATE TABLE with keys.

use super::lex::{kw_eq, kw_eq_at, matching_paren};
use super::Tok;
use std::collections::BTreeMap;

/// What the definitions of one CREATE TABLE say about the rule.
#[derive(Default)]
struct Defs {
    /// The columns a key's action changes (lower case).
    changed: Vec<String>,
    /// The words of each CHECK and stored generated column's expression.
    checked: Vec<Vec<String>>,
    /// Each virtual column's expression words, by name.
    virtuals: BTreeMap<String, Vec<String>>,
}

/// Whether the statement's definitions hit the server's 1901 (see the module).
pub(super) fn refused_by_server(toks: &[Tok]) -> bool {
    let Some(open) = toks.iter().position(|t| *t == Tok::P('(')) else {
        return false;
    };
    let Some(close) = matching_paren(toks, open) else {
        return false;
    };
    let mut d = Defs::default();
    for def in split_top(&toks[open + 1..close]) {
        read_def(def, &mut d);
    }
    if d.changed.is_empty() {
        return false;
    }
    d.checked.iter().any(|ws| reads_changed(ws, &d, 0))
}

fn reads_changed(ws: &[String], d: &Defs, depth: usize) -> bool {
    ws.iter().any(|w| {
        d.changed.contains(w)
            || (depth < 8
                && d.virtuals
                    .get(w)
                    .is_some_and(|v| reads_changed(v, d, depth + 1)))
    })
}

/// The definitions of a list, split at its top-level commas.
fn split_top(toks: &[Tok]) -> Vec<&[Tok]> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, t) in toks.iter().enumerate() {
        match t {
            Tok::P('(') => depth += 1,
            Tok::P(')') => depth -= 1,
            Tok::P(',') if depth == 0 => {
                out.push(&toks[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&toks[start..]);
    out
}

/// The lower-case words inside the parentheses opening at `open`, and the index after.
fn group_words(def: &[Tok], open: usize) -> (Vec<String>, usize) {
    let close = matching_paren(def, open).unwrap_or(def.len().saturating_sub(1));
    let ws = def[open + 1..close.max(open + 1)]
        .iter()
        .filter_map(|t| match t {
            Tok::Word { text, .. } => Some(text.to_ascii_lowercase()),
            _ => None,
        })
        .collect();
    (ws, close + 1)
}

fn read_def(def: &[Tok], d: &mut Defs) {
    let first_kw = |w: &str| def.first().is_some_and(|t| kw_eq(t, w));
    let table_level = [
        "constraint",
        "check",
        "foreign",
        "key",
        "index",
        "primary",
        "unique",
    ]
    .iter()
    .any(|w| first_kw(w))
        || first_kw("fulltext")
        || first_kw("spatial")
        || first_kw("period");
    let mut i = 0;
    while i < def.len() {
        let paren_at = |k: usize| def.get(k) == Some(&Tok::P('('));
        if kw_eq(&def[i], "check") && paren_at(i + 1) {
            let (ws, next) = group_words(def, i + 1);
            d.checked.push(ws);
            i = next;
        } else if kw_eq(&def[i], "foreign") && kw_eq_at(def, i + 1, "key") {
            let Some(open) = (i..def.len()).find(|&k| paren_at(k)) else {
                return;
            };
            let (cols, _) = group_words(def, open);
            if changes_columns(def) {
                d.changed.extend(cols);
            }
            return;
        } else if !table_level && kw_eq(&def[i], "as") && paren_at(i + 1) {
            let (ws, next) = group_words(def, i + 1);
            let stored = kw_eq_at(def, next, "stored") || kw_eq_at(def, next, "persistent");
            if stored {
                d.checked.push(ws);
            } else if let Some(Tok::Word { text, .. }) = def.first() {
                d.virtuals.insert(text.to_ascii_lowercase(), ws);
            }
            i = next;
        } else {
            i += 1;
        }
    }
}

/// A key's action that changes its child's columns.
fn changes_columns(def: &[Tok]) -> bool {
    let at = |i: usize, w: &str| kw_eq_at(def, i, w);
    (0..def.len()).any(|i| {
        at(i, "on")
            && ((at(i + 1, "update")
                && (at(i + 2, "cascade") || (at(i + 2, "set") && at(i + 3, "null"))))
                || (at(i + 1, "delete") && at(i + 2, "set") && at(i + 3, "null")))
    })
}

#[cfg(test)]
mod tests {
    use super::super::lex::tokens;
    use super::refused_by_server;

    /// suite/vcol/r/innodb_virtual_fk.result: which CREATE OR REPLACE TABLE t2 fail (1901).
    #[test]
    fn the_vcol_suite() {
        let f = |s: &str| refused_by_server(&tokens(s).unwrap());
        let t = "create or replace table t2 (id int, ";
        assert!(!f(&format!("{t}id2 int as (id) virtual, key(id2), foreign key (id) references t1 (id) on update cascade)")));
        assert!(!f(&format!(
            "{t}id2 int as (id) stored, foreign key (id) references t1 (id) on delete cascade)"
        )));
        assert!(f(&format!(
            "{t}id2 int as (id) stored, foreign key (id) references t1 (id) on update cascade)"
        )));
        assert!(f(&format!(
            "{t}id2 int as (id) stored, foreign key (id) references t1 (id) on delete set null)"
        )));
        assert!(f(&format!("{t}id2 int as (id) virtual, id3 int as (id2) stored, foreign key (id) references t1 (id) on update set null)")));
        assert!(!f(&format!(
            "{t}id2 int default (id), foreign key (id) references t1 (id) on update cascade)"
        )));
        assert!(f(&format!(
            "{t}id2 int check (id), foreign key (id) references t1 (id) on update cascade)"
        )));
        assert!(!f(&format!(
            "{t}id2 int check (id), foreign key (id) references t1 (id) on update restrict)"
        )));
        assert!(f(&format!(
            "{t}id2 int, check (id), foreign key (id) references t1 (id) on delete set null)"
        )));
        assert!(f(&format!("{t}id2 int as (id) virtual, check (id2), foreign key (id) references t1 (id) on update cascade)")));
        assert!(f("create or replace table t2 (a int, constraint foo check(a > 0), foreign key(a) references t1(a) on update cascade) engine=innodb"));
    }
}
