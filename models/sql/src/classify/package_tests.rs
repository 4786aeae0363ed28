//! Packages played on the model, as models/conformance/suite/package.mdl measured them on
//! MariaDB 10.11.19 (and the parse errors of compat/oracle/t/sp-package.test).

use crate::mapping::Mapping;
use crate::model::SqlModel;
use mdl_core::Outcome;

const SPEC: &str = "CREATE PACKAGE pkg1 AS PROCEDURE p1; FUNCTION f1 RETURN INT; END;";
const BODY: &str = "CREATE PACKAGE BODY pkg1 AS PROCEDURE p1 AS BEGIN INSERT INTO t1 (b) \
                    VALUES (10); END; FUNCTION f1 RETURN INT AS BEGIN RETURN (SELECT COUNT(*) \
                    FROM t2); END; END;";

fn oracle() -> (SqlModel, usize, usize) {
    let mut m = SqlModel::new(Mapping::load().expect("statements.tsv"));
    let a = m.add_session();
    let b = m.add_session();
    for s in [a, b] {
        assert_eq!(m.step(s, "SET sql_mode=ORACLE"), Ok(Outcome::Ok));
    }
    (m, a, b)
}

fn fails(m: &mut SqlModel, s: usize, sql: &str, code: u32) {
    assert_eq!(m.step(s, sql), Ok(Outcome::Error), "{sql}");
    assert_eq!(m.session(s).last_error, Some(code), "{sql}");
}

fn ok(m: &mut SqlModel, s: usize, sql: &str) {
    assert_eq!(m.step(s, sql), Ok(Outcome::Ok), "{sql}");
}

#[test]
fn the_default_grammar_has_no_package() {
    let mut m = SqlModel::new(Mapping::load().expect("statements.tsv"));
    let a = m.add_session();
    fails(&mut m, a, "CREATE PACKAGE pkg1 AS PROCEDURE p1; END", 1064);
    fails(&mut m, a, "DROP PACKAGE IF EXISTS pkg1", 1064);
    fails(&mut m, a, "SHOW CREATE PACKAGE pkg1", 1305);
    ok(&mut m, a, "SHOW PACKAGE BODY STATUS");
}

#[test]
fn create_and_drop_and_their_errors() {
    let (mut m, a, _) = oracle();
    fails(&mut m, a, BODY, 1305);
    fails(&mut m, a, "DROP PACKAGE pkg1", 1305);
    ok(&mut m, a, "DROP PACKAGE IF EXISTS pkg1");
    fails(
        &mut m,
        a,
        "CREATE OR REPLACE PACKAGE IF NOT EXISTS pkg1 AS PROCEDURE p1; END",
        1221,
    );
    ok(&mut m, a, SPEC);
    fails(&mut m, a, SPEC, 1304);
    ok(&mut m, a, &SPEC.replace("CREATE", "CREATE OR REPLACE"));
    ok(&mut m, a, BODY);
    fails(&mut m, a, BODY, 1304);
    ok(&mut m, a, "SHOW CREATE PACKAGE BODY pkg1");
    // OR REPLACE of the spec drops the body; DROP PACKAGE drops both.
    ok(&mut m, a, &SPEC.replace("CREATE", "CREATE OR REPLACE"));
    fails(&mut m, a, "SHOW CREATE PACKAGE BODY pkg1", 1305);
    ok(&mut m, a, BODY);
    ok(&mut m, a, "DROP PACKAGE pkg1");
    fails(&mut m, a, "DROP PACKAGE BODY pkg1", 1305);
    ok(&mut m, a, "LOCK TABLES t1 READ");
    fails(&mut m, a, SPEC, 1192);
}

#[test]
fn parse_errors_come_before_any_lock() {
    let (mut m, a, _) = oracle();
    ok(&mut m, a, SPEC);
    let cases: &[(&str, u32)] = &[
        ("CREATE PACKAGE p2 AS a INT; PROCEDURE p1; END", 1064),
        ("CREATE PACKAGE p2 AS FUNCTION f3; END", 1064),
        ("CREATE PACKAGE p2 AS PROCEDURE p1; PROCEDURE P1; END", 1304),
        ("CREATE PACKAGE p2 AS PROCEDURE \"p1 \"; END", 1458),
        ("CREATE PACKAGE p2 AS PROCEDURE p1; END test2.p2", 4083),
        (
            "CREATE PACKAGE BODY pkg1 AS PROCEDURE p2 AS BEGIN NULL; END; \
             FUNCTION f1 RETURN INT AS BEGIN RETURN 1; END; END",
            4095,
        ),
        (
            "CREATE PACKAGE BODY pkg1 AS PROCEDURE p1(a INT) AS BEGIN NULL; END; \
             FUNCTION f1 RETURN INT AS BEGIN RETURN 1; END; END",
            4095,
        ),
        (
            "CREATE PACKAGE BODY pkg1 AS PROCEDURE p1 AS BEGIN NULL; END; PROCEDURE p9; \
             FUNCTION f1 RETURN INT AS BEGIN RETURN 1; END; END",
            4096,
        ),
        (
            "CREATE PACKAGE BODY pkg1 AS PROCEDURE p1 AS BEGIN CREATE PROCEDURE p1 AS \
             BEGIN NULL; END; END; FUNCTION f1 RETURN INT AS BEGIN RETURN 1; END; END",
            1303,
        ),
    ];
    for (sql, code) in cases {
        fails(&mut m, a, sql, *code);
        assert!(m.locks_of(a).is_empty(), "{sql}");
    }
    // A statement of the initialisation section the model does not read: refused.
    assert!(m
        .step(
            a,
            "CREATE PACKAGE BODY pkg1 AS PROCEDURE p1 AS BEGIN NULL; END; FUNCTION f1 \
             RETURN INT AS BEGIN RETURN 1; END; BEGIN SOME SYNTAX ERROR; END"
        )
        .is_err());
}

