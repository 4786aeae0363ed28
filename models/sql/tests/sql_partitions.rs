//! Partition maintenance in ALTER TABLE, in the SQL model without a server: what the
//! server showed (learned rows `nopart_*`; suite/partition-maintenance-*.mdl).

use mdl_core::Outcome;
use mdl_sql::mapping::Mapping;
use mdl_sql::model::SqlModel;

fn model() -> SqlModel {
    SqlModel::new(Mapping::load().expect("statements.tsv"))
}

const ER_PARTITION_MGMT_ON_NONPARTITIONED: u32 = 1505;

#[test]
fn maintenance_of_a_table_that_is_not_partitioned_fails_after_its_locks() {
    for sql in [
        "ALTER TABLE t1 ADD PARTITION (PARTITION p1 VALUES LESS THAN (10))",
        "ALTER TABLE t1 DROP PARTITION p1, p2",
        "ALTER TABLE t1 COALESCE PARTITION 2",
        "ALTER TABLE t1 REORGANIZE PARTITION p1 INTO (PARTITION p2 VALUES LESS THAN (10))",
        "ALTER TABLE t1 REBUILD PARTITION p1",
        "ALTER TABLE t1 REMOVE PARTITIONING",
        "ALTER TABLE t1 TRUNCATE PARTITION ALL",
        "ALTER TABLE t1 ANALYZE PARTITION p1",
        "ALTER TABLE t1 CHECK PARTITION p1",
        "ALTER TABLE t1 OPTIMIZE PARTITION p1",
        "ALTER TABLE t1 REPAIR PARTITION p1",
        "ALTER TABLE m1 ANALYZE PARTITION p1",
        "ALTER TABLE m1 TRUNCATE PARTITION p1",
        "ALTER TABLE t1 TRUNCATE PARTITION pNeg, `p10-99`",
    ] {
        let mut m = model();
        let a = m.add_session();
        assert_eq!(m.step(a, sql), Ok(Outcome::Error), "{sql}");
        assert_eq!(
            m.session(a).last_error,
            Some(ER_PARTITION_MGMT_ON_NONPARTITIONED),
            "{sql}"
        );
        assert!(m.locks_of(a).is_empty(), "{sql}");
    }
}

#[test]
fn truncate_partition_asks_for_x_and_the_alter_path_for_su() {
    // Measured (learned rows): TRUNCATE PARTITION waits behind a reader's SR for X; the
    // ALTER path takes SU, compatible, and fails at once.
    let mut m = model();
    let r = m.add_session();
    let a = m.add_session();
    let b = m.add_session();
    m.step(r, "BEGIN").unwrap();
    m.step(r, "SELECT * FROM t1").unwrap();
    assert_eq!(
        m.step(a, "ALTER TABLE t1 COALESCE PARTITION 2"),
        Ok(Outcome::Error)
    );
    assert_eq!(
        m.step(b, "ALTER TABLE t1 TRUNCATE PARTITION p1"),
        Ok(Outcome::Waiting)
    );
    assert_eq!(m.step(r, "COMMIT"), Ok(Outcome::Ok));
    assert_eq!(
        m.session(b).last_error,
        Some(ER_PARTITION_MGMT_ON_NONPARTITIONED)
    );
}

#[test]
fn maintenance_of_a_missing_table_fails_with_no_such_table() {
    let mut m = model();
    let a = m.add_session();
    for sql in [
        "ALTER TABLE t9 ADD PARTITION (PARTITION p1 VALUES LESS THAN (10))",
        "ALTER TABLE t9 TRUNCATE PARTITION p1",
    ] {
        assert_eq!(m.step(a, sql), Ok(Outcome::Error), "{sql}");
        assert_eq!(m.session(a).last_error, Some(1146), "{sql}");
    }
}

#[test]
fn what_the_model_does_not_know_is_refused() {
    let mut m = model();
    let a = m.add_session();
    m.step(
        a,
        "CREATE TABLE tp (a INT) PARTITION BY HASH (a) PARTITIONS 2",
    )
    .unwrap();
    m.step(a, "CREATE TABLE tq LIKE tp").unwrap();
    m.step(a, "RENAME TABLE tq TO tr").unwrap();
    for sql in [
        // Partitioned tables: their maintenance is not measured.
        "ALTER TABLE tp COALESCE PARTITION 1",
        "ALTER TABLE tr TRUNCATE PARTITION p0",
        "ALTER TABLE tp DROP PARTITION p0",
        // Exchange with a partitioned table; per-partition engines; MyISAM; other
        // operations beside.
        "ALTER TABLE tp EXCHANGE PARTITION p1 WITH TABLE t2",
        "ALTER TABLE t1 EXCHANGE PARTITION p1 WITH TABLE tp",
        "ALTER TABLE t1 PARTITION BY KEY (a) (PARTITION p0 ENGINE=MEMORY, PARTITION p1)",
        "ALTER TABLE m1 PARTITION BY HASH (a) PARTITIONS 2",
        "ALTER TABLE t1 EXCHANGE PARTITION p1 WITH TABLE m1",
        "ALTER TABLE t1 ADD PARTITION PARTITIONS 2, ALGORITHM=INPLACE",
        "ALTER TABLE t1 DISCARD PARTITION p1 TABLESPACE",
        // MyISAM OPTIMIZE / REPAIR PARTITION: the learned row disagreed (seed 27123).
        "ALTER TABLE m1 OPTIMIZE PARTITION p1",
        "ALTER TABLE t9 REPAIR PARTITION p1",
    ] {
        assert!(m.step(a, sql).is_err(), "{sql}");
    }
    // Dropped and created again without partitions: maintenance fails as the server's.
    m.step(a, "DROP TABLE tp").unwrap();
    m.step(a, "CREATE TABLE tp (a INT)").unwrap();
    assert_eq!(
        m.step(a, "ALTER TABLE tp COALESCE PARTITION 1"),
        Ok(Outcome::Error)
    );
}

