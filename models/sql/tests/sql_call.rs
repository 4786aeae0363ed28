//! CALL of a procedure whose body runs several statements (`model/call.rs`,
//! `classify/routine_call.rs`), without a server: what the server showed in
//! `models/conformance/suite/sp-call-multi-statement.mdl` and `sp-lock-call.mdl`.

use mdl_core::Outcome;
use mdl_sql::mapping::Mapping;
use mdl_sql::model::SqlModel;

fn model() -> SqlModel {
    SqlModel::new(Mapping::load().expect("statements.tsv"))
}

fn held(m: &SqlModel, s: usize) -> Vec<String> {
    m.locks_of(s).into_iter().collect()
}

const P1: &str = "CREATE PROCEDURE p1() BEGIN SELECT b INTO @x FROM t1 WHERE a = 1; \
                  SELECT GET_LOCK('g', 100) INTO @r; INSERT INTO m1 (b) VALUES (1); END";

#[test]
fn a_killed_get_lock_inside_a_body_returns_null_and_the_body_goes_on() {
    let mut m = model();
    let a = m.add_session();
    let e = m.add_session();
    let f = m.add_session();
    m.name_sessions(&["a".into(), "e".into(), "f".into()]);
    m.step(a, P1).unwrap();
    assert_eq!(m.step(e, "SELECT GET_LOCK('g', 0)"), Ok(Outcome::Ok));
    m.step(a, "BEGIN").unwrap();
    assert_eq!(m.step(a, "CALL p1()"), Ok(Outcome::Waiting));
    assert_eq!(
        held(&m, a),
        vec!["TABLE test.t1 SR", "USER_LOCK g SNW (pending)"]
    );
    assert_eq!(m.step(f, "KILL QUERY a"), Ok(Outcome::Ok));
    assert_eq!(m.take_events(), vec![(a, Outcome::Ok)]);
    assert_eq!(held(&m, a), vec!["TABLE test.m1 SW", "TABLE test.t1 SR"]);
}
