//! SQL sessions in `mdl check` (`mdl_check::sql`), tied to the server:
//!
//! - every SQL scenario of `models/scenarios/sql/` starts with the lines of the
//!   conformance file it names (`# measured: models/conformance/...`), whose `expect`
//!   lines are what `mdl conform` saw on MariaDB; its written order, played through the
//!   same actions the search explores, gives those outcomes; and every property and
//!   `assert` of it holds over every interleaving;
//! - every conformance file (`models/conformance/*.mdl`, `suite/*.mdl`) gives the
//!   server's outcomes in its written order through the check's path;
//! - the search finds the LOCK TABLES deadlock in an order the file does not write, and
//!   its trace shows the SQL statements;
//! - the seeded bug `sql_ignore_woken` is caught.

use mdl_check::sql::check::{check, DEFAULT_MAX_STATES};
use mdl_check::sql::{is_sql, text, written, SqlCheck};
use mdl_scenario::{Item, Scenario};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(path: &Path) -> (String, Scenario) {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let name = path
        .strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string();
    let sc = mdl_scenario::read::read_bytes(&name, text.as_bytes())
        .unwrap_or_else(|e| panic!("{e}"))
        .scenario;
    (text, sc)
}

fn mdl_files(dir: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "mdl"))
        .collect();
    v.sort();
    v
}

fn model(sc: &Scenario) -> SqlCheck {
    SqlCheck::new(sc).unwrap_or_else(|e| panic!("{}:{}: {}", e.file, e.pos.line, e.msg))
}

/// The lines that run and expect (steps, kills, clock moves, expects), as text.
fn played(sc: &Scenario) -> Vec<String> {
    sc.lines
        .iter()
        .filter(|l| !matches!(l.item, Item::Assert { .. }))
        .map(|l| match &l.item {
            Item::Step { session, cmd } => format!("{}: {cmd:?}", sc.sessions[*session]),
            Item::Expect { session, what } => {
                format!("expect {} {what:?}", sc.sessions[*session])
            }
            Item::Kill { session } => format!("kill {}", sc.sessions[*session]),
            other => format!("{other:?}"),
        })
        .collect()
}

/// What each file of `models/conformance/` (and `suite/`) gives in its written order
/// through the check's path: the failures, one line each.
fn conformance_disagreements() -> (usize, Vec<String>) {
    let mut files = mdl_files("models/conformance");
    files.extend(mdl_files("models/conformance/suite"));
    let mut bad = Vec::new();
    for f in &files {
        let (_, sc) = read(f);
        let w = written::play(&model(&sc));
        bad.extend(w.failures.iter().cloned());
        if let Some((line, _, msg)) = &w.invalid {
            bad.push(format!("{}:{line}: {msg}", sc.file));
        }
        for (line, s) in &w.left_waiting {
            bad.push(format!("{}:{line}: {s} left waiting", sc.file));
        }
    }
    (files.len(), bad)
}

#[test]
fn ten_or_more_sql_scenarios_agree_with_the_server_and_hold_in_every_order() {
    let files = mdl_files("models/scenarios/sql");
    assert!(files.len() >= 10, "only {} SQL scenarios", files.len());
    for f in &files {
        let (text, sc) = read(f);
        assert!(is_sql(&sc), "{}: not a SQL scenario", sc.file);
        // The conformance file it was measured as: its lines come first, unchanged.
        let src = text
            .lines()
            .find_map(|l| l.strip_prefix("# measured: "))
            .and_then(|l| l.split_whitespace().next())
            .unwrap_or_else(|| panic!("{}: no `# measured: FILE` line", sc.file));
        let (_, measured) = read(&root().join(src));
        let (mine, theirs) = (played(&sc), played(&measured));
        assert!(
            mine.len() >= theirs.len() && mine[..theirs.len()] == theirs[..],
            "{}: does not start with the lines of {src}",
            sc.file
        );
        assert_eq!(
            sc.setup, measured.setup,
            "{}: setup differs from {src}",
            sc.file
        );
        let m = model(&sc);
        let w = written::play(&m);
        assert_eq!(w.exit_code(), 0, "{}: {:?}", sc.file, w);
        let r = check(&m, DEFAULT_MAX_STATES);
        assert!(!r.any_violated() && !r.incomplete, "{}", text::text(&m, &r));
        assert!(!m.asserts.is_empty(), "{}: no assert line", sc.file);
    }
}

