//! The conformance sets on a real MariaDB server: every SQL scenario of
//! `models/conformance/*.mdl` (ours) and `models/conformance/suite/*.mdl` (translated from
//! the servers' own mysql-test files) runs on the server and on our model, and they must
//! agree at every step. Runs only with `MDL_CONFORM=1` (ci/conformance.sh sets it);
//! otherwise it prints why it skips and passes.
//!
//! Seeded bugs (each must make some scenario differ):
//! - `conform_skip_backoff`: the SQL model takes a back-off lock (BACKUP_DDL of DDL and
//!   LOCK TABLES WRITE) as a plain acquire, keeping the table locks while it waits;
//! - `conform_no_session_rules`: the model ignores the learned session rules (no error
//!   for a statement its own LOCK TABLES, FTWRL or BACKUP STAGE forbids);
//! - `conform_no_ha_flush`: a statement no longer closes the session's HANDLERs that
//!   another session waits for (`mysql_ha_flush`).

use mdl_conform::mapping::Mapping;
use mdl_conform::{data_dir, scenario, server::Server};

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
    v
}

fn run_all() -> Vec<scenario::Report> {
    let map = Mapping::load().unwrap();
    let server = Server::start().unwrap_or_else(|e| panic!("{e}"));
    let mut out = std::io::stdout();
    quick_set()
        .iter()
        .map(|f| {
            scenario::run_file(&server, &map, f, false, &mut out).unwrap_or_else(|e| panic!("{e}"))
        })
        .collect()
}

#[cfg(not(any(
    mdl_bug = "conform_skip_backoff",
    mdl_bug = "conform_no_session_rules",
    mdl_bug = "conform_no_ha_flush"
)))]
#[test]
fn quick_set_agrees_with_the_server() {
    if !enabled() {
        return;
    }
    let t = std::time::Instant::now();
    let reps = run_all();
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
    assert!(reps.len() >= 90, "{} scenarios", reps.len());
    assert_eq!(agree, reps.len());
}

#[cfg(any(
    mdl_bug = "conform_skip_backoff",
    mdl_bug = "conform_no_session_rules",
    mdl_bug = "conform_no_ha_flush"
))]
#[test]
fn seeded_bug_is_caught() {
    if !enabled() {
        return;
    }
    let reps = run_all();
    assert!(
        reps.iter().any(|r| !r.agrees()),
        "the scenario comparison missed the seeded bug"
    );
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
    assert!(dir.starts_with(&root), "{} not under MDL_CONFORM_DIR", dir.display());
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
    assert!(gone, "the server {pid} or its directory {} outlived a killed run", dir.display());
}

#[test]
fn default_datadir_is_under_the_temporary_directory() {
    if std::env::var_os("MDL_CONFORM_DIR").is_some() {
        return;
    }
    assert!(mdl_conform::server::root().starts_with(std::env::temp_dir()));
}
