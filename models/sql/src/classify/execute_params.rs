//! More `EXECUTE ... USING` / `EXECUTE IMMEDIATE ... USING` parameters the model takes
//! beside `dynamic::param_refused`'s literals, user variables and functions of them.
//!
//! MariaDB `sql/sql_prepare.cc`: `Prepared_statement::execute_loop` →
//! `insert_params_from_actual_params` evaluates each actual parameter (`Item::fix_fields`,
//! then `Item_param::set_from_item`) before the statement runs; a parameter that reads no
//! table (a built-in function, a system variable, a literal with a character set introducer
//! or a COLLATE clause) opens nothing, and its value does not change which tables the
//! statement locks. A stored function, a subquery (ER_SUBQUERIES_NOT_SUPPORTED) and ROW()
//! (ER_OPERAND_COLUMNS) stay refused in `param_refused`, and so do comparisons of two
//! introduced character sets (ER_CANT_AGGREGATE_2COLLATIONS).
//!
//! Measured: suite/ps-execute-params.mdl.

/// Built-in functions of constants (no table): `CURRENT_TIMESTAMP`/`CURRENT_TIME`/
/// `CURRENT_DATE` (also without parentheses), `MAKETIME`, `TO_BASE64`, `REPLACE`, `HEX`.
const CALLS: &[&str] = &[
    "current_timestamp",
    "current_time",
    "current_date",
    "maketime",
    "to_base64",
    "hex",
    "unhex",
];

/// Data types of `CAST(... AS type)` beside `dynamic`'s (MariaDB 10.11's INET4, INET6 and
/// UUID plugins are built in).
const TYPES: &[&str] = &["inet4", "inet6", "uuid"];

/// Whether the word `w` of a parameter (lower case) is one the model takes: `prev` is the
/// word before it, `call` whether `(` follows, `str_next` whether a string literal does.
pub(super) fn value_word(w: &str, prev: Option<&str>, call: bool, str_next: bool) -> bool {
    if prev == Some("collate") {
        // `expr COLLATE name`: the collation is a name, not a column. A context collation
        // (`uca1400_ai_ci`, no character set) of NULL is ER_NOT_ALLOWED_IN_THIS_CONTEXT
        // (main/ctype_collate_context.test, MDEV-10865): refused, not evaluated.
        return !w.starts_with("uca1400_");
    }
    if w == "collate" {
        return true;
    }
    if w.starts_with('_') && str_next {
        // `_ucs2 'd'`: an introducer written apart from its string.
        return true;
    }
    if CALLS.contains(&w) {
        return call || w.starts_with("current_");
    }
    !call && prev == Some("as") && TYPES.contains(&w)
}

/// Whether the whole parameter is one system variable (`@@name`, `@@session.name`,
/// `@@global.name`): its value is read without a lock (`Item_func_get_system_var`).
pub(super) fn system_variable(p: &str) -> bool {
    let Some(name) = p.trim().strip_prefix("@@") else {
        return false;
    };
    let name = ["session.", "global.", "local."]
        .iter()
        .find_map(|s| name.to_ascii_lowercase().strip_prefix(s).map(str::to_owned))
        .unwrap_or_else(|| name.to_ascii_lowercase());
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_variables() {
        assert!(system_variable("@@timestamp"));
        assert!(system_variable("@@session.sql_mode"));
        assert!(!system_variable("@@timestamp + 1"));
        assert!(!system_variable("@a"));
    }

    #[test]
    fn words() {
        assert!(value_word("utf8mb4_bin", Some("collate"), false, false));
        assert!(!value_word("uca1400_ai_ci", Some("collate"), false, false));
        assert!(value_word("_ucs2", None, false, true));
        assert!(value_word("current_timestamp", None, false, false));
        assert!(value_word("maketime", None, true, false));
        assert!(!value_word("maketime", None, false, false));
        assert!(value_word("inet6", Some("as"), false, false));
        assert!(!value_word("f1", None, true, false));
    }
}