#[test]
fn a_call_holds_the_package_body_until_its_transaction_ends() {
    let (mut m, a, b) = oracle();
    ok(&mut m, a, SPEC);
    ok(&mut m, a, BODY);
    ok(&mut m, a, "START TRANSACTION");
    ok(&mut m, a, "CALL pkg1.p1");
    let held: Vec<String> = m.locks_of(a).into_iter().collect();
    assert!(
        held.contains(&"PACKAGE_BODY test.pkg1 S".to_owned()),
        "{held:?}"
    );
    assert!(held.contains(&"TABLE test.t1 SW".to_owned()), "{held:?}");
    assert_eq!(m.step(b, "DROP PACKAGE pkg1"), Ok(Outcome::Waiting));
    ok(&mut m, a, "COMMIT");
    assert!(!m.is_waiting(b));
    assert_eq!(m.session(b).last_error, None);
    fails(&mut m, a, "CALL pkg1.p1", 1305);
}

#[test]
fn a_package_function_locks_itself_its_package_and_its_tables() {
    let (mut m, a, b) = oracle();
    ok(&mut m, a, SPEC);
    ok(&mut m, a, BODY);
    ok(&mut m, a, "START TRANSACTION");
    ok(&mut m, a, "SELECT pkg1.f1()");
    let held: Vec<String> = m.locks_of(a).into_iter().collect();
    assert_eq!(
        held,
        vec![
            "FUNCTION test.pkg1.f1 S",
            "PACKAGE_BODY test.pkg1 S",
            "TABLE test.t2 SR"
        ]
    );
    assert_eq!(m.step(b, "DROP PACKAGE BODY pkg1"), Ok(Outcome::Waiting));
    ok(&mut m, a, "COMMIT");
    fails(&mut m, a, "SELECT pkg1.f1()", 1305);
    // Without sql_mode=ORACLE, pkg1.p1 is a procedure p1 of a schema pkg1.
    ok(&mut m, a, "SET sql_mode=DEFAULT");
    fails(&mut m, a, "CALL pkg1.p1", 1305);
}

#[test]
fn qualified_names_checked_by_the_parser() {
    let (mut m, a, _) = oracle();
    fails(&mut m, a, "SELECT `db `.pkg.func()", 1102);
    fails(&mut m, a, "SELECT db.`pkg `.func()", 1458);
    fails(&mut m, a, "CALL db1.pkg.`p `", 1458);
    fails(&mut m, a, "SELECT test.pkg1.f1('xxx' AS a)", 1064);
    // A "quoted" name (ANSI_QUOTES) is a name; one with a dot is refused.
    ok(&mut m, a, "CREATE PACKAGE \"pkg2\" AS PROCEDURE p1; END");
    ok(&mut m, a, "DROP PACKAGE \"pkg2\"");
    assert!(m.step(a, "DROP PACKAGE \"p1.p1\"").is_err());
}

#[test]
fn what_the_pairs_of_the_suite_showed() {
    // Measured with each CREATE PACKAGE BODY of compat/oracle played after its spec.
    let (mut m, a, _) = oracle();
    ok(&mut m, a, "CREATE PACKAGE p1 AS PROCEDURE p1; END");
    let body = |s: &str| format!("CREATE PACKAGE BODY p1 AS {s} END");
    fails(
        &mut m,
        a,
        &body("a INT; a INT; PROCEDURE p1 AS BEGIN NULL; END;"),
        1331,
    );
    fails(
        &mut m,
        a,
        &body(
            "PROCEDURE p1 AS BEGIN NULL; END; BEGIN CREATE PACKAGE p2 AS PROCEDURE p1; END; END;",
        ),
        1303,
    );
    fails(
        &mut m,
        a,
        "CREATE PACKAGE BODY p1 AS FUNCTION f2 RETURN INT SA BEGIN RETURN 10; END; END",
        1064,
    );
    fails(
        &mut m,
        a,
        &body("PROCEDURE p1 AS BEGIN SHOW FUNCTION CODE f1; END;"),
        1289,
    );
    // A CREATE VIEW inside a routine parses or not by the view's SELECT: refused.
    assert!(m
        .step(
            a,
            &body("PROCEDURE p1 AS BEGIN CREATE OR REPLACE VIEW v1 AS SELECT 1; END;")
        )
        .is_err());
    // Anchored package variables and a call by name in the initialisation section parse.
    ok(
        &mut m,
        a,
        &body("a t1.a%TYPE := 10; PROCEDURE p1 AS BEGIN NULL; END; BEGIN p1(); a := 1;"),
    );
    // Their table is opened when the package is first used: its calls are refused.
    assert!(m.step(a, "CALL p1.p1").is_err());
}

#[test]
fn package_is_a_name_in_the_default_grammar() {
    let mut m = SqlModel::new(Mapping::load().expect("statements.tsv"));
    let a = m.add_session();
    ok(&mut m, a, "CREATE DATABASE package");
    fails(
        &mut m,
        a,
        "CREATE OR REPLACE DEFINER=root@localhost PACKAGE p AS PROCEDURE p1; END",
        1064,
    );
}
