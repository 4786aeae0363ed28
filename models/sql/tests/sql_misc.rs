//! The families of `classify/misc.rs` and `classify/xa.rs` offline: what each statement
//! is classified as, what is refused and why, and the XA state machine of `model/xa.rs`
//! played on the model alone (the suite scenarios `misc-*.mdl`, `flush-for-export.mdl`
//! and `xa-*.mdl` compare them with the server).

use mdl_core::Outcome;
use mdl_sql::catalog::Catalog;
use mdl_sql::classify::{classify, Stmt, XaOp};
use mdl_sql::mapping::Mapping;
use mdl_sql::model::SqlModel;

fn kind_of(m: &Mapping, q: &str) -> Result<String, String> {
    let cat = Catalog::fixture();
    let has = |r: &str| m.kind(r).is_some();
    match classify(q, "test", &cat, &has)? {
        Stmt::Learned(p) => Ok(format!(
            "{}:{}",
            p.kind,
            p.parts
                .iter()
                .map(|x| x.row.as_str())
                .collect::<Vec<_>>()
                .join(",")
        )),
        Stmt::Fails(c) => Ok(format!("fails {c}")),
        Stmt::Xa(x) => Ok(format!("xa {:?} {} {}", x.op, x.xid, x.option)),
        s => Ok(format!("{s:?}")),
    }
}

#[test]
fn misc_statements_take_their_learned_rows() {
    let m = Mapping::load().unwrap();
    for (q, want) in [
        ("CACHE INDEX t1 IN default", "cache_index:cache_index"),
        (
            "CACHE INDEX m1, t2 INDEX (`PRIMARY`) IN DEFAULT",
            "cache_index:cache_index.myisam,cache_index",
        ),
        (
            "LOAD INDEX INTO CACHE t1 IGNORE LEAVES, m1",
            "load_index:load_index,load_index.myisam",
        ),
        (
            "CHECKSUM TABLE t1, t2 EXTENDED",
            "checksum:checksum,checksum",
        ),
        // A missing table is left out: its open and its MDL are rolled back
        // (`mysql_checksum_table`), its row says NULL.
        ("CHECKSUM TABLE t9, t1", "checksum:checksum"),
        (
            "LOAD DATA LOCAL INFILE 'x.txt' REPLACE INTO TABLE m1 FIELDS TERMINATED BY ','",
            "load_data:load_data.myisam",
        ),
        // LOAD XML: the same mysql_load (sql/sql_load.cc).
        (
            "LOAD XML INFILE 'x.xml' INTO TABLE t1 ROWS IDENTIFIED BY '<row>'",
            "load_data:load_data",
        ),
        ("SET GLOBAL general_log = 1", "set_global:set_global"),
        (
            "SET @@global.hot_cache.key_buffer_size = 1024*1024",
            "set_global:set_global",
        ),
        (
            "FLUSH LOCAL PRIVILEGES",
            "flush_privileges:flush_privileges",
        ),
        ("flush status", "flush_status:flush_status"),
        (
            "FLUSH TABLES t2, t1 FOR EXPORT",
            "ftwrl_table:flush_export,flush_export",
        ),
        ("FLUSH TABLES FOR EXPORT", "fails 1064"),
        ("CACHE INDEX t1 PARTITION (p0) IN hot_cache", "fails 1284"),
        (
            "CACHE INDEX t1 PARTITIONS (p0) KEY (`inx_b`) IN cold_cache",
            "fails 1064",
        ),
        (
            "CACHE INDEX t1,t2 PARTITION (p0) KEY (`inx_b`) IN default",
            "fails 1064",
        ),
        ("LOAD INDEX INTO CACHE t2 PARTITION (p0), t1", "fails 1064"),
        ("LOAD INDEX INTO CACHE t1 PARTITIONS ALL", "fails 1064"),
        ("FLUSH TABLES t1 WITH EXPORT", "fails 1064"),
        ("BACKUP STAGE not_existing", "fails 4149"),
        (
            "FLUSH TABLE information_schema.collations FOR EXPORT",
            "fails 1044",
        ),
        (
            "FLUSH TABLE performance_schema.accounts WITH READ LOCK",
            "fails 1142",
        ),
        ("BACKUP STAGE LOCK", "fails 1064"),
        ("BACKUP LOG", "fails 1064"),
        ("XA START 'a','b', 3", "xa Start 'a','b' false"),
        (
            "xa commit 'a' one phase",
            "xa Commit { one_phase: true } 'a' false",
        ),
        ("XA END 'a' SUSPEND", "xa End 'a' true"),
        ("XA RECOVER FORMAT='SQL'", "xa Recover  false"),
    ] {
        assert_eq!(kind_of(&m, q).as_deref(), Ok(want), "{q}");
    }
    for (q, why) in [
        ("CHECKSUM TABLE t1 PARTITION (p1)", "PARTITION"),
        // (SET GLOBAL read_only = 0 | 1 alone is modelled: sql_read_only.rs.)
        ("SET GLOBAL read_only = @old_read_only", "read_only"),
        // (SET GLOBAL lock_wait_timeout alone is modelled: sql_global_timeout.rs.)
        (
            "SET GLOBAL lock_wait_timeout = 1, x = 2",
            "lock_wait_timeout",
        ),
        ("SET GLOBAL x = (SELECT a FROM t1)", "subquery"),
        ("SET GLOBAL hot.key_buffer_size = @size", "cannot compute"),
        ("XA START 0x1234", "string literals"),
        ("XA RECOVER FORMAT='PLAIN'", "XA RECOVER"),
    ] {
        let e = kind_of(&m, q).unwrap_err();
        assert!(e.contains(why), "{q}: {e}");
    }
    assert!(matches!(XaOp::Recover, XaOp::Recover));
}

/// Plays lines `s: sql` on a fresh model: the outcome and error of each.
fn play(lines: &[(usize, &str)]) -> Vec<String> {
    let mut m = SqlModel::new(Mapping::load().unwrap());
    let a = m.add_session();
    let b = m.add_session();
    let ids = [a, b];
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
fn xa_states_follow_the_server() {
    let got = play(&[
        (0, "XA START 'x'"),
        (0, "INSERT INTO t1 (b) VALUES (1)"),
        (0, "COMMIT"),
        (0, "CREATE TABLE t9 (a INT)"),
        (0, "XA END 'y'"),
        (0, "XA END 'x'"),
        (0, "SELECT * FROM t2"),
        (1, "XA START 'x'"),
        (1, "FLUSH TABLES WITH READ LOCK"),
        (0, "XA PREPARE 'x'"),
        (1, "UNLOCK TABLES"),
        (0, "XA COMMIT 'x' ONE PHASE"),
        (0, "XA ROLLBACK 'y'"),
        (0, "XA COMMIT 'x'"),
        (0, "XA COMMIT 'x'"),
        (0, "SET autocommit = 0"),
        (0, "SELECT * FROM t1"),
        (0, "XA START 'z'"),
    ]);
    let want = [
        "Ok",
        "Ok",
        "error 1399",
        "error 1399",
        "error 1397",
        "Ok",
        "error 1399",
        "error 1440",
        "Ok",
        "Waiting",
        "Ok",
        "error 1398",
        "error 1400",
        "Ok",
        "error 1397",
        "Ok",
        "Ok",
        "error 1400",
    ];
    assert_eq!(got, want);
}
