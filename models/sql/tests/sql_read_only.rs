//! SET GLOBAL read_only (`classify/read_only.rs`, `model/read_only.rs`; MariaDB
//! sql/sys_vars.cc, `check_read_only` / `fix_read_only`), as
//! models/conformance/suite/set-global-read-only.mdl measured it on 10.11.19.

use mdl_core::Outcome;
use mdl_sql::mapping::Mapping;
use mdl_sql::model::SqlModel;

fn model() -> SqlModel {
    SqlModel::new(Mapping::load().expect("statements.tsv"))
}

#[test]
fn from_0_to_1_takes_the_global_read_lock_for_the_statement() {
    let mut m = model();
    let a = m.add_session();
    let b = m.add_session();
    assert_eq!(m.step(b, "LOCK TABLES t1 WRITE"), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "SET GLOBAL read_only = 1"), Ok(Outcome::Waiting));
    assert_eq!(m.step(b, "UNLOCK TABLES"), Ok(Outcome::Ok));
    assert!(!m.is_waiting(a));
    assert!(m.locks_of(a).is_empty(), "{:?}", m.locks_of(a));
    // Already 1: no lock, behind a LOCK TABLES ... WRITE too; to 0: no lock.
    assert_eq!(m.step(b, "LOCK TABLES t1 WRITE"), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "SET GLOBAL read_only = ON"), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "SET @@global.read_only = 0"), Ok(Outcome::Ok));
    // (Waits again: its step's outcome is the one FTWRL's second wait gives, so the
    // session's state is what is checked.)
    assert!(m.step(a, "SET GLOBAL read_only = 1").is_ok());
    assert!(m.is_waiting(a));
    assert_eq!(
        m.locks_of(a).into_iter().collect::<Vec<_>>(),
        ["BACKUP - BACKUP_FTWRL1 (pending)"]
    );
}

#[test]
fn refused_under_lock_tables_backup_stage_and_in_a_transaction() {
    let mut m = model();
    let a = m.add_session();
    for (before, after) in [
        ("LOCK TABLES t1 READ", "UNLOCK TABLES"),
        ("BACKUP STAGE START", "BACKUP STAGE END"),
        ("BEGIN", "COMMIT"),
    ] {
        assert_eq!(m.step(a, before), Ok(Outcome::Ok), "{before}");
        for v in ["0", "1"] {
            let q = format!("SET GLOBAL read_only = {v}");
            assert_eq!(m.step(a, &q), Ok(Outcome::Error), "{before}: {q}");
        }
        assert_eq!(m.step(a, after), Ok(Outcome::Ok), "{after}");
    }
}

#[test]
fn closes_the_sessions_handlers_and_keeps_them() {
    let mut m = model();
    let a = m.add_session();
    assert_eq!(m.step(a, "HANDLER t2 OPEN"), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "SET GLOBAL read_only = 1"), Ok(Outcome::Ok));
    assert!(m.locks_of(a).is_empty(), "{:?}", m.locks_of(a));
    assert_eq!(m.step(a, "HANDLER t2 READ FIRST"), Ok(Outcome::Ok));
    assert_eq!(m.locks_of(a).len(), 1);
}

#[test]
fn a_value_the_model_cannot_know_is_refused() {
    let mut m = model();
    let a = m.add_session();
    assert!(m.step(a, "SET GLOBAL read_only = @old_read_only").is_err());
    assert!(m
        .step(a, "SET GLOBAL read_only = 1, sql_mode = ''")
        .is_err());
}

#[test]
fn a_read_only_transaction_refuses_writes_before_their_locks() {
    // suite/start-transaction-read-only.mdl (model/ro_txn.rs).
    let mut m = model();
    let a = m.add_session();
    assert_eq!(m.step(a, "START TRANSACTION READ ONLY"), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "SELECT * FROM t1"), Ok(Outcome::Ok));
    for q in [
        "INSERT INTO t1 (b) VALUES (1)",
        "UPDATE m1 SET b = 1",
        "DELETE FROM t2",
        "CREATE TEMPORARY TABLE tt (a INT)",
    ] {
        assert_eq!(m.step(a, q), Ok(Outcome::Error), "{q}");
        assert_eq!(
            m.locks_of(a).into_iter().collect::<Vec<_>>(),
            ["TABLE test.t1 SR"],
            "{q}"
        );
    }
    // An implicit commit ends it; so does COMMIT.
    assert_eq!(m.step(a, "LOCK TABLES t2 WRITE"), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "UNLOCK TABLES"), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "INSERT INTO t1 (b) VALUES (1)"), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "START TRANSACTION READ ONLY"), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "COMMIT"), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "INSERT INTO t1 (b) VALUES (1)"), Ok(Outcome::Ok));
}
