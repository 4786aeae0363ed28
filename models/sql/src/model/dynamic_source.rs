//! The errors of a dynamic SQL source the model cannot compute but can tell will fail
//! (`PREPARE name FROM expr`, `EXECUTE IMMEDIATE expr`), before anything is opened
//! (MariaDB `sql/sql_yacc.yy` and `sql/sql_prepare.cc`, `LEX::get_dynamic_sql_string`):
//!
//! - a subquery or a stored function in the expression: the parser's
//!   `Lex->table_or_sp_used()` check, ER_SUBQUERIES_NOT_SUPPORTED (a name the server does
//!   not know as a built-in function is a stored function call: `non_existent()`);
//! - a `?` marker: the text protocol's parser, ER_PARSE_ERROR;
//! - a column (`a`, `DEFAULT(a)`, `VALUE(a)`): `fix_fields` has no table, ER_BAD_FIELD_ERROR;
//! - `ROW(...)`: `check_cols(1)`, ER_OPERAND_COLUMNS; an aggregate (`MAX(...)`):
//!   ER_INVALID_GROUP_FUNC_USE;
//! - a temporal literal (`TIME'10:20:30'`): its text is not a statement, ER_PARSE_ERROR;
//! - `CONCAT` of strings of two introduced character sets: ER_CANT_AGGREGATE_2COLLATIONS.
//!
//! Measured: suite/ps-dynamic-source-errors.mdl (from main/ps.test, main/statement-expr.test).

use super::kill::ER_SUBQUERIES_NOT_SUPPORTED;
use crate::classify::ER_PARSE_ERROR;

/// ER_BAD_FIELD_ERROR.
pub const ER_BAD_FIELD_ERROR: u32 = 1054;
/// ER_INVALID_GROUP_FUNC_USE.
pub const ER_INVALID_GROUP_FUNC_USE: u32 = 1111;
/// ER_OPERAND_COLUMNS.
pub const ER_OPERAND_COLUMNS: u32 = 1241;
/// ER_CANT_AGGREGATE_2COLLATIONS.
pub const ER_CANT_AGGREGATE_2COLLATIONS: u32 = 1267;

/// Built-in functions of no argument (a name not among them, called with `()`, is a stored
/// function to the parser).
const NO_ARG_BUILTINS: &[&str] = &[
    "now",
    "curdate",
    "curtime",
    "database",
    "schema",
    "user",
    "current_user",
    "session_user",
    "system_user",
    "version",
    "uuid",
    "uuid_short",
    "rand",
    "pi",
    "connection_id",
    "last_insert_id",
    "found_rows",
    "row_count",
    "sysdate",
    "utc_date",
    "utc_time",
    "utc_timestamp",
    "localtime",
    "localtimestamp",
    "current_date",
    "current_time",
    "current_timestamp",
    "unix_timestamp",
    "current_role",
    "sys_guid",
];

/// One token of a source: a word (lower case, `@` kept), a string literal, a punctuation.
#[derive(PartialEq)]
enum T {
    Word(String),
    Str,
    P(char),
}

fn lex(src: &str) -> Option<Vec<T>> {
    let c: Vec<char> = src.chars().collect();
    let (mut out, mut i) = (Vec::new(), 0);
    while i < c.len() {
        let x = c[i];
        if x.is_whitespace() {
            i += 1;
        } else if x == '\'' || x == '"' || x == '`' {
            let mut j = i + 1;
            loop {
                match c.get(j) {
                    None => return None,
                    Some(&y) if y == x && c.get(j + 1) == Some(&x) => j += 2,
                    Some(&y) if y == x => break,
                    Some('\\') if x != '`' => j += 2,
                    _ => j += 1,
                }
            }
            out.push(if x == '`' {
                T::Word("`".into())
            } else {
                T::Str
            });
            i = j + 1;
        } else if x.is_alphanumeric() || "_$@".contains(x) {
            let s = i;
            while i < c.len() && (c[i].is_alphanumeric() || "_$@.".contains(c[i])) {
                i += 1;
            }
            out.push(T::Word(c[s..i].iter().collect::<String>().to_lowercase()));
        } else {
            out.push(T::P(x));
            i += 1;
        }
    }
    Some(out)
}

