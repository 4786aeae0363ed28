//! Stored routines and events in the SQL model, without a server: what the server showed
//! in `models/conformance/suite/sp-lock-routine-ddl.mdl` and the corpus
//! (`classify/routine.rs`, `routines.rs`).

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
fn a_called_function_is_locked_until_the_transaction_ends_and_blocks_its_drop() {
    let mut m = model();
    let a = m.add_session();
    let b = m.add_session();
    m.step(a, "CREATE FUNCTION f1() RETURNS INT RETURN 1")
        .unwrap();
    m.step(a, "BEGIN").unwrap();
    assert_eq!(m.step(a, "SELECT f1()"), Ok(Outcome::Ok));
    assert_eq!(held(&m, a), vec!["FUNCTION test.f1 S"]);
    assert_eq!(m.step(b, "DROP FUNCTION f1"), Ok(Outcome::Waiting));
    m.step(a, "COMMIT").unwrap();
    assert!(held(&m, a).is_empty());
    // Dropped: a second DROP fails after its locks, IF EXISTS does not.
    assert_eq!(m.step(a, "DROP FUNCTION f1"), Ok(Outcome::Error));
    assert_eq!(m.session(a).last_error, Some(1305));
    assert_eq!(m.step(a, "DROP FUNCTION IF EXISTS f1"), Ok(Outcome::Ok));
}

#[test]
fn routine_names_are_case_insensitive_but_keys_are_as_written() {
    let mut m = model();
    let a = m.add_session();
    m.step(a, "CREATE FUNCTION Fa1() RETURNS INT RETURN 1")
        .unwrap();
    assert_eq!(
        m.step(a, "CREATE FUNCTION FA1() RETURNS INT RETURN 1"),
        Ok(Outcome::Error)
    );
    assert_eq!(m.session(a).last_error, Some(1304));
    m.step(a, "BEGIN").unwrap();
    m.step(a, "SELECT fa1()").unwrap();
    m.step(a, "SELECT FA1()").unwrap();
    assert_eq!(
        held(&m, a),
        vec!["FUNCTION test.FA1 S", "FUNCTION test.fa1 S"]
    );
}

#[test]
fn call_takes_no_lock_on_its_procedure() {
    let mut m = model();
    let a = m.add_session();
    let b = m.add_session();
    assert_eq!(m.step(a, "CALL p9()"), Ok(Outcome::Error));
    assert_eq!(m.session(a).last_error, Some(1305));
    m.step(a, "CREATE PROCEDURE p1() BEGIN END").unwrap();
    m.step(a, "BEGIN").unwrap();
    assert_eq!(m.step(a, "CALL p1()"), Ok(Outcome::Ok));
    assert!(held(&m, a).is_empty());
    assert_eq!(m.step(b, "DROP PROCEDURE p1"), Ok(Outcome::Ok));
}

#[test]
fn what_the_model_cannot_play_is_refused() {
    let mut m = model();
    let a = m.add_session();
    m.step(
        a,
        "CREATE PROCEDURE p2() BEGIN IF (SELECT COUNT(*) FROM t1) > 0 THEN DELETE FROM t2; \
         END IF; END",
    )
    .unwrap();
    m.step(
        a,
        "CREATE FUNCTION f2() RETURNS INT RETURN (SELECT COUNT(*) FROM t1)",
    )
    .unwrap();
    for sql in [
        // A procedure whose body has control flow (tests/sql_call.rs plays straight-line
        // bodies); a stored function in a statement with tables of its own is not
        // prelocked.
        "CALL p2()",
        "SELECT f2() FROM t2",
        // An event time the model cannot place against its clock (2026-2029), a UDF.
        "CREATE EVENT e1 ON SCHEDULE AT '2027-01-01 00:00:00' DO SET @x = 1",
        "CREATE FUNCTION u1 RETURNS INTEGER SONAME 'udf.so'",
    ] {
        assert!(m.step(a, sql).is_err(), "{sql}");
    }
}

