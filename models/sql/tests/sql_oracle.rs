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
