//! OPTIMIZE TABLE of an InnoDB table (the `optimize` kind): three lock sequences, one after
//! the other, that the probes (which end the statement at its first wait) cannot put in
//! order, written from the server's source and checked by the measurements below.
//!
//! `mysql_admin_table` (sql/sql_admin.cc) opens the table for OPTIMIZE (TL_WRITE: SW, then
//! BACKUP_TRANS_DML); `ha_innobase::optimize` answers HA_ADMIN_TRY_ALTER, so the statement
//! commits, closes the table and gives its locks back (`trans_commit`,
//! `close_thread_tables`, `release_transactional_locks`), then `admin_recreate_table`
//! rebuilds it: `mysql_recreate_table` (sql/sql_table.cc) asks for SNW (not ALTER TABLE's
//! SU) and runs `mysql_alter_table`, in place for InnoDB (the `alter_inplace` steps: IX,
//! the table, the BACKUP_DDL back-off, X for the prepare, down to SU while InnoDB
//! rebuilds, X to commit), gives those back, and reopens the table to analyze it (SW and
//! BACKUP_TRANS_DML again) until its end.
//!
//! Measured on 10.11.19 (`performance_schema.metadata_locks` of a waiting OPTIMIZE): behind
//! another session's FTWRL it holds SW and waits for BACKUP_TRANS_DML; behind its LOCK
//! TABLES t1 WRITE it waits for SW; behind its SR it holds IX, SNW and BACKUP_DDL and waits
//! for X (no SW or BACKUP_TRANS_DML any more); once that X is granted and another session's
//! LOCK TABLES WRITE got in, it waits for SW again (the analyze).

use mdl_core::{Duration, LockType};
use mdl_sql::mapping::{Op, OpKind};

fn op(kind: OpKind, ns: &str, key: &str, ty: &str, dur: Duration, evidence: &str) -> Op {
    Op {
        op: kind,
        ns: ns.into(),
        key: key.into(),
        ty: LockType::parse(ty).expect("a built-in lock type"),
        dur,
        evidence: evidence.into(),
    }
}

/// The ops of OPTIMIZE TABLE of an InnoDB table: the open for OPTIMIZE, the rebuild, the
/// open for ANALYZE. `inplace`: the learned `alter_inplace` ops (the rebuild's steps).
pub(super) fn optimize_innodb(inplace: &[Op]) -> Vec<Op> {
    use Duration::{Statement, Transaction};
    let src = "source:sql_admin.cc:mysql_admin_table";
    let open = |ev: &str| {
        vec![
            op(OpKind::Acquire, "TABLE", "$t", "SW", Transaction, ev),
            op(
                OpKind::Acquire,
                "BACKUP",
                "-",
                "BACKUP_TRANS_DML",
                Statement,
                ev,
            ),
        ]
    };
    let mut ops = open("measured:suite/optimize-innodb-recreate.mdl");
    ops.push(op(OpKind::Release, "TABLE", "$t", "SW", Transaction, src));
    ops.push(op(
        OpKind::Release,
        "BACKUP",
        "-",
        "BACKUP_TRANS_DML",
        Statement,
        src,
    ));
    let rebuild = "source:sql_table.cc:mysql_recreate_table";
    for o in inplace {
        let mut o = o.clone();
        if o.op == OpKind::Bulk && o.key == "$t" && o.ty.abbrev() == "SU" {
            o.ty = LockType::parse("SNW").expect("a built-in lock type");
            o.evidence = rebuild.into();
        }
        ops.push(o);
    }
    ops.push(op(OpKind::Release, "TABLE", "$t", "X", Statement, rebuild));
    ops.push(op(
        OpKind::Release,
        "SCHEMA",
        "$db",
        "IX",
        Statement,
        rebuild,
    ));
    ops.push(op(
        OpKind::Release,
        "BACKUP",
        "-",
        "BACKUP_DDL",
        Statement,
        rebuild,
    ));
    ops.extend(open(src));
    ops
}

