//! ALTER TABLE as the server decides, without a server: what MariaDB 10.11.19 showed
//! (`alter_algorithm.rs`; the corpus's main/alter_table*.test differences).

use mdl_core::Outcome;
use mdl_sql::alter_algorithm::{default_kind, drops_primary_key, not_modelled, primary_key};
use mdl_sql::catalog::Engine;
use mdl_sql::kind::Kind;
use mdl_sql::mapping::Mapping;
use mdl_sql::model::SqlModel;

fn w(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_owned).collect()
}

#[test]
fn the_primary_key_of_a_create_table() {
    let cases: [(&str, Option<Vec<&str>>); 6] = [
        (
            "create table t ( a int primary key , b int )",
            Some(vec!["a"]),
        ),
        (
            "create table t ( a int , b int , primary key ( b , a ) )",
            Some(vec!["b", "a"]),
        ),
        (
            "create table t ( a int , constraint pk primary key using btree ( a ( 10 ) desc ) )",
            Some(vec!["a"]),
        ),
        ("create table t ( a int , b int )", Some(vec![])),
        // A UNIQUE key may become the clustered index: the model cannot tell.
        ("create table t ( a int not null unique , b int )", None),
        (
            "create table t ( a int primary key , b int primary key )",
            None,
        ),
    ];
    for (sql, pk) in cases {
        let want = pk.map(|v| v.into_iter().map(str::to_owned).collect::<Vec<_>>());
        assert_eq!(primary_key(&w(sql)), want, "{sql}");
    }
}

#[test]
fn dropping_a_primary_key_column_is_a_copy() {
    let pk = vec!["a".to_owned()];
    assert_eq!(drops_primary_key(&w("drop column a"), Some(&pk)), Ok(true));
    assert_eq!(
        drops_primary_key(&w("drop a , add column c text first"), Some(&pk)),
        Ok(true)
    );
    assert_eq!(drops_primary_key(&w("drop column b"), Some(&pk)), Ok(false));
    assert_eq!(drops_primary_key(&w("drop index b"), None), Ok(false));
    assert!(drops_primary_key(&w("drop column b"), None).is_err());
    assert!(drops_primary_key(&w("drop a , add primary key ( b )"), Some(&pk)).is_err());
    // Measured: the key stays on the new column, in place.
    assert!(drops_primary_key(&w("drop a , add a int not null default 0"), Some(&pk)).is_err());
}

#[test]
fn table_options_measured() {
    for (spec, innodb, myisam) in [
        ("pack_keys = 1", Ok("alter_instant"), Ok("alter_copy")),
        ("max_rows = 100", Ok("alter_instant"), Ok("alter_copy")),
        ("key_block_size = 8", Ok("alter_inplace"), Err(())),
        ("avg_row_length = 10", Ok("alter_instant"), Err(())),
    ] {
        assert_eq!(
            default_kind(&w(spec), Engine::InnoDb)
                .map(Kind::as_str)
                .map_err(|_| ()),
            innodb,
            "{spec}"
        );
        assert_eq!(
            default_kind(&w(spec), Engine::MyIsam)
                .map(Kind::as_str)
                .map_err(|_| ()),
            myisam,
            "{spec}"
        );
    }
}

#[test]
fn what_does_nothing_or_fails_early_is_refused() {
    for sql in [
        "alter table t1 drop column if exists lol",
        "alter table t1 add primary key if not exists ( a )",
        "alter table t1 algorithm = inplace",
        "alter table t1 rename column a to a",
        "alter table t1 alter column b set default ( select 1 from t2 )",
        "alter table t1 sequence = 1",
        "alter table t1 add column c int default next value for s1",
    ] {
        let words = w(sql);
        assert!(not_modelled(&words, &words[3..], false).is_some(), "{sql}");
    }
    let words = w("alter table t1 add column c int");
    assert_eq!(not_modelled(&words, &words[3..], false), None);
}

