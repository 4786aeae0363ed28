//! Engines, ALTER TABLE ... LOCK= and CREATE OR REPLACE TABLE ... LIKE / SELECT offline
//! (`classify/engines.rs`, `alter_algorithm::lock_row`, `classify/session.rs`): what each
//! statement is classified as and what the catalog keeps. The suite scenarios
//! `engine-*.mdl`, `alter-lock-*.mdl` and `create-or-replace-*.mdl` compare them with the
//! server.

use mdl_core::Outcome;
use mdl_sql::catalog::{Catalog, Engine};
use mdl_sql::classify::{classify, mariadb_parse_error, Stmt, Tbl};
use mdl_sql::mapping::Mapping;
use mdl_sql::model::SqlModel;

fn kind_of(m: &Mapping, cat: &Catalog, q: &str) -> Result<String, String> {
    let has = |r: &str| m.kind(r).is_some();
    match classify(q, "test", cat, &has)? {
        Stmt::Learned(p) => Ok(format!(
            "{}:{}",
            p.kind,
            p.parts
                .iter()
                .map(|x| x.row.as_str())
                .collect::<Vec<_>>()
                .join(",")
        )),
        s => Ok(format!("{s:?}")),
    }
}

fn tbl(name: &str) -> Tbl {
    Tbl {
        db: "test".into(),
        name: name.into(),
    }
}

/// Plays `sql` lines of one session on a fresh model: each outcome or error.
fn play(m: &mut SqlModel, lines: &[&str]) -> Vec<String> {
    let s = m.add_session();
    lines
        .iter()
        .map(|q| match m.step(s, q) {
            Ok(Outcome::Error) => format!("error {}", m.session(s).last_error.unwrap_or(0)),
            Ok(o) => format!("{o:?}"),
            Err(e) => format!("refused: {e}"),
        })
        .collect()
}

#[test]
fn loaded_engines_make_tables_of_their_class() {
    let mut m = SqlModel::new(Mapping::load().unwrap());
    let got = play(
        &mut m,
        &[
            "CREATE TABLE a1 (a INT) ENGINE=Aria",
            "CREATE TABLE h1 (a INT) ENGINE=HEAP",
            "CREATE TABLE c1 (a INT NOT NULL) ENGINE = csv",
            "CREATE TABLE e1 (engine INT, b INT)",
        ],
    );
    assert!(got.iter().all(|g| g == "Ok"), "{got:?}");
    assert_eq!(m.catalog.engine_exact(&tbl("a1")), Some(Engine::Aria));
    assert_eq!(m.catalog.engine(&tbl("a1")), Some(Engine::MyIsam));
    assert_eq!(m.catalog.engine_exact(&tbl("h1")), Some(Engine::Memory));
    assert_eq!(m.catalog.engine_exact(&tbl("c1")), Some(Engine::Csv));
    // A column named `engine` is no ENGINE clause.
    assert_eq!(m.catalog.engine_exact(&tbl("e1")), Some(Engine::InnoDb));
    let map = Mapping::load().unwrap();
    let has = |r: &str| map.kind(r).is_some();
    match classify("INSERT INTO c1 VALUES (1)", "test", &m.catalog, &has).unwrap() {
        Stmt::Learned(p) => assert_eq!(p.parts[0].row, "insert.myisam"),
        s => panic!("{s:?}"),
    }
    for q in ["INSERT INTO a1 VALUES (1)", "ALTER TABLE h1 FORCE"] {
        let e = classify(q, "test", &m.catalog, &has).unwrap_err();
        assert!(e.contains("Aria or MEMORY"), "{e}");
    }
}

#[test]
fn engines_not_loaded_fail_after_the_implicit_commit() {
    let mut m = SqlModel::new(Mapping::load().unwrap());
    let s = m.add_session();
    for q in ["BEGIN", "SELECT * FROM t1"] {
        m.step(s, q).unwrap();
    }
    assert!(!m.locks_of(s).is_empty());
    for q in [
        "CREATE TABLE x1 (a INT) ENGINE=ARCHIVE",
        "CREATE TABLE x1 (a INT) ENGINE BLACKHOLE",
        "ALTER TABLE t1 ENGINE=nonexistentengine",
    ] {
        assert_eq!(m.step(s, q), Ok(Outcome::Error), "{q}");
        assert_eq!(m.session(s).last_error, Some(1286), "{q}");
        assert!(m.locks_of(s).is_empty(), "{q}: {:?}", m.locks_of(s));
    }
    let got = play(
        &mut m,
        &[
            "CREATE TABLE x1 (engine INT)",
            "ALTER TABLE x1 DROP engine, ADD b INT",
        ],
    );
    assert_eq!(got, ["Ok", "Ok"]);
    let map = Mapping::load().unwrap();
    let e = kind_of(
        &map,
        &Catalog::fixture(),
        "CREATE TABLE x1 (a INT) ENGINE=SEQUENCE",
    );
    assert!(e.unwrap_err().contains("not modelled"));
    assert_eq!(
        mariadb_parse_error("CREATE TABLE x1 (a INT) ENGINE=ARCHIVE", "test"),
        None
    );
}

