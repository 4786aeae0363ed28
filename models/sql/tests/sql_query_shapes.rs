//! Query shapes (`classify/query_shapes.rs`, `classify/query_values.rs`): WITH, VALUES,
//! parenthesised queries, ANALYZE / EXPLAIN of other statements, SLEEP, played on the model
//! alone (the suite scenarios `query-*.mdl` compare them with the server).

use mdl_core::Outcome;
use mdl_sql::mapping::Mapping;
use mdl_sql::model::SqlModel;

/// Plays `lines` (session index, SQL) on a fresh model with two sessions.
fn play(lines: &[(usize, &str)]) -> Vec<String> {
    let mut m = SqlModel::new(Mapping::load().unwrap());
    let ids = [m.add_session(), m.add_session()];
    lines
        .iter()
        .map(|(s, q)| match m.step(ids[*s], q) {
            Ok(Outcome::Error) => format!("error {}", m.session(ids[*s]).last_error.unwrap_or(0)),
            Ok(o) => format!("{o:?}"),
            Err(e) => format!("refused: {e}"),
        })
        .collect()
}

/// Whether session 1's DROP TABLE `t` waits behind session 0's `sql` in a transaction.
fn drop_waits(sql: &str, t: &str) -> bool {
    let got = play(&[(0, "BEGIN"), (0, sql), (1, &format!("DROP TABLE {t}"))]);
    assert_eq!(got[1], "Ok", "{sql}: {got:?}");
    got[2] == "Waiting"
}

#[test]
fn a_cte_reads_its_base_tables_and_hides_tables_of_its_name() {
    let q = "WITH t2 AS (SELECT a FROM t0) SELECT * FROM t2";
    assert!(drop_waits(q, "t0"));
    assert!(!drop_waits(q, "t2"));
    // Without RECURSIVE an element's own name in its body is the base table.
    assert!(drop_waits(
        "WITH t1 AS (SELECT a FROM t1) SELECT * FROM t1",
        "t1"
    ));
    // A later element is not visible in an earlier one's body: the base table.
    assert!(drop_waits(
        "WITH c1 AS (SELECT * FROM t2), t2 AS (SELECT * FROM t1) SELECT * FROM c1",
        "t2"
    ));
    let r = "WITH RECURSIVE r AS (SELECT a FROM m1 UNION SELECT r.a + 1 FROM r WHERE r.a < 3) SELECT * FROM r";
    assert!(drop_waits(r, "m1"));
    // A qualified name is the base table.
    assert!(drop_waits(
        "WITH t2 AS (SELECT 1) SELECT * FROM test.t2",
        "t2"
    ));
}

#[test]
fn cte_errors_and_ctes_in_other_statements() {
    let got = play(&[
        (0, "WITH t AS (SELECT 1), t AS (SELECT 2) SELECT * FROM t"),
        // The anchor may follow the recursive SELECT (move_anchors_ahead).
        (
            0,
            "WITH RECURSIVE r AS (SELECT a FROM r UNION SELECT 1) SELECT * FROM r",
        ),
        (0, "INSERT INTO t1 WITH c AS (SELECT 1, 2) SELECT * FROM c"),
        // No anchor: 4005 while parsing.
        (
            0,
            "WITH RECURSIVE r AS (SELECT r.a FROM r, t1 WHERE r.a = t1.a) SELECT * FROM r",
        ),
        // Two references in one SELECT: 4008 after the locks.
        (
            0,
            "WITH RECURSIVE r(a) AS (SELECT a FROM t1 UNION SELECT r1.a FROM r r1, r r2) SELECT * FROM r",
        ),
        (
            0,
            "SET STATEMENT standard_compliant_cte=0 FOR WITH RECURSIVE r(a) AS (SELECT a FROM t1 UNION SELECT r1.a FROM r r1, r r2) SELECT * FROM r",
        ),
        (0, "SET standard_compliant_cte=0"),
        // A global ORDER BY of a recursive element: 1235 after the locks.
        (
            0,
            "WITH RECURSIVE r(a) AS (SELECT a FROM t1 UNION SELECT a + 1 FROM r WHERE a < 6 ORDER BY a) SELECT * FROM r",
        ),
        // CYCLE without RECURSIVE: a syntax error.
        (0, "WITH c AS (SELECT 1 AS a) CYCLE a RESTRICT SELECT * FROM c"),
    ]);
    assert_eq!(got[7..], ["error 1235", "error 1064"], "{got:?}");
    assert_eq!(
        got[..6],
        ["error 4004", "Ok", "Ok", "error 4005", "error 4008", "Ok"],
        "{got:?}"
    );
    assert!(got[6].starts_with("refused"), "{got:?}");
    // The CTE's tables are the statement's read tables; its name hides a table.
    assert!(drop_waits(
        "INSERT INTO t2 (b) WITH c AS (SELECT b FROM t1) SELECT b FROM c",
        "t1"
    ));
    assert!(!drop_waits(
        "UPDATE t1 SET b = 2 WHERE a IN (WITH t2 AS (SELECT a FROM t0) SELECT a FROM t2)",
        "t2"
    ));
    assert!(drop_waits(
        "UPDATE t1 SET b = 2 WHERE a IN (WITH t2 AS (SELECT a FROM t0) SELECT a FROM t2)",
        "t0"
    ));
}

