//! `ALTER TABLE t DISABLE KEYS` / `ENABLE KEYS` with no other operation: MariaDB's
//! `mysql_alter_table` (sql/sql_table.cc) sends an ALTER whose only flags are
//! `ALTER_KEYS_ONOFF` (and `ALTER_RENAME`) and whose algorithm is not COPY down
//! `simple_rename_or_index_change`: SU with the schema's IX and BACKUP_DDL
//! (`lock_table_names`), then `wait_while_table_is_used` (X), then the engine's
//! `alter_table_manage_keys` (InnoDB has no such option: a note, 1031; MyISAM disables
//! or enables its non-unique keys). Before it, a requested LOCK other than DEFAULT or
//! EXCLUSIVE is ER_ALTER_OPERATION_NOT_SUPPORTED (1845) once the table is open
//! (`main/alter_table.test` sections 4 and 5). Learned rows `alter_keys` (InnoDB) and
//! `alter_keys.myisam` (MyISAM also takes BACKUP_DML before its X); the failing LOCK=
//! plays the row of IX, SU and BACKUP_DDL (`alter_copy_lock_none`).
//!
//! With ALGORITHM=COPY the statement is a copy (the ordinary ALTER path); with
//! ALGORITHM=INSTANT or NOCOPY, or beside other operations, it is not modelled.

use super::{Cx, Effect, Stmt, Tbl, Tok};
use crate::alter_algorithm::{operations, Lock};
use crate::catalog::ER_ALTER_OPERATION_NOT_SUPPORTED;
use crate::kind::Kind;

/// Whether every operation of the specification is DISABLE KEYS or ENABLE KEYS (at least
/// one).
pub fn keys_only(spec: &[String]) -> bool {
    let ops = operations(spec);
    !ops.is_empty()
        && ops.iter().all(|op| {
            op.len() == 2 && matches!(op[0].as_str(), "disable" | "enable") && op[1] == "keys"
        })
}

/// The plan of a DISABLE / ENABLE KEYS alone (`spec` the words after the table name),
/// `None` when the statement has other operations or copies (ALGORITHM=COPY).
pub fn classify(
    cx: &Cx,
    toks: &[Tok],
    t: &Tbl,
    spec: &[String],
    (algo, lock, online): (Option<&str>, Option<Lock>, bool),
) -> Option<Result<Stmt, String>> {
    if !keys_only(spec) || algo == Some("copy") {
        return None;
    }
    Some(plan(cx, toks, t, (algo, lock, online)))
}

fn plan(
    cx: &Cx,
    toks: &[Tok],
    t: &Tbl,
    (algo, lock, online): (Option<&str>, Option<Lock>, bool),
) -> Result<Stmt, String> {
    let sql = cx.sql;
    if !matches!(algo, None | Some("default" | "inplace")) {
        return Err(format!(
            "`{sql}`: DISABLE / ENABLE KEYS with ALGORITHM={} is not measured",
            algo.unwrap_or_default()
        ));
    }
    let refused = online || matches!(lock, Some(Lock::None | Lock::Shared));
    if refused {
        // ER_ALTER_OPERATION_NOT_SUPPORTED once lock_table_names is through.
        let p = cx.on_table(Kind::AlterCopyLockNone, t)?;
        let effect = if cx.cat.exists(t) {
            Effect::Fail(ER_ALTER_OPERATION_NOT_SUPPORTED)
        } else {
            Effect::NeedTables(vec![t.clone()])
        };
        return cx.plan(Kind::AlterCopyLockNone, vec![p], effect, toks);
    }
    let p = cx.on_table(Kind::AlterKeys, t)?;
    cx.plan(
        Kind::AlterKeys,
        vec![p],
        Effect::NeedTables(vec![t.clone()]),
        toks,
    )
}

#[cfg(test)]
mod tests {
    use super::keys_only;

    fn w(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn keys_alone_and_with_algorithm_or_lock() {
        assert!(keys_only(&w("disable keys")));
        assert!(keys_only(&w(
            "enable keys , algorithm = inplace , lock = none"
        )));
        assert!(!keys_only(&w("add b int , disable keys")));
        assert!(!keys_only(&w("algorithm = inplace")));
    }
}
