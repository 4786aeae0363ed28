//! Statements led by comments (`comments.rs`), the FLUSH options of no table
//! (`classify/reload.rs`), SET GLOBAL forms (`classify/set_global_forms.rs`), SHOW ENGINE
//! LOGS / MUTEX, SHOW EXPLAIN / ANALYZE FOR, SHOW SLAVE HOSTS, SHOW CREATE TRIGGER
//! (`classify/show_status.rs`, `classify/session.rs`). The suite files
//! `comments-before-statements.mdl`, `flush-options-no-table.mdl`, `set-global-forms.mdl`,
//! `show-engine-explain-slave-hosts.mdl` and `show-create-trigger.mdl` compare them with
//! the server.

use mdl_core::Outcome;
use mdl_sql::classify::{classify, Stmt};
use mdl_sql::mapping::Mapping;
use mdl_sql::model::SqlModel;

fn classified(sql: &str) -> Result<Stmt, String> {
    let map = Mapping::load().unwrap();
    let cat = mdl_sql::catalog::Catalog::fixture();
    let has = |r: &str| map.kinds.iter().any(|k| k.name == r);
    classify(sql, "test", &cat, &has)
}

#[test]
fn the_statement_behind_its_comments_takes_its_locks() {
    let mut m = SqlModel::new(Mapping::load().unwrap());
    let [a, b] = [(); 2].map(|_| m.add_session());
    m.step(b, "FLUSH TABLES WITH READ LOCK").unwrap();
    let sql = "/*!50003 CREATE PROCEDURE `p`() select 42 */";
    assert_eq!(m.step(a, sql).unwrap(), Outcome::Waiting);
    m.step(b, "UNLOCK TABLES").unwrap();
    assert_eq!(m.take_events(), vec![(a, Outcome::Ok)]);
    assert_eq!(m.step(a, "/* only a comment */").unwrap(), Outcome::Ok);
    assert_eq!(
        m.step(a, "select 1 /*!952301 from t_missing */").unwrap(),
        Outcome::Ok
    );
    assert_eq!(
        m.step(a, "select 1 /*M!50700 from t_missing */").unwrap(),
        Outcome::Error
    );
}

#[test]
fn flush_options_and_set_global_forms() {
    for sql in [
        "flush hosts",
        "flush user_resources",
        "flush query cache",
        "FLUSH SLOW LOGS",
        "flush table_statistics",
        "SET GLOBAL TRANSACTION ISOLATION LEVEL READ COMMITTED",
        "set global long_query_time= @@session.long_query_time",
    ] {
        assert!(matches!(classified(sql), Ok(Stmt::Learned(_))), "{sql}");
    }
    for sql in [
        "set global debug_dbug='+d,x'",
        "SET @@GLOBAL.debug_dbug = @saved_dbug",
    ] {
        assert_eq!(classified(sql), Ok(Stmt::Fails(1193)), "{sql}");
    }
    assert!(classified("SET GLOBAL TRANSACTION READ ONLY").is_err());
}

#[test]
fn show_forms() {
    assert_eq!(classified("show engine foobar logs"), Ok(Stmt::Fails(1286)));
    assert_eq!(classified("show explain for"), Ok(Stmt::Fails(1064)));
    assert!(matches!(
        classified("show explain for 2000000000"),
        Ok(Stmt::Learned(_))
    ));
    assert!(classified("show explain for (select max(a) from t0)").is_err());
    assert!(classified("show explain for 12").is_err());
    assert_eq!(
        classified("SHOW CREATE TRIGGER no_such"),
        Ok(Stmt::Fails(1360))
    );
    let mut m = SqlModel::new(Mapping::load().unwrap());
    let a = m.add_session();
    m.step(
        a,
        "create trigger t1_bi before insert on t1 for each row set @x = 1",
    )
    .unwrap();
    m.step(a, "lock tables m1 read").unwrap();
    assert_eq!(
        m.step(a, "SHOW CREATE TRIGGER t1_bi").unwrap(),
        Outcome::Error
    );
}