#[test]
fn merge_tables_are_made_and_dropped_but_not_opened() {
    let mut m = SqlModel::new(Mapping::load().unwrap());
    let got = play(
        &mut m,
        &[
            "CREATE TABLE mm (a INT) ENGINE=MERGE UNION=(m1,m2)",
            "SELECT * FROM mm",
            "DROP TABLE mm",
        ],
    );
    assert_eq!(got[0], "Ok");
    assert!(got[1].contains("MERGE table"), "{got:?}");
    assert_eq!(got[2], "Ok");
}

#[test]
fn alter_lock_clauses_take_their_rows() {
    let m = Mapping::load().unwrap();
    let cat = Catalog::fixture();
    for (q, want) in [
        (
            "ALTER TABLE t1 FORCE, ALGORITHM=COPY, LOCK=SHARED",
            "alter_copy:alter_copy",
        ),
        (
            "ALTER TABLE t1 FORCE, ALGORITHM=COPY, LOCK=EXCLUSIVE",
            "alter_copy:alter_copy_lock_exclusive",
        ),
        (
            "ALTER TABLE t1 ADD INDEX i1(b), ALGORITHM= COPY, LOCK= NONE",
            "alter_copy_lock_none:alter_copy_lock_none",
        ),
        (
            "ALTER TABLE t1 ADD INDEX i2(b), LOCK= SHARED",
            "alter_inplace:alter_inplace_lock_shared",
        ),
        (
            "ALTER TABLE t1 ADD INDEX i3(b), ALGORITHM=INPLACE, LOCK=EXCLUSIVE",
            "alter_inplace:alter_inplace_lock_exclusive",
        ),
        (
            "ALTER TABLE t1 ADD INDEX i1(b), LOCK=NONE",
            "alter_inplace:alter_inplace",
        ),
        (
            "ALTER TABLE t1 ADD INDEX i1(b), LOCK=DEFAULT",
            "alter_inplace:alter_inplace",
        ),
        (
            "ALTER TABLE t1 ADD COLUMN c INT, LOCK=EXCLUSIVE",
            "alter_instant:alter_instant",
        ),
        (
            "ALTER TABLE m1 ENABLE KEYS, ALGORITHM= COPY, LOCK= EXCLUSIVE",
            "alter_copy:alter_copy_lock_exclusive.myisam",
        ),
    ] {
        assert_eq!(kind_of(&m, &cat, q).as_deref(), Ok(want), "{q}");
    }
    // An unknown LOCK= word is the parser's ER_UNKNOWN_ALTER_LOCK, before any lock.
    for q in [
        "ALTER TABLE t1 ADD INDEX i5(b), LOCK= INVALID",
        "ALTER TABLE t1 ADD INDEX (b), LOCK=INVALID",
    ] {
        assert_eq!(kind_of(&m, &cat, q).as_deref(), Ok("Fails(1801)"), "{q}");
    }
    let mut model = SqlModel::new(m);
    let got = play(
        &mut model,
        &["ALTER TABLE t1 FORCE, ALGORITHM=COPY, LOCK=NONE"],
    );
    assert_eq!(got, ["error 1846"]);
}

#[test]
fn alter_engine_copies_and_the_catalog_follows() {
    let mut m = SqlModel::new(Mapping::load().unwrap());
    let got = play(
        &mut m,
        &[
            "ALTER TABLE t1 ENGINE=MyISAM",
            "ALTER TABLE m1 ENGINE=Aria",
            "ALTER TABLE t2 ENGINE=MEMORY, ALGORITHM=INPLACE",
            "alter table t2 engine=csv",
        ],
    );
    assert_eq!(got[..2], ["Ok", "Ok"]);
    assert!(got[2].starts_with("refused"), "{got:?}");
    assert!(got[3].contains("ENGINE=CSV"), "{got:?}");
    assert_eq!(m.catalog.engine_exact(&tbl("t1")), Some(Engine::MyIsam));
    assert_eq!(m.catalog.engine_exact(&tbl("m1")), Some(Engine::Aria));
}