/// The error the source `src` fails with, when the model can tell.
pub(super) fn source_error(src: &str) -> Option<u32> {
    let t = lex(src)?;
    let w = |i: usize| match t.get(i) {
        Some(T::Word(x)) => x.as_str(),
        _ => "",
    };
    let ident = |i: usize| {
        let x = w(i);
        !x.is_empty()
            && !x.starts_with('@')
            && !x.starts_with(|c: char| c.is_ascii_digit())
            && !["null", "true", "false", "default"].contains(&x)
    };
    if (0..t.len()).any(|i| w(i) == "select") {
        return Some(ER_SUBQUERIES_NOT_SUPPORTED);
    }
    let stored_call = (0..t.len()).any(|i| {
        ident(i)
            && t.get(i + 1) == Some(&T::P('('))
            && t.get(i + 2) == Some(&T::P(')'))
            && !NO_ARG_BUILTINS.contains(&w(i))
    });
    if stored_call {
        return Some(ER_SUBQUERIES_NOT_SUPPORTED);
    }
    if t.contains(&T::P('?')) {
        return Some(ER_PARSE_ERROR);
    }
    let call = t.get(1) == Some(&T::P('('));
    match (w(0), t.len()) {
        (_, 1) if ident(0) && w(0) != "`" => Some(ER_BAD_FIELD_ERROR),
        ("default" | "value", 4) if call && ident(2) && t[3] == T::P(')') => {
            Some(ER_BAD_FIELD_ERROR)
        }
        ("row", _) if call => Some(ER_OPERAND_COLUMNS),
        ("max" | "min" | "sum" | "avg" | "count", _) if call => Some(ER_INVALID_GROUP_FUNC_USE),
        ("time" | "date" | "timestamp", 2) if t[1] == T::Str => Some(ER_PARSE_ERROR),
        ("concat", _) if call && two_charsets(&t) => Some(ER_CANT_AGGREGATE_2COLLATIONS),
        _ => None,
    }
}

/// Two different character set introducers (`_latin1'a'`, `_latin2 'b'`) before strings.
fn two_charsets(t: &[T]) -> bool {
    let mut seen: Option<&str> = None;
    for (i, x) in t.iter().enumerate() {
        if let T::Word(cs) = x {
            if cs.starts_with('_') && t.get(i + 1) == Some(&T::Str) {
                match seen {
                    Some(s) if s != cs => return true,
                    _ => seen = Some(cs),
                }
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors() {
        assert_eq!(
            source_error("(SELECT 'SELECT 1')"),
            Some(ER_SUBQUERIES_NOT_SUPPORTED)
        );
        assert_eq!(
            source_error("EXISTS (SELECT * FROM t1)"),
            Some(ER_SUBQUERIES_NOT_SUPPORTED)
        );
        assert_eq!(source_error("f1()"), Some(ER_SUBQUERIES_NOT_SUPPORTED));
        assert_eq!(source_error("a"), Some(ER_BAD_FIELD_ERROR));
        assert_eq!(source_error("DEFAULT(a)"), Some(ER_BAD_FIELD_ERROR));
        assert_eq!(source_error("?"), Some(ER_PARSE_ERROR));
        assert_eq!(
            source_error("ROW('SELECT 1','SELECT 2')"),
            Some(ER_OPERAND_COLUMNS)
        );
        assert_eq!(
            source_error("MAX('SELECT 1 AS c')"),
            Some(ER_INVALID_GROUP_FUNC_USE)
        );
        assert_eq!(source_error("TIME'10:20:30'"), Some(ER_PARSE_ERROR));
        assert_eq!(
            source_error("CONCAT(_latin1'SELECT 1 AS c FROM ', _latin2 'DUAL')"),
            Some(ER_CANT_AGGREGATE_2COLLATIONS)
        );
        assert_eq!(source_error("'SELECT 1'"), None);
        assert_eq!(source_error("@s"), None);
        assert_eq!(source_error("CONCAT('SELECT ', @a)"), None);
        assert_eq!(source_error("NULL"), None);
        assert_eq!(source_error("now()"), None);
    }
}
