//! The forms of the `main/` sample's differences with the server (h-srv, issue 27), played
//! on the model alone; each has its suite scenario that compares it with the server:
//! `set-statement-not-supported.mdl`, `union-tail.mdl`, `create-table-parse-errors.mdl`,
//! `call-arg-errors.mdl`, `trigger-other-schema.mdl`, `describe-information-schema.mdl`,
//! `executable-comment-routine.mdl`, `accounts-quoted-names.mdl`,
//! `accounts-role-names.mdl`.

use mdl_core::Outcome;
use mdl_sql::mapping::Mapping;
use mdl_sql::model::SqlModel;

/// Plays `lines` (session index, SQL) on a fresh model with three sessions.
fn play(lines: &[(usize, &str)]) -> Vec<String> {
    let mut m = SqlModel::new(Mapping::load().unwrap());
    let ids = [m.add_session(), m.add_session(), m.add_session()];
    lines
        .iter()
        .map(|(s, q)| match m.step(ids[*s], q) {
            Ok(Outcome::Error) => format!("error {}", m.session(ids[*s]).last_error.unwrap_or(0)),
            Ok(o) => format!("{o:?}"),
            Err(e) => format!("refused: {e}"),
        })
        .collect()
}

#[test]
fn set_statement_of_a_no_set_statement_variable_fails_before_the_statement() {
    let got = play(&[
        (
            0,
            "set statement character_set_filesystem=default for select 1",
        ),
        (0, "set statement autocommit=default for select 1"),
        (1, "BEGIN"),
        (1, "SELECT * FROM t1"),
        (
            1,
            "set statement collation_connection=default for select * from t2",
        ),
        (0, "DROP TABLE t1"),
        (2, "set statement sort_buffer_size=150000 for select 1"),
    ]);
    assert_eq!(
        got,
        [
            "error 1971",
            "error 1971",
            "Ok",
            "Ok",
            "error 1971",
            "Waiting",
            "Ok"
        ],
        "{got:?}"
    );
}

#[test]
fn a_locking_clause_after_a_union_is_the_last_selects() {
    let got = play(&[
        (0, "BEGIN"),
        (0, "SELECT 1 FROM t2 UNION SELECT 1 FROM t1 FOR UPDATE"),
        (1, "LOCK TABLES t2 READ"),
        (1, "UNLOCK TABLES"),
        (1, "LOCK TABLES t1 READ"),
    ]);
    // t2 is read (SR) by the first SELECT only; t1 is the last SELECT's (SW).
    assert_eq!(got, ["Ok", "Ok", "Ok", "Ok", "Waiting"], "{got:?}");
}

#[test]
fn a_qualified_column_in_a_unions_order_by_is_a_parse_error() {
    let got = play(&[
        (0, "select a from t1 union select a from t2 order by t2.a"),
        (
            0,
            "select a from t1 union select a from t9 order by match(t9.a) against ('x')",
        ),
        (0, "select a from t1 union select a from t2 order by a"),
        (0, "select a from t1 union (select a from t2 order by t2.a)"),
    ]);
    assert_eq!(got, ["error 1250", "error 1250", "Ok", "Ok"], "{got:?}");
}

#[test]
fn create_table_column_errors_come_before_the_tables_existence() {
    let got = play(&[
        (0, "CREATE TABLE t1 (a VARCHAR(10) CHARACTER SET ascii2)"),
        (0, "CREATE TABLE t1 (a INT DEFAULT (EXISTS (SELECT 1)))"),
        (0, "CREATE TABLE t9 AS (SELECT 1 AS a)"),
    ]);
    assert_eq!(got, ["error 1115", "error 1901", "Ok"], "{got:?}");
}

#[test]
fn aggregates_and_window_functions_in_call_arguments() {
    let got = play(&[
        (0, "CALL p9(SUM(1))"),
        (0, "CALL p9(ROW_NUMBER() OVER ())"),
        (0, "CALL p9(1)"),
    ]);
    assert_eq!(got, ["error 1111", "error 4015", "error 1305"], "{got:?}");
}

#[test]
fn a_triggers_unqualified_table_is_in_the_triggers_schema() {
    let got = play(&[
        (
            0,
            "CREATE TRIGGER db9.tr1 BEFORE UPDATE ON t1 FOR EACH ROW SET new.a = 2",
        ),
        (0, "DESCRIBE INFORMATION_SCHEMA.ROUTINES"),
    ]);
    assert_eq!(got, ["error 1146", "Ok"], "{got:?}");
}

#[test]
fn a_stored_procedure_in_an_executable_comment() {
    let got = play(&[
        (
            0,
            "/*!50003 create procedure bug14723() main_loop: begin select 42; end */",
        ),
        (0, "select 1 /*! ; select 2 */"),
    ]);
    assert_eq!(got[0], "Ok", "{got:?}");
    assert_ne!(got[1], "Ok", "{got:?}");
}

