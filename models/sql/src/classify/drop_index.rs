//! `DROP INDEX IF EXISTS i ON t`: MariaDB's parser makes it the ALTER TABLE `t` DROP INDEX
//! IF EXISTS `i` (sql/sql_parse.cc, SQLCOM_DROP_INDEX: `mysql_alter_table` with the
//! statement's `Alter_info`), whose `handle_if_exists_options` drops the operation when
//! the index is not there (after SU and BACKUP_DDL). Played as that ALTER TABLE
//! (`alter_columns.rs` knows the fixture tables' keys; of a table whose keys the catalog
//! does not know the ALTER is refused).

use super::{Cur, Cx, Stmt};

/// The plan of `DROP INDEX IF EXISTS i ON t` (the cursor after `IF EXISTS`).
pub fn classify(cx: &Cx, c: &mut Cur) -> Result<Stmt, String> {
    let sql = cx.sql;
    let name = c.ident()?;
    c.expect("on")?;
    let t = c.table(cx.db)?;
    if !c.done() {
        return Err(format!(
            "`{sql}`: DROP INDEX IF EXISTS with ALGORITHM= or LOCK= is not modelled"
        ));
    }
    let alter = format!(
        "ALTER TABLE `{}`.`{}` DROP INDEX IF EXISTS `{}`",
        t.db, t.name, name
    );
    super::classify(&alter, cx.db, cx.cat, cx.has_row)
        .map_err(|e| format!("`{sql}`: as its ALTER TABLE: {e}"))
}
