//! SQL sessions in the MySQL 8.0 dialect: the statement table written from MySQL 8.0's
//! source (`models/conformance/statements-mysql80.tsv`, not checked against a server).
//!
//! - every file of `models/scenarios/sql-mysql8/` gives its `expect`s in its written order
//!   and holds every property and `assert` over every interleaving;
//! - a `NAME.mariadb.mdl` twin has the same SQL as `NAME.mdl` in the MariaDB dialect, and
//!   the two differ where the servers' source does (FTWRL behind a waiting INSERT);
//! - FTWRL holds two locks in 8.0 (GLOBAL S, COMMIT S), one in MariaDB; UNLOCK TABLES
//!   gives back both (the seeded bug `sql_ftwrl_one_lock` is caught);
//! - a statement outside the 8.0 table is an error naming what is missing, and the table
//!   says in its header that it is written from source and not checked on a server;
//! - `mdl conform` refuses a mysql-8.0 SQL file.

use mdl_check::sql::check::{check, DEFAULT_MAX_STATES};
use mdl_check::sql::{is_sql, text, written, SqlAction, SqlCheck};
use mdl_scenario::{Command, Item, Scenario};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(path: &Path) -> Scenario {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    mdl_scenario::read::read_bytes(&path.display().to_string(), text.as_bytes())
        .unwrap_or_else(|e| panic!("{e}"))
        .scenario
}

fn files() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("models/scenarios/sql-mysql8"))
        .expect("models/scenarios/sql-mysql8")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "mdl"))
        .collect();
    v.sort();
    v
}

fn model(sc: &Scenario) -> SqlCheck {
    SqlCheck::new(sc).unwrap_or_else(|e| panic!("{}:{}: {}", e.file, e.pos.line, e.msg))
}

fn parse(text: &str) -> Result<SqlCheck, String> {
    let sc = mdl_scenario::read::read_bytes("t.mdl", text.as_bytes())
        .map_err(|e| e.to_string())?
        .scenario;
    SqlCheck::new(&sc).map_err(|e| format!("t.mdl:{}:{}: {}", e.pos.line, e.pos.col, e.msg))
}

/// The SQL steps of a file, as `SESSION: SQL`.
fn statements(sc: &Scenario) -> Vec<String> {
    sc.lines
        .iter()
        .filter_map(|l| match &l.item {
            Item::Step {
                session,
                cmd: Command::Sql(q),
            } => Some(format!("{}: {q}", sc.sessions[*session])),
            _ => None,
        })
        .collect()
}

#[test]
fn five_or_more_mysql8_scenarios_give_their_expects_and_hold_in_every_order() {
    let fs = files();
    let eight: Vec<&PathBuf> = fs
        .iter()
        .filter(|p| !p.to_string_lossy().ends_with(".mariadb.mdl"))
        .collect();
    assert!(
        eight.len() >= 5,
        "only {} MySQL 8.0 SQL scenarios",
        eight.len()
    );
    for f in &fs {
        let sc = read(f);
        assert!(is_sql(&sc), "{}: not a SQL scenario", sc.file);
        let want = if f.to_string_lossy().ends_with(".mariadb.mdl") {
            "mariadb"
        } else {
            "mysql-8.0"
        };
        assert_eq!(sc.settings.dialect, want, "{}", sc.file);
        let m = model(&sc);
        let w = written::play(&m);
        assert_eq!(w.exit_code(), 0, "{}: {:?}", sc.file, w);
        assert!(
            sc.lines
                .iter()
                .any(|l| matches!(l.item, Item::Expect { .. })),
            "{}: no expect line",
            sc.file
        );
        let r = check(&m, DEFAULT_MAX_STATES);
        assert!(!r.any_violated() && !r.incomplete, "{}", text::text(&m, &r));
        assert!(!m.asserts.is_empty(), "{}: no assert line", sc.file);
        if want == "mysql-8.0" {
            assert!(
                text::text(&m, &r).contains("MySQL 8.0 statement table, written from source"),
                "{}: the report does not name the table",
                sc.file
            );
        }
    }
}

#[test]
fn each_mariadb_twin_has_the_same_sql_and_a_different_outcome() {
    let fs = files();
    let twins: Vec<&PathBuf> = fs
        .iter()
        .filter(|p| p.to_string_lossy().ends_with(".mariadb.mdl"))
        .collect();
    assert!(!twins.is_empty(), "no MariaDB twin");
    for t in twins {
        let eight = PathBuf::from(t.to_string_lossy().replace(".mariadb.mdl", ".mdl"));
        let (a, b) = (read(&eight), read(t));
        assert_eq!(statements(&a), statements(&b), "{}: other SQL", b.file);
        let (ma, mb) = (model(&a), model(&b));
        let (wa, wb) = (written::play(&ma), written::play(&mb));
        assert_ne!(
            wa.transcript, wb.transcript,
            "{}: the same outcomes as {}",
            b.file, a.file
        );
    }
}

