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

/// OPTIMIZE TABLE of a MyISAM table (the `optimize.myisam` row): `mysql_admin_table`
/// (sql/sql_admin.cc) opens it for TL_WRITE (SW, then BACKUP_DML); MyISAM has no
/// HA_CONCURRENT_OPTIMIZE, so the loop around `open_only_one_table` rolls back, closes the
/// table, gives every lock back (`release_transactional_locks`; the statement's
/// BACKUP_DML too) and opens it again with SNRW, which takes BACKUP_DML again after it.
/// The probes' blockers see the SNRW wait as an upgrade of the SW; measured behind
/// another session's HANDLER (SR): the server waits for SNRW holding only the schema's IX
/// (found/seed-370059), and behind a BACKUP LOCK's SH it holds BACKUP_DML and BACKUP_DDL
/// while it waits for X (found/seed-221930-2). Writes the row so; a row without the
/// learned upgrade to SNRW (written already) is left as it is.
fn optimize_myisam_reopen(ops: &mut Vec<Op>) {
    let Some(up) = ops
        .iter()
        .position(|o| o.op == OpKind::Upgrade && o.key == "$t" && o.ty.abbrev() == "SNRW")
    else {
        return;
    };
    let src = "source:sql_admin.cc:mysql_admin_table";
    ops[up].op = OpKind::Acquire;
    // The schema's IX just before the SNRW is the second open's (lock_table_names).
    let first = if up > 0 && ops[up - 1].ns == "SCHEMA" {
        up - 1
    } else {
        up
    };
    let releases: Vec<Op> = ops[..first]
        .iter()
        .filter(|o| o.op == OpKind::Acquire)
        .map(|o| op(OpKind::Release, &o.ns, &o.key, o.ty.abbrev(), o.dur, src))
        .collect();
    let n = releases.len();
    ops.splice(first..first, releases);
    let dml = op(
        OpKind::Acquire,
        "BACKUP",
        "-",
        "BACKUP_DML",
        Duration::Statement,
        src,
    );
    ops.insert(up + n + 1, dml);
}

/// The second open of a MyISAM OPTIMIZE (SNRW, a lock of SU or stronger) goes through
/// `lock_table_names` (sql/sql_base.cc): the schema's IX and the SNRW in one
/// `acquire_locks`, then `try_acquire_lock` of BACKUP_DDL; when that is busy (another
/// session's FTWRL or BACKUP STAGE, granted or pending) it rolls back to its savepoint,
/// waits for BACKUP_DDL alone and starts again. Only then `open_table` takes the
/// statement's BACKUP_DML for the table opened for write. Measured: found/seed-481800
/// (behind a pending BACKUP STAGE START the server waits for BACKUP_DDL holding nothing;
/// the row had the BACKUP_DML first and BACKUP_DDL as a plain wait). Writes the row's
/// second open so: IX and SNRW a `bulk` group, BACKUP_DDL its `backoff`, then BACKUP_DML
/// (idempotent: a row written so is left as it is).
fn optimize_myisam_lock_table_names(ops: &mut Vec<Op>) {
    let Some(snrw) = ops
        .iter()
        .rposition(|o| o.key == "$t" && o.ty.abbrev() == "SNRW" && o.op != OpKind::Release)
    else {
        return;
    };
    let Some(ddl) = ops
        .iter()
        .position(|o| o.ns == "BACKUP" && o.ty.abbrev() == "BACKUP_DDL" && o.op != OpKind::Release)
    else {
        return;
    };
    let src = "source:sql_base.cc:lock_table_names";
    ops[snrw].op = OpKind::Bulk;
    if snrw > 0 && ops[snrw - 1].ns == "SCHEMA" {
        ops[snrw - 1].op = OpKind::Bulk;
    }
    let mut backoff = ops.remove(ddl);
    backoff.op = OpKind::Backoff;
    backoff.evidence = src.into();
    let at = if ddl < snrw { snrw } else { snrw + 1 };
    ops.insert(at, backoff);
}

/// Writes the `optimize` row's ops from the `alter_inplace` row's (see the module
/// documentation) and the `optimize.myisam` row's second open; a table without those rows
/// is left as it is.
pub(super) fn fix_rows(m: &mut mdl_sql::mapping::Mapping) {
    if let Some(r) = m.kinds.iter_mut().find(|r| r.name == "optimize.myisam") {
        optimize_myisam_reopen(&mut r.ops);
        optimize_myisam_lock_table_names(&mut r.ops);
    }
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use mdl_sql::mapping::Mapping;

    #[test]
    fn the_committed_myisam_optimize_row_opens_the_table_twice() {
        let m = Mapping::load().unwrap();
        let mut fixed = m.clone();
        fix_rows(&mut fixed);
        let row = |m: &Mapping| {
            m.kinds
                .iter()
                .find(|r| r.name == "optimize.myisam")
                .cloned()
        };
        assert_eq!(row(&m), row(&fixed));
        let ops: Vec<String> = row(&m)
            .unwrap()
            .ops
            .iter()
            .map(|o| format!("{:?} {} {}", o.op, o.ns, o.ty.abbrev()))
            .collect();
        let at = |s: &str| ops.iter().position(|o| o == s);
        // SW and BACKUP_DML given back before the schema's IX and the SNRW are asked for.
        assert!(at("Release TABLE SW") < at("Bulk SCHEMA IX"));
        assert!(at("Release BACKUP BACKUP_DML") < at("Bulk TABLE SNRW"));
        assert!(!ops.iter().any(|o| o.starts_with("Upgrade TABLE SNRW")));
        // lock_table_names' back-off for BACKUP_DDL, then open_table's BACKUP_DML
        // (found/seed-481800).
        let dml_again = ops.iter().rposition(|o| o == "Acquire BACKUP BACKUP_DML");
        assert!(at("Bulk TABLE SNRW") < at("Backoff BACKUP BACKUP_DDL"));
        assert!(at("Backoff BACKUP BACKUP_DDL") < dml_again);
    }

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
    fn the_learned_second_open_becomes_lock_table_names_back_off() {
        // As the learner writes it before fix_rows: IX, SNRW, BACKUP_DML, BACKUP_DDL, X.
        let d = Duration::Statement;
        let mut ops = vec![
            op(OpKind::Acquire, "SCHEMA", "$db", "IX", d, "e"),
            op(OpKind::Acquire, "TABLE", "$t", "SNRW", d, "e"),
            op(OpKind::Acquire, "BACKUP", "-", "BACKUP_DML", d, "e"),
            op(OpKind::Acquire, "BACKUP", "-", "BACKUP_DDL", d, "e"),
            op(OpKind::Upgrade, "TABLE", "$t", "X", d, "e"),
        ];
        optimize_myisam_lock_table_names(&mut ops);
        let shape: Vec<String> = ops
            .iter()
            .map(|o| format!("{:?} {}", o.op, o.ty.abbrev()))
            .collect();
        let want = [
            "Bulk IX",
            "Bulk SNRW",
            "Backoff BACKUP_DDL",
            "Acquire BACKUP_DML",
            "Upgrade X",
        ];
        assert_eq!(shape, want);
        let again = ops.clone();
        optimize_myisam_lock_table_names(&mut ops);
        assert_eq!(ops, again);
    }
}
