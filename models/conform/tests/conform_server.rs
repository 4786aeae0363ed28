//! The conformance sets on a real MariaDB server: every SQL scenario of
//! `models/conformance/*.mdl` (ours), `suite/*.mdl` (translated from the servers' own
//! mysql-test files) and `found/*.mdl` (differences the random comparison found, fixed)
//! runs on the server and on our model, and they must agree at every step. Runs only with `MDL_CONFORM=1` (ci/conformance.sh sets it);
//! otherwise it prints why it skips and passes.
//!
//! Seeded bugs (each must make some scenario differ):
//! - `conform_skip_backoff`: the SQL model takes a back-off lock (BACKUP_DDL of DDL and
//!   LOCK TABLES WRITE) as a plain acquire, keeping the table locks while it waits;
//! - `conform_no_session_rules`: the model ignores the learned session rules (no error
//!   for a statement its own LOCK TABLES, FTWRL or BACKUP STAGE forbids);
//! - `conform_no_ha_flush`: a statement no longer closes the session's HANDLERs that
//!   another session waits for (`mysql_ha_flush`);
//! - `conform_user_lock_rows`: RELEASE_ALL_LOCKS in a SELECT of several user-lock
//!   functions counts the lock names, not their counts (the row comparison catches it:
//!   `get-lock-several.mdl`).

use mdl_conform::scenario::OnDifference;
use mdl_conform::{data_dir, scenario, server::Server};
use mdl_sql::mapping::Mapping;

fn enabled() -> bool {
    if std::env::var("MDL_CONFORM").as_deref() == Ok("1") {
        return true;
    }
    println!("skipped: set MDL_CONFORM=1 to run the SQL conformance set (ci/conformance.sh does)");
    false
}

fn files_in(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "mdl"))
        .collect();
    v.sort();
    v
}

fn quick_set() -> Vec<std::path::PathBuf> {
    let mut v = files_in(&data_dir());
    v.extend(files_in(&data_dir().join("suite")));
    // The differences the random comparison found, shrunk: regression cases.
    v.extend(files_in(&data_dir().join("found")));
    v
}

/// Every file of the quick set played once; with [`OnDifference::PlayAgain`], a file that
/// differs is played a second time and its second report kept, the first printed
/// ([`scenario::run_scenario_again_on_difference`]: the rule and why).
fn run_all(on_difference: OnDifference) -> Vec<scenario::Report> {
    let map = Mapping::load().unwrap();
    let mut server = Server::start().unwrap_or_else(|e| panic!("{e}"));
    let mut out = std::io::stdout();
    quick_set()
        .iter()
        .map(|f| {
            let sc = scenario::load(f, &map).unwrap_or_else(|e| panic!("{e}"));
            // A file with `server_option` lines gets a server of its own options.
            let opts = scenario::options_of(&sc);
            if server.options() != opts {
                server = Server::start_with(&opts).unwrap_or_else(|e| panic!("{e}"));
            }
            scenario::run_scenario_again_on_difference(&server, &map, &sc, on_difference, &mut out)
                .unwrap_or_else(|e| panic!("{e}"))
        })
        .collect()
}

#[cfg(not(any(
    mdl_bug = "conform_skip_backoff",
    mdl_bug = "conform_no_session_rules",
    mdl_bug = "conform_no_ha_flush",
    mdl_bug = "conform_user_lock_rows"
)))]
#[test]
fn quick_set_agrees_with_the_server() {
    if !enabled() {
        return;
    }
    let t = std::time::Instant::now();
    let reps = run_all(OnDifference::PlayAgain);
    let agree = reps.iter().filter(|r| r.agrees()).count();
    println!(
        "{agree}/{} scenarios agree ({} steps) in {:.1}s",
        reps.len(),
        reps.iter().map(|r| r.steps).sum::<usize>(),
        t.elapsed().as_secs_f64()
    );
    for r in &reps {
        if !r.agrees() {
            println!("{}: {}", r.file, r.summary());
        }
    }
    assert!(reps.len() >= 250, "{} scenarios", reps.len());
    assert_eq!(agree, reps.len());
}

/// Under a seeded bug of the SQL model, some scenario of the quick set differs.
#[cfg(any(
    mdl_bug = "conform_skip_backoff",
    mdl_bug = "conform_no_session_rules",
    mdl_bug = "conform_no_ha_flush",
    mdl_bug = "conform_user_lock_rows"
))]
fn the_comparison_catches_the_seeded_bug() {
    if !enabled() {
        return;
    }
    let reps = run_all(OnDifference::Keep);
    assert!(
        reps.iter().any(|r| !r.agrees()),
        "the scenario comparison missed the seeded bug"
    );
}

#[cfg(mdl_bug = "conform_skip_backoff")]
#[test]
fn seeded_bug_conform_skip_backoff_is_caught() {
    the_comparison_catches_the_seeded_bug();
}

#[cfg(mdl_bug = "conform_no_session_rules")]
#[test]
fn seeded_bug_conform_no_session_rules_is_caught() {
    the_comparison_catches_the_seeded_bug();
}

#[cfg(mdl_bug = "conform_no_ha_flush")]
#[test]
fn seeded_bug_conform_no_ha_flush_is_caught() {
    the_comparison_catches_the_seeded_bug();
}

