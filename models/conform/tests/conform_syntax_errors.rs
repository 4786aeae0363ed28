//! Issue 26 item 4: a statement MariaDB rejects as a syntax error (ER_PARSE_ERROR, 1064)
//! is never played as `ok` with locks. The statements are every one that MariaDB 10.11's
//! own test suite expects to fail with a syntax error (`--error ER_PARSE_ERROR` or
//! `--error 1064` before it in a `.test` file of `mariadb-test-data`), collected into
//! `models/conformance/corpus-syntax-errors.tsv` (`FILE:LINE<TAB>STATEMENT`, see the
//! conformance README for the command that collected them).

use mdl_core::Outcome;
use mdl_sql::classify::{classify, Stmt};
use mdl_sql::mapping::Mapping;
use mdl_sql::model::SqlModel;

fn tsv(name: &str) -> Vec<(String, String)> {
    let path = format!("{}/../conformance/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let (at, sql) = l.split_once('\t').expect("FILE:LINE<TAB>STATEMENT");
            (at.to_owned(), sql.to_owned())
        })
        .collect()
}

/// What the model does with one statement played alone on a fresh model.
#[derive(Debug, PartialEq, Eq)]
enum Played {
    Refused,
    NoLocks,
    Error(Option<u32>),
    OkWithLocks,
    Other(Outcome),
}

fn play(map: &std::sync::Arc<Mapping>, sql: &str) -> Played {
    let mut m = SqlModel::with_mapping(map.clone());
    let s = m.add_session();
    let has = |r: &str| map.kind(r).is_some();
    match classify(sql, "test", &m.catalog, &has) {
        Err(_) => return Played::Refused,
        Ok(Stmt::Learned(_)) => {}
        Ok(_) => return Played::NoLocks,
    }
    match m.step(s, sql) {
        Err(_) => Played::Refused,
        Ok(Outcome::Ok) => Played::OkWithLocks,
        Ok(Outcome::Error) => Played::Error(m.session(s).last_error),
        Ok(o) => Played::Other(o),
    }
}

/// Every statement is refused or played as an error, except those of
/// `corpus-syntax-errors-open.tsv` (not caught yet): the test fails when another one is
/// played `ok` with locks, and when a listed one no longer is (remove it from the list).
/// The statements played `ok` with locks that are not in the open list.
fn newly_ok_with_locks() -> (
    Vec<String>,
    Vec<String>,
    std::collections::BTreeMap<String, usize>,
) {
    let map = std::sync::Arc::new(Mapping::load().expect("statements.tsv"));
    let all = tsv("corpus-syntax-errors.tsv");
    assert!(all.len() > 2000, "the collected statements: {}", all.len());
    let open: std::collections::BTreeSet<String> = tsv("corpus-syntax-errors-open.tsv")
        .into_iter()
        .map(|(at, _)| at)
        .collect();
    let mut counts = std::collections::BTreeMap::new();
    let mut bad = Vec::new();
    let mut fixed = Vec::new();
    for (at, sql) in &all {
        let p = play(&map, sql);
        *counts.entry(format!("{p:?}")).or_insert(0usize) += 1;
        match (p == Played::OkWithLocks, open.contains(at)) {
            (true, false) => bad.push(format!("{at}: {sql}")),
            (false, true) => fixed.push(at.clone()),
            _ => {}
        }
    }
    eprintln!("{} statements: {counts:?}", all.len());
    (bad, fixed, counts)
}

/// Seeded bug `conform_no_syntax_rules`: the model skips the syntax rules; the check
/// above sees the suite's syntax errors played `ok` with locks.
#[cfg(mdl_bug = "conform_no_syntax_rules")]
#[test]
fn seeded_bug_conform_no_syntax_rules_is_caught() {
    let (bad, _, _) = newly_ok_with_locks();
    assert!(bad.len() > 100, "only {} caught", bad.len());
}

#[cfg(not(mdl_bug = "conform_no_syntax_rules"))]
#[test]
fn no_syntax_error_of_the_suite_is_played_ok_with_locks() {
    let (bad, fixed, counts) = newly_ok_with_locks();
    assert!(
        bad.is_empty(),
        "{} syntax errors played as ok with locks:\n{}",
        bad.len(),
        bad.join("\n")
    );
    assert!(
        fixed.is_empty(),
        "no longer played as ok with locks, remove from corpus-syntax-errors-open.tsv: {fixed:?}"
    );
    // The 1064s the rules give are the server's code.
    assert!(counts.get("Error(Some(1064))").copied().unwrap_or(0) > 150);
}

/// Without the rules (the mysql-8.0 table does not apply them), the same statements are
/// played ok with locks: the check above can fail.
#[cfg(not(mdl_bug = "conform_no_syntax_rules"))]
#[test]
fn the_check_can_fail() {
    let map = std::sync::Arc::new(Mapping::load().expect("statements.tsv"));
    let sql = "select a,b from t1 order by a union select a,b from t2";
    assert_eq!(play(&map, sql), Played::Error(Some(1064)));
    assert!(mdl_sql::classify::mariadb_syntax_error(sql).is_some());
    let mut m = SqlModel::with_mapping(map.clone());
    let s = m.add_session();
    let has = |r: &str| map.kind(r).is_some();
    assert!(matches!(
        classify(sql, "test", &m.catalog, &has),
        Ok(Stmt::Learned(_))
    ));
    assert_eq!(m.step(s, "SELECT * FROM t1 FOR SHARE"), Ok(Outcome::Error));
    assert_eq!(m.session(s).last_error, Some(1064));
}