#[test]
fn values_and_parenthesised_queries() {
    let got = play(&[
        (0, "VALUES (1,2),(3,4)"),
        (0, "VALUES (1,2),(3)"),
        (0, "VALUES ()"),
        (0, "VALUES (DEFAULT)"),
        (0, "VALUES (a)"),
        (0, "SELECT * FROM (VALUES (1),(2)) AS tvc"),
    ]);
    assert_eq!(
        got[..4],
        ["Ok", "error 4099", "error 4141", "error 4172"],
        "{got:?}"
    );
    assert!(got[4].starts_with("refused"), "{got:?}");
    assert_eq!(got[5], "Ok", "{got:?}");
    assert!(drop_waits(
        "(SELECT a FROM t1) UNION (SELECT a FROM t0)",
        "t0"
    ));
    assert!(drop_waits("((SELECT a FROM t1))", "t1"));
    assert!(drop_waits(
        "SELECT * FROM ((SELECT a FROM m1 ORDER BY a LIMIT 2) ORDER BY a DESC) dt",
        "m1"
    ));
    assert!(drop_waits("VALUES (5) UNION SELECT a FROM t1", "t1"));
}

#[test]
fn analyze_and_explain_take_the_statements_locks() {
    for q in [
        "ANALYZE SELECT * FROM t1",
        "ANALYZE FORMAT=JSON DELETE FROM t1 WHERE a > 2",
        "EXPLAIN UPDATE t1 SET b = 1",
        "EXPLAIN FORMAT=JSON INSERT INTO t1 VALUES (1, 2)",
        "EXPLAIN EXTENDED (SELECT a FROM t1)",
        "EXPLAIN WITH c AS (SELECT a FROM t1) SELECT * FROM c",
    ] {
        assert!(drop_waits(q, "t1"), "{q}");
    }
    // EXPLAIN UPDATE takes the UPDATE's SW: LOCK TABLES ... READ waits.
    let got = play(&[
        (0, "BEGIN"),
        (0, "EXPLAIN UPDATE t2 SET b = 1"),
        (1, "LOCK TABLES t2 READ"),
    ]);
    assert_eq!(got, ["Ok", "Ok", "Waiting"], "{got:?}");
    // EXPLAIN changes nothing: a DROP it describes leaves the table (refused: DDL).
    let got = play(&[(0, "EXPLAIN DROP TABLE t1")]);
    assert!(got[0].starts_with("refused"), "{got:?}");
}

#[test]
fn sleep_and_benchmark_are_played_without_time() {
    let got = play(&[(0, "SELECT SLEEP(1)"), (0, "DO BENCHMARK(10, 1+1)")]);
    assert_eq!(got, ["Ok", "Ok"], "{got:?}");
    assert!(drop_waits("SELECT a, SLEEP(0) FROM t0", "t0"));
}