#[test]
fn routine_ddl_in_a_missing_schema_fails_after_its_locks() {
    let mut m = model();
    let a = m.add_session();
    assert_eq!(
        m.step(a, "CREATE PROCEDURE db9.p1() SET @x = 1"),
        Ok(Outcome::Error)
    );
    assert_eq!(m.session(a).last_error, Some(1049));
    assert_eq!(m.step(a, "DROP EVENT db9.e1"), Ok(Outcome::Error));
    assert_eq!(m.session(a).last_error, Some(1539));
}

/// suite/event-schedule-rename.mdl: an event in the past is not created, after its
/// locks; the schedule's checks fail before any lock, after the implicit commit.
#[test]
fn an_event_in_the_past_is_not_created_and_bad_schedules_fail_before_locks() {
    let mut m = model();
    let a = m.add_session();
    let b = m.add_session();
    let past = "CREATE EVENT e1 ON SCHEDULE AT '1999-01-01 00:00:00' DO SET @a = 1";
    assert_eq!(m.step(a, past), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "DROP EVENT e1"), Ok(Outcome::Error));
    assert_eq!(m.session(a).last_error, Some(1539));
    let every = "CREATE EVENT e1 ON SCHEDULE EVERY 1 HOUR DO SET @a = 1";
    assert_eq!(m.step(a, every), Ok(Outcome::Ok));
    // do_not_create comes before the event's existence.
    assert_eq!(m.step(a, past), Ok(Outcome::Ok));
    let future = "CREATE EVENT e3 ON SCHEDULE AT NOW() + INTERVAL 1 YEAR DO SET @a = 1";
    assert_eq!(m.step(a, future), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "DROP EVENT e3"), Ok(Outcome::Ok));
    // main/events_1.test: a compound unit's count; a time before now (PRESERVE).
    let compound = "CREATE EVENT e5 ON SCHEDULE EVERY '10:20' MINUTE_SECOND DO SET @a = 1";
    assert_eq!(m.step(a, compound), Ok(Outcome::Ok));
    let before = "CREATE EVENT e6 ON SCHEDULE AT CURRENT_TIMESTAMP - INTERVAL 1 DAY \
                  ON COMPLETION PRESERVE DO SET @a = 1";
    assert_eq!(m.step(a, before), Ok(Outcome::Ok));
    for (sql, code) in [
        (
            "CREATE EVENT e2 ON SCHEDULE AT 10000101000000 DO SET @a = 1",
            1525,
        ),
        (
            "CREATE EVENT e2 ON SCHEDULE AT 'not a date' DO SET @a = 1",
            1525,
        ),
        (
            "CREATE EVENT e2 ON SCHEDULE EVERY 1 HOUR ENDS NOW() DO SET @a = 1",
            1543,
        ),
        (
            "CREATE EVENT e2 ON SCHEDULE AT ROW(1,2) DO SET @a = 1",
            1241,
        ),
        (
            "CREATE EVENT e2 ON SCHEDULE EVERY 0 SECOND DO SET @a = 1",
            1542,
        ),
        (
            "CREATE EVENT e2 ON SCHEDULE AT (SELECT a FROM t1) DO SET @a = 1",
            1970,
        ),
        (
            "CREATE EVENT e2 ON SCHEDULE AT NOW() STARTS NOW() DO SET @a = 1",
            1064,
        ),
    ] {
        assert_eq!(m.step(a, sql), Ok(Outcome::Error), "{sql}");
        assert_eq!(m.session(a).last_error, Some(code), "{sql}");
    }
    // The implicit commit comes first: b's transaction lock goes.
    m.step(b, "BEGIN").unwrap();
    m.step(b, "SELECT * FROM t1").unwrap();
    assert!(!held(&m, b).is_empty());
    let bad = "CREATE EVENT e2 ON SCHEDULE AT NULL DO SET @a = 1";
    assert_eq!(m.step(b, bad), Ok(Outcome::Error));
    assert!(held(&m, b).is_empty());
}

