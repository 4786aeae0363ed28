//! Issue 27's statement families in the SQL model, without a server: what the server
//! showed in `models/conformance/suite/` (savepoint-*, temp-*, prepare-*, accounts-*,
//! show-*, set-statement-and-transaction, kill-query-as-sql), through the public API.

use mdl_conform::scenario;
use mdl_conform::ConformError;
use mdl_core::Outcome;
use mdl_sql::mapping::Mapping;
use mdl_sql::model::SqlModel;

fn model() -> SqlModel {
    SqlModel::new(Mapping::load().expect("statements.tsv"))
}

fn held(m: &SqlModel, s: usize) -> Vec<String> {
    m.locks_of(s).into_iter().collect()
}

#[test]
fn rollback_to_savepoint_gives_back_the_locks_taken_since() {
    let mut m = model();
    let a = m.add_session();
    m.step(a, "BEGIN").unwrap();
    m.step(a, "SELECT * FROM t1").unwrap();
    m.step(a, "SAVEPOINT sv").unwrap();
    m.step(a, "SELECT * FROM t2").unwrap();
    m.step(a, "HANDLER m1 OPEN").unwrap();
    assert_eq!(m.step(a, "ROLLBACK TO SAVEPOINT sv"), Ok(Outcome::Ok));
    // t2's SR is gone; t1's (before the savepoint) and the HANDLER's (explicit) stay.
    assert_eq!(held(&m, a), vec!["TABLE test.m1 SR", "TABLE test.t1 SR"]);
    assert_eq!(m.step(a, "RELEASE SAVEPOINT sv"), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "ROLLBACK TO sv"), Ok(Outcome::Error));
    assert_eq!(m.session(a).last_error, Some(1305));
}

#[test]
fn an_innodb_write_before_the_savepoint_keeps_every_lock() {
    let mut m = model();
    let a = m.add_session();
    m.step(a, "BEGIN").unwrap();
    m.step(a, "INSERT INTO t1 (b) VALUES (1)").unwrap();
    m.step(a, "SAVEPOINT sv").unwrap();
    m.step(a, "SELECT * FROM t2").unwrap();
    m.step(a, "ROLLBACK TO SAVEPOINT sv").unwrap();
    assert_eq!(held(&m, a), vec!["TABLE test.t1 SW", "TABLE test.t2 SR"]);
    // Outside a transaction a savepoint is not set.
    m.step(a, "COMMIT").unwrap();
    m.step(a, "SAVEPOINT s2").unwrap();
    assert_eq!(m.step(a, "ROLLBACK TO s2"), Ok(Outcome::Error));
}

#[test]
fn a_temporary_table_takes_no_lock_and_shadows_the_base_table() {
    let mut m = model();
    let a = m.add_session();
    let b = m.add_session();
    m.step(a, "CREATE TEMPORARY TABLE t1 (a INT)").unwrap();
    m.step(b, "LOCK TABLES t1 WRITE").unwrap();
    assert_eq!(m.step(a, "SELECT * FROM t1"), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "BEGIN"), Ok(Outcome::Ok));
    m.step(a, "SELECT * FROM t2").unwrap();
    m.step(a, "DROP TEMPORARY TABLE t1").unwrap();
    assert_eq!(held(&m, a), vec!["TABLE test.t2 SR"]);
    // Now t1 is the base table again.
    assert_eq!(m.step(a, "SELECT * FROM t1"), Ok(Outcome::Waiting));
    m.step(b, "UNLOCK TABLES").unwrap();
    assert_eq!(m.take_events(), vec![(a, Outcome::Ok)]);
}

#[test]
fn execute_plays_the_prepared_statement() {
    let mut m = model();
    let a = m.add_session();
    let b = m.add_session();
    m.step(b, "LOCK TABLES t1 WRITE").unwrap();
    assert_eq!(
        m.step(a, "PREPARE s FROM 'SELECT * FROM t1'"),
        Ok(Outcome::Ok)
    );
    assert!(held(&m, a).is_empty());
    assert_eq!(m.step(a, "EXECUTE s"), Ok(Outcome::Waiting));
    m.step(b, "UNLOCK TABLES").unwrap();
    m.take_events();
    m.step(a, "DEALLOCATE PREPARE s").unwrap();
    assert_eq!(m.step(a, "EXECUTE s"), Ok(Outcome::Error));
    assert_eq!(m.session(a).last_error, Some(1243));
}