#[cfg(not(mdl_bug = "sql_ignore_woken"))]
#[test]
fn every_conformance_file_gives_the_servers_outcomes_through_the_checks_path() {
    let (n, bad) = conformance_disagreements();
    assert!(n >= 38, "only {n} conformance files");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The seeded bug (a woken session's outcome dropped) makes the written orders
/// disagree with what the server gave.
#[cfg(mdl_bug = "sql_ignore_woken")]
#[test]
fn seeded_sql_ignore_woken_is_caught() {
    let (_, bad) = conformance_disagreements();
    assert!(
        bad.iter().any(|b| b.contains("expectation failed")),
        "the seeded bug went unnoticed"
    );
}

#[test]
fn the_search_finds_the_lock_tables_deadlock_in_an_order_not_written() {
    let (_, sc) = read(&root().join("models/examples/sql/lock-tables-order.mdl"));
    let m = model(&sc);
    // Written order: no deadlock.
    let w = written::play(&m);
    assert_eq!(w.exit_code(), 0, "{w:?}");
    assert!(
        !w.transcript.iter().any(|t| t.contains("deadlock")),
        "{w:?}"
    );
    let r = check(&m, DEFAULT_MAX_STATES);
    let p = r
        .props
        .iter()
        .find(|p| p.name.starts_with("assert never * deadlock"))
        .expect("the assert");
    assert!(p.violated);
    let out = text::text(&m, &r);
    for want in [
        "`assert never * deadlock (line 13)` violated after 4 actions",
        "s2: sql LOCK TABLES t1 WRITE   (line 10) -> waiting for TABLE test.t1 SNRW",
        "s1: sql INSERT INTO t1 (b) VALUES (10)   (line 8) -> deadlock",
        "=> s2 ok",
    ] {
        assert!(out.contains(want), "missing `{want}` in:\n{out}");
    }
}

#[test]
fn a_session_left_holding_a_lock_is_a_stuck_state() {
    // The conformance file ends with s2 holding LOCK TABLES: in the order where s2 goes
    // first, s1's SELECT waits with nothing but a timeout to end it.
    let (_, sc) = read(&root().join("models/conformance/timeout-zero.mdl"));
    let m = model(&sc);
    let r = check(&m, DEFAULT_MAX_STATES);
    let p = r
        .props
        .iter()
        .find(|p| p.name == "no stuck state")
        .expect("prop");
    assert!(p.violated, "{}", text::text(&m, &r));
}

fn parse(text: &str) -> Result<SqlCheck, String> {
    let sc = mdl_scenario::read::read_bytes("t.mdl", text.as_bytes())
        .map_err(|e| e.to_string())?
        .scenario;
    SqlCheck::new(&sc).map_err(|e| format!("t.mdl:{}:{}: {}", e.pos.line, e.pos.col, e.msg))
}

#[test]
fn bad_sql_files_are_errors_at_their_line() {
    for (text, want) in [
        (
            "dialect mysql-8.0\ns1: sql HANDLER t1 OPEN\n",
            "t.mdl:2:1: the statement kind `handler_open` is not in the MySQL 8.0 statement \
             table",
        ),
        (
            "dialect mariadb\ns1: sql BEGIN\ns1: acquire TABLE a.b SR\n",
            "t.mdl:3:1: a SQL scenario takes only `sql` steps",
        ),
        ("dialect mariadb\ns1: sql SHUTDOWN\n", "t.mdl:2:1:"),
        (
            "dialect mariadb\ns1: sql BEGIN\nassert eventually s1 granted\n",
            "t.mdl:3:1: a SQL scenario takes `assert never|sometimes",
        ),
        (
            "dialect mariadb\ns1: sql BEGIN\nassert never s1 granted\n",
            "t.mdl:3:1: a SQL statement ends `ok`",
        ),
    ] {
        let e = parse(text)
            .err()
            .unwrap_or_else(|| panic!("accepted: {text}"));
        assert!(e.starts_with(want), "{text}: got {e}");
    }
}

#[test]
fn a_kill_and_a_timeout_are_actions_of_the_search() {
    let m = parse(
        "dialect mariadb\n\
         lock_wait_timeout 2000\n\
         s1: sql LOCK TABLES t1 WRITE\n\
         s2: sql SELECT * FROM t1\n\
         kill s2\n\
         s1: sql UNLOCK TABLES\n\
         assert sometimes s2 killed\n\
         assert sometimes s2 timeout\n\
         assert sometimes s2 ok\n",
    )
    .expect("valid");
    let r = check(&m, DEFAULT_MAX_STATES);
    assert!(!r.any_violated(), "{}", text::text(&m, &r));
}

#[test]
fn a_statement_the_model_cannot_play_in_another_order_is_a_violation() {
    // Written order: the view does not exist yet (an error the model knows). The other
    // order writes through a view of two tables, which the learned table does not cover.
    let m = parse(
        "dialect mariadb\n\
         s1: sql DELETE FROM v9\n\
         s2: sql CREATE VIEW v9 AS SELECT t1.a FROM t1, t2\n",
    )
    .expect("valid in written order");
    let r = check(&m, DEFAULT_MAX_STATES);
    let p = r
        .props
        .iter()
        .find(|p| p.name == "every statement modelled")
        .expect("prop");
    assert!(p.violated, "{}", text::text(&m, &r));
    let out = text::text(&m, &r);
    assert!(
        out.contains("s1: sql DELETE FROM v9   (line 2) -> not modelled: "),
        "{out}"
    );
}

/// `expect SESSION error N` (scenario format version 5) compares the error code: the
/// right code passes, another code fails, `error` alone takes any code.
#[test]
fn expect_error_code_compares_the_code() {
    let play = |code: &str| {
        let text = format!("dialect mariadb\ns1: sql DELETE t2 FROM t1\nexpect s1 error{code}\n");
        let sc = mdl_scenario::read::read_bytes("t.mdl", text.as_bytes())
            .unwrap_or_else(|e| panic!("{e}"))
            .scenario;
        written::play(&model(&sc)).exit_code()
    };
    assert_eq!(play(" 1109"), 0);
    assert_eq!(play(""), 0);
    assert_eq!(play(" 1146"), 1);
}

/// SQL scenarios run on the one search engine with its bounds and modes: depth-first and
/// the parallel breadth-first search give the verdicts and unique states of the
/// one-thread breadth-first search (the SQL model has no reductions, so a complete
/// search sees every state in any order).
#[test]
fn every_search_mode_of_the_engine_gives_the_same_sql_verdicts_and_states() {
    use mdl_check::sql::check::{check_with, options};
    for f in mdl_files("models/scenarios/sql") {
        let (_, sc) = read(&f);
        let m = model(&sc);
        let bfs = check(&m, DEFAULT_MAX_STATES);
        assert!(bfs.complete, "{}: not complete", sc.file);
        let verdicts = |r: &mdl_check::sql::check::SqlResult| {
            r.props.iter().map(|p| p.violated).collect::<Vec<_>>()
        };
        for (mode, dfs, threads) in [("dfs", true, 1), ("two threads", false, 2)] {
            let o = mdl_check::model::search::SearchOptions {
                dfs,
                threads,
                ..options(DEFAULT_MAX_STATES)
            };
            let r = check_with(&m, &o);
            assert_eq!(verdicts(&r), verdicts(&bfs), "{} ({mode})", sc.file);
            assert_eq!(r.unique, bfs.unique, "{} ({mode}): unique states", sc.file);
            assert_eq!(r.outcomes, bfs.outcomes, "{} ({mode}): outcomes", sc.file);
            assert!(r.complete, "{} ({mode}): not complete", sc.file);
        }
    }
}

/// A depth bound and a time bound cut a SQL search the way they cut a lock search: the
/// result is incomplete and says which bound stopped it.
#[test]
fn bounds_of_the_engine_cut_a_sql_search() {
    use mdl_check::model::search::Stop;
    use mdl_check::sql::check::{check_with, options};
    let f = root().join("models/scenarios/sql/orm-migration.mdl");
    let (_, sc) = read(&f);
    let m = model(&sc);
    let o = mdl_check::model::search::SearchOptions {
        max_depth: Some(2),
        ..options(DEFAULT_MAX_STATES)
    };
    let r = check_with(&m, &o);
    assert!(r.incomplete && r.stop.is_none() && !r.complete, "{r:?}");
    assert!(text::text(&m, &r).contains("--max-depth"));
    let r = check(&m, 3);
    assert!(r.incomplete && r.stop == Some(Stop::States), "{r:?}");
}

/// A SQL search reports the same memory figures as a lock search and obeys
/// `--max-memory`: past half of it a breadth-first search goes on depth-first, and it
/// stops before passing it (issue 28: one engine, the same report for every model).
#[test]
fn a_sql_search_reports_its_memory_and_obeys_max_memory() {
    use mdl_check::model::search::Stop;
    use mdl_check::sql::check::{check_with, options};
    let f = root().join("models/scenarios/sql/orm-migration.mdl");
    let (_, sc) = read(&f);
    let m = model(&sc);
    let free = check_with(&m, &options(DEFAULT_MAX_STATES));
    assert!(free.search_bytes > 0 && free.max_memory > 0, "{free:?}");
    let json = mdl_check::sql::json::json(&m, &free);
    assert_eq!(json["max_memory_bytes"], free.max_memory);
    assert_eq!(json["search_bytes"], free.search_bytes);
    // The search's own structures start at 32 KB (the visited table): a bound below
    // that stops it at once, one a little above switches it to depth-first.
    let tight = mdl_check::model::search::SearchOptions {
        max_memory: 16 * 1024,
        ..options(DEFAULT_MAX_STATES)
    };
    let r = check_with(&m, &tight);
    assert_eq!(r.stop, Some(Stop::Memory), "{r:?}");
    assert!(r.incomplete && r.unique < free.unique, "{r:?}");
}
