//! `CREATE OR REPLACE TABLE t (..., FOREIGN KEY ... REFERENCES parent ...) ENGINE=InnoDB`
//! of a table that exists: the old table is dropped under its X and the new one created
//! (`mysql_create_table_no_lock` with `or_replace()`, sql/sql_table.cc), and as for
//! CREATE TABLE (`classify/fk.rs`) the parent takes no lock (measured on 10.11.19:
//! `suite/fk-myisam-parent.mdl`, the statement does not wait for LOCK TABLES of the
//! parent); the new table is a child of its parents afterwards.
//!
//! Refused by name: a parent InnoDB does not find (the old table is dropped, then the
//! create fails: what is left is not measured), and an old table that is already the
//! child or the parent of a key (its keys are dropped with it, or the drop fails).

use super::{Catalog, Effect, Plan, Tbl};
use crate::objects::{Engine, ForeignKey};

/// Takes the keys off the plan of the CREATE inside a CREATE OR REPLACE of `t`, a table
/// that exists: `None` when it declares none.
pub(super) fn keys(
    sql: &str,
    t: &Tbl,
    cat: &Catalog,
    p: &mut Plan,
) -> Result<Option<Vec<ForeignKey>>, String> {
    let Effect::WithFks(inner, fks) = &p.effect else {
        return Ok(None);
    };
    let (inner, fks) = (inner.as_ref().clone(), fks.clone());
    if cat.has_fk(t) || cat.is_parent(t) {
        return Err(format!(
            "`{sql}`: CREATE OR REPLACE of a table of a foreign key, with foreign keys, is \
             not modelled"
        ));
    }
    if let Some(k) = fks
        .iter()
        .find(|k| !cat.is_table(&k.parent) || cat.engine_exact(&k.parent) != Some(Engine::InnoDb))
    {
        return Err(format!(
            "`{sql}`: CREATE OR REPLACE with a foreign key to `{}`, which is not an InnoDB \
             table of the catalog (the old table dropped, then the create fails), is not \
             modelled",
            k.parent
        ));
    }
    p.effect = inner;
    Ok(Some(fks))
}