#[test]
fn account_names_with_escaped_quotes_and_role_name_errors() {
    let got = play(&[
        (0, "create role 'rock\\'n\\'roll'"),
        (0, "create user 'O\\'Brien'@'localhost'"),
        (0, "GRANT 'rock\\'n\\'roll' TO 'O\\'Brien'@'localhost'"),
        (0, "create user 'x''y'@localhost"),
        (0, "create user 'x''y'@localhost"),
        (0, "create role test_role1@host1"),
        (0, "create role current_role"),
        (0, "create role r2 with admin current_user"),
    ]);
    assert_eq!(
        got,
        [
            "Ok",
            "Ok",
            "Ok",
            "Ok",
            "error 1396",
            "error 1064",
            "error 1396",
            "Ok"
        ],
        "{got:?}"
    );
}

/// The random run from seed 490001 (h-rand; `found/seed-490706`, `-490903`, `-491256`,
/// `-491419`, `suite/handler-kept-no-open.mdl`).
mod random_490001 {
    use mdl_core::Outcome;
    use mdl_sql::mapping::Mapping;
    use mdl_sql::model::SqlModel;

    fn model() -> (SqlModel, [usize; 3]) {
        let mut m = SqlModel::new(Mapping::load().unwrap());
        let ids = [m.add_session(), m.add_session(), m.add_session()];
        (m, ids)
    }

    #[test]
    fn a_killed_wait_for_the_statistics_tables_ends_analyze_persistent_ok() {
        let (mut m, [_, b, c]) = model();
        m.step(c, "FLUSH TABLES WITH READ LOCK").unwrap();
        assert_eq!(
            m.step(b, "ANALYZE TABLE m1 PERSISTENT FOR ALL"),
            Ok(Outcome::Waiting)
        );
        assert!(m.kill(b));
        assert_eq!(m.take_events(), vec![(b, Outcome::Ok)]);
        // Of an InnoDB table (its row waits for BACKUP_COMMIT) a kill stays a kill.
        assert_eq!(
            m.step(b, "ANALYZE TABLE t1 PERSISTENT FOR ALL"),
            Ok(Outcome::Waiting)
        );
        assert!(m.kill(b));
        assert_eq!(m.take_events(), vec![(b, Outcome::Killed)]);
    }

    /// Session `c`'s HANDLER on t1 that `b`'s RENAME waits for, then `q` by `c`: is the
    /// HANDLER still open (the RENAME still waiting)?
    fn handler_kept(q: &str) -> bool {
        let (mut m, [_, b, c]) = model();
        m.step(c, "HANDLER t1 OPEN").unwrap();
        assert_eq!(
            m.step(b, "RENAME TABLE m1 TO t4, t1 TO m1"),
            Ok(Outcome::Waiting)
        );
        m.step(c, q).unwrap();
        m.is_waiting(b)
    }

    #[test]
    fn every_set_flushes_the_handlers_statements_that_open_nothing_do_not() {
        for q in [
            "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE",
            "SET completion_type = 0",
            "SELECT 1",
        ] {
            assert!(!handler_kept(q), "{q}");
        }
        for q in [
            "SHOW WARNINGS",
            "SHOW GRANTS",
            "HELP 'x'",
            "GET DIAGNOSTICS @n = NUMBER",
            "SHOW PROFILES",
            "SHOW CREATE FUNCTION f9",
            "FLUSH LOGS",
            "SAVEPOINT sp1",
        ] {
            assert!(handler_kept(q), "{q}");
        }
    }

    #[test]
    fn create_temporary_of_a_taken_name_opens_its_source_first() {
        let (mut m, [a, ..]) = model();
        m.step(a, "CREATE TEMPORARY TABLE t3 LIKE t2").unwrap();
        let err = |m: &mut SqlModel, q: &str| {
            assert_eq!(m.step(a, q), Ok(Outcome::Error), "{q}");
            m.session(a).last_error
        };
        assert_eq!(err(&mut m, "CREATE TEMPORARY TABLE t3 LIKE t9"), Some(1146));
        assert_eq!(err(&mut m, "CREATE TEMPORARY TABLE t3 LIKE t1"), Some(1050));
        m.step(a, "LOCK TABLES t2 WRITE").unwrap();
        assert_eq!(err(&mut m, "CREATE TEMPORARY TABLE t3 LIKE t1"), Some(1100));
    }

    #[test]
    fn show_create_table_waits_for_a_granted_x() {
        let (mut m, [a, b, c]) = model();
        m.step(a, "LOCK TABLES t2 WRITE CONCURRENT").unwrap();
        assert_eq!(
            m.step(c, "RENAME TABLE t2 TO t4, t1 TO t2"),
            Ok(Outcome::Waiting)
        );
        assert_eq!(m.step(b, "SHOW CREATE TABLE t1"), Ok(Outcome::Waiting));
        assert!(m.locks_of(b).contains("TABLE test.t1 SH (pending)"));
    }
}
