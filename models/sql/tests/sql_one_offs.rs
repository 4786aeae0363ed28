//! The one-offs of `classify/one_offs.rs` (INSTALL / UNINSTALL, BINLOG), START SLAVE
//! (`model/replication.rs`), views of system schemas (`classify/system_tables.rs`) and a
//! statement beginning with PARTITION, played on the model alone (the suite scenarios
//! `plugin-binlog-start-slave-checksum.mdl` and `views-of-system-schemas.mdl` compare
//! them with the server).

use mdl_core::Outcome;
use mdl_sql::mapping::Mapping;
use mdl_sql::model::SqlModel;

const FDE: &str = "BINLOG ' MfmqTA8BAAAAZwAAAGsAAAABAAQANS41LjctbTMtZGVidWctbG9nAAAAAAAAAAAAAAAAAAAAAAAA AAAAAAAAAAAAAAAAAAAx+apMEzgNAAgAEgAEBAQEEgAAVAAEGggAAAAICAgCAA== '";

/// Plays `lines` (session index, SQL) on a fresh model with two sessions.
fn play(lines: &[(usize, &str)]) -> Vec<String> {
    let mut m = SqlModel::new(Mapping::load().unwrap());
    let ids = [m.add_session(), m.add_session(), m.add_session()];
    lines
        .iter()
        .map(|(s, q)| match m.step(ids[*s], q) {
            Ok(Outcome::Error) => format!("error {}", m.session(ids[*s]).last_error.unwrap_or(0)),
            Ok(o) => format!("{o:?}"),
            Err(e) => format!("refused: {e}"),
        })
        .collect()
}

#[test]
fn plugin_statements_commit_and_follow_their_session_rules() {
    let got = play(&[
        (0, "BEGIN"),
        (0, "SELECT * FROM t1"),
        (1, "DROP TABLE t1"),
        (0, "INSTALL SONAME 'ha_blackhole'"),
        (0, "LOCK TABLES t2 READ"),
        (0, "UNINSTALL PLUGIN blackhole"),
        (0, "UNLOCK TABLES"),
        (0, "INSTALL PLUGIN example SONAME 'ha_example'"),
    ]);
    assert_eq!(
        got,
        ["Ok", "Ok", "Waiting", "Ok", "Ok", "error 1100", "Ok", "Ok"],
        "{got:?}"
    );
    // The DROP behind the transaction ran once INSTALL committed it.
    let got = play(&[(0, "INSTALL PLUGIN a SONAME 'b' extra")]);
    assert!(got[0].starts_with("refused"), "{got:?}");
}

#[test]
fn binlog_of_a_format_description_event_takes_no_lock_and_keeps_the_transaction() {
    let got = play(&[
        (0, "BEGIN"),
        (0, "SELECT * FROM t1"),
        (1, "DROP TABLE t1"),
        (0, FDE),
        (0, "COMMIT"),
    ]);
    assert_eq!(got, ["Ok", "Ok", "Waiting", "Ok", "Ok"], "{got:?}");
    // A TABLE_MAP event (type 19) before the session's format description event: 1609
    // (model/binlog.rs); after it, the event would open its table: refused.
    const ROWS: &str = "BINLOG ' 3u9kSBMUAAAAKQAAAJEBAAAAABoAAAAAAAAABHRlc3QAAnQxAAEDAAA= \
                        3u9kSBcUAAAAIgAAALMBAAAQABoAAAAAAAEAAf/+AgAAAA== '";
    let got = play(&[(0, ROWS)]);
    assert_eq!(got, ["error 1609"], "{got:?}");
    let got = play(&[(0, FDE), (0, ROWS)]);
    assert!(got[1].contains("format description"), "{got:?}");
}

#[test]
fn start_slave_fails_with_no_master_and_keeps_locks() {
    let got = play(&[
        (0, "BEGIN"),
        (0, "SELECT * FROM t1"),
        (1, "DROP TABLE t1"),
        (0, "START SLAVE SQL_THREAD"),
        (0, "LOCK TABLES t2 READ"),
        (0, "START REPLICA"),
        (0, "SELECT * FROM t2"),
    ]);
    assert_eq!(
        got,
        [
            "Ok",
            "Ok",
            "Waiting",
            "error 1200",
            "Ok",
            "error 1200",
            "Ok"
        ],
        "{got:?}"
    );
}

#[test]
fn views_of_system_schemas_are_views_of_no_table() {
    let got = play(&[
        (
            0,
            "CREATE VIEW v0 AS SELECT * FROM information_schema.columns",
        ),
        (
            0,
            "CREATE VIEW v2 AS SELECT * FROM performance_schema.accounts",
        ),
        (
            0,
            "CREATE VIEW v9 AS SELECT * FROM information_schema.no_such_table",
        ),
    ]);
    assert_eq!(got[..2], ["Ok", "Ok"], "{got:?}");
    assert!(got[2].contains("does not have"), "{got:?}");
}

