//! `mdl conform --corpus` on a small made-up mysql-test directory: extraction, offline
//! play (accepted / refused with the reason), families, and with a server
//! (`MDL_CONFORM=1`) the comparison, whose differences are one-statement scenario files
//! that load and differ again.

use mdl_conform::corpus::{self, Options};
use mdl_conform::server::Server;
use mdl_sql::mapping::Mapping;
use std::path::PathBuf;

const TEST: &str = "--source include/have_innodb.inc
connect (con1,localhost,root,,);
connection default;
LOCK TABLES t1 READ;
UNLOCK TABLES;
--error ER_NO_SUCH_TABLE
SELECT * FROM
  t1;
let $n = 3;
SELECT $n;
if ($n)
{
  DROP TABLE t1;
}
--send
ALTER TABLE t1 FORCE, ALGORITHM=COPY;
connection con1;
--reap
CREATE EVENT e ON SCHEDULE EVERY @x SECOND DO SELECT 1;
select * from t1;
HANDLER t1 OPEN;
alter online table t1 algorithm=INPLACE, lock=NONE;
";

/// A mysql-test directory with one file and its list, under the temporary directory: one
/// per test (`name`), since the tests run in parallel and one of them rewrites the list.
fn suite(name: &str) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("mdl-corpus-test-{}-{name}", std::process::id()));
    std::fs::create_dir_all(dir.join("main")).unwrap();
    std::fs::write(dir.join("main/lock_x.test"), TEST).unwrap();
    let list = dir.join("list.txt");
    std::fs::write(&list, "# a comment\nmain/lock_x.test\n").unwrap();
    (dir, list)
}

#[test]
fn the_committed_list_names_enough_files() {
    let text = std::fs::read_to_string(mdl_conform::data_dir().join(corpus::LIST_FILE)).unwrap();
    let n = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .count();
    assert!(n >= 139, "{n} files");
}

#[test]
fn a_missing_listed_file_fails_closed() {
    let (dir, list) = suite("a_missing_listed_file_fails_closed");
    std::fs::write(&list, "main/nope.test\n").unwrap();
    let e = corpus::files(&dir, &list).unwrap_err().to_string();
    assert!(e.contains("list.txt:1") && e.contains("nope.test"), "{e}");
}

#[test]
fn the_whole_suite_is_every_test_file_and_none_fails_closed() {
    let (dir, _) = suite("the_whole_suite_is_every_test_file");
    std::fs::create_dir_all(dir.join("suite/x/t")).unwrap();
    std::fs::write(dir.join("suite/x/t/b.test"), "SELECT 1;\n").unwrap();
    std::fs::write(dir.join("suite/x/t/b.result"), "SELECT 1;\n").unwrap();
    let files = corpus::every_test(&dir).unwrap();
    let rel: Vec<String> = files
        .iter()
        .map(|f| f.strip_prefix(&dir).unwrap().display().to_string())
        .collect();
    assert_eq!(rel, vec!["main/lock_x.test", "suite/x/t/b.test"]);
    let empty = dir.join("suite/x/t/empty");
    std::fs::create_dir_all(&empty).unwrap();
    let e = corpus::every_test(&empty).unwrap_err().to_string();
    assert!(e.contains("no *.test file"), "{e}");
}

#[test]
fn offline_the_statements_are_played_alone() {
    let (dir, list) = suite("offline_the_statements_are_played_alone");
    let files = corpus::files(&dir, &list).unwrap();
    let entries = corpus::statements(&dir, &files).unwrap();
    let sqls: Vec<&str> = entries.iter().map(|e| e.sql.as_str()).collect();
    assert_eq!(
        sqls,
        vec![
            "LOCK TABLES t1 READ",
            "UNLOCK TABLES",
            "SELECT * FROM t1",
            "ALTER TABLE t1 FORCE, ALGORITHM=COPY",
            "CREATE EVENT e ON SCHEDULE EVERY @x SECOND DO SELECT 1",
            "HANDLER t1 OPEN",
            "alter online table t1 algorithm=INPLACE, lock=NONE",
        ]
    );
    assert_eq!(entries[2].line, 7);
    let map = Mapping::load().unwrap();
    let opts = Options {
        sample: None,
        out_dir: dir.join("diffs"),
        server: None,
    };
    let sum = corpus::run(&map, &entries, &opts, &mut std::io::sink()).unwrap();
    let t = sum.total();
    assert_eq!((t.total, t.accepted, t.compared), (7, 6, 0));
    assert_eq!(sum.by_family["LOCK TABLES"].accepted, 1);
    assert_eq!(sum.by_family["CREATE EVENT"].accepted, 0);
    assert!(
        sum.reasons.keys().any(|r| r.contains("CREATE EVENT")),
        "{:?}",
        sum.reasons
    );
    let mut out = Vec::new();
    corpus::report(&sum, None, &mut out).unwrap();
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.starts_with("7 distinct statements from 1 files: 6 accepted (85.7 %)"),
        "{out}"
    );
}

