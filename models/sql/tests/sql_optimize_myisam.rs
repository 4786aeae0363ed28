//! OPTIMIZE TABLE of a MyISAM table opens it twice (`mysql_admin_table`, sql/sql_admin.cc:
//! SW, then everything given back and SNRW): what it holds while it waits, as measured
//! (found/seed-370059, found/seed-221930-2).

use mdl_core::Outcome;
use mdl_sql::mapping::Mapping;
use mdl_sql::model::SqlModel;

fn model() -> SqlModel {
    SqlModel::new(Mapping::load().expect("statements.tsv"))
}

#[test]
fn behind_a_handler_it_waits_for_snrw_holding_only_the_schema() {
    let mut m = model();
    let a = m.add_session();
    let b = m.add_session();
    m.step(a, "HANDLER m1 OPEN").unwrap();
    assert_eq!(m.step(b, "OPTIMIZE TABLE m1"), Ok(Outcome::Waiting));
    let held: Vec<String> = m.locks_of(b).into_iter().collect();
    assert_eq!(held, vec!["SCHEMA test IX", "TABLE test.m1 SNRW (pending)"]);
}

#[test]
fn behind_a_backup_lock_it_waits_for_x_with_both_backup_locks() {
    let mut m = model();
    let a = m.add_session();
    let b = m.add_session();
    m.step(a, "BACKUP LOCK m1").unwrap();
    assert_eq!(m.step(b, "OPTIMIZE TABLE m1"), Ok(Outcome::Waiting));
    let held: Vec<String> = m.locks_of(b).into_iter().collect();
    assert_eq!(
        held,
        vec![
            "BACKUP - BACKUP_DDL",
            "BACKUP - BACKUP_DML",
            "SCHEMA test IX",
            "TABLE test.m1 SNRW",
            "TABLE test.m1 X (pending)"
        ]
    );
}

/// The reopen with SNRW is `lock_table_names` (sql/sql_base.cc): IX and SNRW, then a try
/// of BACKUP_DDL; behind a pending BACKUP STAGE START it gives the group back and waits
/// for BACKUP_DDL alone (found/seed-481800).
#[test]
fn behind_a_pending_backup_stage_it_waits_for_backup_ddl_holding_nothing() {
    let mut m = model();
    let a = m.add_session();
    let b = m.add_session();
    let c = m.add_session();
    m.step(a, "LOCK TABLES t2 WRITE, t1 WRITE").unwrap();
    assert_eq!(m.step(b, "BACKUP STAGE START"), Ok(Outcome::Waiting));
    assert_eq!(m.step(c, "OPTIMIZE TABLE m1"), Ok(Outcome::Waiting));
    let held: Vec<String> = m.locks_of(c).into_iter().collect();
    assert_eq!(held, vec!["BACKUP - BACKUP_DDL (pending)"]);
}
