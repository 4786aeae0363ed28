//! Stored programs' bodies the parser reads (`classify/routine_block.rs` and its
//! siblings `reserved.rs`, `routine_decl.rs`, `routine_for.rs`, `routine_diag.rs`) and
//! SIGNAL / RESIGNAL / GET DIAGNOSTICS as statements, without a server: what the server
//! showed in `models/conformance/suite/sp-signal-diagnostics.mdl` and `sp-cursor-ddl.mdl`.

use mdl_core::Outcome;
use mdl_sql::mapping::Mapping;
use mdl_sql::model::SqlModel;

fn model() -> SqlModel {
    SqlModel::new(Mapping::load().expect("statements.tsv"))
}

/// Definitions of the shapes main/sp-for-loop.test, sp-cursor.test, sp-row.test and
/// get_diagnostics.test use are created; a reserved word as a name is ER_PARSE_ERROR.
#[test]
fn the_servers_shapes_are_created_and_reserved_words_fail() {
    let mut m = model();
    let a = m.add_session();
    for sql in [
        "CREATE FUNCTION f1() RETURNS INT BEGIN DECLARE total INT DEFAULT 0; \
         lab: FOR i IN 1 .. 3 DO SET total = total + i; END FOR lab; RETURN total; END",
        "CREATE PROCEDURE p1() BEGIN FOR r IN (SELECT a FROM t2) DO SET @x = r.a; END FOR; END",
        "CREATE PROCEDURE p2(p INT) BEGIN DECLARE c CURSOR (pa INT) FOR SELECT a FROM t2 \
         WHERE a > pa; OPEN c(p); CLOSE c; END",
        "CREATE PROCEDURE p3() BEGIN DECLARE rec ROW(a INT, b VARCHAR(10)); \
         DECLARE n, only, value INT; GET DIAGNOSTICS n = NUMBER; END",
        "CREATE PROCEDURE language() BEGIN DECLARE foo CONDITION FOR SQLSTATE '12345'; \
         DECLARE EXIT HANDLER FOR foo BEGIN END; SIGNAL foo; END",
    ] {
        assert_eq!(m.step(a, sql), Ok(Outcome::Ok), "{sql}");
    }
    for sql in [
        "CREATE PROCEDURE add() BEGIN END",
        "CREATE PROCEDURE p4() BEGIN DECLARE add INT; END",
    ] {
        assert_eq!(m.step(a, sql), Ok(Outcome::Error), "{sql}");
        assert_eq!(m.session(a).last_error, Some(1064), "{sql}");
    }
    let undeclared = "CREATE PROCEDURE p5() BEGIN GET DIAGNOSTICS v = NUMBER; END";
    assert_eq!(m.step(a, undeclared), Ok(Outcome::Error));
    assert_eq!(m.session(a).last_error, Some(1327));
    // A CALL of what the CALL compiler does not follow is refused, not played as nothing.
    for call in ["CALL p1()", "CALL p2(1)", "CALL p3()"] {
        assert!(m.step(a, call).is_err(), "{call}");
    }
}

/// SIGNAL raises its error, RESIGNAL has no handler, GET DIAGNOSTICS reads: none takes a
/// lock or ends the transaction, whose SHARED_READ on t1 stays until COMMIT.
#[test]
fn signal_and_diagnostics_keep_the_transaction() {
    let mut m = model();
    let (a, b) = (m.add_session(), m.add_session());
    m.step(a, "BEGIN").unwrap();
    assert_eq!(m.step(a, "SELECT * FROM t1"), Ok(Outcome::Ok));
    let steps = [
        ("SIGNAL SQLSTATE '45000'", Some(1644)),
        ("SIGNAL SQLSTATE '02000'", Some(1643)),
        (
            "SIGNAL SQLSTATE '45000' SET MYSQL_ERRNO = 30001",
            Some(30001),
        ),
        ("SIGNAL SQLSTATE '01000'", None),
        ("RESIGNAL", Some(1645)),
        ("GET DIAGNOSTICS @n = NUMBER", None),
    ];
    for (sql, code) in steps {
        let want = if code.is_some() {
            Outcome::Error
        } else {
            Outcome::Ok
        };
        assert_eq!(m.step(a, sql), Ok(want), "{sql}");
        if code.is_some() {
            assert_eq!(m.session(a).last_error, code, "{sql}");
        }
    }
    let alter = "ALTER TABLE t1 ADD COLUMN c INT, ALGORITHM=COPY";
    assert_eq!(m.step(b, alter), Ok(Outcome::Waiting));
    assert_eq!(m.step(a, "COMMIT"), Ok(Outcome::Ok));
}
