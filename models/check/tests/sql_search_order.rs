//! The unique states of a SQL scenario do not depend on the order of the search: a
//! breadth-first and a depth-first search count the same, with and without the private
//! steps taken alone (`mdl_check::sql::quiet`), on every bundled SQL scenario
//! (`models/scenarios/sql/`) and on a workload whose waits begin and end in many orders
//! (`WAITS`). A state's identity is its fingerprint, and what a state does next must be
//! decided by it: a fingerprint that hashed a number the path chose (a wait's start
//! number, before `mdl_sql`'s `encode::wait_ranks`) counted differently in different
//! orders (models/MODEL.md, "SQL scenarios on the one engine").

use mdl_check::sql::check::{check_with, options};
use mdl_check::sql::SqlCheck;
use std::path::PathBuf;

/// Five sessions of models/scale/sql7.mdl (two transactions that take t1 and t2 in
/// opposite orders, a copying ALTER, LOCK TABLES, FTWRL): waits begin and end in many
/// orders.
const WAITS: &str = "dialect mariadb
w1: sql BEGIN
w1: sql UPDATE t1 SET b=1 WHERE a=1
w1: sql SELECT * FROM t2 WHERE a=1
w1: sql COMMIT
w2: sql BEGIN
w2: sql SELECT * FROM t2 WHERE a=2
w2: sql UPDATE t1 SET b=2 WHERE a=2
w2: sql COMMIT
alter: sql ALTER TABLE t1 ADD COLUMN c INT, ALGORITHM=COPY
lt: sql LOCK TABLES t1 READ, t2 WRITE
lt: sql UNLOCK TABLES
backup: sql FLUSH TABLES WITH READ LOCK
backup: sql UNLOCK TABLES
";

fn parse(name: &str, text: &str) -> SqlCheck {
    let sc = mdl_scenario::read::read_bytes(name, text.as_bytes())
        .unwrap_or_else(|e| panic!("{e}"))
        .scenario;
    SqlCheck::new(&sc).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Compares the breadth-first and depth-first unique counts of `m` (with and without the
/// reduction); a difference is added to `differ`. How many pairs were compared.
fn compare(name: &str, m: &SqlCheck, differ: &mut Vec<String>) -> usize {
    let mut compared = 0;
    for por in [false, true] {
        let count = |dfs: bool| {
            let o = mdl_check::model::search::SearchOptions {
                dfs,
                por,
                ..options(200_000)
            };
            let r = check_with(m, &o);
            (r.complete, r.unique)
        };
        let (bc, bfs) = count(false);
        let (dc, dfs) = count(true);
        if !(bc && dc) {
            continue;
        }
        compared += 1;
        if bfs != dfs {
            differ.push(format!("{name} (por {por}): bfs {bfs}, dfs {dfs}"));
        }
    }
    compared
}

#[test]
fn bfs_and_dfs_count_the_same_unique_states() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenarios/sql");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("models/scenarios/sql")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "mdl"))
        .collect();
    files.sort();
    let mut compared = 0;
    let mut differ = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("read");
        let sc = mdl_scenario::read::read_bytes(&f.display().to_string(), text.as_bytes())
            .unwrap_or_else(|e| panic!("{e}"))
            .scenario;
        let Ok(m) = SqlCheck::new(&sc) else { continue };
        compared += compare(&f.display().to_string(), &m, &mut differ);
    }
    let waits = compare("WAITS", &parse("waits", WAITS), &mut differ);
    assert_eq!(waits, 2, "the WAITS workload is searched completely");
    assert!(compared >= 10, "only {compared} searches compared");
    assert!(
        differ.is_empty(),
        "unique states differ:\n{}",
        differ.join("\n")
    );
}
