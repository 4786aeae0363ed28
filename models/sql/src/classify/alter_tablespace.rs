//! `ALTER TABLE t DISCARD TABLESPACE` / `IMPORT TABLESPACE`: MariaDB's
//! `mysql_discard_or_import_tablespace` (sql/sql_table.cc) asks for the table's X (not
//! SU: `table_list->mdl_request.set_type(MDL_EXCLUSIVE)`) and opens it with
//! `open_and_lock_tables`, whose `lock_table_names` takes the schema's IX and the X
//! together, then BACKUP_DDL: the locks of TRUNCATE's learned row (`truncate`). A table
//! that is not there fails there (ER_NO_SUCH_TABLE). Of a table that is there the engine
//! discards or imports its tablespace, which the catalog does not follow (a discarded
//! table's later statements fail with 1814): refused.

use super::{Cx, Effect, Stmt, Tbl, Tok};
use crate::kind::Kind;

/// The plan of a DISCARD / IMPORT TABLESPACE alone (`spec` the words after the table
/// name); `None` for any other ALTER.
pub fn classify(cx: &Cx, toks: &[Tok], t: &Tbl, spec: &[String]) -> Option<Result<Stmt, String>> {
    let [op, ts] = spec else {
        return None;
    };
    if !matches!(op.as_str(), "discard" | "import") || ts != "tablespace" {
        return None;
    }
    if cx.cat.exists(t) {
        return Some(Err(format!(
            "`{}`: {} TABLESPACE of a table that exists (the catalog does not follow its \
             tablespace) is not modelled",
            cx.sql,
            op.to_ascii_uppercase()
        )));
    }
    Some(cx.on_table(Kind::Truncate, t).and_then(|p| {
        cx.plan(
            Kind::Truncate,
            vec![p],
            Effect::NeedTables(vec![t.clone()]),
            toks,
        )
    }))
}
