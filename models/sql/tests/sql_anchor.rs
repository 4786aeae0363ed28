//! Variables anchored to a table or a cursor (`DECLARE v TYPE OF t.c`, `ROW TYPE OF t`,
//! `ROW TYPE OF cursor`; `classify/routine_anchor.rs`), without a server: what the server
//! showed in `models/conformance/suite/sp-anchor-type-locks.mdl`.

use mdl_core::Outcome;
use mdl_sql::mapping::Mapping;
use mdl_sql::model::SqlModel;

fn model() -> SqlModel {
    SqlModel::new(Mapping::load().expect("statements.tsv"))
}

fn fails(m: &mut SqlModel, s: usize, sql: &str, code: u32) {
    assert_eq!(m.step(s, sql), Ok(Outcome::Error), "{sql}");
    assert_eq!(m.session(s).last_error, Some(code), "{sql}");
}

/// A missing table or column fails the CALL as it starts, whatever the block; a
/// temporary table of the name shadows the base table.
#[test]
fn anchors_are_resolved_as_the_call_starts() {
    let mut m = model();
    let a = m.add_session();
    let p1 = "CREATE PROCEDURE p1() BEGIN DECLARE a TYPE OF t9.a; END";
    assert_eq!(m.step(a, p1), Ok(Outcome::Ok));
    fails(&mut m, a, "CALL p1()", 1146);
    assert_eq!(m.step(a, "CREATE TABLE t9 (b INT)"), Ok(Outcome::Ok));
    fails(&mut m, a, "CALL p1()", 1054);
    assert_eq!(m.step(a, "DROP TABLE t9"), Ok(Outcome::Ok));
    assert_eq!(
        m.step(a, "CREATE TEMPORARY TABLE t9 (a INT)"),
        Ok(Outcome::Ok)
    );
    assert_eq!(m.step(a, "CALL p1()"), Ok(Outcome::Ok));
    // The first statement would wait for a user lock: the CALL fails before it.
    let b = m.add_session();
    assert_eq!(m.step(b, "SELECT GET_LOCK('g', 0)"), Ok(Outcome::Ok));
    let p2 = "CREATE PROCEDURE p2() BEGIN SELECT GET_LOCK('g', 100) INTO @r; \
              BEGIN DECLARE v TYPE OF t8.a; END; END";
    assert_eq!(m.step(a, p2), Ok(Outcome::Ok));
    fails(&mut m, a, "CALL p2()", 1146);
    // In a schema that does not exist: 1146 too (main/sp-anchor-row-type-table.test).
    let p3 = "CREATE PROCEDURE p3(r ROW TYPE OF test2.t1) BEGIN END";
    assert_eq!(m.step(a, p3), Ok(Outcome::Ok));
    fails(&mut m, a, "CALL p3(1)", 1146);
}

/// Nothing is held on an anchored table; a cursor's anchor opens its SELECT (SR until
/// COMMIT in a transaction).
#[test]
fn anchored_tables_are_not_kept() {
    let mut m = model();
    let (a, b) = (m.add_session(), m.add_session());
    let p = "CREATE PROCEDURE p() BEGIN DECLARE v TYPE OF t1.a; DECLARE r ROW TYPE OF m1; \
             DECLARE c CURSOR FOR SELECT * FROM t0; BEGIN DECLARE s ROW TYPE OF c; END; END";
    assert_eq!(m.step(a, p), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "BEGIN"), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "CALL p()"), Ok(Outcome::Ok));
    let alter = |t: &str| format!("ALTER TABLE {t} ADD COLUMN z INT, ALGORITHM=COPY");
    assert_eq!(m.step(b, &alter("t1")), Ok(Outcome::Ok));
    assert_eq!(m.step(b, &alter("m1")), Ok(Outcome::Ok));
    assert_eq!(m.step(b, &alter("t0")), Ok(Outcome::Waiting));
    assert_eq!(m.step(a, "COMMIT"), Ok(Outcome::Ok));
}

/// A stored function's anchored table is not prelocked; one the catalog does not hold
/// is refused (the server's 1146 after the statement's prelocking is not modelled).
#[test]
fn function_anchors() {
    let mut m = model();
    let (a, b) = (m.add_session(), m.add_session());
    let f1 = "CREATE FUNCTION f1() RETURNS INT BEGIN DECLARE v TYPE OF t1.a; RETURN 1; END";
    assert_eq!(m.step(a, f1), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "BEGIN"), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "SELECT f1()"), Ok(Outcome::Ok));
    let alter = "ALTER TABLE t1 ADD COLUMN z INT, ALGORITHM=COPY";
    assert_eq!(m.step(b, alter), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "COMMIT"), Ok(Outcome::Ok));
    let f2 = "CREATE FUNCTION f2() RETURNS INT BEGIN DECLARE v TYPE OF t9.a; RETURN 1; END";
    assert_eq!(m.step(a, f2), Ok(Outcome::Ok));
    assert!(m.step(a, "SELECT f2()").is_err());
}