/// suite/event-schedule-rename.mdl: ALTER EVENT ... RENAME TO locks both names and moves
/// the event; its errors; a past time decided by the event's ON COMPLETION.
#[test]
fn alter_event_rename_locks_both_names_and_moves_the_event() {
    let mut m = model();
    let a = m.add_session();
    let b = m.add_session();
    m.step(a, "CREATE EVENT e1 ON SCHEDULE EVERY 1 HOUR DO SET @a = 1")
        .unwrap();
    for (sql, code) in [
        ("ALTER EVENT e1 RENAME TO e1", 1551),
        ("ALTER EVENT e9 RENAME TO e1", 1537),
        ("ALTER EVENT e9 RENAME TO e8", 1539),
        ("ALTER EVENT e1 RENAME TO nodb.e3", 1049),
    ] {
        assert_eq!(m.step(a, sql), Ok(Outcome::Error), "{sql}");
        assert_eq!(m.session(a).last_error, Some(code), "{sql}");
    }
    m.step(b, "BACKUP STAGE START").unwrap();
    m.step(b, "BACKUP STAGE BLOCK_DDL").unwrap();
    assert_eq!(
        m.step(a, "ALTER EVENT e1 RENAME TO e2"),
        Ok(Outcome::Waiting)
    );
    m.step(b, "BACKUP STAGE END").unwrap();
    assert_eq!(m.step(a, "DROP EVENT e1"), Ok(Outcome::Error));
    let past = "ALTER EVENT e2 ON SCHEDULE EVERY 1 HOUR STARTS '1999-01-01 00:00:00' \
                ENDS '1999-01-02 00:00:00'";
    assert_eq!(m.step(a, past), Ok(Outcome::Error));
    assert_eq!(m.session(a).last_error, Some(1589));
    assert_eq!(
        m.step(a, "ALTER EVENT e2 ON COMPLETION PRESERVE"),
        Ok(Outcome::Ok)
    );
    assert_eq!(m.step(a, past), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "DROP EVENT e2"), Ok(Outcome::Ok));
}

#[cfg(not(mdl_bug = "conform_no_prelocking"))]
#[test]
fn a_trigger_whose_body_uses_tables_is_prelocked_by_the_dml_it_fires() {
    let mut m = model();
    let a = m.add_session();
    let create =
        "CREATE TRIGGER tr1 AFTER INSERT ON t1 FOR EACH ROW INSERT INTO t2 (b) VALUES (NEW.b)";
    assert_eq!(m.step(a, create), Ok(Outcome::Ok));
    // INSERT into t1 prelocks t2 (classify/routine_prelock.rs); LOCK TABLES t1 WRITE
    // would too, which the model does not play: refused.
    let b = m.add_session();
    assert_eq!(m.step(a, "BEGIN"), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "INSERT INTO t1 (b) VALUES (1)"), Ok(Outcome::Ok));
    assert_eq!(m.step(b, "LOCK TABLES t2 WRITE"), Ok(Outcome::Waiting));
    assert_eq!(m.step(a, "COMMIT"), Ok(Outcome::Ok));
    assert_eq!(m.step(b, "UNLOCK TABLES"), Ok(Outcome::Ok));
    assert!(m.step(a, "LOCK TABLES t1 WRITE").is_err());
    assert_eq!(m.step(a, "SELECT * FROM t2"), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "DROP TRIGGER tr1"), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "INSERT INTO t1 (b) VALUES (1)"), Ok(Outcome::Ok));
    // A variable anchored to a table is read (classify/routine_anchor.rs); the DML that
    // fires the trigger (which resolves it) is refused.
    let anchored = "CREATE TRIGGER tr2 AFTER INSERT ON t1 FOR EACH ROW BEGIN DECLARE r ROW TYPE OF t9; SET @x = 1; END";
    assert_eq!(m.step(a, anchored), Ok(Outcome::Ok));
    assert!(m.step(a, "INSERT INTO t1 (b) VALUES (1)").is_err());
    assert_eq!(m.step(a, "DROP TRIGGER tr2"), Ok(Outcome::Ok));
    // Control flow is read (classify/routine_block.rs).
    let flow = "CREATE TRIGGER tr2 AFTER INSERT ON t1 FOR EACH ROW BEGIN IF NEW.b THEN INSERT INTO t2 VALUES (1, 1); END IF; END";
    assert_eq!(m.step(a, flow), Ok(Outcome::Ok));
    // A parse error of the body fails before any lock (ER_SP_NO_RETSET).
    let retset = "CREATE TRIGGER tr3 AFTER INSERT ON t1 FOR EACH ROW SELECT 1";
    assert_eq!(m.step(a, retset), Ok(Outcome::Error));
    assert_eq!(m.session(a).last_error, Some(1415));
}

