//! CALL of procedures whose bodies have control flow, handlers and cursors
//! (`classify/routine_flow.rs`, `model/call_flow.rs`), without a server: what the server
//! showed in `models/conformance/suite/sp-flow-*.mdl`.

use mdl_core::Outcome;
use mdl_sql::mapping::Mapping;
use mdl_sql::model::SqlModel;

fn model() -> SqlModel {
    SqlModel::new(Mapping::load().expect("statements.tsv"))
}

fn held(m: &SqlModel, s: usize) -> Vec<String> {
    m.locks_of(s).into_iter().collect()
}

/// IF over a local variable the body sets: only the branch taken locks its table.
const BRANCH: &str = "CREATE PROCEDURE pb() BEGIN DECLARE n INT DEFAULT 0; SET n = n + 2; \
                      IF n > 1 THEN UPDATE t2 SET b = 1 WHERE a = 1; \
                      ELSEIF n > 0 THEN UPDATE m1 SET b = 1 WHERE a = 1; \
                      ELSE UPDATE t1 SET b = 1 WHERE a = 1; END IF; END";

/// In a transaction, the CALL of BRANCH: does an ALTER of t2 wait, and one of t1?
fn alters_wait() -> (bool, bool) {
    let mut m = model();
    let (a, b, c) = (m.add_session(), m.add_session(), m.add_session());
    m.step(a, BRANCH).unwrap();
    m.step(a, "BEGIN").unwrap();
    assert_eq!(m.step(a, "CALL pb()"), Ok(Outcome::Ok));
    let t2 = m.step(b, "ALTER TABLE t2 ADD COLUMN c INT, ALGORITHM=COPY") == Ok(Outcome::Waiting);
    let t1 = m.step(c, "ALTER TABLE t1 ADD COLUMN c INT, ALGORITHM=COPY") == Ok(Outcome::Waiting);
    (t2, t1)
}

#[cfg(not(mdl_bug = "conform_call_branch_inverted"))]
#[test]
fn only_the_branch_taken_takes_its_locks() {
    assert_eq!(alters_wait(), (true, false));
}

/// Seeded bug `conform_call_branch_inverted`: the IF takes the other way (the ELSEIF's
/// condition is true too once inverted... the first is not, so the ELSEIF's m1 or the
/// ELSE's t1 is locked instead of t2).
#[cfg(mdl_bug = "conform_call_branch_inverted")]
#[test]
fn seeded_bug_conform_call_branch_inverted_is_caught() {
    assert_ne!(alters_wait(), (true, false));
}

#[cfg(not(mdl_bug = "conform_call_branch_inverted"))]
#[test]
fn a_while_loop_runs_its_body_as_often_as_its_condition_says() {
    let mut m = model();
    let (a, c) = (m.add_session(), m.add_session());
    m.step(
        a,
        "CREATE PROCEDURE pw(k INT) BEGIN DECLARE i INT DEFAULT 0; \
         l1: WHILE i < k DO SET i = i + 1; IF i = 3 THEN LEAVE l1; END IF; \
         INSERT INTO t1 (b) VALUES (i); END WHILE l1; SELECT GET_LOCK('g', 100) INTO @r; END",
    )
    .unwrap();
    assert_eq!(m.step(c, "SELECT GET_LOCK('g', 0)"), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "CALL pw(5)"), Ok(Outcome::Waiting));
    assert_eq!(held(&m, a), vec!["USER_LOCK g SNW (pending)"]);
    assert_eq!(m.step(c, "SELECT RELEASE_LOCK('g')"), Ok(Outcome::Ok));
    assert_eq!(m.take_events(), vec![(a, Outcome::Ok)]);
}

#[test]
fn a_branch_over_data_and_an_endless_loop_are_refused() {
    let mut m = model();
    let a = m.add_session();
    m.step(
        a,
        "CREATE PROCEDURE pd() BEGIN DECLARE v INT; SELECT b INTO v FROM t1 WHERE a = 1; \
         IF v > 0 THEN DELETE FROM t2; END IF; END",
    )
    .unwrap();
    let e = m.step(a, "CALL pd()").unwrap_err();
    assert!(e.contains("depends on data"), "{e}");
    m.step(
        a,
        "CREATE PROCEDURE pe() BEGIN l: LOOP UPDATE t1 SET b = 1 WHERE a = 1; END LOOP l; END",
    )
    .unwrap();
    let e = m.step(a, "CALL pe()").unwrap_err();
    assert!(e.contains("loop"), "{e}");
    m.step(
        a,
        "CREATE PROCEDURE pf() BEGIN IF (SELECT COUNT(*) FROM t1) > 0 THEN SET @x = 1; \
         END IF; END",
    )
    .unwrap();
    let e = m.step(a, "CALL pf()").unwrap_err();
    assert!(e.contains("not evaluated"), "{e}");
}

/// A CONTINUE handler for a missing table: the body goes on after the failed statement,
/// the CALL ends OK.
#[test]
fn a_continue_handler_takes_a_missing_table_and_the_body_goes_on() {
    let mut m = model();
    let (a, b) = (m.add_session(), m.add_session());
    m.step(
        a,
        "CREATE PROCEDURE ph() BEGIN DECLARE CONTINUE HANDLER FOR 1146 SET @e = 1; \
         SELECT * FROM no_such; UPDATE t2 SET b = 2 WHERE a = 1; END",
    )
    .unwrap();
    m.step(a, "BEGIN").unwrap();
    assert_eq!(m.step(a, "CALL ph()"), Ok(Outcome::Ok));
    assert_eq!(held(&m, a), vec!["TABLE test.t2 SW"]);
    assert_eq!(
        m.step(b, "ALTER TABLE t2 ADD COLUMN c INT, ALGORITHM=COPY"),
        Ok(Outcome::Waiting)
    );
}