#[test]
fn accounts_statements_commit_and_know_their_users() {
    let mut m = model();
    let a = m.add_session();
    m.step(a, "BEGIN").unwrap();
    m.step(a, "SELECT * FROM t1").unwrap();
    assert_eq!(m.step(a, "CREATE USER u1"), Ok(Outcome::Ok));
    assert!(held(&m, a).is_empty());
    assert_eq!(m.step(a, "CREATE USER u1"), Ok(Outcome::Error));
    assert_eq!(m.session(a).last_error, Some(1396));
    assert_eq!(
        m.step(a, "GRANT SELECT ON test.* TO u2"),
        Ok(Outcome::Error)
    );
    assert_eq!(m.session(a).last_error, Some(1133));
    // A table's grant checks the table, then the user (`mdl_sql::grants`).
    assert_eq!(m.step(a, "GRANT SELECT ON t1 TO u1"), Ok(Outcome::Ok));
    // A column privilege opens the table (grant_columns.rs, learned row account_column).
    assert_eq!(m.step(a, "GRANT SELECT (a) ON t1 TO u1"), Ok(Outcome::Ok));
}

#[test]
fn set_statement_bounds_the_inner_statements_wait() {
    let mut m = model();
    let a = m.add_session();
    let b = m.add_session();
    m.step(b, "LOCK TABLES t1 WRITE").unwrap();
    let sql = "SET STATEMENT lock_wait_timeout=1 FOR SELECT * FROM t1";
    assert_eq!(m.step(a, sql), Ok(Outcome::Waiting));
    m.advance(1500);
    assert_eq!(m.take_events(), vec![(a, Outcome::Timeout)]);
    m.step(a, "BEGIN").unwrap();
    assert_eq!(
        m.step(a, "SET TRANSACTION ISOLATION LEVEL READ COMMITTED"),
        Ok(Outcome::Error)
    );
}

#[test]
fn kill_as_sql_names_a_session_of_the_file() {
    let m = Mapping::load().unwrap();
    let load = |t: &str| scenario::load_text("t.mdl", t, &m);
    let ok = "dialect mariadb\na: sql LOCK TABLES t1 WRITE\nb: sql SELECT * FROM t1\n\
              a: sql KILL QUERY b\na: sql UNLOCK TABLES\n";
    assert!(load(ok).is_ok());
    for bad in ["KILL b", "KILL CONNECTION b", "KILL QUERY 12"] {
        let t = format!("dialect mariadb\nb: sql SELECT 1\na: sql {bad}\n");
        match load(&t) {
            Err(ConformError::Scenario { line, msg, .. }) => {
                assert_eq!(line, 3);
                assert!(msg.contains("KILL"), "{msg}");
            }
            other => panic!("{bad}: {other:?}"),
        }
    }
}

#[test]
fn kill_of_no_connection_fails_and_keeps_the_transaction() {
    let mut m = model();
    let a = m.add_session();
    m.step(a, "BEGIN").unwrap();
    m.step(a, "SELECT * FROM t1").unwrap();
    for (sql, code) in [
        ("KILL @id", 1094),
        ("KILL CONNECTION @id", 1094),
        ("KILL QUERY ID 0", 1957),
        ("KILL (SELECT COUNT(*) FROM mysql.user)", 1970),
        ("kill query id user 'foo'", 1054),
    ] {
        assert_eq!(m.step(a, sql), Ok(Outcome::Error), "{sql}");
        assert_eq!(m.session(a).last_error, Some(code), "{sql}");
    }
    assert_eq!(m.step(a, "kill hard query user u2@nohost"), Ok(Outcome::Ok));
    assert_eq!(held(&m, a), vec!["TABLE test.t1 SR"]);
    assert!(m.step(a, "KILL USER root").is_err());
    assert!(m.step(a, "KILL 12").is_err());
    // Once the session named @id, its value is not known.
    let b = m.add_session();
    m.step(b, "SELECT @id := 1").ok();
    assert!(m.step(b, "KILL @id").is_err());
}

