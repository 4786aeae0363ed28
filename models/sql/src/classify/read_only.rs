//! `SET GLOBAL read_only = 0 | 1` (MariaDB `sql/sys_vars.cc`, `Sys_var_readonly` and its
//! update hook `fix_read_only`):
//! - to 0, or to the value it has: `fix_read_only` returns before any lock (the learned
//!   `set_global` row: no lock, no error under LOCK TABLES or a BACKUP STAGE);
//! - from 0 to 1: `check_read_only` refuses LOCK TABLES, an active transaction and a
//!   BACKUP STAGE (ER_LOCK_OR_ACTIVE_TRANSACTION, the learned rules of the
//!   `set_global_read_only` row); a session that has the global read lock (FTWRL) sets it
//!   with no lock; any other takes the global read lock as FTWRL does
//!   (`Global_read_lock::lock_global_read_lock`: BACKUP_FTWRL1, which closes the session's
//!   HANDLERs and keeps them, `mysql_ha_cleanup_no_free`; `close_cached_tables` without
//!   waiting; `make_global_read_lock_block_commit`: BACKUP_FTWRL2) and gives it back
//!   (`unlock_global_read_lock`). Played by `crate::model::read_only`.
//!
//! The server's value is the catalog's `read_only` (it outlives sessions). A value the
//! model cannot know (a user variable, DEFAULT) is refused.
//! Measured on 10.11.19: suite/set-global-read-only.mdl.

use super::{Bind, Cx, Stmt, Tok};
use crate::effect::Effect;
use crate::kind::Kind;

/// The statement when it is `SET GLOBAL read_only = value` alone (`words`: its words,
/// lower case); `None` for any other SET GLOBAL.
pub(super) fn classify(cx: &Cx, toks: &[Tok], words: &[String]) -> Option<Result<Stmt, String>> {
    let sql = cx.sql;
    let at = words.iter().position(|w| w == "read_only")?;
    if words.iter().any(|w| w == ",") {
        return Some(Err(format!(
            "`{sql}`: SET GLOBAL read_only beside other variables is not modelled"
        )));
    }
    let rest: Vec<&str> = words[at + 1..].iter().map(String::as_str).collect();
    let on = match rest.as_slice() {
        ["=" | ":=", "1" | "on" | "true"] => true,
        ["=" | ":=", "0" | "off" | "false"] => false,
        _ => {
            return Some(Err(format!(
                "`{sql}`: SET GLOBAL read_only to a value the model cannot know (a variable, \
                 DEFAULT, an expression) is not modelled"
            )))
        }
    };
    let kind = if on && !cx.cat.read_only {
        Kind::SetGlobalReadOnly
    } else {
        Kind::SetGlobal
    };
    Some(cx.plan(
        kind,
        vec![cx.part(kind, Bind::default())],
        Effect::ReadOnly(on),
        toks,
    ))
}