#[test]
fn exchange_partition_of_a_table_that_is_not_partitioned_locks_both_then_fails() {
    // Measured (learned row `nopart_exchange`): SNW on both tables in one request, then
    // ER_PARTITION_MGMT_ON_NONPARTITIONED; SNW lets a reader's SR be.
    let mut m = model();
    let r = m.add_session();
    let a = m.add_session();
    m.step(r, "BEGIN").unwrap();
    m.step(r, "SELECT * FROM t1").unwrap();
    assert_eq!(
        m.step(a, "ALTER TABLE t1 EXCHANGE PARTITION p0 WITH TABLE t2"),
        Ok(Outcome::Error)
    );
    assert_eq!(
        m.session(a).last_error,
        Some(ER_PARTITION_MGMT_ON_NONPARTITIONED)
    );
    for sql in [
        "ALTER TABLE t9 EXCHANGE PARTITION p0 WITH TABLE t2",
        "ALTER TABLE t1 EXCHANGE PARTITION p0 WITH TABLE t9",
    ] {
        assert_eq!(m.step(a, sql), Ok(Outcome::Error), "{sql}");
        assert_eq!(m.session(a).last_error, Some(1146), "{sql}");
    }
}

#[test]
fn partition_by_is_a_copy_and_makes_the_table_partitioned() {
    // Measured (learned row `alter_partition_by`): behind a reader's SR it waits for X
    // with SNW held, as ALGORITHM=COPY does.
    let mut m = model();
    let r = m.add_session();
    let a = m.add_session();
    m.step(r, "BEGIN").unwrap();
    m.step(r, "SELECT * FROM t1").unwrap();
    assert_eq!(
        m.step(a, "ALTER TABLE t1 PARTITION BY HASH (a) PARTITIONS 2"),
        Ok(Outcome::Waiting)
    );
    assert_eq!(m.step(r, "COMMIT"), Ok(Outcome::Ok));
    assert_eq!(m.session(a).last_error, None);
    // Partitioned now: its maintenance is not measured, refused.
    assert!(m.step(a, "ALTER TABLE t1 COALESCE PARTITION 1").is_err());
    assert_eq!(
        m.step(a, "ALTER TABLE t9 PARTITION BY HASH (a) PARTITIONS 2"),
        Ok(Outcome::Error)
    );
    assert_eq!(m.session(a).last_error, Some(1146));
}

#[test]
fn a_partition_clause_the_parser_refuses_fails_before_any_lock() {
    // Measured (suite/partition-clause-errors.mdl): before the name taken (not 1050) and
    // before the implicit commit (the transaction's SR stays).
    let mut m = model();
    let a = m.add_session();
    m.step(a, "BEGIN").unwrap();
    m.step(a, "SELECT * FROM t2").unwrap();
    let held = m.locks_of(a);
    for (sql, code) in [
        ("CREATE TABLE t1 (a INT) PARTITION BY RANGE (a)", 1492),
        (
            "CREATE TABLE t1 (a INT) PARTITION BY HASH (a) (PARTITION p0 VALUES IN (1))",
            1480,
        ),
        ("ALTER TABLE t1 PARTITION BY KEY (a) PARTITIONS 0", 1504),
        (
            "CREATE TABLE t1 (a INT) PARTITION BY HASH (NOW() + a)",
            1064,
        ),
    ] {
        assert_eq!(m.step(a, sql), Ok(Outcome::Error), "{sql}");
        assert_eq!(m.session(a).last_error, Some(code), "{sql}");
        assert_eq!(m.locks_of(a), held, "{sql}");
    }
    // A valid clause of a name taken: ER_TABLE_EXISTS_ERROR as before.
    assert_eq!(
        m.step(
            a,
            "CREATE TABLE t1 (a INT) PARTITION BY HASH (a) PARTITIONS 2"
        ),
        Ok(Outcome::Error)
    );
    assert_eq!(m.session(a).last_error, Some(1050));
}

