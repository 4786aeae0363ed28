//! A CALL of a multi-statement procedure in `mdl check`: the search stops it between its
//! instructions (`SqlModel::set_stepwise_calls`), so another session's statement runs
//! there, as on the server (each instruction is a statement of its own:
//! `sp_head::execute`, MariaDB sql/sp_head.cc); a written order plays it on at once, as
//! `mdl conform` measured it (`models/conformance/suite/sp-call-multi-statement.mdl`).

use mdl_check::sql::check::{check, DEFAULT_MAX_STATES};
use mdl_check::sql::{written, SqlAction, SqlCheck};
use mdl_core::Outcome;

const FILE: &str = "dialect mariadb
setup: sql CREATE PROCEDURE p1() BEGIN SELECT b INTO @x FROM t1 WHERE a = 1; UPDATE t2 SET b = 1 WHERE a = 1; END
a: sql CALL p1()
expect a ok
b: sql LOCK TABLES t2 WRITE
expect b ok
b: sql UNLOCK TABLES
assert sometimes a waiting
";

fn model() -> SqlCheck {
    let sc = mdl_scenario::read::read_bytes("window.mdl", FILE.as_bytes())
        .unwrap_or_else(|e| panic!("{e}"))
        .scenario;
    SqlCheck::new(&sc).unwrap_or_else(|e| panic!("{}: {}", e.pos.line, e.msg))
}

#[test]
fn the_search_runs_another_sessions_statement_between_two_instructions() {
    let m = model();
    let (a, b) = (0, 1);
    let st = m.initial();
    // The CALL's SELECT ran; it stops before its UPDATE.
    let (st, rec) = m.apply(&st, SqlAction::Step(a));
    assert_eq!(rec.outcome, Some((Outcome::Waiting, None)));
    assert!(st.model.between_instructions(a));
    assert!(st.model.locks_of(a).is_empty());
    let mut en = Vec::new();
    m.enabled(&st, &mut en);
    assert_eq!(en, vec![SqlAction::Step(a), SqlAction::Step(b)]);
    // b's LOCK TABLES runs in the window; the UPDATE then waits for it.
    let (st, rec) = m.apply(&st, SqlAction::Step(b));
    assert_eq!(rec.outcome, Some((Outcome::Ok, None)));
    let (st, rec) = m.apply(&st, SqlAction::Step(a));
    assert_eq!(rec.outcome, Some((Outcome::Waiting, None)));
    assert_eq!(rec.waits_for.as_deref(), Some("TABLE test.t2 SW"));
    let (st, rec) = m.apply(&st, SqlAction::Step(b));
    assert_eq!(rec.events, vec![(a, Outcome::Ok, None)]);
    assert!(!st.model.is_waiting(a) && m.finished(&st, a));
}

#[test]
fn the_written_order_plays_the_call_on_and_every_order_holds() {
    let m = model();
    let w = written::play(&m);
    assert_eq!(w.exit_code(), 0, "{w:?}");
    let r = check(&m, DEFAULT_MAX_STATES);
    assert!(!r.any_violated() && !r.incomplete);
}

/// A body with a loop (`classify/routine_flow.rs`): the search stops the CALL between the
/// loop's statements too (the jumps and SETs between them take no lock and do not stop it).
const LOOP_FILE: &str = "dialect mariadb
setup: sql CREATE PROCEDURE p2() BEGIN DECLARE i INT DEFAULT 0; WHILE i < 2 DO SET i = i + 1; UPDATE t2 SET b = i WHERE a = 1; END WHILE; END
a: sql CALL p2()
expect a ok
b: sql LOCK TABLES t2 WRITE
expect b ok
b: sql UNLOCK TABLES
assert sometimes a waiting
";

#[test]
fn the_search_stops_a_loop_between_its_statements() {
    let sc = mdl_scenario::read::read_bytes("loop.mdl", LOOP_FILE.as_bytes())
        .unwrap_or_else(|e| panic!("{e}"))
        .scenario;
    let m = SqlCheck::new(&sc).unwrap_or_else(|e| panic!("{}: {}", e.pos.line, e.msg));
    let (a, b) = (0, 1);
    let st = m.initial();
    // The first iteration's UPDATE ran (autocommit: t2 given back); it stops there.
    let (st, rec) = m.apply(&st, SqlAction::Step(a));
    assert_eq!(rec.outcome, Some((Outcome::Waiting, None)));
    assert!(st.model.between_instructions(a));
    assert!(st.model.locks_of(a).is_empty());
    let (st, _) = m.apply(&st, SqlAction::Step(b));
    // The second iteration's UPDATE waits for b's LOCK TABLES.
    let (st, rec) = m.apply(&st, SqlAction::Step(a));
    assert_eq!(rec.outcome, Some((Outcome::Waiting, None)));
    assert_eq!(rec.waits_for.as_deref(), Some("TABLE test.t2 SW"));
    let (st, rec) = m.apply(&st, SqlAction::Step(b));
    assert_eq!(rec.events, vec![(a, Outcome::Ok, None)]);
    assert!(m.finished(&st, a));
    let r = check(&m, DEFAULT_MAX_STATES);
    assert!(!r.any_violated() && !r.incomplete);
}
