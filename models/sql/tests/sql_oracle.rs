//! sql_mode=ORACLE (`crate::sql_mode`, `model/oracle_mode.rs`, `classify/oracle_routine.rs`;
//! MariaDB `parse_sql`, sql/sql_parse.cc, picks the Oracle grammar), as
//! models/conformance/suite/oracle-procedure-exception.mdl measured it on 10.11.19.

use mdl_core::Outcome;
use mdl_sql::mapping::Mapping;
use mdl_sql::model::SqlModel;

const P1: &str = "CREATE PROCEDURE p1(res OUT VARCHAR) AS BEGIN INSERT INTO t1 VALUES (10); \
                  EXCEPTION WHEN DUP_VAL_ON_INDEX THEN res:='dup'; END;";

fn model() -> SqlModel {
    SqlModel::new(Mapping::load().expect("statements.tsv"))
}

fn fails(m: &mut SqlModel, s: usize, sql: &str, code: u32) {
    assert_eq!(m.step(s, sql), Ok(Outcome::Error), "{sql}");
    assert_eq!(m.session(s).last_error, Some(code), "{sql}");
}

#[test]
fn an_oracle_definition_is_played_in_oracle_mode_only() {
    let mut m = model();
    let a = m.add_session();
    let b = m.add_session();
    // In the default mode the Oracle shape is not one the model reads.
    assert!(m.step(a, P1).is_err());
    assert_eq!(m.step(a, "SET sql_mode=ORACLE"), Ok(Outcome::Ok));
    // Behind FTWRL it waits for its BACKUP_DDL, as any CREATE PROCEDURE.
    assert_eq!(m.step(b, "FLUSH TABLES WITH READ LOCK"), Ok(Outcome::Ok));
    assert_eq!(m.step(a, P1), Ok(Outcome::Waiting));
    assert_eq!(m.step(b, "UNLOCK TABLES"), Ok(Outcome::Ok));
    assert!(!m.is_waiting(a));
    fails(&mut m, a, P1, 1304);
    fails(
        &mut m,
        a,
        "CREATE FUNCTION f1 RETURN INT AS BEGIN NULL; END",
        1320,
    );
    fails(
        &mut m,
        a,
        "CREATE PROCEDURE p2 AS BEGIN RAISE xxx; END",
        1319,
    );
    fails(&mut m, a, "BEGIN", 1064);
    // Another session's mode is its own.
    assert_eq!(m.step(b, "BEGIN"), Ok(Outcome::Ok));
    assert_eq!(m.step(b, "COMMIT"), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "SET sql_mode=DEFAULT"), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "BEGIN"), Ok(Outcome::Ok));
}

/// An anonymous block `DECLARE ... BEGIN ... END` runs its statements as a CALL does
/// (`classify/oracle_block.rs`), as models/conformance/suite/oracle-anonymous-block.mdl
/// measured it: inside a transaction its INSERT's lock on t1 stays and an ALTER waits.
#[test]
fn an_oracle_anonymous_block_runs_its_statements() {
    let mut m = model();
    let a = m.add_session();
    let b = m.add_session();
    assert_eq!(
        m.step(a, "CREATE TABLE ta (a INT) ENGINE=InnoDB"),
        Ok(Outcome::Ok)
    );
    assert_eq!(m.step(a, "SET sql_mode=ORACLE"), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "START TRANSACTION"), Ok(Outcome::Ok));
    assert_eq!(
        m.step(
            a,
            "DECLARE a20 INT:=20; BEGIN INSERT INTO ta VALUES(a20); END"
        ),
        Ok(Outcome::Ok)
    );
    assert_eq!(
        m.step(b, "ALTER TABLE ta ADD COLUMN b INT"),
        Ok(Outcome::Waiting)
    );
    assert_eq!(m.step(a, "COMMIT"), Ok(Outcome::Ok));
    assert!(!m.is_waiting(b));
    fails(
        &mut m,
        a,
        "DECLARE names VARCHAR(32); BEGIN SET names='[names]'; END",
        1453,
    );
    fails(&mut m, a, "BEGIN EXIT WHEN f0();", 1308);
    fails(&mut m, a, "RAISE NO_DATA_FOUND", 1319);
    fails(&mut m, a, "RAISE", 1645);
    // A block the model does not follow is refused, not played.
    assert!(m
        .step(a, "BEGIN CASE 1 WHEN 1 THEN SELECT 1; END CASE; END")
        .is_err());
    // IF, loops and cursors are written in the default grammar (classify/oracle_flow.rs).
    assert_eq!(
        m.step(
            a,
            "BEGIN IF 1 THEN SELECT 1; ELSIF 2 THEN NULL; END IF; END"
        ),
        Ok(Outcome::Ok)
    );
}

/// The names an Oracle body's parser resolves (`classify/oracle_names.rs`), as
/// models/conformance/suite/oracle-cursor.mdl measured them.
#[test]
fn an_oracle_body_with_cursors_and_labels_is_checked() {
    let mut m = model();
    let a = m.add_session();
    assert_eq!(m.step(a, "SET sql_mode=ORACLE"), Ok(Outcome::Ok));
    assert_eq!(
        m.step(
            a,
            "CREATE PROCEDURE p1 AS CURSOR c IS SELECT a FROM t1; v INT; BEGIN OPEN c; \
             LOOP FETCH c INTO v; EXIT WHEN c%NOTFOUND; END LOOP; CLOSE c; END"
        ),
        Ok(Outcome::Ok)
    );
    fails(&mut m, a, "CREATE PROCEDURE p2 AS BEGIN OPEN c; END", 1324);
    fails(
        &mut m,
        a,
        "CREATE PROCEDURE p2 AS BEGIN FOR r IN c LOOP NULL; END LOOP; END",
        1327,
    );
    fails(
        &mut m,
        a,
        "CREATE PROCEDURE p2 AS BEGIN GOTO lab5; <<lab1>> NULL; END",
        1308,
    );
    fails(
        &mut m,
        a,
        "CREATE PROCEDURE p2 AS BEGIN rec.a:=1; END",
        4081,
    );
    fails(
        &mut m,
        a,
        "CREATE FUNCTION f2(a INT) RETURN INT AS BEGIN RETURN; END",
        1064,
    );
}
