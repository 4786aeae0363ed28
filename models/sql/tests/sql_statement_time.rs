//! `SET STATEMENT max_statement_time=N FOR statement` (`model/statement_time.rs`), played
//! on the model alone (suite/set-statement-max-statement-time.mdl compares it with the
//! server): the timer ends a metadata lock wait with ER_STATEMENT_TIMEOUT (1969), counts
//! from the statement's start, and the earlier of it and `lock_wait_timeout` wins.

use mdl_core::Outcome;
use mdl_sql::mapping::Mapping;
use mdl_sql::model::SqlModel;

fn model() -> (SqlModel, [usize; 2]) {
    let mut m = SqlModel::new(Mapping::load().unwrap());
    let ids = [m.add_session(), m.add_session()];
    (m, ids)
}

fn error_of(m: &SqlModel, s: usize, o: Outcome) -> String {
    match o {
        Outcome::Error => format!("error {}", m.session(s).last_error.unwrap_or(0)),
        o => format!("{o:?}"),
    }
}

#[test]
fn the_timer_ends_a_wait_with_1969_and_keeps_the_transaction() {
    let (mut m, [a, b]) = model();
    m.step(a, "BEGIN").unwrap();
    m.step(a, "SELECT * FROM t1").unwrap();
    m.step(b, "BEGIN").unwrap();
    m.step(b, "SELECT * FROM m1").unwrap();
    let o = m
        .step(
            b,
            "SET STATEMENT max_statement_time=0.5 FOR SELECT * FROM t1 FOR UPDATE",
        )
        .unwrap();
    assert_eq!(o, Outcome::Ok, "no conflict: no wait");
    let o = m.step(a, "LOCK TABLES t2 WRITE").unwrap();
    assert_eq!(o, Outcome::Ok);
    let o = m
        .step(
            b,
            "SET STATEMENT max_statement_time=0.5 FOR SELECT * FROM t2",
        )
        .unwrap();
    assert_eq!(o, Outcome::Waiting);
    m.advance(400);
    assert!(m.is_waiting(b));
    m.advance(200);
    let ev = m.take_events();
    assert_eq!(ev.len(), 1, "{ev:?}");
    assert_eq!(error_of(&m, ev[0].0, ev[0].1), "error 1969");
    assert!(
        m.locks_of(b).contains("TABLE test.m1 SR"),
        "{:?}",
        m.locks_of(b)
    );
}

#[test]
fn lock_wait_timeout_first_and_zero_is_no_limit() {
    let (mut m, [a, b]) = model();
    m.step(a, "LOCK TABLES t2 WRITE").unwrap();
    m.step(b, "SET lock_wait_timeout=1").unwrap();
    let o = m
        .step(
            b,
            "SET STATEMENT max_statement_time=10 FOR SELECT * FROM t2",
        )
        .unwrap();
    assert_eq!(o, Outcome::Waiting);
    m.advance(1100);
    assert_eq!(m.take_events(), vec![(b, Outcome::Timeout)]);
    m.step(b, "SET lock_wait_timeout=100").unwrap();
    let o = m
        .step(b, "SET STATEMENT max_statement_time=0 FOR SELECT * FROM t2")
        .unwrap();
    assert_eq!(o, Outcome::Waiting);
    m.advance(20_000);
    assert!(m.is_waiting(b), "0 is no limit");
    m.step(a, "UNLOCK TABLES").unwrap();
    assert_eq!(m.take_events(), vec![(b, Outcome::Ok)]);
    // A later statement has no timer of its own.
    m.step(a, "LOCK TABLES t2 WRITE").unwrap();
    assert_eq!(m.step(b, "SELECT * FROM t2").unwrap(), Outcome::Waiting);
    m.advance(20_000);
    assert!(m.is_waiting(b));
}
