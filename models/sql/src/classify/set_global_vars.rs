//! SET GLOBAL of variables `misc::set_global` refused by their name (`gtid_*`, `*debug*`),
//! each read in sql/sys_vars.cc and measured on the harness's server (a release build with
//! only `metadata_lock_info` loaded, binary log off):
//!
//! - variables the server does not declare: the `innodb_*_debug` variables exist only in
//!   a UNIV_DEBUG build (storage/innobase/handler/ha_innodb.cc), `debug_binlog_fsync_sleep`
//!   and `debug_mutex_deadlock_detector` only without DBUG_OFF (sys_vars.cc), and the
//!   variables of plugins that are not loaded (`rocksdb_*`, `s3_*`, `mroonga_*`,
//!   `debug_key_management_*`): the parser's `find_sys_var` (sql/set_var.cc) fails with
//!   ER_UNKNOWN_SYSTEM_VARIABLE before anything runs;
//! - read-only variables (`gtid_binlog_pos`, `gtid_current_pos`: `Sys_var_gtid_binlog_pos`,
//!   `Sys_var_gtid_current_pos` are READ_ONLY; `debug_no_thread_alarm` is a startup option):
//!   `set_var::check` (sql/set_var.cc) fails with ER_INCORRECT_GLOBAL_LOCAL_VAR;
//! - a session-only variable (`gtid_seq_no`, `Sys_var_session_uint64` with SESSION_ONLY):
//!   `set_var::check`'s `check_type` fails with ER_LOCAL_VARIABLE;
//! - variables whose global update takes no metadata lock and commits nothing
//!   (`gtid_domain_id`, `gtid_strict_mode`, `gtid_ignore_duplicates`,
//!   `gtid_cleanup_batch_size`: plain `Sys_var_uint` / `Sys_var_mybool` / `Sys_var_ulong`;
//!   `gtid_pos_auto_engines`: `Sys_var_gtid_pos_auto_engines`, a list of engines checked by
//!   name; `wsrep_debug`: `Sys_var_enum` whose update only sets the debug level): they
//!   go on to `misc::set_global`'s value checks and its learned `set_global` row;
//! - `max_statement_time` and `autocommit` set to their defaults ([`sets_defaults_only`]).
//!
//! `gtid_slave_pos` and `gtid_binlog_state` are played by the model, which knows the
//! session's transaction (`model/gtid_pos.rs`); the forms it does not read are left to
//! `misc::set_global`'s refusal.
//!
//! Measured: suite/set-global-gtid-debug.mdl.

use super::set_global_forms::{assignments, ER_UNKNOWN_SYSTEM_VARIABLE};
use super::{Stmt, Tok};

/// ER_LOCAL_VARIABLE: a SESSION variable set with SET GLOBAL.
pub const ER_LOCAL_VARIABLE: u32 = 1228;
/// ER_INCORRECT_GLOBAL_LOCAL_VAR: a read-only variable.
pub const ER_INCORRECT_GLOBAL_LOCAL_VAR: u32 = 1238;

/// Variables of a debug build or of plugins the harness's server does not load.
fn unknown(name: &str) -> bool {
    const DEBUG_BUILD: &[&str] = &["debug_binlog_fsync_sleep", "debug_mutex_deadlock_detector"];
    const PLUGINS: &[&str] = &["rocksdb_", "s3_", "mroonga_", "debug_key_management_"];
    DEBUG_BUILD.contains(&name)
        || (name.starts_with("innodb_") && name.ends_with("_debug"))
        || PLUGINS.iter().any(|p| name.starts_with(p))
}

/// The variables `misc::set_global` may play as no lock, although their names look like
/// those it refuses (`gtid_*`, `*debug*`).
pub(super) fn no_lock(name: &str) -> bool {
    const NAMES: &[&str] = &[
        "gtid_domain_id",
        "gtid_strict_mode",
        "gtid_ignore_duplicates",
        "gtid_cleanup_batch_size",
        "gtid_pos_auto_engines",
        "wsrep_debug",
    ];
    NAMES.contains(&name)
}

