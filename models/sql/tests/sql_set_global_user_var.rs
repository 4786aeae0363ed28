//! `SET GLOBAL v = @x.save` (a user variable whose name has dots,
//! `classify/set_global_expr.rs`), played on the model alone
//! (suite/set-global-restore.mdl compares it with the server).

use mdl_core::Outcome;
use mdl_sql::mapping::Mapping;
use mdl_sql::model::SqlModel;

#[test]
fn a_saved_value_is_restored_with_no_lock() {
    let mut m = SqlModel::new(Mapping::load().unwrap());
    let [a, b] = [(); 2].map(|_| m.add_session());
    m.step(a, "set @max_con.save= @@max_connections").unwrap();
    m.step(
        a,
        "SET @q.save= @@global.query_cache_size, @t.save= @@global.query_cache_type",
    )
    .unwrap();
    m.step(a, "begin").unwrap();
    m.step(a, "select * from t1").unwrap();
    assert_eq!(m.step(b, "drop table t1").unwrap(), Outcome::Waiting);
    assert_eq!(
        m.step(a, "set global max_connections= @max_con.save")
            .unwrap(),
        Outcome::Ok
    );
    assert_eq!(
        m.step(
            a,
            "SET GLOBAL query_cache_size= @q.save, query_cache_type= @t.save"
        )
        .unwrap(),
        Outcome::Ok
    );
    assert!(m.is_waiting(b), "no commit");
}

#[test]
fn locking_variables_and_other_values_stay_refused() {
    let mut m = SqlModel::new(Mapping::load().unwrap());
    let a = m.add_session();
    m.step(a, "set @x.save = @@global.max_connections").unwrap();
    m.step(a, "set @ro.save = @@global.read_only").unwrap();
    m.step(a, "set @ac.save = @@global.autocommit").unwrap();
    for q in [
        "set global max_connections = @x.save + 1",
        "set global read_only = @ro.save",
        "set global autocommit = @ac.save",
        "set global max_connections = @x.save, session sql_mode = @x.save",
    ] {
        assert!(m.step(a, q).is_err(), "{q}");
    }
    assert_eq!(
        m.step(a, "set global max_connections = @x.save").unwrap(),
        Outcome::Ok
    );
}
