//! ALTER TABLE of tables whose columns the catalog knows (`alter_columns.rs`,
//! `classify/columns.rs`), without a server: each case's outcome was measured on MariaDB
//! 10.11.19 (`cargo run -p mdl-conform --example alter_measure`, and the lock lists
//! behind a reader and behind BACKUP STAGE BLOCK_DDL: models/conformance/README.md).

use mdl_core::Outcome;
use mdl_sql::classify::columns::{create_table, TableDef};
use mdl_sql::classify::{classify, AlterCols, Effect, Stmt};
use mdl_sql::mapping::Mapping;
use mdl_sql::model::SqlModel;

/// A table with a column of each kind the measurement used.
const X: &str = "CREATE TABLE x (a INT AUTO_INCREMENT PRIMARY KEY, b INT, c INT NOT NULL \
                 DEFAULT 0, s VARCHAR(10), ch CHAR(10), e ENUM('a','b'), st SET('a','b'), \
                 tx TEXT, u VARCHAR(10), KEY kb (b), KEY ks (s)) ENGINE=InnoDB";
const XM: &str = "CREATE TABLE xm (a INT AUTO_INCREMENT PRIMARY KEY, b INT, c INT NOT NULL \
                  DEFAULT 0, s VARCHAR(10), e ENUM('a','b')) ENGINE=MyISAM";