/// Whether `LOCK TABLES t2 WRITE` waits for a transaction that ran `SELECT f2()`, whose
/// body writes t2.
fn lock_write_waits_for_a_function_caller() -> bool {
    let mut m = model();
    let (a, b) = (m.add_session(), m.add_session());
    let create = "create function f2() returns int begin declare x int; \
                  select count(*) into x from t1; insert into t2 (b) values (1); return x; end";
    assert_eq!(m.step(a, create), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "BEGIN"), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "SELECT f2()"), Ok(Outcome::Ok));
    m.step(b, "LOCK TABLES t2 WRITE") == Ok(Outcome::Waiting)
}

#[cfg(not(mdl_bug = "conform_no_prelocking"))]
#[test]
fn a_function_whose_body_uses_tables_is_prelocked() {
    // t2's SW (and t1's SR) are held until the transaction ends.
    assert!(lock_write_waits_for_a_function_caller());
    let mut m = model();
    let a = m.add_session();
    let call = "create function f4() returns int begin call p1(); return 1; end";
    assert_eq!(m.step(a, call), Ok(Outcome::Ok));
    // A body statement the model does not prelock: refused.
    assert!(m.step(a, "SELECT f4()").is_err());
}

/// Seeded bug `conform_no_prelocking`: the body's tables are not prelocked; the check
/// above sees the LOCK TABLES granted at once.
#[cfg(mdl_bug = "conform_no_prelocking")]
#[test]
fn seeded_bug_conform_no_prelocking_is_caught() {
    assert!(!lock_write_waits_for_a_function_caller());
}

#[test]
fn a_call_of_a_one_statement_procedure_plays_that_statement() {
    let mut m = model();
    let (a, b) = (m.add_session(), m.add_session());
    let create = "create procedure p3() begin set @y = 1; insert into t2 (b) values (1); end";
    assert_eq!(m.step(a, create), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "BEGIN"), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "CALL p3()"), Ok(Outcome::Ok));
    assert_eq!(m.step(b, "LOCK TABLES t2 WRITE"), Ok(Outcome::Waiting));
    assert_eq!(m.step(a, "COMMIT"), Ok(Outcome::Ok));
    let flow = "create procedure p5() begin if @y then delete from t2; end if; end";
    assert_eq!(m.step(a, flow), Ok(Outcome::Ok));
    assert!(m.step(a, "CALL p5()").is_err());
}

#[cfg(not(mdl_bug = "conform_no_prelocking"))]
#[test]
fn a_function_called_by_a_function_is_locked_with_its_tables() {
    let mut m = model();
    let (a, b, c) = (m.add_session(), m.add_session(), m.add_session());
    let f3 = "create function f3() returns int return (select count(*) from t0)";
    assert_eq!(m.step(a, f3), Ok(Outcome::Ok));
    let f5 = "create function f5() returns int return f3() + 1";
    assert_eq!(m.step(a, f5), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "BEGIN"), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "SELECT f5()"), Ok(Outcome::Ok));
    assert_eq!(m.step(b, "DROP FUNCTION f3"), Ok(Outcome::Waiting));
    assert_eq!(m.step(c, "LOCK TABLES t0 WRITE"), Ok(Outcome::Waiting));
}