#[test]
fn the_catalog_follows_the_primary_key() {
    let mut m = SqlModel::new(Mapping::load().expect("statements.tsv"));
    let r = m.add_session();
    let a = m.add_session();
    m.step(r, "BEGIN").unwrap();
    m.step(r, "SELECT * FROM t1").unwrap();
    // The fixture's t1 has `a` as its key: a copy, which goes up to SNW beside the
    // reader's SR and waits for X (measured: main/alter_table.test:1951 in the corpus).
    assert_eq!(
        m.step(a, "ALTER TABLE t1 DROP COLUMN a"),
        Ok(Outcome::Waiting)
    );
    assert!(m.locks_of(a).iter().any(|l| l == "TABLE test.t1 SNW"));
    m.step(r, "COMMIT").unwrap();
    // A table created with a key the model reads; after an ALTER that may change the key
    // it no longer claims to know it.
    let mut m = SqlModel::new(Mapping::load().expect("statements.tsv"));
    let a = m.add_session();
    m.step(a, "CREATE TABLE t3 (a INT, b INT, c INT, PRIMARY KEY (b))")
        .unwrap();
    assert_eq!(m.step(a, "ALTER TABLE t3 DROP COLUMN a"), Ok(Outcome::Ok));
    assert_eq!(
        m.step(a, "ALTER TABLE t3 RENAME COLUMN c TO d"),
        Ok(Outcome::Ok)
    );
    assert_eq!(m.step(a, "ALTER TABLE t3 DROP COLUMN d"), Ok(Outcome::Ok));
    assert_eq!(
        m.step(a, "ALTER TABLE t3 RENAME COLUMN b TO e"),
        Ok(Outcome::Ok)
    );
    m.step(a, "ALTER TABLE t3 ADD COLUMN f INT").unwrap();
    assert!(m.step(a, "ALTER TABLE t3 DROP COLUMN f").is_err());
}

/// An instant ALTER whose implicit commit lets a waiting LOCK TABLES in: the LOCK TABLES
/// takes its READ table's SRO before the ALTER's one move up to X
/// (`mysql_inplace_alter_table`, sql/sql_table.cc), which then waits (found/seed-481730).
#[test]
fn an_instant_alter_stands_aside_for_the_lock_tables_its_commit_lets_in() {
    let mut m = SqlModel::new(Mapping::load().expect("statements.tsv"));
    let a = m.add_session();
    let b = m.add_session();
    m.step(a, "BEGIN").unwrap();
    m.step(a, "UPDATE t1 SET b = 1").unwrap();
    assert_eq!(
        m.step(b, "LOCK TABLES t2 READ, t1 WRITE"),
        Ok(Outcome::Waiting)
    );
    assert_eq!(
        m.step(a, "ALTER TABLE t2 PACK_KEYS=1"),
        Ok(Outcome::Waiting)
    );
    assert_eq!(m.take_events(), vec![(b, Outcome::Ok)]);
    let held: Vec<String> = m.locks_of(a).into_iter().collect();
    assert!(
        held.contains(&"TABLE test.t2 X (pending)".to_string()),
        "{held:?}"
    );
    assert_eq!(m.step(b, "UNLOCK TABLES"), Ok(Outcome::Ok));
    assert_eq!(m.take_events(), vec![(a, Outcome::Ok)]);
}

/// Table options InnoDB keeps as metadata only are INSTANT, WITH SYSTEM VERSIONING is a
/// copy; the options whose choice depends on the table's own value stay refused
/// (suite/alter-table-options-innodb.mdl compares them with the server).
#[test]
fn innodb_table_options() {
    for spec in [
        "page_checksum = 1",
        "transactional = 0 , insert_method = no",
        "collate = latin1_general_ci",
        "union = ( t1 , t2 )",
        "storage disk tablespace ts2",
        "connection = 'x' , password = 'y'",
    ] {
        assert_eq!(
            default_kind(&w(spec), Engine::InnoDb),
            Ok(Kind::AlterInstant),
            "{spec}"
        );
    }
    assert_eq!(
        default_kind(&w("with system versioning"), Engine::InnoDb),
        Ok(Kind::AlterCopy)
    );
    for spec in ["encryption_key_id = 2", "page_compressed = 1"] {
        let e = default_kind(&w(spec), Engine::InnoDb).unwrap_err();
        assert!(e.contains("own value"), "{spec}: {e}");
    }
}