#[test]
fn with_a_server_differences_are_scenario_files() {
    if std::env::var("MDL_CONFORM").as_deref() != Ok("1") {
        println!("skipped: set MDL_CONFORM=1 to compare with MariaDB");
        return;
    }
    let (dir, list) = suite("with_a_server_differences_are_scenario_files");
    let files = corpus::files(&dir, &list).unwrap();
    let entries = corpus::statements(&dir, &files).unwrap();
    let map = Mapping::load().unwrap();
    let server = Server::start().unwrap_or_else(|e| panic!("{e}"));
    let out_dir = dir.join("diffs");
    let _ = std::fs::remove_dir_all(&out_dir);
    let opts = Options {
        sample: None,
        out_dir: out_dir.clone(),
        server: Some(&server),
    };
    let sum = corpus::run(&map, &entries, &opts, &mut std::io::sink()).unwrap();
    let t = sum.total();
    assert_eq!(t.compared, 6, "{sum:?}");
    // ALTER ONLINE TABLE t1 with no operation, ALGORITHM=INPLACE, LOCK=NONE: the server
    // does nothing and answers at once, ours plays the in-place row and waits behind the
    // reader, one of the corpus's three known differences (models/conformance/README.md).
    // Kept as a scenario that differs again when run; every other statement agrees.
    // (DROP TABLE t1, t1 was the difference here until the model refused it before any
    // lock, 1066, as the server does; then CREATE TABLE t1 ... PARTITIONS -1 until the
    // partition clause's errors came before the name's, 1064, as on the server.)
    assert_eq!(t.agreed + t.explained + sum.differences.len(), 6, "{sum:?}");
    assert_eq!(sum.differences.len(), 1, "{sum:?}");
    for f in &sum.differences {
        let rep =
            mdl_conform::scenario::run_file(&server, &map, f, false, &mut std::io::sink()).unwrap();
        assert!(!rep.agrees(), "{} agrees when run again", f.display());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A file's `SET sql_mode=ORACLE` puts the statements after it in Oracle mode (played
/// after that SET, offline and on the server), until it sets another mode.
#[test]
fn the_files_sql_mode_is_followed() {
    let dir = std::env::temp_dir().join(format!("mdl-corpus-test-{}-oracle", std::process::id()));
    std::fs::create_dir_all(dir.join("compat")).unwrap();
    let text = "SET sql_mode=ORACLE;\nDELIMITER $$;\nCREATE PROCEDURE p1 AS BEGIN NULL; END$$\n\
                DELIMITER ;$$\nSET sql_mode=DEFAULT;\nCREATE PROCEDURE p2 AS BEGIN NULL END;\n";
    std::fs::write(dir.join("compat/o.test"), text).unwrap();
    let files = vec![dir.join("compat/o.test")];
    let entries = corpus::statements(&dir, &files).unwrap();
    let modes: Vec<bool> = entries.iter().map(|e| e.oracle).collect();
    assert_eq!(modes, [true, true, false, false]);
    let map = mdl_sql::mapping::Mapping::load().unwrap();
    assert!(corpus::offline_in(&map, &entries[1].sql, true).is_ok());
    assert!(corpus::offline_in(&map, &entries[3].sql, false).is_err());
    assert!(corpus::scenario_text_in(&map, &entries[1].sql, true)
        .contains("s1: sql SET sql_mode=ORACLE\n"));
    std::fs::remove_dir_all(&dir).unwrap();
}