/// (statement, what the server did): a learned kind, `error N` after IX, SU and
/// BACKUP_DDL, or `nothing` (the end after BACKUP_DDL).
const MEASURED: &[(&str, &str)] = &[
    ("ALTER TABLE x MODIFY b INT", "alter_instant"),
    ("ALTER TABLE x MODIFY b INT(5)", "alter_instant"),
    ("ALTER TABLE x MODIFY c INT NULL", "alter_inplace"),
    (
        "ALTER TABLE x MODIFY u VARCHAR(10) NOT NULL",
        "alter_inplace",
    ),
    ("ALTER TABLE x MODIFY a INT", "alter_instant"),
    ("ALTER TABLE x MODIFY a BIGINT", "alter_copy"),
    ("ALTER TABLE x CHANGE a id INT", "alter_instant"),
    ("ALTER TABLE x MODIFY b BIGINT", "alter_copy"),
    ("ALTER TABLE x MODIFY b INT UNSIGNED", "alter_copy"),
    ("ALTER TABLE x MODIFY b VARCHAR(10)", "alter_copy"),
    ("ALTER TABLE x MODIFY b DECIMAL(10,2)", "alter_copy"),
    ("ALTER TABLE x MODIFY s VARCHAR(20)", "alter_instant"),
    ("ALTER TABLE x MODIFY s VARCHAR(300)", "alter_instant"),
    ("ALTER TABLE x MODIFY s VARCHAR(5)", "alter_copy"),
    ("ALTER TABLE x MODIFY s CHAR(10)", "alter_copy"),
    (
        "ALTER TABLE x MODIFY s VARCHAR(10) CHARACTER SET utf8mb4",
        "alter_copy",
    ),
    (
        "ALTER TABLE x MODIFY s VARCHAR(10) CHARACTER SET latin1",
        "alter_instant",
    ),
    ("ALTER TABLE x MODIFY u TEXT", "alter_copy"),
    ("ALTER TABLE x MODIFY ch CHAR(20)", "alter_copy"),
    ("ALTER TABLE x MODIFY e ENUM('a','b','c')", "alter_instant"),
    ("ALTER TABLE x MODIFY e ENUM('b','a')", "alter_copy"),
    ("ALTER TABLE x MODIFY e ENUM('a')", "alter_copy"),
    ("ALTER TABLE x MODIFY st SET('a','b','c')", "alter_instant"),
    ("ALTER TABLE x MODIFY tx MEDIUMTEXT", "alter_copy"),
    ("ALTER TABLE x CHANGE b b2 INT", "alter_instant"),
    ("ALTER TABLE x CHANGE b b2 BIGINT", "alter_copy"),
    ("ALTER TABLE x MODIFY b INT DEFAULT 5", "alter_instant"),
    ("ALTER TABLE x MODIFY b INT FIRST", "alter_instant"),
    ("ALTER TABLE x MODIFY b INT AFTER s", "alter_instant"),
    (
        "ALTER TABLE x CONVERT TO CHARACTER SET latin1",
        "alter_instant",
    ),
    (
        "ALTER TABLE x CONVERT TO CHARACTER SET utf8mb4",
        "alter_copy",
    ),
    (
        "ALTER TABLE x CHANGE b b2 BIGINT, ADD COLUMN z INT",
        "alter_copy",
    ),
    ("ALTER TABLE x MODIFY b INT, MODIFY c INT", "alter_inplace"),
    ("ALTER TABLE x DROP COLUMN s", "alter_inplace"),
    ("ALTER TABLE x DROP COLUMN u", "alter_instant"),
    ("ALTER TABLE x ADD INDEX (u)", "alter_inplace"),
    ("ALTER TABLE x ADD CONSTRAINT q CHECK (b > 0)", "alter_copy"),
    ("ALTER TABLE xm MODIFY b BIGINT", "alter_copy"),
    ("ALTER TABLE xm MODIFY c INT NULL", "alter_copy"),
    ("ALTER TABLE xm MODIFY s VARCHAR(20)", "alter_copy"),
    ("ALTER TABLE xm MODIFY b INT FIRST", "alter_copy"),
    (
        "ALTER TABLE xm CONVERT TO CHARACTER SET latin1",
        "alter_copy",
    ),
    // The fixture's tables (behind a reader and behind BLOCK_DDL).
    ("ALTER TABLE t1 MODIFY zz INT", "error 1054"),
    ("ALTER TABLE t1 DROP COLUMN zz", "error 1091"),
    ("ALTER TABLE t1 ADD COLUMN b INT", "error 1060"),
    ("ALTER TABLE t1 ADD INDEX (zz)", "error 1072"),
    ("ALTER TABLE t1 RENAME INDEX zz TO yy", "error 1176"),
    ("ALTER TABLE t1 ADD PRIMARY KEY (b)", "error 1068"),
    ("ALTER TABLE t1 DROP CONSTRAINT zz", "error 1091"),
    (
        "ALTER TABLE t1 MODIFY b BIGINT, ALGORITHM=INPLACE",
        "error 1846",
    ),
    ("ALTER TABLE t1 DROP COLUMN IF EXISTS zz", "nothing"),
    ("ALTER TABLE t1 ADD COLUMN IF NOT EXISTS b INT", "nothing"),
    ("ALTER TABLE t1 DROP INDEX IF EXISTS zz", "nothing"),
    ("ALTER TABLE t1 MODIFY COLUMN IF EXISTS zz INT", "nothing"),
    (
        "ALTER TABLE t1 CHANGE COLUMN IF EXISTS zz yy INT",
        "nothing",
    ),
    (
        "ALTER TABLE t1 ADD INDEX IF NOT EXISTS `PRIMARY` (b)",
        "nothing",
    ),
    ("ALTER TABLE t1 ALGORITHM=INPLACE", "nothing"),
    (
        "ALTER TABLE t1 ALTER COLUMN IF EXISTS zz SET DEFAULT 1",
        "nothing",
    ),
    ("ALTER TABLE t1 RENAME COLUMN IF EXISTS zz TO m", "nothing"),
    (
        "ALTER TABLE t1 ALTER COLUMN IF EXISTS b SET DEFAULT 1",
        "alter_instant",
    ),
    ("ALTER TABLE t1 RENAME COLUMN b TO b", "nothing"),
    (
        "ALTER TABLE t1 ADD COLUMN IF NOT EXISTS b INT, ADD COLUMN c INT",
        "alter_instant",
    ),
    (
        "ALTER TABLE t1 ADD KEY IF NOT EXISTS b (b)",
        "alter_inplace",
    ),
    (
        "ALTER TABLE t1 DROP CONSTRAINT IF EXISTS zz",
        "alter_instant",
    ),
    (
        "ALTER TABLE t1 RENAME KEY IF EXISTS d TO e",
        "alter_instant",
    ),
    ("ALTER TABLE t1 ORDER BY b", "alter_copy"),
    ("ALTER TABLE t1 ORDER BY zz", "alter_copy"),
    // Several errors: the server's first, whatever the operations' order (`alter_columns::
    // first_error`, measured on 10.11.19 in both orders).
    (
        "ALTER TABLE x CHANGE c1 c1 INT NOT NULL, ADD KEY (c1)",
        "error 1054",
    ),
    (
        "ALTER TABLE x ADD KEY (c1), CHANGE c1 c1 INT NOT NULL",
        "error 1054",
    ),
    ("ALTER TABLE x DROP INDEX zz, MODIFY c2 INT", "error 1054"),
    ("ALTER TABLE x DROP COLUMN yy, ADD KEY (zz)", "error 1091"),
    ("ALTER TABLE x ADD b INT, DROP COLUMN zz", "error 1091"),
    ("ALTER TABLE x ADD KEY (zz), ADD b INT", "error 1060"),
    ("ALTER TABLE x RENAME KEY zz TO yy, ADD b INT", "error 1176"),
    (
        "ALTER TABLE x DROP COLUMN ww, RENAME KEY zz TO yy",
        "error 1091",
    ),
    ("ALTER TABLE x ADD KEY kb (a), ADD KEY (zz)", "error 1072"),
    ("ALTER TABLE x MODIFY b BLOB, ADD KEY kb (a)", "error 1061"),
    ("ALTER TABLE x ADD c9 INT AFTER zz, ADD b INT", "error 1054"),
];

