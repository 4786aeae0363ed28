//! Errors of a CREATE TABLE's column list that the parser gives, before the statement
//! opens anything and so before the table's existence is looked at (the server says
//! these where the fixture has the table and the model said ER_TABLE_EXISTS_ERROR):
//!
//! - ER_UNKNOWN_CHARACTER_SET (1115): `CHARACTER SET name` / `CHARSET name` of a set the
//!   server does not have (sql_yacc.yy's `charset_name`: `get_charset_by_csname` fails in
//!   the parser; main/ctype_ldml.test:468 `ascii2`, a set that test loads itself). The
//!   names are `crate::collations`, read from 10.11.19.
//! - ER_UNKNOWN_COLLATION (1273): `COLLATE name` of a collation the server does not have
//!   (sql_yacc.yy's `collation_name`; main/ctype_ldml.test:46 `ucs2_test_ci`);
//! - ER_GENERATED_COLUMN_FUNCTION_IS_NOT_ALLOWED (1901): a subquery in a column's
//!   DEFAULT (...), generated `AS (...)` or CHECK (...): the parser's `field_spec` calls
//!   `Column_definition::check` (sql/field.cc), whose `check_expression` walks the
//!   expression with `check_vcol_func_processor`, and `Item_subselect` marks itself
//!   VCOL_IMPOSSIBLE (main/default.test:386 `DEFAULT (EXISTS (SELECT 1))`).
//!
//! Measured on 10.11.19: `suite/create-table-parse-errors.mdl`.

use crate::collations::charset;

/// ER_GENERATED_COLUMN_FUNCTION_IS_NOT_ALLOWED.
pub(super) const ER_GENERATED_COLUMN_FUNCTION_IS_NOT_ALLOWED: u32 = 1901;

/// The parser's error for a CREATE TABLE's words, or None.
pub(super) fn error(words: &[String]) -> Option<u32> {
    unknown_charset(words)
        .or_else(|| subquery_in_column_expr(words))
        .or_else(|| impossible_default(words))
}

fn unknown_charset(w: &[String]) -> Option<u32> {
    for i in 0..w.len() {
        if w[i] == "collate" {
            // An unknown collation: ER_UNKNOWN_COLLATION from `collation_name` (the
            // test's own collations of main/ctype_ldml.test).
            let name = w.get(i + 1).map_or("", |x| x.trim_matches('\''));
            let known = name.is_empty() || name == "default" || name == "=";
            if !known && crate::collations::collation(name).is_none() {
                return Some(super::alter_charset::ER_UNKNOWN_COLLATION);
            }
            continue;
        }
        let at = match w[i].as_str() {
            "charset" => i + 1,
            "character" if w.get(i + 1).is_some_and(|x| x == "set") => i + 2,
            _ => continue,
        };
        let at = if w.get(at).is_some_and(|x| x == "=") {
            at + 1
        } else {
            at
        };
        let Some(name) = w.get(at).map(|x| x.trim_matches('\'')) else {
            continue;
        };
        // `filename` is the server's own character set for file names (compiled in,
        // not listed in information_schema; main/ctype_filename_innodb.test:12).
        let known = matches!(name, "default" | "filename" | "binary") || name.is_empty();
        if !known && charset(name).is_none() {
            return Some(super::alter_charset::ER_UNKNOWN_CHARACTER_SET);
        }
    }
    None
}

/// Functions a column's DEFAULT cannot call (their `check_vcol_func_processor` marks
/// VCOL_IMPOSSIBLE: aggregates, user locks, LOAD_FILE; main/default.test:412-1645).
const NOT_IN_DEFAULT: &[&str] = &[
    "count",
    "sum",
    "avg",
    "min",
    "max",
    "group_concat",
    "get_lock",
    "release_lock",
    "load_file",
];

/// `DEFAULT f(...)` of a function of [`NOT_IN_DEFAULT`] inside the column list.
fn impossible_default(w: &[String]) -> Option<u32> {
    w.windows(3)
        .any(|x| x[0] == "default" && x[2] == "(" && NOT_IN_DEFAULT.contains(&x[1].as_str()))
        .then_some(ER_GENERATED_COLUMN_FUNCTION_IS_NOT_ALLOWED)
}

/// A `select` inside the parentheses after DEFAULT, AS or CHECK inside the column list
/// (`CREATE TABLE t AS (SELECT ...)` outside it is a CREATE ... SELECT).
fn subquery_in_column_expr(w: &[String]) -> Option<u32> {
    let mut outer = 0usize;
    for i in 0..w.len() {
        match w[i].as_str() {
            "(" => outer += 1,
            ")" => outer = outer.saturating_sub(1),
            _ => {}
        }
        let opens = outer >= 1
            && matches!(w[i].as_str(), "default" | "as" | "check")
            && w.get(i + 1).is_some_and(|x| x == "(");
        if !opens {
            continue;
        }
        let mut depth = 0usize;
        for x in &w[i + 1..] {
            match x.as_str() {
                "(" => depth += 1,
                ")" => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                "select" => return Some(ER_GENERATED_COLUMN_FUNCTION_IS_NOT_ALLOWED),
                _ => {}
            }
        }
    }
    None
}
