//! Dynamic SQL played on the model alone (`model/dynamic_sql.rs`, `model/user_vars.rs`,
//! `model/prepare_check.rs`, `model/prepare_open.rs`): user variables' values, PREPARE and
//! EXECUTE IMMEDIATE of them and of CONCAT, NULL and empty sources, USING counts, and
//! EXECUTE IMMEDIATE's prepare phase (the suite's `ps-*.mdl` and
//! `execute-immediate-*.mdl` compare them with the server).

use mdl_core::Outcome;
use mdl_sql::mapping::Mapping;
use mdl_sql::model::SqlModel;

fn model(n: usize) -> (SqlModel, Vec<usize>) {
    let mut m = SqlModel::new(Mapping::load().unwrap());
    let ids = (0..n).map(|_| m.add_session()).collect();
    (m, ids)
}

fn run(m: &mut SqlModel, s: usize, q: &str) -> String {
    match m.step(s, q) {
        Ok(Outcome::Error) => format!("error {}", m.session(s).last_error.unwrap_or(0)),
        Ok(o) => format!("{o:?}"),
        Err(e) => format!("refused: {e}"),
    }
}

#[test]
fn a_variable_set_to_a_string_is_prepared_and_executed() {
    let (mut m, s) = model(1);
    let a = s[0];
    assert_eq!(run(&mut m, a, "SET @s = 'SELECT * FROM t1'"), "Ok");
    assert_eq!(run(&mut m, a, "PREPARE p FROM @s"), "Ok");
    assert_eq!(run(&mut m, a, "BEGIN"), "Ok");
    assert_eq!(run(&mut m, a, "EXECUTE p"), "Ok");
    assert!(
        m.locks_of(a)
            .iter()
            .any(|l| l.starts_with("TABLE test.t1 SR")),
        "{:?}",
        m.locks_of(a)
    );
    assert_eq!(run(&mut m, a, "COMMIT"), "Ok");
    assert_eq!(run(&mut m, a, "SET @t = 't2'"), "Ok");
    assert_eq!(run(&mut m, a, "BEGIN"), "Ok");
    assert_eq!(
        run(&mut m, a, "EXECUTE IMMEDIATE CONCAT('SELECT * FROM ', @t)"),
        "Ok"
    );
    assert!(
        m.locks_of(a)
            .iter()
            .any(|l| l.starts_with("TABLE test.t2 SR")),
        "{:?}",
        m.locks_of(a)
    );
    assert_eq!(run(&mut m, a, "COMMIT"), "Ok");
    assert_eq!(run(&mut m, a, "SELECT 'DO 1' INTO @d"), "Ok");
    assert_eq!(run(&mut m, a, "EXECUTE IMMEDIATE @d"), "Ok");
}

#[test]
fn a_null_source_is_a_parse_error_and_drops_the_old_statement() {
    let (mut m, s) = model(1);
    let a = s[0];
    assert_eq!(run(&mut m, a, "EXECUTE IMMEDIATE @unset"), "error 1064");
    assert_eq!(run(&mut m, a, "PREPARE p FROM 'SELECT 1'"), "Ok");
    assert_eq!(
        run(&mut m, a, "PREPARE p FROM CONCAT('SELECT ', @unset)"),
        "error 1064"
    );
    assert_eq!(run(&mut m, a, "EXECUTE p"), "error 1243");
    assert_eq!(run(&mut m, a, "EXECUTE IMMEDIATE ''"), "error 1065");
    assert_eq!(
        run(&mut m, a, "PREPARE p FROM '/* nothing */'"),
        "error 1065"
    );
    assert_eq!(
        run(
            &mut m,
            a,
            "EXECUTE IMMEDIATE 'EXECUTE IMMEDIATE ''SELECT 1'''"
        ),
        "error 1295"
    );
}

#[test]
fn a_value_read_from_a_table_is_refused() {
    let (mut m, s) = model(1);
    let a = s[0];
    assert_eq!(run(&mut m, a, "SELECT a INTO @s FROM t1 LIMIT 1"), "Ok");
    let r = run(&mut m, a, "PREPARE p FROM @s");
    assert!(r.contains("cannot compute"), "{r}");
    // A subquery in the source: the parser's ER_SUBQUERIES_NOT_SUPPORTED (main/ps.test;
    // model/dynamic_source.rs), measured in suite/ps-dynamic-source-errors.mdl.
    let r = run(&mut m, a, "EXECUTE IMMEDIATE (SELECT 'SELECT 1')");
    assert_eq!(r, "error 1970");
}

#[test]
fn using_must_match_the_markers() {
    let (mut m, s) = model(1);
    let a = s[0];
    assert_eq!(run(&mut m, a, "EXECUTE IMMEDIATE 'SELECT ?' USING 1"), "Ok");
    assert_eq!(run(&mut m, a, "EXECUTE IMMEDIATE 'SELECT ?'"), "error 1210");
    assert_eq!(run(&mut m, a, "PREPARE p FROM 'SELECT ?, ''?'''"), "Ok");
    assert_eq!(run(&mut m, a, "EXECUTE p USING @x, @y"), "error 1210");
    assert_eq!(run(&mut m, a, "EXECUTE p USING @x"), "Ok");
}