#[test]
fn create_or_replace_like_and_select_replace_the_table() {
    let m = Mapping::load().unwrap();
    let cat = Catalog::fixture();
    for (q, want) in [
        (
            "CREATE OR REPLACE TABLE t1 LIKE t2",
            "create_or_replace_like:create_or_replace_like",
        ),
        (
            "create or replace table t1 select * from t2",
            "create_or_replace_select:create_or_replace_select",
        ),
        (
            "CREATE OR REPLACE TABLE t1 AS SELECT 1",
            "create_or_replace:create_or_replace",
        ),
        (
            "CREATE OR REPLACE TABLE t9 LIKE t2",
            "create_like:create_like",
        ),
    ] {
        assert_eq!(kind_of(&m, &cat, q).as_deref(), Ok(want), "{q}");
    }
    for (q, why) in [
        (
            "create or replace table t1 as select * from t1",
            "of itself",
        ),
        (
            "create or replace table t1 select t2.a from t2, t0",
            "several tables",
        ),
    ] {
        let e = kind_of(&m, &cat, q).unwrap_err();
        assert!(e.contains(why), "{q}: {e}");
    }
    let mut model = SqlModel::new(m);
    let got = play(
        &mut model,
        &[
            "CREATE OR REPLACE TABLE t1 LIKE t9",
            "CREATE OR REPLACE TABLE m1 LIKE m2",
        ],
    );
    assert_eq!(got, ["error 1146", "Ok"]);
    assert!(model.catalog.exists(&tbl("t1")));
}

#[test]
fn alter_rename_alone_takes_its_row() {
    let m = Mapping::load().unwrap();
    let cat = Catalog::fixture();
    assert_eq!(
        kind_of(&m, &cat, "ALTER TABLE t1 RENAME TO t3").as_deref(),
        Ok("alter_rename:alter_rename")
    );
    let mut model = SqlModel::new(m);
    let got = play(
        &mut model,
        &["ALTER TABLE t1 RENAME TO t3", "ALTER TABLE t3 RENAME t2"],
    );
    assert_eq!(got, ["Ok", "error 1050"]);
    assert!(model.catalog.exists(&tbl("t3")) && !model.catalog.exists(&tbl("t1")));
}

#[test]
fn keys_alone_and_rename_with_operations_take_their_rows() {
    let m = Mapping::load().unwrap();
    let cat = Catalog::fixture();
    for (q, want) in [
        ("ALTER TABLE t1 DISABLE KEYS", "alter_keys:alter_keys"),
        (
            "ALTER TABLE m1 ENABLE KEYS, ALGORITHM=INPLACE",
            "alter_keys:alter_keys.myisam",
        ),
        (
            "ALTER TABLE m1 ENABLE KEYS, LOCK=NONE",
            "alter_copy_lock_none:alter_copy_lock_none.myisam",
        ),
        (
            "ALTER TABLE m1 ENABLE KEYS, ALGORITHM=COPY",
            "alter_copy:alter_copy.myisam",
        ),
        (
            "ALTER TABLE t1 ADD COLUMN j INT, RENAME TO t3",
            "alter_instant:alter_instant_rename",
        ),
        (
            "ALTER TABLE t1 RENAME t3, ADD INDEX (b)",
            "alter_inplace:alter_inplace_rename",
        ),
        (
            "alter table t1 engine=innodb, rename to t3, algorithm=copy",
            "alter_copy:alter_copy_rename",
        ),
        (
            "ALTER TABLE t1 RENAME TO t3, DISABLE KEYS",
            "alter_rename:alter_rename",
        ),
        // A taken name: 1050 right after its X, whatever the operations.
        (
            "ALTER TABLE t1 ADD COLUMN j INT, RENAME TO t2",
            "alter_rename:alter_rename",
        ),
    ] {
        assert_eq!(kind_of(&m, &cat, q).as_deref(), Ok(want), "{q}");
    }
    let mut model = SqlModel::new(m);
    let got = play(
        &mut model,
        &[
            "ALTER TABLE t1 ADD COLUMN j INT, RENAME TO t2",
            "ALTER TABLE t1 CHANGE i c INT, RENAME TO t3",
            "ALTER TABLE t1 ADD COLUMN j INT, RENAME TO t3",
            "ALTER TABLE t3 DROP COLUMN j",
        ],
    );
    assert_eq!(got, ["error 1050", "error 1054", "Ok", "Ok"]);
    assert!(model.catalog.exists(&tbl("t3")) && !model.catalog.exists(&tbl("t1")));
}

#[test]
fn sequence_off_of_a_table_is_a_copy() {
    let m = Mapping::load().unwrap();
    let cat = Catalog::fixture();
    // (SEQUENCE=1 of t1, whose columns are not a sequence's: the copy's steps up to
    // BACKUP_DDL, then 4086; `classify/sequence_alter.rs`.)
    for q in [
        "alter table t1 sequence=0",
        "alter table t1 sequence=0, algorithm=copy",
        "alter table t1 sequence=1",
    ] {
        assert_eq!(
            kind_of(&m, &cat, q).as_deref(),
            Ok("alter_copy:alter_copy"),
            "{q}"
        );
    }
    let q = "alter table t1 sequence=0, algorithm=inplace";
    assert!(kind_of(&m, &cat, q).is_err(), "{q}");
}