/// An EXIT handler for a lock wait timeout: the block is left (the statement after the
/// failed one does not run), the CALL ends OK; without a handler it ends with the timeout.
#[test]
fn an_exit_handler_takes_a_lock_wait_timeout_and_leaves_its_block() {
    let mut m = model();
    let (a, c) = (m.add_session(), m.add_session());
    m.step(
        a,
        "CREATE PROCEDURE px() BEGIN BEGIN DECLARE EXIT HANDLER FOR SQLEXCEPTION SET @e = 1; \
         UPDATE t2 SET b = 2 WHERE a = 1; UPDATE m1 SET b = 1 WHERE a = 1; END; \
         UPDATE m2 SET b = 1 WHERE a = 1; END",
    )
    .unwrap();
    m.step(c, "LOCK TABLES t2 WRITE").unwrap();
    m.step(a, "SET lock_wait_timeout = 1").unwrap();
    m.step(a, "BEGIN").unwrap();
    assert_eq!(m.step(a, "CALL px()"), Ok(Outcome::Waiting));
    m.advance(2000);
    assert_eq!(m.take_events(), vec![(a, Outcome::Ok)]);
    assert_eq!(held(&m, a), vec!["TABLE test.m2 SW"]);
}

/// A cursor over an empty table: OPEN runs its SELECT (its lock, released at the
/// instruction's end in autocommit), the first FETCH raises NOT FOUND to its handler.
#[cfg(not(mdl_bug = "conform_call_branch_inverted"))]
#[test]
fn a_cursor_loop_over_an_empty_table_ends_at_not_found() {
    let mut m = model();
    let (a, c) = (m.add_session(), m.add_session());
    m.step(a, "CREATE TABLE e1 (a INT)").unwrap();
    m.step(
        a,
        "CREATE PROCEDURE pc() BEGIN DECLARE done INT DEFAULT 0; DECLARE x INT; \
         DECLARE c1 CURSOR FOR SELECT a FROM e1; \
         DECLARE CONTINUE HANDLER FOR NOT FOUND SET done = 1; \
         OPEN c1; rd: LOOP FETCH c1 INTO x; IF done THEN LEAVE rd; END IF; \
         INSERT INTO t1 (b) VALUES (x); END LOOP; CLOSE c1; END",
    )
    .unwrap();
    m.step(c, "LOCK TABLES e1 WRITE").unwrap();
    assert_eq!(m.step(a, "CALL pc()"), Ok(Outcome::Waiting));
    assert_eq!(held(&m, a), vec!["TABLE test.e1 SR (pending)"]);
    m.step(c, "UNLOCK TABLES").unwrap();
    assert_eq!(m.take_events(), vec![(a, Outcome::Ok)]);
    assert!(held(&m, a).is_empty());
}

/// A KILL QUERY of a body's statement waiting for a lock is ER_QUERY_INTERRUPTED there: a
/// SQLEXCEPTION handler takes it and the body goes on (measured,
/// `sp-flow-conditions.mdl`).
#[test]
fn a_kill_query_inside_the_body_goes_to_its_handler() {
    let mut m = model();
    let (a, c, f) = (m.add_session(), m.add_session(), m.add_session());
    m.name_sessions(&["a".into(), "c".into(), "f".into()]);
    m.step(
        a,
        "CREATE PROCEDURE pk() BEGIN DECLARE CONTINUE HANDLER FOR SQLEXCEPTION SET @k = 1; \
         UPDATE t1 SET b = 1 WHERE a = 1; UPDATE m2 SET b = 1 WHERE a = 1; END",
    )
    .unwrap();
    m.step(c, "LOCK TABLES t1 WRITE").unwrap();
    m.step(a, "BEGIN").unwrap();
    assert_eq!(m.step(a, "CALL pk()"), Ok(Outcome::Waiting));
    assert_eq!(m.step(f, "KILL QUERY a"), Ok(Outcome::Ok));
    assert_eq!(m.take_events(), vec![(a, Outcome::Ok)]);
    assert_eq!(held(&m, a), vec!["TABLE test.m2 SW"]);
}

/// An IF / CASE whose one condition reads a table and whose branches are inert
/// (main/sp-expr.test): the condition's locks, as a SELECT's (`sp_instr_jump_if_not`),
/// then a branch; a missing table fails the block; a branch that is not inert stays
/// refused (`classify/routine_flow_data.rs`).
#[test]
fn a_branch_over_data_with_inert_branches_plays_its_condition() {
    let mut m = model();
    let a = m.add_session();
    m.step(a, "BEGIN").unwrap();
    for sql in [
        "BEGIN NOT ATOMIC IF (EXISTS (SELECT a FROM t1)) THEN SELECT 1; ELSE SELECT NULL; \
         END IF; END",
        "BEGIN NOT ATOMIC CASE ((1) IN (SELECT a FROM t2)) WHEN 1 THEN SELECT 1; \
         ELSE SELECT NULL; END CASE; END",
    ] {
        assert_eq!(m.step(a, sql), Ok(Outcome::Ok), "{sql}");
    }
    let locks = held(&m, a).join(" ");
    assert!(locks.contains("t1") && locks.contains("t2"), "{locks}");
    m.step(a, "COMMIT").unwrap();
    let missing = "BEGIN NOT ATOMIC IF EXISTS (SELECT * FROM nosuch) THEN SELECT 1; END IF; END";
    assert_eq!(m.step(a, missing), Ok(Outcome::Error));
    let busy = "BEGIN NOT ATOMIC IF EXISTS (SELECT * FROM t1) THEN DELETE FROM t2; END IF; END";
    assert!(m.step(a, busy).is_err());
}