/// seed-440522: s2's HANDLER on t2, s1's RENAME waiting for X, then s3's EXECUTE
/// IMMEDIATE of an INSERT into t2: what s3 holds and waits for.
fn immediate_behind_pending_x() -> (SqlModel, Vec<usize>) {
    let (mut m, s) = model(3);
    assert_eq!(run(&mut m, s[1], "HANDLER t2 OPEN"), "Ok");
    assert_eq!(
        run(&mut m, s[0], "RENAME TABLE t2 TO t3, t1 TO t2"),
        "Waiting"
    );
    let q = "EXECUTE IMMEDIATE 'INSERT INTO t2 (b) VALUES (7)'";
    assert_eq!(run(&mut m, s[2], q), "Waiting");
    (m, s)
}

#[test]
fn execute_immediate_waits_for_its_prepare_s_first() {
    // models/conformance/seed-440522.mdl
    let (mut m, s) = immediate_behind_pending_x();
    assert!(
        m.locks_of(s[2]).contains("TABLE test.t2 S (pending)"),
        "{:?}",
        m.locks_of(s[2])
    );
    assert_eq!(run(&mut m, s[1], "HANDLER t2 CLOSE"), "Ok");
    // The RENAME done, the INSERT goes on into the new t2 (the former t1) and ends.
    assert!(!m.is_waiting(s[2]));
    assert!(m.locks_of(s[2]).is_empty(), "{:?}", m.locks_of(s[2]));
}

/// Seeded bug `sql_immediate_no_prepare`: the statement alone waits for SW; the check
/// above sees it.
#[cfg(mdl_bug = "sql_immediate_no_prepare")]
#[test]
fn seeded_bug_sql_immediate_no_prepare_is_caught() {
    let (m, s) = immediate_behind_pending_x();
    assert!(!m.locks_of(s[2]).contains("TABLE test.t2 S (pending)"));
}

#[test]
fn default_and_ignore_stand_as_values_only() {
    let (mut m, s) = model(1);
    let a = s[0];
    let q = "EXECUTE IMMEDIATE 'INSERT INTO t2 VALUES (?,?)' USING DEFAULT, DEFAULT";
    assert_eq!(run(&mut m, a, q), "Ok");
    assert_eq!(
        run(
            &mut m,
            a,
            "EXECUTE IMMEDIATE 'UPDATE t2 SET b=?' USING IGNORE"
        ),
        "Ok"
    );
    assert_eq!(
        run(&mut m, a, "EXECUTE IMMEDIATE 'SELECT ?+1' USING DEFAULT"),
        "error 4032"
    );
    let r = run(
        &mut m,
        a,
        "EXECUTE IMMEDIATE 'UPDATE t2 SET b=?+1' USING DEFAULT",
    );
    assert!(r.starts_with("refused"), "{r}");
}

/// suite/ps-default-param-after-locks.mdl (main/default.test, MDEV-11360): a misplaced
/// DEFAULT / IGNORE fails once the statement's tables are locked: behind another
/// session's LOCK TABLES ... WRITE it waits first; `EXPLAIN SELECT ?` runs.
#[test]
fn a_misplaced_default_fails_after_the_statements_locks() {
    let (mut m, s) = model(2);
    let (a, b) = (s[0], s[1]);
    assert_eq!(run(&mut m, b, "LOCK TABLES t2 WRITE"), "Ok");
    let q = "EXECUTE IMMEDIATE 'SELECT * FROM t2 LIMIT ?' USING IGNORE";
    assert_eq!(run(&mut m, a, q), "Waiting");
    assert_eq!(run(&mut m, b, "UNLOCK TABLES"), "Ok");
    assert_eq!(m.session(a).last_error, Some(4032));
    let q = "EXECUTE IMMEDIATE 'EXPLAIN EXTENDED SELECT ?' USING IGNORE";
    assert_eq!(run(&mut m, a, q), "Ok");
    let q = "EXECUTE IMMEDIATE 'SELECT * FROM t9 WHERE ?' USING IGNORE";
    assert_eq!(run(&mut m, a, q), "error 1146");
    // In a transaction the failed statement keeps its SR.
    assert_eq!(run(&mut m, a, "BEGIN"), "Ok");
    let q = "EXECUTE IMMEDIATE 'SELECT * FROM t2 WHERE ?' USING IGNORE";
    assert_eq!(run(&mut m, a, q), "error 4032");
    assert!(
        m.locks_of(a).contains("TABLE test.t2 SR"),
        "{:?}",
        m.locks_of(a)
    );
    assert_eq!(run(&mut m, b, "LOCK TABLES t2 WRITE"), "Waiting");
    assert_eq!(run(&mut m, a, "COMMIT"), "Ok");
    assert!(!m.is_waiting(b));
}

#[test]
fn parameters_are_fixed_first_and_admin_statements_are_not_checked_when_prepared() {
    let (mut m, s) = model(1);
    let a = s[0];
    // main/ps.test: no statement `stmt`, yet the subquery's error.
    assert_eq!(
        run(&mut m, a, "EXECUTE stmt USING (SELECT 1)"),
        "error 1970"
    );
    assert_eq!(
        run(&mut m, a, "EXECUTE IMMEDIATE @unset USING (SELECT 1)"),
        "error 1970"
    );
    assert_eq!(
        run(&mut m, a, "PREPARE stmt FROM 'REPAIR TABLE t1, t2, t3'"),
        "Ok"
    );
    assert_eq!(
        run(&mut m, a, "PREPARE stmt FROM 'ANALYZE TABLE t4, t1'"),
        "Ok"
    );
    assert_eq!(
        run(&mut m, a, "PREPARE stmt FROM 'SELECT * FROM t3'"),
        "error 1146"
    );
}
