//! The Sequence storage engine's tables `seq_1_to_10`, `seq_1_to_10_step_2`
//! (MariaDB `storage/sequence/sequence.cc`: `discover_table_existence` and
//! `discover_table` parse the name, so such a table exists in any schema, unless a table of
//! that name does; `ha_seq` reads only). The server opens one as any table
//! (`open_table`, sql/sql_base.cc, discovering its share), so a statement reading it takes
//! its usual table MDL on the name. Measured on 10.11.19 with `metadata_lock_info`: in a
//! transaction `SELECT * FROM seq_1_to_3` holds `TABLE test.seq_1_to_3 SR`,
//! `INSERT INTO t1 SELECT seq, seq FROM seq_1_to_3` SW on t1 and SR on seq_1_to_3,
//! `SELECT NEXT VALUE FOR s1 FROM seq_1_to_3` SW on s1 and SR on seq_1_to_3 (the step
//! form and a descending `seq_5_to_1` alike).
//!
//! Played: SELECT, INSERT / REPLACE ... SELECT, DO and SET reading them: the statement
//! classified over the catalog with each such table added (a table of its own, read with
//! the `select` row), the tables then dropped from the statement's needs (they always
//! exist). Refused: any other statement naming one (writes, DDL, LOCK TABLES, HANDLER:
//! the engine refuses writes, which the model does not follow), a schema-qualified name.

use super::{classify, kw_eq, Effect, Stmt, Tok};
use crate::catalog::{Catalog, Engine};
use crate::objects::Tbl;

/// A statement naming a Sequence engine table the catalog does not have, or `None`.
pub(super) fn classify_engine_tables(
    sql: &str,
    toks: &[Tok],
    db: &str,
    cat: &Catalog,
    has_row: &dyn Fn(&str) -> bool,
) -> Option<Result<Stmt, String>> {
    let mut seqs: Vec<Tbl> = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        let Some(name) = engine_table(t) else {
            continue;
        };
        let tbl = Tbl {
            db: db.to_owned(),
            name: name.to_owned(),
        };
        if cat.exists(&tbl) {
            continue;
        }
        if i > 0 && toks[i - 1] == Tok::P('.') {
            return Some(Err(refusal(sql, name, "named with its schema")));
        }
        if !seqs.contains(&tbl) {
            seqs.push(tbl);
        }
    }
    let first = seqs.first()?;
    let read_only = ["select", "insert", "replace", "do", "set"]
        .iter()
        .any(|k| toks.first().is_some_and(|t| kw_eq(t, k)));
    if !read_only {
        return Some(Err(refusal(sql, &first.name, "in this statement")));
    }
    let mut with = cat.clone();
    for t in &seqs {
        with.apply(&Effect::CreateTable {
            t: t.clone(),
            engine: Engine::InnoDb,
            if_not_exists: false,
            src: Vec::new(),
            partitioned: false,
            pk: None,
            no_columns: false,
            cols: None,
        });
    }
    Some(classify(sql, db, &with, has_row).and_then(|st| read_only_plan(sql, st, &seqs)))
}

/// The statement's plan with the engine's tables read only and not needed.
fn read_only_plan(sql: &str, st: Stmt, seqs: &[Tbl]) -> Result<Stmt, String> {
    let Stmt::Learned(mut p) = st else {
        return Err(refusal(sql, &seqs[0].name, "in this statement"));
    };
    let written = p.parts.iter().any(|part| {
        part.bind.t.as_ref().is_some_and(|t| seqs.contains(t))
            && part.kind != crate::kind::Kind::Select
    });
    if written || !p.lock_tables.is_empty() {
        return Err(refusal(sql, &seqs[0].name, "written or locked"));
    }
    match &mut p.effect {
        Effect::NeedTables(ts) => ts.retain(|t| !seqs.contains(t)),
        Effect::NeedSequences(ns) => ns.retain(|n| !seqs.contains(&n.t)),
        _ => return Err(refusal(sql, &seqs[0].name, "in this statement")),
    }
    Ok(Stmt::Learned(p))
}

fn refusal(sql: &str, name: &str, why: &str) -> String {
    format!(
        "`{sql}`: the Sequence engine's table `{name}` {why} is not modelled (read by \
         SELECT, INSERT ... SELECT, DO and SET it is)"
    )
}

/// The name of a Sequence engine table in a token, or `None`.
fn engine_table(t: &Tok) -> Option<&str> {
    let Tok::Word { text, .. } = t else {
        return None;
    };
    is_engine_table(text).then_some(text.as_str())
}

/// `seq_1_to_10`, `seq_1_to_10_step_2`: the name of a Sequence engine table
/// (`parse_table_name`, storage/sequence/sequence.cc; case-sensitive, as its `sscanf`).
/// The model's `open_table` finds such a table whatever the catalog says.
pub(crate) fn is_engine_table(text: &str) -> bool {
    let Some(rest) = text.strip_prefix("seq_") else {
        return false;
    };
    let parts: Vec<&str> = rest.split('_').collect();
    let digits = |x: &str| !x.is_empty() && x.bytes().all(|b| b.is_ascii_digit());
    match parts.as_slice() {
        [a, "to", b] => digits(a) && digits(b),
        [a, "to", b, "step", c] => digits(a) && digits(b) && digits(c),
        _ => false,
    }
}
