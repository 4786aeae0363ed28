//! A partition's relative DATA / INDEX DIRECTORY (`classify/data_directory.rs`): CREATE
//! TABLE's locks, then ER_WRONG_ARGUMENTS (suite/create-partition-relative-data-directory.mdl
//! compares it with the server); the directories the file system decides are refused.

use mdl_core::Outcome;
use mdl_sql::classify::classify;
use mdl_sql::mapping::Mapping;
use mdl_sql::model::SqlModel;

#[test]
fn a_relative_partition_directory_fails_after_the_locks() {
    let mut m = SqlModel::new(Mapping::load().unwrap());
    let [a, b] = [(); 2].map(|_| m.add_session());
    m.step(b, "FLUSH TABLES WITH READ LOCK").unwrap();
    let sql = "create table t5 (a int) ENGINE = MyISAM partition by key (a) \
               (partition p0 DATA DIRECTORY 'part-data' INDEX DIRECTORY 'part-data')";
    assert_eq!(m.step(a, sql).unwrap(), Outcome::Waiting);
    m.step(b, "UNLOCK TABLES").unwrap();
    assert_eq!(m.take_events(), vec![(a, Outcome::Error)]);
    assert_eq!(m.step(a, "SELECT * FROM t5").unwrap(), Outcome::Error);
}

#[test]
fn what_the_file_system_decides_is_refused() {
    let map = Mapping::load().unwrap();
    let cat = mdl_sql::catalog::Catalog::fixture();
    let has = |r: &str| map.kinds.iter().any(|k| k.name == r);
    for sql in [
        "create table t5 (a int) engine=myisam data directory='/tmp'",
        "create table t5 (a int) engine=myisam data directory='rel'",
        "create table t5 (i int) partition by range (i) (partition p01 values less than \
         (1000) data directory='/not/existing')",
        "create table if not exists t1 (a int) partition by key (a) (partition p0 data \
         directory 'rel')",
    ] {
        let e = classify(sql, "test", &cat, &has).unwrap_err();
        assert!(e.contains("not modelled"), "{sql}: {e}");
    }
}