/// Writes the `optimize` row's ops from the `alter_inplace` row's (see the module
/// documentation); a table without either row is left as it is.
pub(super) fn fix_rows(m: &mut mdl_sql::mapping::Mapping) {
    let Some(inplace) = m
        .kinds
        .iter()
        .find(|r| r.name == "alter_inplace")
        .map(|r| r.ops.clone())
    else {
        return;
    };
    if let Some(r) = m.kinds.iter_mut().find(|r| r.name == "optimize") {
        r.ops = optimize_innodb(&inplace);
    }
    if let Some(r) = m.kinds.iter_mut().find(|r| r.name == "optimize.myisam") {
        myisam_reopen(&mut r.ops);
    }
}

/// OPTIMIZE TABLE of a MyISAM table: `mysql_admin_table` (sql/sql_admin.cc) opens it SW
/// (TL_WRITE), and as MyISAM cannot optimize beside writers it commits, closes the
/// table, gives its locks back and opens it again for SNRW (`lock_table_names`: the
/// schema's IX, then SNRW; `open_table`: BACKUP_DML again). The probes see only the
/// first wait of each; behind a reader the server holds the schema's IX alone while it
/// waits for SNRW (measured: found/seed-370059, and
/// suite/optimize-several-tables.mdl), and BACKUP_DML again once it has SNRW
/// (found/seed-221930-2). The releases go after the first open's BACKUP_DML, its second
/// BACKUP_DML after the SNRW; a row that has them already is left as it is.
fn myisam_reopen(ops: &mut Vec<Op>) {
    if ops.iter().any(|o| o.op == OpKind::Release) {
        return;
    }
    let Some(dml) = ops
        .iter()
        .position(|o| o.op == OpKind::Acquire && o.ty.abbrev() == "BACKUP_DML")
    else {
        return;
    };
    let ev = "measured:suite/optimize-several-tables.mdl";
    let sw = ops[..dml]
        .iter()
        .find(|o| o.key == "$t" && o.ty.abbrev() == "SW")
        .map(|o| o.dur);
    let mut at = dml + 1;
    if let Some(dur) = sw {
        ops.insert(at, op(OpKind::Release, "TABLE", "$t", "SW", dur, ev));
        at += 1;
    }
    let dur = ops[dml].dur;
    ops.insert(
        at,
        op(OpKind::Release, "BACKUP", "-", "BACKUP_DML", dur, ev),
    );
    if let Some(snrw) = ops
        .iter()
        .position(|o| o.key == "$t" && o.ty.abbrev() == "SNRW")
    {
        let again = "measured:found/seed-221930-2";
        let reopen = op(OpKind::Acquire, "BACKUP", "-", "BACKUP_DML", dur, again);
        ops.insert(snrw + 1, reopen);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mdl_sql::mapping::Mapping;

    #[test]
    fn the_committed_optimize_row_is_the_one_written_from_the_source() {
        let m = Mapping::load().unwrap();
        let mut fixed = m.clone();
        fix_rows(&mut fixed);
        let row = |m: &Mapping| m.kinds.iter().find(|r| r.name == "optimize").cloned();
        assert_eq!(row(&m), row(&fixed));
        let ops = row(&m).unwrap().ops;
        // The open for OPTIMIZE given back before the rebuild, the analyze's open last.
        assert_eq!(ops[2].op, OpKind::Release);
        assert_eq!(ops.last().unwrap().ty.abbrev(), "BACKUP_TRANS_DML");
        assert!(ops
            .iter()
            .any(|o| o.op == OpKind::Bulk && o.key == "$t" && o.ty.abbrev() == "SNW"));
    }

    #[test]
    fn a_myisam_optimize_gives_its_first_open_back_before_snrw() {
        let m = Mapping::load().unwrap();
        let r = m
            .kinds
            .iter()
            .find(|r| r.name == "optimize.myisam")
            .unwrap();
        let at = |op: OpKind, ty: &str| {
            r.ops
                .iter()
                .position(|o| o.op == op && o.ty.abbrev() == ty)
                .unwrap()
        };
        assert!(at(OpKind::Release, "SW") < at(OpKind::Upgrade, "SNRW"));
        assert!(at(OpKind::Release, "BACKUP_DML") < at(OpKind::Upgrade, "SNRW"));
        let reopen = r.ops.iter().rposition(|o| o.ty.abbrev() == "BACKUP_DML");
        assert_eq!(reopen, Some(at(OpKind::Upgrade, "SNRW") + 1));
        let mut again = r.ops.clone();
        myisam_reopen(&mut again);
        assert_eq!(again, r.ops);
    }
}
