//! CHECK VIEW and REPAIR VIEW (`classify/admin_view.rs`), played without a server
//! (measured on the server: `models/conformance/suite/admin-check-repair-view.mdl`).

use mdl_core::Outcome;
use mdl_sql::mapping::Mapping;
use mdl_sql::model::SqlModel;

fn model() -> SqlModel {
    SqlModel::new(Mapping::load().expect("statements.tsv"))
}

#[test]
fn check_view_reads_the_view_and_its_table_and_commits() {
    let mut m = model();
    let a = m.add_session();
    let b = m.add_session();
    m.step(a, "CREATE VIEW v1 AS SELECT * FROM t1").unwrap();
    m.step(b, "LOCK TABLES t1 WRITE").unwrap();
    m.step(a, "BEGIN").unwrap();
    m.step(a, "SELECT * FROM t0").unwrap();
    // The view's SR granted, its table's SR waits for the LOCK TABLES WRITE; the
    // implicit commit gave back t0's lock.
    assert_eq!(m.step(a, "CHECK VIEW v1"), Ok(Outcome::Waiting));
    let held: Vec<String> = m.locks_of(a).into_iter().collect();
    assert_eq!(
        held,
        vec![
            "TABLE test.t1 SR (pending)".to_string(),
            "TABLE test.v1 SR".to_string()
        ]
    );
    m.step(b, "UNLOCK TABLES").unwrap();
    assert!(m.locks_of(a).is_empty());
}

#[test]
fn repair_view_takes_no_read_write_and_the_backup_ddl_lock() {
    let mut m = model();
    let a = m.add_session();
    m.step(a, "CREATE VIEW v1 AS SELECT * FROM t1").unwrap();
    m.step(a, "CREATE VIEW v2 AS SELECT 1 AS a").unwrap();
    assert_eq!(m.step(a, "REPAIR VIEW v1 FROM MYSQL"), Ok(Outcome::Ok));
    assert_eq!(
        m.step(a, "REPAIR NO_WRITE_TO_BINLOG VIEW v1, v2"),
        Ok(Outcome::Ok)
    );
    assert_eq!(m.step(a, "CHECK VIEW v2 FOR UPGRADE"), Ok(Outcome::Ok));
    m.step(a, "FLUSH TABLES WITH READ LOCK").unwrap();
    assert_eq!(m.step(a, "CHECK VIEW v1"), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "REPAIR VIEW v1"), Ok(Outcome::Error));
}

#[test]
fn a_table_option_of_a_view_is_a_syntax_error_and_a_missing_name_is_an_error_row() {
    let mut m = model();
    let a = m.add_session();
    m.step(a, "CREATE VIEW v1 AS SELECT 1 AS a").unwrap();
    for bad in [
        "CHECK VIEW v1 QUICK",
        "CHECK VIEW v1 CHANGED",
        "REPAIR VIEW v1 USE_FRM",
        "REPAIR VIEW v1 EXTENDED",
    ] {
        assert_eq!(m.step(a, bad), Ok(Outcome::Error), "{bad}");
    }
    // A missing name: the view's locks, then its result row's error.
    assert_eq!(m.step(a, "REPAIR VIEW nosuch"), Ok(Outcome::Error));
    assert_eq!(m.step(a, "CHECK VIEW nosuch QUICK"), Ok(Outcome::Error));
    // A table, a view of two tables: not modelled.
    m.step(a, "CREATE VIEW v3 AS SELECT t1.a FROM t1, t2")
        .unwrap();
    for refused in ["CHECK VIEW t1", "CHECK VIEW v3"] {
        assert!(m.step(a, refused).is_err(), "{refused}");
    }
}