/// Whether every assignment of `SET GLOBAL ...` (`toks`: the whole statement) gives a
/// variable that becomes a new session's default (`max_statement_time`, `autocommit`)
/// its compiled-in default (0 and ON: `Sys_max_statement_time`, `Sys_autocommit`), the
/// value the harness's fresh server already has: the sessions the model plays keep what
/// they read. Any other value stays refused (new sessions would start with it).
pub(super) fn sets_defaults_only(toks: &[Tok]) -> bool {
    let list = assignments(&toks[1.min(toks.len())..]);
    let is = |v: &[Tok], ws: &[&str]| match v {
        [Tok::Word {
            text,
            quoted: false,
        }] => ws.iter().any(|w| text.eq_ignore_ascii_case(w)),
        [Tok::Num(n)] => ws.contains(&n.as_str()),
        _ => false,
    };
    let session = toks.iter().any(|t| {
        matches!(t, Tok::Word { text, quoted: false }
            if ["session", "local", "@@session", "@@local"]
                .iter()
                .any(|w| text.eq_ignore_ascii_case(w)))
    });
    !session
        && !list.is_empty()
        && list.iter().all(|a| match a.name.as_str() {
            "max_statement_time" => is(a.value, &["default", "false", "0", "0.0", "0.000000"]),
            "autocommit" => is(a.value, &["default", "true", "on", "1"]),
            _ => false,
        })
}

/// The error of `SET GLOBAL name = ...` that `set_var::check` raises by the name alone.
fn check_error(name: &str) -> Option<u32> {
    match name {
        "gtid_binlog_pos" | "gtid_current_pos" | "debug_no_thread_alarm" => {
            Some(ER_INCORRECT_GLOBAL_LOCAL_VAR)
        }
        "gtid_seq_no" => Some(ER_LOCAL_VARIABLE),
        _ => None,
    }
}

/// The statement if the names of its assignments decide it, or a refusal of a
/// `gtid_pos_auto_engines` value the model cannot tell (`toks`: the whole `SET GLOBAL ...`).
pub(super) fn classify(sql: &str, toks: &[Tok]) -> Option<Result<Stmt, String>> {
    let list = assignments(&toks[1.min(toks.len())..]);
    if list.iter().any(|a| unknown(&a.name)) {
        return Some(Ok(Stmt::Fails(ER_UNKNOWN_SYSTEM_VARIABLE)));
    }
    if let [one] = list.as_slice() {
        if let Some(code) = check_error(&one.name) {
            return Some(Ok(Stmt::Fails(code)));
        }
    }
    let engines = list.iter().find(|a| a.name == "gtid_pos_auto_engines")?;
    (!engines_value_known(engines.value)).then(|| {
        Err(format!(
            "`{sql}`: SET GLOBAL gtid_pos_auto_engines to a value other than DEFAULT or a \
             string of built-in engines is not modelled"
        ))
    })
}

/// Whether `gtid_pos_auto_engines = value` is a value the model can tell is accepted:
/// DEFAULT, or a string of engines the server always has (`Sys_var_gtid_pos_auto_engines`
/// resolves each name with `ha_resolve_by_name`; an unknown one is ER_UNKNOWN_STORAGE_ENGINE,
/// NULL is ER_WRONG_VALUE_FOR_VAR: those stay refused).
pub(super) fn engines_value_known(value: &[Tok]) -> bool {
    const ENGINES: &[&str] = &["innodb", "myisam", "aria", "memory", "csv"];
    match value {
        [Tok::Word {
            text,
            quoted: false,
        }] => text.eq_ignore_ascii_case("default"),
        [Tok::Str(s)] => {
            s.is_empty()
                || s.split(',')
                    .all(|e| ENGINES.contains(&e.to_ascii_lowercase().as_str()))
        }
        _ => false,
    }
}
