//! Explicit partition selection in DML (`t PARTITION (p, ...)`, sql_yacc.yy
//! `opt_use_partition`) of a table that is not partitioned: the server opens the table
//! (its lock requested and granted as without the clause), then refuses it with
//! ER_PARTITION_CLAUSE_ON_NONPARTITIONED (sql/sql_base.cc, `open_and_process_table` →
//! `TABLE_LIST::... partition_names` check after `open_table`), and the failed
//! `open_tables` gives the statement's locks back (measured on 10.11.19: nothing held
//! after `SELECT * FROM t1 PARTITION (p2)` or `DELETE FROM t1 PARTITION (p2)` in a
//! transaction; suite/partition-select-nonpartitioned.mdl).

use super::{kw_eq, Cx, Effect, Tbl, Tok};

/// ER_PARTITION_CLAUSE_ON_NONPARTITIONED.
pub const ER_PARTITION_CLAUSE_ON_NONPARTITIONED: u32 = 1747;

/// The tables of `toks` written with a partition selection (`name PARTITION (`).
pub(super) fn selected(toks: &[Tok], db: &str) -> Vec<Tbl> {
    let mut out = Vec::new();
    for i in 1..toks.len() {
        if !kw_eq(&toks[i], "partition") || toks.get(i + 1) != Some(&Tok::P('(')) {
            continue;
        }
        let Tok::Word { text: name, .. } = &toks[i - 1] else {
            continue;
        };
        let schema = match (
            i.checked_sub(2).map(|j| &toks[j]),
            i.checked_sub(3).map(|j| &toks[j]),
        ) {
            (Some(Tok::P('.')), Some(Tok::Word { text, .. })) => text.clone(),
            _ => db.to_owned(),
        };
        out.push(Tbl {
            db: schema,
            name: name.clone(),
        });
    }
    out
}

/// A DML statement's effect: ER_PARTITION_CLAUSE_ON_NONPARTITIONED once its locks are
/// taken when every table exists and one it selects partitions of has none; else as it
/// was (a missing table's ER_NO_SUCH_TABLE; a partitioned table's partition names are
/// not known to the catalog: played as without the clause).
pub(super) fn effect(cx: &Cx, effect: Effect, toks: &[Tok]) -> Effect {
    let dml = ["select", "insert", "replace", "update", "delete", "load"]
        .iter()
        .any(|k| toks.first().is_some_and(|t| kw_eq(t, k)));
    let Effect::NeedTables(ts) = &effect else {
        return effect;
    };
    if !dml || !ts.iter().all(|t| cx.cat.exists(t)) {
        return effect;
    }
    let nonpart = selected(toks, cx.db)
        .iter()
        .any(|t| ts.contains(t) && !cx.cat.is_partitioned(t));
    if nonpart {
        Effect::Fail(ER_PARTITION_CLAUSE_ON_NONPARTITIONED)
    } else {
        effect
    }
}
