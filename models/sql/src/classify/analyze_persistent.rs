//! `ANALYZE TABLE ... PERSISTENT FOR ALL`: the admin open and analyze of a plain ANALYZE
//! (`mysql_admin_table`, sql/sql_admin.cc), then the engine-independent statistics
//! written to `mysql.table_stats`, `column_stats` and `index_stats`
//! (`update_statistics_for_table`, sql/sql_statistics.cc). Their open for write asks
//! for the BACKUP namespace's BACKUP_SYS_DML (the protection `open_table` takes for a
//! system table written), which waits behind another session's FTWRL while the
//! analyzed table's SR is held (measured: found/seed-421177). The learned rows
//! `analyze_persistent` and `analyze_persistent.myisam` hold those locks in the
//! server's order; this file only chooses them.

use super::{Cx, Part, Tbl};
use crate::kind::Kind;

/// The parts of `ANALYZE TABLE ts PERSISTENT FOR ALL`: each table's part of the
/// `analyze_persistent` rows (the tables are done one by one, as a plain ANALYZE's).
pub(super) fn parts(cx: &Cx, ts: &[Tbl]) -> Result<Vec<Part>, String> {
    ts.iter()
        .map(|t| cx.on_table(Kind::AnalyzePersistent, t))
        .collect()
}