/// What the model makes of `sql` after the tables above are made: the same words as
/// [`MEASURED`]'s, or the refusal.
fn outcome(sql: &str) -> String {
    let map = Mapping::load().expect("statements.tsv");
    let mut m = SqlModel::new(map.clone());
    m.setup(X).expect("x");
    m.setup(XM).expect("xm");
    let has = |r: &str| map.kind(r).is_some();
    match classify(sql, "test", &m.catalog, &has) {
        Ok(Stmt::Learned(p)) => match &p.effect {
            Effect::Alter {
                cols: AlterCols::Fail(c),
                ..
            } => format!("error {c}"),
            Effect::Alter {
                cols: AlterCols::Nothing,
                ..
            } => "nothing".into(),
            _ => p.kind.as_str().to_owned(),
        },
        Ok(other) => format!("{other:?}"),
        Err(e) => format!("refused: {e}"),
    }
}

/// The measured cases the model gets wrong.
fn mismatches() -> Vec<String> {
    MEASURED
        .iter()
        .filter_map(|(sql, want)| {
            let got = outcome(sql);
            (got != *want).then(|| format!("{sql}: server {want}, model {got}"))
        })
        .collect()
}

#[cfg(not(mdl_bug = "conform_alter_if_exists_ignored"))]
#[test]
fn the_model_chooses_as_the_server_did() {
    let bad = mismatches();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Seeded bug `conform_alter_if_exists_ignored`: IF [NOT] EXISTS no longer drops an
/// operation; the measured no-ops become errors.
#[cfg(mdl_bug = "conform_alter_if_exists_ignored")]
#[test]
fn seeded_bug_conform_alter_if_exists_ignored_is_caught() {
    let bad = mismatches();
    assert!(bad.len() >= 5, "only {} caught: {bad:?}", bad.len());
}

fn w(s: &str) -> Vec<String> {
    s.split_whitespace().map(str::to_owned).collect()
}

#[test]
fn create_table_columns_and_keys() {
    let def = create_table(&w(
        "create table t ( a int ( 11 ) not null , b varchar ( 10 ) character set utf8mb4 , \
         c enum ( 'x' , 'y' ) , primary key ( a ) , unique key ub ( b ( 5 ) ) , key ( c ) , \
         constraint ck check ( a > 0 ) ) engine = innodb default charset = latin1",
    ))
    .expect("read");
    let names: Vec<&str> = def.cols.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["a", "b", "c"]);
    assert!(def.col("a").expect("a").not_null);
    assert_eq!(
        def.col("b").expect("b").ty.charset.as_deref(),
        Some("utf8mb4")
    );
    assert_eq!(def.col("c").expect("c").ty.args, ["'x'", "'y'"]);
    let keys: Vec<&str> = def.keys.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(keys, ["primary", "ub", "c"]);
    assert_eq!(def.checks, ["ck"]);
    // Generated columns, foreign keys, LIKE: not read.
    for sql in [
        "create table t ( a int , b int as ( a + 1 ) virtual )",
        "create table t ( a int , foreign key ( a ) references p ( a ) )",
        "create table t like s",
    ] {
        assert_eq!(create_table(&w(sql)), None, "{sql}");
    }
    assert_eq!(TableDef::fixture("t1").cols.len(), 2);
}

#[test]
fn the_catalog_follows_the_columns() {
    let map = Mapping::load().expect("statements.tsv");
    let mut m = SqlModel::new(map);
    let s = m.add_session();
    for sql in [
        "CREATE TABLE n (a INT PRIMARY KEY, b INT)",
        "ALTER TABLE n ADD COLUMN c VARCHAR(10)",
        "ALTER TABLE n MODIFY c VARCHAR(20)",
        "ALTER TABLE n CHANGE c d VARCHAR(20)",
        "ALTER TABLE n DROP COLUMN IF EXISTS c",
    ] {
        assert_eq!(m.step(s, sql), Ok(Outcome::Ok), "{sql}");
    }
    assert_eq!(m.step(s, "ALTER TABLE n MODIFY c INT"), Ok(Outcome::Error));
    assert!(m.locks_of(s).is_empty());
    // A table made outside the model's reader: the columns are not claimed.
    assert_eq!(
        m.step(s, "CREATE TABLE g (a INT, b INT AS (a + 1) VIRTUAL)"),
        Ok(Outcome::Ok)
    );
    let r = m.step(s, "ALTER TABLE g MODIFY b BIGINT");
    assert!(matches!(&r, Err(e) if e.contains("column's type")), "{r:?}");
}
