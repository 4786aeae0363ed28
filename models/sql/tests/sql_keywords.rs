//! Keywords as the names of a stored program (`classify/keywords.rs`, its table
//! `models/conformance/keywords.tsv`, and `classify/routine_keywords.rs`): the server's
//! answers of suite/funcs_1/t/storedproc.test, which tries every keyword as a label, a
//! condition, a handler's condition, a variable, a variable's type; the same as
//! `models/conformance/suite/sp-keywords-as-names.mdl` shows on MariaDB 10.11.

use mdl_core::Outcome;
use mdl_sql::mapping::Mapping;
use mdl_sql::model::SqlModel;

fn model() -> SqlModel {
    SqlModel::new(Mapping::load().expect("statements.tsv"))
}

/// Each definition fails with the parser's error before any lock, or is created.
#[test]
fn keywords_as_labels_conditions_variables_and_types() {
    let mut m = model();
    let a = m.add_session();
    let cases: &[(&str, Option<u32>)] = &[
        // A reserved word as a label; a word that starts a statement; HELP's statement.
        ("CREATE PROCEDURE sp1() accessible: BEGIN SELECT @x; END", Some(1064)),
        ("CREATE PROCEDURE sp1() BEGIN open: LOOP LEAVE open; END LOOP; END", Some(1064)),
        ("CREATE PROCEDURE sp1() help: BEGIN SELECT @x; END", Some(1314)),
        ("CREATE PROCEDURE sp1() deterministic: BEGIN SELECT @x; END", Some(1064)),
        ("CREATE PROCEDURE sp1() BEGIN l1: IF 1 THEN SELECT 1; END IF; END", Some(1064)),
        ("CREATE PROCEDURE sp1() action: BEGIN SELECT @x; END", None),
        // Conditions and handlers.
        (
            "CREATE PROCEDURE sp2() BEGIN DECLARE add CONDITION FOR SQLSTATE '02000'; \
             DECLARE EXIT HANDLER FOR add SET @var2 = 1; END",
            Some(1064),
        ),
        (
            "CREATE PROCEDURE sp2() BEGIN DECLARE action CONDITION FOR SQLSTATE '02000'; \
             DECLARE EXIT HANDLER FOR action SET @var2 = 1; END",
            None,
        ),
        (
            "CREATE PROCEDURE sp3() BEGIN DECLARE UNDO HANDLER FOR SQLSTATE '02000' \
             SET @x = 1; END",
            Some(1064),
        ),
        ("CREATE PROCEDURE sp4() BEGIN DECLARE all CURSOR FOR SELECT 1; END", Some(1064)),
        // Variables' types: a user-defined type's name, none, no type.
        ("CREATE PROCEDURE sp5() BEGIN DECLARE x char1; END", Some(4161)),
        ("CREATE PROCEDURE sp5() BEGIN DECLARE x DEFAULT '0' char; END", Some(4161)),
        ("CREATE PROCEDURE sp5() BEGIN DECLARE handler CONTINUE FOR SQLSTATE '02000' SET @x = 1; END", Some(4161)),
        ("CREATE PROCEDURE sp5() BEGIN DECLARE x; END", Some(1064)),
        ("CREATE PROCEDURE sp5() BEGIN DECLARE @x CHAR; END", Some(1064)),
        ("CREATE PROCEDURE sp6() BEGIN DECLARE x INET6 DEFAULT '::1'; END", None),
    ];
    for (sql, code) in cases {
        let want = if code.is_some() {
            Outcome::Error
        } else {
            Outcome::Ok
        };
        assert_eq!(m.step(a, sql), Ok(want), "{sql}");
        if code.is_some() {
            assert_eq!(m.session(a).last_error, *code, "{sql}");
        } else {
            m.step(a, &format!("DROP PROCEDURE {}", &sql[17..20]))
                .unwrap();
        }
    }
}

/// IF as a routine's name is the reserved word IF of `IF NOT EXISTS` / `IF EXISTS`
/// (storedproc.test lines 1292, 17704).
#[test]
fn if_as_a_routine_name() {
    let mut m = model();
    let a = m.add_session();
    for sql in [
        "CREATE PROCEDURE if() SELECT * from t1 where f2=f1",
        "DROP PROCEDURE IF EXISTSsp1",
    ] {
        assert_eq!(m.step(a, sql), Ok(Outcome::Error), "{sql}");
        assert_eq!(m.session(a).last_error, Some(1064), "{sql}");
    }
    assert_eq!(m.step(a, "DROP PROCEDURE IF EXISTS sp1"), Ok(Outcome::Ok));
    assert_eq!(
        m.step(a, "CREATE PROCEDURE IF NOT EXISTS sp1() SELECT 1"),
        Ok(Outcome::Ok)
    );
}
