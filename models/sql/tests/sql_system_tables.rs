//! The system schemas' tables, the SHOW forms that open none and GRANT with a column
//! list, played without a server (measured on the server:
//! `models/conformance/suite/system-tables-and-show-forms.mdl`,
//! `grant-column-privilege.mdl`).

use mdl_core::Outcome;
use mdl_sql::mapping::Mapping;
use mdl_sql::model::SqlModel;

fn model() -> SqlModel {
    SqlModel::new(Mapping::load().expect("statements.tsv"))
}

#[test]
fn a_system_table_is_read_and_not_locked_under_lock_tables() {
    let mut m = model();
    let a = m.add_session();
    assert_eq!(m.step(a, "BEGIN"), Ok(Outcome::Ok));
    assert_eq!(
        m.step(a, "SELECT user FROM mysql.user WHERE user = 'root'"),
        Ok(Outcome::Ok)
    );
    assert_eq!(
        m.step(
            a,
            "SELECT * FROM t1 JOIN information_schema.tables v ON (t1.b = v.table_rows)"
        ),
        Ok(Outcome::Ok)
    );
    // The server's own locks are not shown (the harness does not compare them).
    let held: Vec<String> = m.locks_of(a).into_iter().collect();
    assert_eq!(held, vec!["TABLE test.t1 SR".to_string()]);
    m.step(a, "COMMIT").unwrap();
    m.step(a, "LOCK TABLES t2 READ").unwrap();
    assert_eq!(
        m.step(
            a,
            "SELECT count(*) FROM performance_schema.setup_instruments"
        ),
        Ok(Outcome::Error)
    );
    // `sys`'s views are the server's too (ER_TABLE_NOT_LOCKED here, measured).
    assert_eq!(m.step(a, "SELECT * FROM sys.version"), Ok(Outcome::Error));
    m.step(a, "UNLOCK TABLES").unwrap();
    assert_eq!(m.step(a, "SELECT * FROM sys.version"), Ok(Outcome::Ok));
}

#[test]
fn a_system_table_the_server_does_not_have_is_no_such_table() {
    // Measured on 10.11.19 (`suite/system-tables-missing.mdl`): ER_NO_SUCH_TABLE after the
    // locks, the statement's locks given back, the transaction's kept.
    let mut m = model();
    let a = m.add_session();
    m.step(a, "BEGIN").unwrap();
    m.step(a, "SELECT * FROM t0").unwrap();
    assert_eq!(
        m.step(a, "SELECT * FROM t1, mysql.wsrep_streaming_log"),
        Ok(Outcome::Error)
    );
    let held: Vec<String> = m.locks_of(a).into_iter().collect();
    assert_eq!(held, vec!["TABLE test.t0 SR".to_string()]);
    assert_eq!(
        m.step(a, "SELECT * FROM sys.no_such_view"),
        Ok(Outcome::Error)
    );
    assert_eq!(
        m.step(a, "SELECT * FROM performance_schema.processlist"),
        Ok(Outcome::Error)
    );
    assert_eq!(m.step(a, "DESC sys.host_summary"), Ok(Outcome::Ok));
    assert_eq!(
        m.step(a, "DESC mysql.wsrep_streaming_log"),
        Ok(Outcome::Error)
    );
}

#[test]
fn show_forms_of_no_table() {
    let mut m = model();
    let a = m.add_session();
    for ok in [
        "SHOW PROCEDURE STATUS",
        "SHOW FUNCTION STATUS LIKE 'f%'",
        "SHOW EVENTS FROM test",
        "SHOW PROFILES",
        "SHOW CONTRIBUTORS",
        "SHOW COUNT(*) WARNINGS",
    ] {
        assert_eq!(m.step(a, ok), Ok(Outcome::Ok), "{ok}");
    }
    for err in [
        "SHOW TABLE TYPES",
        "SHOW PROCEDURE CODE p1",
        "SHOW EVENTS FROM ``",
    ] {
        assert_eq!(m.step(a, err), Ok(Outcome::Error), "{err}");
    }
}

#[test]
fn grant_with_a_column_list_opens_its_table() {
    let mut m = model();
    let a = m.add_session();
    let b = m.add_session();
    m.step(a, "CREATE USER u1").unwrap();
    assert_eq!(
        m.step(a, "GRANT SELECT (a), UPDATE (b) ON t1 TO u1"),
        Ok(Outcome::Ok)
    );
    assert_eq!(
        m.step(a, "REVOKE SELECT (b) ON t1 FROM u1"),
        Ok(Outcome::Error)
    );
    assert_eq!(
        m.step(a, "REVOKE SELECT (a) ON t1 FROM u1"),
        Ok(Outcome::Ok)
    );
    assert_eq!(
        m.step(a, "GRANT SELECT (c) ON t1 TO u1"),
        Ok(Outcome::Error)
    );
    assert_eq!(
        m.step(a, "GRANT SELECT (a) ON t3 TO u1"),
        Ok(Outcome::Error)
    );
    m.step(b, "LOCK TABLES t1 WRITE").unwrap();
    assert_eq!(
        m.step(a, "GRANT SELECT (b) ON t1 TO u1"),
        Ok(Outcome::Waiting)
    );
    m.step(b, "UNLOCK TABLES").unwrap();
    assert_eq!(m.take_events(), vec![(a, Outcome::Ok)]);
}