#[test]
fn syntax_errors_of_partition_operations_fail_before_any_lock() {
    // Measured on 10.11.19 (suite/partition-exchange-not-partitioned.mdl,
    // partition-maintenance-not-partitioned.mdl): 1064, the transaction kept; IF [NOT]
    // EXISTS takes the ALTER path (1505).
    let mut m = model();
    let a = m.add_session();
    m.step(a, "BEGIN").unwrap();
    m.step(a, "SELECT * FROM t2").unwrap();
    let held = m.locks_of(a);
    for sql in [
        "ALTER TABLE t1 EXCHANGE PARTITION p0,p1 WITH TABLE t2",
        "ALTER TABLE t1 EXCHANGE PARTITION (p0,p1) WITH TABLE t2",
        "ALTER TABLE t1 EXCHANGE PARTITION p0 WITH TABLE t2 IGNORE",
        "ALTER TABLE t1 EXCHANGE PARTITION p0 WITH TABLE (t2,t0)",
        "ALTER TABLE t1 EXCHANGE PARTITION p0 WITH TABLE t2 WITHOUT VALIDATION",
        "ALTER TABLE t1 REBUILD PARTITION",
        "ALTER TABLE t1 OPTIMIZE PARTITION p1 EXTENDED",
    ] {
        assert_eq!(m.step(a, sql), Ok(Outcome::Error), "{sql}");
        assert_eq!(m.session(a).last_error, Some(1064), "{sql}");
        assert_eq!(m.locks_of(a), held, "{sql}");
    }
    for sql in [
        "ALTER TABLE t1 ADD PARTITION IF NOT EXISTS (PARTITION p5 VALUES LESS THAN (9))",
        "ALTER TABLE t1 DROP PARTITION IF EXISTS p5",
    ] {
        assert_eq!(m.step(a, sql), Ok(Outcome::Error), "{sql}");
        assert_eq!(
            m.session(a).last_error,
            Some(ER_PARTITION_MGMT_ON_NONPARTITIONED),
            "{sql}"
        );
    }
}

#[test]
fn convert_partition_of_a_table_that_is_not_partitioned_takes_the_alter_path() {
    // Measured on 10.11.19 (suite/partition-maintenance-not-partitioned.mdl): 1505, or
    // 1146 for a missing table; to a table that exists it is X on it, then 1050: refused.
    let mut m = model();
    let a = m.add_session();
    for (sql, code) in [
        ("ALTER TABLE t1 CONVERT PARTITION p0 TO TABLE t3", 1505),
        ("ALTER TABLE t9 CONVERT PARTITION p0 TO TABLE t3", 1146),
    ] {
        assert_eq!(m.step(a, sql), Ok(Outcome::Error), "{sql}");
        assert_eq!(m.session(a).last_error, Some(code), "{sql}");
    }
    for sql in [
        "ALTER TABLE t1 CONVERT PARTITION p0 TO TABLE t2",
        "ALTER TABLE t1 CONVERT PARTITION",
        "ALTER TABLE t1 CONVERT TABLE t2 TO PARTITION p9 VALUES LESS THAN (100)",
    ] {
        assert!(m.step(a, sql).is_err(), "{sql}");
    }
}

#[test]
fn maintenance_of_a_partitioned_table_that_names_no_partition() {
    // Learned rows `part_*` (suite/partition-maintenance-partitioned.mdl).
    let mut m = model();
    let r = m.add_session();
    let a = m.add_session();
    let setup = m.add_session();
    m.step(
        setup,
        "CREATE TABLE t3 (a INT) PARTITION BY HASH (a) PARTITIONS 2",
    )
    .unwrap();
    m.step(r, "BEGIN").unwrap();
    m.step(r, "SELECT * FROM t3").unwrap();
    for sql in [
        "ALTER TABLE t3 ANALYZE PARTITION ALL",
        "ALTER TABLE t3 CHECK PARTITION ALL",
    ] {
        assert_eq!(m.step(a, sql), Ok(Outcome::Ok), "{sql}");
    }
    assert_eq!(
        m.step(a, "ALTER TABLE t3 TRUNCATE PARTITION ALL"),
        Ok(Outcome::Waiting)
    );
    assert_eq!(m.step(r, "COMMIT"), Ok(Outcome::Ok));
    assert_eq!(m.take_events(), vec![(a, Outcome::Ok)]);
    assert_eq!(m.step(r, "BEGIN"), Ok(Outcome::Ok));
    assert_eq!(m.step(r, "SELECT * FROM t3"), Ok(Outcome::Ok));
    assert_eq!(
        m.step(a, "ALTER TABLE t3 REMOVE PARTITIONING"),
        Ok(Outcome::Waiting)
    );
    assert_eq!(m.step(r, "COMMIT"), Ok(Outcome::Ok));
    assert_eq!(m.session(a).last_error, None);
    // Not partitioned any more.
    assert_eq!(
        m.step(a, "ALTER TABLE t3 COALESCE PARTITION 1"),
        Ok(Outcome::Error)
    );
    assert_eq!(
        m.session(a).last_error,
        Some(ER_PARTITION_MGMT_ON_NONPARTITIONED)
    );
}