/// A file's `server_option` lines start the server with those options (the MariaDB stall
/// of models/FINDINGS.md needs `max_write_lock_count 1`), and a server started with other
/// options refuses the file at the option it lacks.
#[test]
fn server_options_start_the_server_and_refuse_other_servers() {
    if !enabled() {
        return;
    }
    let map = Mapping::load().unwrap();
    let f = data_dir().join("skipped-hog-stall.mdl");
    let sc = scenario::load(&f, &map).unwrap_or_else(|e| panic!("{e}"));
    let plain = Server::start().unwrap_or_else(|e| panic!("{e}"));
    let mut out = std::io::sink();
    match scenario::run_scenario(&plain, &map, &sc, false, &mut out) {
        Err(mdl_conform::ConformError::Scenario { line, col, msg, .. }) => {
            assert_eq!((line, col), (12, 15), "{msg}");
            assert!(msg.contains("--max_write_lock_count=1"), "{msg}");
            assert!(msg.contains("no options"), "{msg}");
        }
        other => panic!("not refused: {other:?}"),
    }
    drop(plain);
    let opts = scenario::options_of(&sc);
    let s = Server::start_with(&opts).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(s.options(), &opts[..]);
    let r = scenario::run_scenario(&s, &map, &sc, false, &mut out).unwrap();
    assert!(r.agrees(), "{}", r.summary());
}

#[cfg(mdl_bug = "conform_user_lock_rows")]
#[test]
fn seeded_bug_conform_user_lock_rows_is_caught() {
    the_comparison_catches_the_seeded_bug();
}

#[test]
fn server_is_stopped_on_drop() {
    if !enabled() {
        return;
    }
    let s = Server::start().unwrap_or_else(|e| panic!("{e}"));
    let sock = s.socket().to_owned();
    assert!(sock.exists());
    assert!(s.version().contains("MariaDB"), "{}", s.version());
    drop(s);
    assert!(!sock.exists(), "the socket outlived the server");
}

/// The guardian: a run killed with SIGKILL leaves no server and no datadir. The test runs
/// itself as a child (`MDL_CONFORM_CHILD=1`) that starts a server under its own
/// `MDL_CONFORM_DIR`, prints the server's PID and directory and sleeps; the parent kills it.
#[test]
fn killed_run_leaves_nothing_behind() {
    if std::env::var_os("MDL_CONFORM_CHILD").is_some() {
        let s = Server::start().unwrap_or_else(|e| panic!("{e}"));
        println!("PID {} DIR {}", s.pid().unwrap(), s.dir().display());
        std::thread::sleep(std::time::Duration::from_secs(120));
        return;
    }
    if !enabled() {
        return;
    }
    let root = std::env::temp_dir().join(format!("mdl-conform-kill-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "killed_run_leaves_nothing_behind", "--nocapture"])
        .env("MDL_CONFORM_CHILD", "1")
        .env("MDL_CONFORM_DIR", &root)
        .env_remove("MDL_CONFORM_KEEP")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let mut line = String::new();
    let mut r = std::io::BufReader::new(out);
    loop {
        line.clear();
        let n = std::io::BufRead::read_line(&mut r, &mut line).unwrap();
        assert!(n > 0, "the child ended without starting a server");
        if line.starts_with("PID ") {
            break;
        }
    }
    let mut w = line.split_whitespace();
    let pid: i32 = w.nth(1).unwrap().parse().unwrap();
    let dir = std::path::PathBuf::from(w.nth(1).unwrap());
    assert!(
        dir.starts_with(&root),
        "{} not under MDL_CONFORM_DIR",
        dir.display()
    );
    assert!(dir.join("data").is_dir());
    // SAFETY: signalling our own child process.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGKILL);
    }
    let _ = child.wait();
    let mut gone = false;
    for _ in 0..300 {
        // SAFETY: signal 0 only checks that the process exists.
        let alive = unsafe { libc::kill(pid, 0) } == 0;
        if !alive && !dir.exists() {
            gone = true;
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let _ = std::fs::remove_dir_all(&root);
    assert!(
        gone,
        "the server {pid} or its directory {} outlived a killed run",
        dir.display()
    );
}

#[test]
fn default_datadir_is_under_the_temporary_directory() {
    if std::env::var_os("MDL_CONFORM_DIR").is_some() {
        return;
    }
    assert!(mdl_conform::server::root().starts_with(std::env::temp_dir()));
}

/// One divergence does not lose the file: the server blocks a session on a row lock
/// (outside MDL) while ours lets it finish; the session's next step finds the two sides
/// disagreeing on whether it is busy. The report keeps the differences seen so far and
/// the divergence, and the file stops there.
#[test]
fn a_divergence_keeps_the_differences_so_far() {
    if !enabled() {
        return;
    }
    let map = Mapping::load().unwrap();
    let server = Server::start().unwrap_or_else(|e| panic!("{e}"));
    let text = "dialect mariadb\n\
        s1: sql BEGIN\n\
        s1: sql UPDATE t1 SET b=b+1 WHERE a=1\n\
        s2: sql BEGIN\n\
        s2: sql UPDATE t1 SET b=b+1 WHERE a=1\n\
        s2: sql SELECT 1\n\
        s1: sql COMMIT\n";
    let sc = scenario::load_text("diverge.mdl", text, &map).unwrap();
    let mut out = Vec::new();
    let rep = scenario::run_scenario(&server, &map, &sc, false, &mut out).unwrap();
    let shown = String::from_utf8_lossy(&out);
    assert!(
        !rep.diffs.is_empty(),
        "the difference before the divergence is kept"
    );
    assert!(rep.diffs[0].contains("diverge.mdl:5"), "{:?}", rep.diffs);
    let d = rep.diverged.as_deref().expect("a divergence");
    assert!(d.contains("diverge.mdl:6") && d.contains("s2"), "{d}");
    assert!(!rep.agrees());
    assert!(rep.invalid.is_none());
    assert_eq!(rep.steps, 4, "the file stops at the divergence");
    assert!(shown.contains("diverged"), "{shown}");
}
