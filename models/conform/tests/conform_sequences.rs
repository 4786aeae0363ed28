//! Sequences in the SQL model, without a server: what the server showed in
//! `models/conformance/suite/sequence-*.mdl` (MariaDB 10.11), through the public API.

use mdl_conform::mapping::Mapping;
use mdl_conform::model::SqlModel;
use mdl_core::Outcome;

fn model() -> SqlModel {
    SqlModel::new(Mapping::load().expect("statements.tsv"))
}

fn held(m: &SqlModel, s: usize) -> Vec<String> {
    m.locks_of(s).into_iter().collect()
}

#[test]
fn nextval_holds_sw_and_lastval_sr_to_the_end_of_the_transaction() {
    let mut m = model();
    let a = m.add_session();
    let b = m.add_session();
    m.setup("CREATE SEQUENCE s1").unwrap();
    m.setup("CREATE SEQUENCE s2").unwrap();
    m.step(a, "BEGIN").unwrap();
    assert_eq!(m.step(a, "SELECT NEXTVAL(s1)"), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "SELECT PREVIOUS VALUE FOR s2"), Ok(Outcome::Ok));
    assert_eq!(held(&m, a), vec!["TABLE test.s1 SW", "TABLE test.s2 SR"]);
    // Two sessions' NEXTVAL do not wait for each other; ALTER SEQUENCE (X) does.
    assert_eq!(m.step(b, "SELECT NEXT VALUE FOR s1"), Ok(Outcome::Ok));
    assert_eq!(
        m.step(b, "ALTER SEQUENCE s1 RESTART 5"),
        Ok(Outcome::Waiting)
    );
    assert_eq!(m.step(a, "COMMIT"), Ok(Outcome::Ok));
    assert!(!m.is_waiting(b));
}

#[test]
fn a_statements_tables_are_locked_before_its_sequences() {
    let mut m = model();
    let a = m.add_session();
    let b = m.add_session();
    m.setup("CREATE SEQUENCE s1").unwrap();
    m.step(b, "LOCK TABLES s1 WRITE").unwrap();
    assert_eq!(
        m.step(a, "INSERT INTO t1 (b) VALUES (NEXTVAL(s1))"),
        Ok(Outcome::Waiting)
    );
    // (As measured: the INSERT's BACKUP lock comes with its table's open.)
    assert_eq!(
        held(&m, a),
        vec![
            "BACKUP - BACKUP_TRANS_DML",
            "TABLE test.s1 SW (pending)",
            "TABLE test.t1 SW"
        ]
    );
}

#[test]
fn sequence_errors_are_the_servers() {
    let mut m = model();
    let a = m.add_session();
    let err = |m: &mut SqlModel, sql: &str| {
        assert_eq!(m.step(a, sql), Ok(Outcome::Error), "{sql}");
        m.session(a).last_error
    };
    assert_eq!(err(&mut m, "SELECT NEXTVAL(t1)"), Some(4089));
    assert_eq!(err(&mut m, "SELECT LASTVAL(nosuch)"), Some(4091));
    assert_eq!(err(&mut m, "ALTER SEQUENCE t1 RESTART 1"), Some(4089));
    assert_eq!(err(&mut m, "SHOW CREATE SEQUENCE nosuch"), Some(1146));
    assert_eq!(err(&mut m, "DROP SEQUENCE nosuch"), Some(4091));
    m.step(a, "CREATE SEQUENCE s1").unwrap();
    assert_eq!(err(&mut m, "CREATE SEQUENCE s1"), Some(1050));
    // ER_NOT_SEQUENCE2 before ER_UNKNOWN_SEQUENCES; the list's sequences are dropped.
    assert_eq!(err(&mut m, "DROP SEQUENCE s1, nosuch, t1"), Some(4090));
    assert_eq!(err(&mut m, "SELECT NEXTVAL(s1)"), Some(4091));
    assert_eq!(m.step(a, "DROP SEQUENCE IF EXISTS nosuch"), Ok(Outcome::Ok));
}

#[test]
fn like_rename_and_replace_keep_track_of_sequences() {
    let mut m = model();
    let a = m.add_session();
    m.step(a, "CREATE SEQUENCE s1").unwrap();
    assert_eq!(m.step(a, "CREATE TABLE s2 LIKE s1"), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "RENAME TABLE s2 TO s3"), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "SELECT NEXTVAL(s3)"), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "CREATE OR REPLACE SEQUENCE t1"), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "SELECT SETVAL(t1, 10)"), Ok(Outcome::Ok));
    assert_eq!(
        m.step(a, "CREATE OR REPLACE TABLE s3 (a INT)"),
        Ok(Outcome::Ok)
    );
    assert_eq!(m.step(a, "SELECT NEXTVAL(s3)"), Ok(Outcome::Error));
    assert_eq!(m.session(a).last_error, Some(4089));
}

#[test]
fn lock_tables_read_of_a_sequence_keeps_sr() {
    let mut m = model();
    let a = m.add_session();
    let b = m.add_session();
    m.setup("CREATE SEQUENCE s1").unwrap();
    m.step(a, "LOCK TABLES s1 READ").unwrap();
    assert_eq!(held(&m, a), vec!["TABLE test.s1 SR"]);
    assert_eq!(m.step(a, "SELECT NEXTVAL(s1)"), Ok(Outcome::Error));
    assert_eq!(m.session(a).last_error, Some(1099));
    assert_eq!(m.step(b, "SELECT NEXTVAL(s1)"), Ok(Outcome::Ok));
}

#[test]
fn own_ftwrl_refuses_nextval_and_not_lastval() {
    let mut m = model();
    let a = m.add_session();
    m.setup("CREATE SEQUENCE s1").unwrap();
    m.step(a, "FLUSH TABLES WITH READ LOCK").unwrap();
    assert_eq!(m.step(a, "SELECT NEXTVAL(s1)"), Ok(Outcome::Error));
    assert_eq!(m.session(a).last_error, Some(1223));
    assert_eq!(m.step(a, "SELECT LASTVAL(s1)"), Ok(Outcome::Ok));
}

#[test]
fn sequence_functions_in_table_ddl_are_refused() {
    let mut m = model();
    let a = m.add_session();
    m.setup("CREATE SEQUENCE s1").unwrap();
    let e = m
        .step(a, "CREATE TABLE t3 (a INT DEFAULT NEXTVAL(s1))")
        .unwrap_err();
    assert!(
        e.contains("sequence function in CREATE / ALTER TABLE"),
        "{e}"
    );
}