#[test]
fn a_statement_beginning_with_partition_is_a_syntax_error() {
    let got = play(&[
        (0, "BEGIN"),
        (0, "SELECT * FROM t1"),
        (
            0,
            "partition by list (a) partitions 3 (partition x1 values in (1))",
        ),
        (1, "DROP TABLE t1"),
    ]);
    assert_eq!(got, ["Ok", "Ok", "error 1064", "Waiting"], "{got:?}");
}

#[test]
fn alter_view_of_a_missing_view_and_function_fails_for_the_view() {
    let got = play(&[
        (0, "BEGIN"),
        (0, "SELECT * FROM t1"),
        (1, "DROP TABLE t1"),
        (0, "ALTER VIEW v1 AS SELECT f1()"),
    ]);
    assert_eq!(got, ["Ok", "Ok", "Waiting", "error 1146"], "{got:?}");
}

#[test]
fn alter_table_rename_to_its_own_name_does_not_wait_for_readers() {
    let got = play(&[
        (0, "BEGIN"),
        (0, "SELECT * FROM t1"),
        (1, "ALTER TABLE test.t1 RENAME t1"),
        (1, "ALTER TABLE t1 RENAME TO test.t1"),
        (0, "COMMIT"),
        (0, "LOCK TABLES t2 WRITE"),
        (1, "ALTER TABLE t2 RENAME t2"),
    ]);
    assert_eq!(
        got,
        ["Ok", "Ok", "Ok", "Ok", "Ok", "Ok", "Waiting"],
        "{got:?}"
    );
    // Its own name of a table that is not there: refused.
    let got = play(&[(0, "ALTER TABLE t9 RENAME t9")]);
    assert!(got[0].contains("its own name"), "{got:?}");
}

#[test]
fn alter_table_rename_to_another_schema_moves_the_table() {
    // suite/alter-rename-schema.mdl: the move, waiting behind a reader for the table's
    // X; into a schema that is not there, InnoDB's 1025 after the locks.
    let got = play(&[
        (0, "CREATE DATABASE db1"),
        (1, "BEGIN"),
        (1, "SELECT * FROM t1"),
        (0, "ALTER TABLE t1 RENAME db1.t1"),
        (1, "COMMIT"),
        (1, "SELECT * FROM db1.t1"),
        (1, "SELECT * FROM t1"),
        (0, "ALTER TABLE t2 RENAME nodb.t2"),
    ]);
    assert_eq!(
        got,
        [
            "Ok",
            "Ok",
            "Ok",
            "Waiting",
            "Ok",
            "Ok",
            "error 1146",
            "error 1025"
        ],
        "{got:?}"
    );
    // Into a system schema: refused; of an information_schema table: 1044 before any
    // lock, the transaction kept (the reader's SR still blocks the DROP).
    let got = play(&[(0, "ALTER TABLE t3 RENAME information_schema.t3")]);
    assert!(got[0].contains("system schema"), "{got:?}");
    let got = play(&[
        (1, "BEGIN"),
        (1, "SELECT * FROM t1"),
        (
            1,
            "ALTER TABLE information_schema.columns RENAME db1.columns",
        ),
        (0, "DROP TABLE t1"),
    ]);
    assert_eq!(got, ["Ok", "Ok", "error 1044", "Waiting"], "{got:?}");
}

#[test]
fn optimize_of_one_innodb_table_is_open_recreate_analyze() {
    let got = play(&[
        (1, "BEGIN"),
        (1, "SELECT * FROM t1"),
        (0, "OPTIMIZE TABLE t1"),
        (1, "COMMIT"),
    ]);
    // It waits for the rebuild's X behind the reader, and ends once the reader commits.
    assert_eq!(got, ["Ok", "Ok", "Waiting", "Ok"], "{got:?}");
}

#[test]
fn optimize_of_several_tables_does_each_in_turn() {
    // mysql_admin_table (sql/sql_admin.cc): each table opened, optimized and given back
    // before the next; behind a reader of the second table the first is free
    // (suite/optimize-several-tables.mdl).
    let got = play(&[
        (1, "BEGIN"),
        (1, "SELECT * FROM m1"),
        (0, "OPTIMIZE TABLE t1, m1"),
        (2, "ALTER TABLE t1 ADD COLUMN c INT, ALGORITHM=COPY"),
        (1, "COMMIT"),
    ]);
    assert_eq!(got, ["Ok", "Ok", "Waiting", "Ok", "Ok"], "{got:?}");
    let got = play(&[
        (1, "BEGIN"),
        (1, "SELECT * FROM t2"),
        (0, "OPTIMIZE TABLE m1, t1, t2"),
        (2, "LOCK TABLES m1 WRITE, t1 WRITE"),
        (1, "COMMIT"),
    ]);
    assert_eq!(got, ["Ok", "Ok", "Waiting", "Ok", "Ok"], "{got:?}");
}