/// The rules that refuse syntax errors refuse no statement the server takes: the quick
/// set's statements are checked by `conform_server`; these are the valid neighbours of
/// the corpus's errors (main/parser.test creates each table with a space before `(`,
/// and some names without one).
#[test]
fn valid_neighbours_are_not_syntax_errors() {
    use mdl_sql::classify::mariadb_syntax_error;
    for sql in [
        "create table COUNT (a int)",
        "create table SESSION_USER(a int)",
        "create table SYSDATE(a int)",
        "create table t1(a int)",
        "SELECT t1.* FROM t1",
        "SELECT t1.*, a AS x FROM t1",
        "SELECT * FROM t1 FOR UPDATE",
        "SELECT * FROM t1 FOR UPDATE NOWAIT",
        "SELECT * FROM t1 LOCK IN SHARE MODE WAIT 3",
        "SELECT * FROM t1 FOR UPDATE SKIP LOCKED",
        "SELECT * FROM t1 LIMIT 1, 2",
        "SELECT * FROM t1 ORDER BY a LIMIT 1 FOR UPDATE",
        "(SELECT a FROM t1 ORDER BY a LIMIT 1) UNION SELECT a FROM t2",
        "SELECT a FROM t1 UNION SELECT a FROM t2 ORDER BY a LIMIT 1",
        "SELECT a FROM t1 UNION SELECT a FROM t2 INTO @v",
        "SELECT a INTO @v FROM t1 WHERE a = 1 LIMIT 1",
        "SELECT * FROM t1 WHERE a IN (SELECT a FROM t2 ORDER BY a) ORDER BY a",
        "SELECT a, ROW_NUMBER() OVER (PARTITION BY a ORDER BY b) FROM t1 ORDER BY a LIMIT 2",
        "SELECT GROUP_CONCAT(a ORDER BY a) FROM t1 ORDER BY 1",
        "INSERT INTO t1 SELECT * FROM t2 ORDER BY a LIMIT 1",
        "SELECT * FROM t1 PROCEDURE ANALYSE()",
        "DELETE FROM t1 ORDER BY a LIMIT 1",
        // The neighbours of classify/syntax/more.rs's rules (each from the suite).
        "SELECT CAST('a' AS CHAR(10) CHARACTER SET latin1 COLLATE DEFAULT)",
        "SELECT * FROM t1 ORDER BY c1 COLLATE latin1_bin",
        "select * from (select * from t1 natural join t2) for system_time all as t",
        "select * from t1 partition (p0) for system_time all",
        "SELECT t.a FROM t1 LEFT JOIN (( SELECT * FROM t2 ) t JOIN t3 ON t3.b > 5) ON t.a >= 1",
        "SELECT * FROM t1 JOIN (t2 JOIN t3 ON 1) ON 1",
        "SELECT * FROM t1 JOIN ((SELECT 1) AS d) ON 1",
        "select avgcost(sum, price) over (partition by a order by pk) from t1",
        "select sum(a) over (partition by b) from t1",
        "create table db.t2 (a int, foreign key(a) references db.t1(x))",
        "SELECT myfunc_int(MIN(b) xx) FROM t1",
        "SELECT test.fn(MIN(b)) FROM t1",
        "SELECT * FROM t1 LIMIT ROWS EXAMINED 10",
        "select group_concat(c limit 5) from t1",
        "SELECT JSON_OBJECTAGG(a, b) FROM t1",
        "select * from t1 where MATCH(a,b) AGAINST ('x' IN BOOLEAN MODE)",
        "select * from t1 where MATCH(a,b) AGAINST ('x' WITH QUERY EXPANSION)",
        "select sum(col1) from t1 group by col2 having col2 > 10",
        "UPDATE t1 SET a = 1",
        "create table t (j json /* a comment */ NOT NULL)",
        "CREATE TABLE t (id INT) PARTITION BY RANGE(id) SUBPARTITION BY HASH(id) (PARTITION p1 VALUES LESS THAN (100) (SUBPARTITION s1 ENGINE=InnoDB, SUBPARTITION s2))",
        "insert t1 values /*! (100) */",
        "create procedure p() begin select 1; /*! select 2; */ end",
        "SELECT db1.t1.a FROM db1.t1",
    ] {
        assert_eq!(mariadb_syntax_error(sql), None, "{sql}");
    }
}

/// No statement `mdl conform --random` generates is taken for a syntax error (they all
/// run on the server).
#[test]
fn generated_statements_are_not_syntax_errors() {
    use mdl_conform::random::{generate, Line};
    let map = Mapping::load().expect("statements.tsv");
    for seed in 0..500 {
        for l in generate(&map, seed, 3, 12).lines {
            if let Line::Sql(_, q) = l {
                let r = mdl_sql::classify::mariadb_syntax_error(&q);
                assert_eq!(r, None, "seed {seed}: {q}");
            }
        }
    }
}
