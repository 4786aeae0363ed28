//! `ANALYZE TABLE m PERSISTENT FOR ALL` of a MyISAM table whose wait for the statistics
//! tables is killed or times out ends OK: `update_statistics_for_table`
//! (MariaDB `sql/sql_statistics.cc`) opens `mysql.table_stats`, `column_stats` and
//! `index_stats` with `open_stat_tables`, which pushes a `Dummy_error_handler` (the
//! open's error is not reported), and returns 0 when that open fails, so
//! `mysql_admin_table` (sql/sql_admin.cc) answers the table's row as analyzed. The
//! open's wait is the `analyze_persistent.myisam` row's BACKUP_SYS_DML (behind another
//! session's FTWRL or BACKUP STAGE BLOCK_COMMIT). Measured on 10.11.19: random seed
//! 490706 (found/seed-490706.mdl: FTWRL, killed) and its `-2` (a timeout, BLOCK_COMMIT;
//! an InnoDB table's killed ANALYZE ... PERSISTENT, whose row waits for BACKUP_COMMIT,
//! stays killed).

use super::{Run, Then};
use crate::compose::Step;
use crate::kind::Kind;
use mdl_core::Outcome;

/// The outcome a statement ending with `out` reports: OK for ANALYZE ... PERSISTENT
/// whose wait for BACKUP_SYS_DML was killed or timed out.
pub(super) fn stat_tables_open_failed(run: &Run, out: Outcome) -> Outcome {
    let analyze = matches!(&run.then, Then::Plan(p) if p.kind == Kind::AnalyzePersistent);
    let on_sys_dml = run.waiting.as_ref().is_some_and(
        |w| matches!(&w.step, Step::Acquire { ty, .. } if ty.abbrev() == "BACKUP_SYS_DML"),
    );
    if analyze && on_sys_dml && matches!(out, Outcome::Killed | Outcome::Timeout) {
        Outcome::Ok
    } else {
        out
    }
}