/// Session s1's locks after FTWRL, and after its UNLOCK TABLES.
fn ftwrl_locks(dialect: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let m = parse(&format!(
        "dialect {dialect}\ns1: sql FLUSH TABLES WITH READ LOCK\ns1: sql UNLOCK TABLES\n"
    ))
    .expect("valid");
    let st = m.initial();
    let (st, _) = m.apply(&st, SqlAction::Step(0));
    let held = st.model.locks_of(0);
    let (st, _) = m.apply(&st, SqlAction::Step(0));
    (held, st.model.locks_of(0))
}

/// The seeded bug (UNLOCK TABLES gives back only FTWRL's last lock) leaves MySQL 8.0's
/// GLOBAL S held.
#[cfg(mdl_bug = "sql_ftwrl_one_lock")]
#[test]
fn seeded_sql_ftwrl_one_lock_is_caught() {
    let (_, after) = ftwrl_locks("mysql8");
    assert!(
        after.contains("GLOBAL - S"),
        "the seeded bug went unnoticed: {after:?}"
    );
}

#[cfg(not(mdl_bug = "sql_ftwrl_one_lock"))]
#[test]
fn ftwrl_is_two_locks_in_mysql8_and_unlock_tables_gives_both_back() {
    let locks = ftwrl_locks;
    let (held, after) = locks("mysql8");
    assert_eq!(
        held.into_iter().collect::<Vec<_>>(),
        ["COMMIT - S", "GLOBAL - S"],
        "MySQL 8.0: lock_global_read_lock, make_global_read_lock_block_commit"
    );
    assert!(after.is_empty(), "{after:?}");
    let (held, after) = locks("mariadb");
    assert_eq!(held.len(), 1, "{held:?}");
    assert!(after.is_empty(), "{after:?}");
}

#[test]
fn a_statement_outside_the_mysql8_table_names_what_is_missing() {
    for (sql, want) in [
        (
            "BACKUP STAGE START",
            "BACKUP STAGE (MariaDB) is not in this dialect's",
        ),
        (
            "HANDLER t1 OPEN",
            "the statement kind `handler_open` is not in the MySQL 8.0 statement table",
        ),
        (
            "LOCK TABLES t1 WRITE CONCURRENT",
            "the statement kind `lock_write_concurrent` is not in the MySQL 8.0",
        ),
        (
            "CREATE VIEW v1 AS SELECT * FROM t1",
            // (The view classifier asks the dialect's table for its row first.)
            "`create_view` is not in the learned table",
        ),
    ] {
        let e = parse(&format!("dialect mysql8\ns1: sql {sql}\n"))
            .err()
            .unwrap_or_else(|| panic!("accepted: {sql}"));
        assert!(
            e.starts_with("t.mdl:2:1:") && e.contains(want),
            "{sql}: got {e}"
        );
    }
    // LOCK INSTANCE is 8.0's: the learned MariaDB table has no such kind.
    let e = parse("dialect mariadb\ns1: sql LOCK INSTANCE FOR BACKUP\n").expect_err("refused");
    assert!(
        e.contains("`instance_lock` is not in the learned MariaDB statement table"),
        "{e}"
    );
}

#[test]
fn the_mysql8_table_says_it_is_written_from_source_and_cites_a_function_per_kind() {
    let p = root().join("models/conformance/statements-mysql80.tsv");
    let text = std::fs::read_to_string(&p).expect("the table");
    let m = mdl_sql::mapping::Mapping::load_for("mysql-8.0").expect("parses");
    assert_eq!(m.dialect_name(), "mysql-8.0");
    assert!(text.starts_with("# dialect mysql-8.0\n"));
    assert!(text.contains("NOT checked against a running MySQL server"));
    let lines: Vec<&str> = text.lines().collect();
    for (i, l) in lines.iter().enumerate() {
        if let Some(rest) = l.strip_prefix("kind\t") {
            let name = rest.split('\t').next().expect("name");
            let c = lines[i - 1];
            assert!(
                c.starts_with(&format!("# {name}: ")) && c.contains("sql/"),
                "kind {name}: no comment citing the 8.0 source above it"
            );
        }
    }
    for kind in [
        "select",
        "select_for_update",
        "insert",
        "lock_read",
        "lock_write",
        "alter_copy",
        "alter_inplace",
        "create_index",
        "truncate",
        "rename",
        "drop",
        "create_table",
        "analyze",
        "ftwrl",
        "get_lock",
        "commit_write",
        "instance_lock",
        "instance_unlock",
    ] {
        assert!(m.kind(kind).is_some(), "no kind {kind}");
    }
    for kind in ["backup_start", "lock_write_concurrent", "handler_open"] {
        assert!(m.kind(kind).is_none(), "MariaDB-only kind {kind}");
    }
}

#[test]
fn mdl_conform_refuses_a_mysql8_sql_file() {
    let map = mdl_sql::mapping::Mapping::load().expect("the learned table");
    let e = mdl_conform::scenario::load(
        &root().join("models/scenarios/sql-mysql8/lock-tables-deadlock.mdl"),
        &map,
    )
    .expect_err("refused");
    assert!(e.to_string().contains("needs `dialect mariadb`"), "{e}");
}
