//! Statements that the session's own BACKUP STAGE refuses (ER_BACKUP_LOCK_IS_ACTIVE)
//! before they open any table, so they close none of the session's HANDLERs another
//! session waits for (`mysql_ha_flush` runs at the start of `open_tables`, sql/sql_base.cc):
//! LOCK TABLES (`mysql_execute_command`, SQLCOM_LOCK_TABLES, sql/sql_parse.cc), FLUSH
//! TABLES WITH READ LOCK (`reload_acl_and_cache`, sql/sql_reload.cc) and ANALYZE TABLE
//! (`Sql_cmd_analyze_table::execute`, sql/sql_admin.cc: `has_read_only_protection`
//! first). The DML and DDL it refuses find out in `open_tables`, after the flush.
//! Measured on 10.11.19 with a HANDLER open and another session's LOCK TABLES WRITE
//! waiting for it: found/seed-431173 and its `-2`.

use super::SqlModel;
use crate::classify::Stmt;
use crate::kind::Kind;

/// ER_BACKUP_LOCK_IS_ACTIVE.
const ER_BACKUP_LOCK_IS_ACTIVE: u32 = 4145;

impl SqlModel {
    /// The statement is one the session's BACKUP STAGE refuses before it opens tables.
    pub(super) fn backup_stage_refuses_early(&self, s: usize, st: &Stmt) -> bool {
        let Stmt::Learned(p) = st else {
            return false;
        };
        let early = p.kind.is_lock_tables()
            || p.kind.is_analyze()
            || matches!(p.kind, Kind::Ftwrl | Kind::FtwrlTable);
        let Some((b, _, _)) = &self.sessions[s].session.backup else {
            return false;
        };
        if !early {
            return false;
        }
        let state = format!("bs_{}", b.as_str().trim_start_matches("backup_"));
        p.parts.iter().any(|x| {
            self.map
                .rule(&state, &x.row)
                .or_else(|| self.map.rule(&state, x.kind.as_str()))
                .is_some_and(|r| r.error == Some(ER_BACKUP_LOCK_IS_ACTIVE))
        })
    }
}
