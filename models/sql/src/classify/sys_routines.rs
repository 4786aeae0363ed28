//! The `sys` schema's stored procedures and functions (48 on 10.11.19, installed by
//! `mariadb-install-db` from `scripts/sys_schema/`; `suite/sysschema/r/all_sys_objects_exist.result`
//! lists them). They are the server's, not the catalog's: before this check a CALL or a
//! call of one was the catalog's ER_SP_DOES_NOT_EXIST (1305), where the server runs it
//! (measured on 10.11.19: `CALL sys.ps_truncate_all_tables(false)`, `SELECT
//! sys.format_time(1000)`, ok; suite/sys-schema-dml.mdl). Their bodies are not modelled
//! (prepared TRUNCATE and CREATE statements that commit, temporary tables, the
//! performance_schema tables they read, which a LOCK TABLES would have to name): a
//! statement that calls one is refused, clearly, but for the functions that read no
//! table ([`PURE_FUNCTIONS`]), played as native functions. A `sys` routine that does not exist is
//! 1305 as any missing routine.

use super::{kw_eq, Tok};

const SYS_ROUTINES: &[&str] = &[
    "extract_schema_from_file_name",
    "extract_table_from_file_name",
    "format_bytes",
    "format_path",
    "format_statement",
    "format_time",
    "list_add",
    "list_drop",
    "ps_is_account_enabled",
    "ps_is_consumer_enabled",
    "ps_is_instrument_default_enabled",
    "ps_is_instrument_default_timed",
    "ps_is_thread_instrumented",
    "ps_thread_account",
    "ps_thread_id",
    "ps_thread_stack",
    "ps_thread_trx_info",
    "quote_identifier",
    "sys_get_config",
    "version_major",
    "version_minor",
    "version_patch",
    "create_synonym_db",
    "diagnostics",
    "execute_prepared_stmt",
    "ps_setup_disable_background_threads",
    "ps_setup_disable_consumer",
    "ps_setup_disable_instrument",
    "ps_setup_disable_thread",
    "ps_setup_enable_background_threads",
    "ps_setup_enable_consumer",
    "ps_setup_enable_instrument",
    "ps_setup_enable_thread",
    "ps_setup_reload_saved",
    "ps_setup_reset_to_default",
    "ps_setup_save",
    "ps_setup_show_disabled",
    "ps_setup_show_disabled_consumers",
    "ps_setup_show_disabled_instruments",
    "ps_setup_show_enabled",
    "ps_setup_show_enabled_consumers",
    "ps_setup_show_enabled_instruments",
    "ps_statement_avg_latency_histogram",
    "ps_trace_statement_digest",
    "ps_trace_thread",
    "ps_truncate_all_tables",
    "statement_performance_analyzer",
    "table_exists",
];

/// The sys functions whose body names no table and calls no stored function (read from
/// `scripts/sys_schema/functions/*.sql` as 10.11.19 installs them,
/// /usr/share/mysql/mysql_sys_schema.sql): a call takes the function's S in `sys`, which
/// the harness does not compare, and nothing else, so it is played as a native
/// function's (no lock; measured: `SELECT sys.format_time(1000)` in a transaction,
/// suite/sys-schema-dml.mdl). The others read `performance_schema` tables or
/// `sys.sys_config` (through `sys_get_config`), which a statement under LOCK TABLES would
/// have to have locked: refused; so are `list_add` / `list_drop`, which read no table but
/// fail with 1138 (ER_INVALID_USE_OF_NULL) for a NULL argument (measured: fn_list_add.test:19,
/// `SELECT sys.list_add('foo', NULL)`, an error where a native call would be ok).
const PURE_FUNCTIONS: &[&str] = &[
    "extract_schema_from_file_name",
    "extract_table_from_file_name",
    "format_bytes",
    "format_time",
    "ps_is_instrument_default_enabled",
    "ps_is_instrument_default_timed",
    "quote_identifier",
    "version_major",
    "version_minor",
    "version_patch",
];

/// Whether `db.name` is one of [`PURE_FUNCTIONS`].
pub(super) fn pure_function(db: &str, name: &str) -> bool {
    db.eq_ignore_ascii_case("sys") && PURE_FUNCTIONS.iter().any(|f| name.eq_ignore_ascii_case(f))
}

/// `sys`, quoted or not.
fn is_sys(t: &Tok) -> bool {
    matches!(t, Tok::Word { text, .. } if text.eq_ignore_ascii_case("sys"))
}

/// Err when the statement calls a routine of `sys` (`sys.name(`, or `CALL name` with
/// `sys` the session's schema, which the caller refuses before).
pub(super) fn refuse(sql: &str, toks: &[Tok]) -> Result<(), String> {
    let call = toks.first().is_some_and(|t| kw_eq(t, "call"));
    let called = toks.windows(4).find_map(|w| match w {
        [s, Tok::P('.'), Tok::Word { text, .. }, next]
            if is_sys(s)
                && SYS_ROUTINES.iter().any(|r| text.eq_ignore_ascii_case(r))
                && (call || (*next == Tok::P('(') && !pure_function("sys", text))) =>
        {
            Some(text.clone())
        }
        _ => None,
    });
    // `CALL sys.p` with no argument list is the last three tokens.
    let bare_call = call
        && toks.len() == 4
        && is_sys(&toks[1])
        && matches!(&toks[3], Tok::Word { text, .. } if SYS_ROUTINES.iter().any(|r| text.eq_ignore_ascii_case(r)));
    match called {
        Some(r) => Err(format!(
            "`{sql}`: a call of `sys.{r}`, a routine of the server's sys schema (its body is \
             not modelled), is not modelled"
        )),
        None if bare_call => Err(format!(
            "`{sql}`: a call of a routine of the server's sys schema (its body is not \
             modelled) is not modelled"
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(sql: &str) -> bool {
        refuse(sql, &super::super::tokens(sql).unwrap()).is_err()
    }

    #[test]
    fn calls_of_sys_routines_are_refused() {
        assert_eq!(SYS_ROUTINES.len(), 48);
        assert!(r("SELECT sys.list_add('foo', NULL)"));
        assert!(r("CALL sys.ps_truncate_all_tables(false)"));
        assert!(r("call sys.diagnostics"));
        assert!(!r("SELECT sys.format_time(1000)"));
        assert!(r("select `sys`.`format_statement`('x')"));
        assert!(r("SELECT sys.sys_get_config('a', 'b')"));
        assert!(!r("SELECT * FROM sys.version"));
        assert!(!r("CALL sys.nosuch()"));
        assert!(!r("SELECT sys_config.value FROM sys.sys_config"));
        assert!(refuse("", &[]).is_ok());
    }
}
