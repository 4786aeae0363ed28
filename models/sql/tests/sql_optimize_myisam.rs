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