#[test]
fn show_create_routine_takes_no_lock_and_fails_on_a_missing_one() {
    let mut m = model();
    let a = m.add_session();
    m.step(a, "CREATE PROCEDURE p1() SET @x=1").unwrap();
    m.step(a, "BEGIN").unwrap();
    m.step(a, "SELECT * FROM t1").unwrap();
    assert_eq!(m.step(a, "SHOW CREATE PROCEDURE P1"), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "SHOW CREATE FUNCTION p1"), Ok(Outcome::Error));
    assert_eq!(m.session(a).last_error, Some(1305));
    assert_eq!(m.step(a, "SHOW CREATE EVENT e1"), Ok(Outcome::Error));
    assert_eq!(m.session(a).last_error, Some(1539));
    assert_eq!(m.step(a, "SHOW TABLE STATUS LIKE 't1'"), Ok(Outcome::Ok));
    assert_eq!(held(&m, a), vec!["TABLE test.t1 SR"]);
}

#[test]
fn revoke_needs_the_row_its_grant_made() {
    let mut m = model();
    let a = m.add_session();
    let err = |m: &mut SqlModel, sql: &str| {
        assert_eq!(m.step(a, sql), Ok(Outcome::Error), "{sql}");
        m.session(a).last_error
    };
    assert_eq!(err(&mut m, "grant select on t9 to u5"), Some(1146));
    assert_eq!(err(&mut m, "grant select on t1 to u5"), Some(1133));
    assert_eq!(err(&mut m, "revoke reload on *.* from u5"), Some(1141));
    assert_eq!(
        m.step(a, "grant select on test.t1 to u5 identified by 'p'"),
        Ok(Outcome::Ok)
    );
    assert_eq!(m.step(a, "revoke reload on *.* from u5"), Ok(Outcome::Ok));
    assert_eq!(err(&mut m, "revoke select on test.* from u5"), Some(1141));
    assert_eq!(m.step(a, "revoke insert on t1 from u5"), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "revoke select on t1 from u5"), Ok(Outcome::Ok));
    assert_eq!(err(&mut m, "revoke select on t1 from u5"), Some(1147));
    assert_eq!(m.step(a, "grant select (a) on t1 to u5"), Ok(Outcome::Ok));
}

#[test]
fn a_partition_clause_of_a_table_without_partitions_fails_after_its_lock() {
    let mut m = model();
    let a = m.add_session();
    m.step(a, "BEGIN").unwrap();
    for sql in [
        "SELECT * FROM t1 PARTITION (p2)",
        "DELETE FROM t1 PARTITION (pNeg) WHERE a = -1",
        "LOAD DATA INFILE 'f' INTO TABLE t1 PARTITION (p0)",
    ] {
        assert_eq!(m.step(a, sql), Ok(Outcome::Error), "{sql}");
        assert_eq!(m.session(a).last_error, Some(1747), "{sql}");
        assert!(held(&m, a).is_empty(), "{sql}");
    }
    // A multi-table DELETE with a selection is still refused.
    assert!(m
        .step(a, "DELETE FROM t1, t2 USING t1 PARTITION (p1), t2")
        .is_err());
}

#[test]
fn create_or_replace_temporary_replaces_the_sessions_table() {
    let mut m = model();
    let a = m.add_session();
    m.step(a, "BEGIN").unwrap();
    m.step(a, "SELECT * FROM t1").unwrap();
    for sql in [
        "CREATE OR REPLACE TEMPORARY TABLE t3 (a INT)",
        "CREATE OR REPLACE TEMPORARY TABLE t3 (a INT, b INT)",
        "CREATE OR REPLACE TEMPORARY TABLE t3 LIKE t2",
    ] {
        assert_eq!(m.step(a, sql), Ok(Outcome::Ok), "{sql}");
    }
    assert_eq!(held(&m, a), vec!["TABLE test.t1 SR", "TABLE test.t2 SR"]);
    assert_eq!(m.step(a, "DROP TEMPORARY TABLE t3"), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "DROP TEMPORARY TABLE t3"), Ok(Outcome::Error));
}

#[test]
fn stop_slave_is_refused_in_a_transaction_and_change_master_keeps_it() {
    let mut m = model();
    let a = m.add_session();
    assert_eq!(m.step(a, "STOP SLAVE SQL_THREAD"), Ok(Outcome::Ok));
    m.step(a, "BEGIN").unwrap();
    m.step(a, "SELECT * FROM t1").unwrap();
    assert_eq!(m.step(a, "STOP SLAVE SQL_THREAD"), Ok(Outcome::Error));
    assert_eq!(m.session(a).last_error, Some(1192));
    assert_eq!(
        m.step(a, "CHANGE MASTER TO master_host='h', master_user='root'"),
        Ok(Outcome::Ok)
    );
    assert_eq!(held(&m, a), vec!["TABLE test.t1 SR"]);
}
