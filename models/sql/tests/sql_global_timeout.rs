//! `SET GLOBAL lock_wait_timeout` (`model/global_timeout.rs`), played on the model alone
//! (suite/set-global-lock-wait-timeout.mdl compares it with the server): a session takes
//! the global value when it connects (its first statement); the others keep theirs.

use mdl_core::Outcome;
use mdl_sql::mapping::Mapping;
use mdl_sql::model::SqlModel;

#[test]
fn a_session_connecting_later_takes_the_global_value() {
    let mut m = SqlModel::new(Mapping::load().unwrap());
    let [a, b, c, d] = [(); 4].map(|_| m.add_session());
    m.step(d, "SELECT 1").unwrap();
    assert_eq!(
        m.step(a, "SET GLOBAL lock_wait_timeout=1").unwrap(),
        Outcome::Ok
    );
    m.step(b, "LOCK TABLES t1 WRITE").unwrap();
    assert_eq!(m.session(b).lock_wait_timeout, Some(1));
    assert_eq!(m.step(c, "SELECT * FROM t1").unwrap(), Outcome::Waiting);
    assert_eq!(m.step(d, "SELECT * FROM t1").unwrap(), Outcome::Waiting);
    m.advance(1500);
    assert_eq!(m.take_events(), vec![(c, Outcome::Timeout)]);
    assert!(m.is_waiting(d), "connected before: the server default");
    assert_eq!(m.session(a).lock_wait_timeout, None, "its own stays");
    m.step(a, "SET GLOBAL lock_wait_timeout=DEFAULT").unwrap();
    m.step(b, "UNLOCK TABLES").unwrap();
    let mut e = m.take_events();
    e.sort();
    assert_eq!(e, vec![(d, Outcome::Ok)]);
}

#[test]
fn with_other_variables_or_a_user_variable_it_is_refused() {
    let mut m = SqlModel::new(Mapping::load().unwrap());
    let a = m.add_session();
    for q in [
        "SET GLOBAL lock_wait_timeout=1, concurrent_insert=0",
        "SET GLOBAL lock_wait_timeout=@x",
    ] {
        assert!(m.step(a, q).is_err(), "{q}");
    }
}

#[test]
fn a_string_is_the_servers_wrong_type() {
    // ER_WRONG_TYPE_FOR_VAR (suite/sys_vars/t/lock_wait_timeout_basic.test: `ON`,
    // `test`): `classify/set_session_values.rs`.
    let mut m = SqlModel::new(Mapping::load().unwrap());
    let a = m.add_session();
    assert_eq!(
        m.step(a, "SET GLOBAL lock_wait_timeout='x'").unwrap(),
        Outcome::Error
    );
    assert_eq!(m.session(a).last_error, Some(1232));
}
