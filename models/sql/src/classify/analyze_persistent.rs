//! `ANALYZE TABLE ... PERSISTENT FOR ALL`: the admin open and analyze of a plain ANALYZE
//! (`mysql_admin_table`, sql/sql_admin.cc), then the engine-independent statistics
//! written to `mysql.table_stats`, `column_stats` and `index_stats`
//! (`update_statistics_for_table`, sql/sql_statistics.cc). Their open for write asks
//! for the BACKUP namespace's BACKUP_SYS_DML (the protection `open_table` takes for a
//! system table written), which waits behind another session's FTWRL while the
//! analyzed table's SR is held (measured: found/seed-421177). The learned rows
//! `analyze_persistent` and `analyze_persistent.myisam` hold those locks in the
//! server's order; this file only chooses them.

use super::{Cur, Cx, Part, Tbl};
use crate::kind::Kind;

/// The parts of `ANALYZE TABLE ts PERSISTENT FOR ALL`: each table's part of the
/// `analyze_persistent` rows (the tables are done one by one, as a plain ANALYZE's).
pub(super) fn parts(cx: &Cx, ts: &[Tbl]) -> Result<Vec<Part>, String> {
    ts.iter()
        .map(|t| cx.on_table(Kind::AnalyzePersistent, t))
        .collect()
}

/// After `PERSISTENT FOR`: `ALL`, or `COLUMNS (names) | ALL INDEXES (names) | ALL`
/// (sql_yacc.yy, `persistent_stat_spec`). A named column or index the table does not
/// have makes `mysql_admin_table` skip the statistics (HA_ADMIN_INVALID in the result
/// row, sql/sql_admin.cc): not modelled, refused. Of a table that is not there the open
/// fails first, whatever the names.
pub(super) fn spec(cx: &Cx, c: &mut Cur, ts: &[Tbl]) -> Result<(), String> {
    if c.eat("all") {
        return Ok(());
    }
    c.expect("columns")?;
    let cols = names(c)?;
    c.expect("indexes")?;
    let keys = names(c)?;
    for t in ts {
        let Some(def) = cx.cat.columns(t) else {
            if cx.cat.exists(t) {
                return Err(format!(
                    "`{}`: ANALYZE ... PERSISTENT FOR COLUMNS of a table whose columns the \
                     model does not know is not modelled",
                    cx.sql
                ));
            }
            continue;
        };
        let has_col = |n: &String| def.cols.iter().any(|c| c.name.eq_ignore_ascii_case(n));
        let has_key = |n: &String| def.keys.iter().any(|k| k.name.eq_ignore_ascii_case(n));
        let col_missing = cols.iter().flatten().find(|n| !has_col(n));
        let key_missing = keys.iter().flatten().find(|n| !has_key(n));
        if let Some(n) = col_missing.or(key_missing) {
            return Err(format!(
                "`{}`: ANALYZE ... PERSISTENT FOR a column or index `{n}` the table does not \
                 have (HA_ADMIN_INVALID, no statistics written) is not modelled",
                cx.sql
            ));
        }
    }
    Ok(())
}

/// `ALL` (None) or `( name, ... )`, lower case (the server compares names case-
/// insensitively).
fn names(c: &mut Cur) -> Result<Option<Vec<String>>, String> {
    if c.eat("all") {
        return Ok(None);
    }
    if !c.eat_p('(') {
        return Err(format!("expected `(` or ALL in `{}`", c.sql));
    }
    let mut out = Vec::new();
    while !c.eat_p(')') {
        if !out.is_empty() && !c.eat_p(',') {
            return Err(format!("expected `,` in `{}`", c.sql));
        }
        out.push(c.ident()?.to_ascii_lowercase());
    }
    Ok(Some(out))
}
