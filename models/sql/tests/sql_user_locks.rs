//! A SELECT of several user-lock functions on the SQL model, without a server: each call
//! in turn, a wait at a later GET_LOCK with the earlier locks held, a timeout that does not
//! end the statement, the row (models/conformance/get-lock-several*.mdl check the same on
//! MariaDB).

use mdl_core::Outcome;
use mdl_sql::classify::get_lock_columns;
use mdl_sql::mapping::Mapping;
use mdl_sql::model::SqlModel;

fn model() -> SqlModel {
    SqlModel::new(Mapping::load().expect("statements.tsv"))
}

fn row(m: &SqlModel, s: usize) -> Vec<String> {
    m.session(s).last_row.clone().expect("a row")
}

#[test]
fn a_later_get_lock_waits_with_the_earlier_held() {
    let mut m = model();
    let a = m.add_session();
    let b = m.add_session();
    m.step(b, "SELECT GET_LOCK('b', 100)").unwrap();
    let o = m.step(
        a,
        "SELECT GET_LOCK('a', 100), GET_LOCK('b', 100), GET_LOCK('c', 100)",
    );
    assert_eq!(o, Ok(Outcome::Waiting));
    let held: Vec<String> = m.locks_of(a).into_iter().collect();
    assert_eq!(held, ["USER_LOCK a SNW", "USER_LOCK b SNW (pending)"]);
    m.step(b, "SELECT RELEASE_LOCK('b')").unwrap();
    assert_eq!(m.take_events(), vec![(a, Outcome::Ok)]);
    assert_eq!(row(&m, a), ["1", "1", "1"]);
    assert_eq!(m.locks_of(a).len(), 3);
}

#[test]
fn a_timeout_gives_0_and_the_statement_goes_on() {
    let mut m = model();
    let a = m.add_session();
    let b = m.add_session();
    m.step(b, "SELECT GET_LOCK('b', 100)").unwrap();
    let o = m.step(
        a,
        "SELECT GET_LOCK('a', 0), GET_LOCK('b', 1), GET_LOCK('a', 0)",
    );
    assert_eq!(o, Ok(Outcome::Waiting));
    m.advance(1000);
    assert_eq!(m.take_events(), vec![(a, Outcome::Timeout)]);
    assert_eq!(row(&m, a), ["1", "0", "1"]);
    let o = m.step(
        a,
        "SELECT RELEASE_LOCK('a'), RELEASE_LOCK('b'), RELEASE_LOCK('z'), RELEASE_ALL_LOCKS()",
    );
    assert_eq!(o, Ok(Outcome::Ok));
    assert_eq!(row(&m, a), ["1", "0", "NULL", "1"]);
    assert!(m.locks_of(a).is_empty());
}

#[test]
fn a_bad_timeout_is_null_and_no_lock() {
    let mut m = model();
    let a = m.add_session();
    assert_eq!(m.step(a, "SELECT GET_LOCK('x', -1)"), Ok(Outcome::Ok));
    assert_eq!(row(&m, a), ["NULL"]);
    assert!(m.locks_of(a).is_empty());
    assert_eq!(
        get_lock_columns("SELECT GET_LOCK('x', NULL), GET_LOCK('y', 1)"),
        Some(vec![1])
    );
    assert_eq!(get_lock_columns("SELECT GET_LOCK('x', 1) FROM t1"), None);
}

#[test]
fn a_kill_gives_null_and_a_later_wait_ends_at_once() {
    let mut m = model();
    let a = m.add_session();
    let b = m.add_session();
    m.step(b, "SELECT GET_LOCK('b', 100), GET_LOCK('d', 100)")
        .unwrap();
    let o = m.step(
        a,
        "SELECT GET_LOCK('b', 100), GET_LOCK('c', 100), GET_LOCK('d', 100)",
    );
    assert_eq!(o, Ok(Outcome::Waiting));
    assert!(m.kill(a));
    assert_eq!(m.take_events(), vec![(a, Outcome::Killed)]);
    assert_eq!(row(&m, a), ["NULL", "1", "NULL"]);
    let held: Vec<String> = m.locks_of(a).into_iter().collect();
    assert_eq!(held, ["USER_LOCK c SNW"]);
}

#[test]
fn a_user_lock_outside_a_select_list_is_refused_not_played_without_a_lock() {
    let mut m = model();
    let a = m.add_session();
    for sql in [
        "DO GET_LOCK('a', 0)",
        "SET @x = GET_LOCK('a', 0)",
        "DO RELEASE_LOCK('a')",
        "SELECT GET_LOCK('a', 0), GET_LOCK('b', 0) FROM t1",
    ] {
        assert!(m.step(a, sql).is_err(), "{sql}");
    }
    assert!(m.locks_of(a).is_empty());
    assert_eq!(m.step(a, "DO 1"), Ok(Outcome::Ok));
    assert_eq!(m.step(a, "SET @x = IS_FREE_LOCK('a')"), Ok(Outcome::Ok));
}
