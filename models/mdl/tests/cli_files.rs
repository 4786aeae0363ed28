//! Issue 17 ("reliability of the tool itself"), as the command line shows it: every file
//! given to `mdl run` and `mdl check` is answered, one JSON document per file per line,
//! the worst status wins; nothing is lost when a file turns invalid midway or ends with a
//! session waiting; both commands read files the same way (UTF-8, byte-order mark, the
//! same limits with the limit in the message, messages cut with the column marked);
//! output paths are checked before the work; a big bulk request is not quadratic.
//! Each test failed on the code before the issue was worked on.

mod common;

use common::{json_lines, mdl, root, stderr, stdout, tmp};
use std::process::Command;
use std::time::{Duration, Instant};

fn check_scenario(name: &str) -> String {
    root()
        .join("models/mdl/tests/check_scenarios")
        .join(name)
        .display()
        .to_string()
}

/// A file that is good for both commands, a bad one, another good one.
fn good_bad_good() -> (String, String, String) {
    let a = tmp(
        "a.mdl",
        "s1: acquire TABLE db.t SR\ns1: commit\nexpect s1 ok\n",
    );
    let bad = tmp("bad.mdl", "s1: acquire TABLE db.t Q\n");
    let b = tmp(
        "b.mdl",
        "s1: acquire TABLE db.t X\ns2: acquire TABLE db.t SR\nexpect s2 waiting\n\
         s1: commit\nexpect s2 granted\ns2: commit\n",
    );
    (
        a.display().to_string(),
        bad.display().to_string(),
        b.display().to_string(),
    )
}

#[test]
fn every_file_is_answered_one_json_line_each() {
    let (a, bad, b) = good_bad_good();
    for cmd in ["run", "check"] {
        let o = mdl(&[cmd, &a, &bad, &b, "--format", "json"]);
        assert_eq!(o.status.code(), Some(2), "{cmd}: {}", stderr(&o));
        let docs = json_lines(&o.stdout);
        assert_eq!(docs.len(), 3, "{cmd}: one line per file:\n{}", stdout(&o));
        let files: Vec<&str> = docs.iter().map(|d| d["file"].as_str().unwrap()).collect();
        assert_eq!(files, [a.as_str(), bad.as_str(), b.as_str()], "{cmd}");
        let status: Vec<&str> = docs.iter().map(|d| d["status"].as_str().unwrap()).collect();
        assert_eq!(status, ["pass", "invalid", "pass"], "{cmd}");
        assert_eq!(docs[1]["error"]["line"], 1, "{cmd}");
        assert_eq!(docs[1]["error"]["col"], 24, "{cmd}");
        for d in &docs {
            assert_eq!(d["command"], cmd);
            assert_eq!(d["schema"], "mdl/1");
        }
        // One file: the same shape (one line), not a bare object of another form.
        let o = mdl(&[cmd, &a, "--format", "json"]);
        assert_eq!(o.status.code(), Some(0), "{cmd}: {}", stderr(&o));
        assert_eq!(json_lines(&o.stdout).len(), 1);
        assert_eq!(stdout(&o).lines().count(), 1, "{cmd}: one line");
    }
}

#[test]
fn every_file_is_answered_in_text_too() {
    let (a, bad, b) = good_bad_good();
    let o = mdl(&["check", "--quiet", &a, &bad, &b]);
    assert_eq!(o.status.code(), Some(2));
    let out = stdout(&o);
    assert!(out.contains(&format!("{a}: holds")), "{out}");
    assert!(out.contains(&format!("{bad}: invalid")), "{out}");
    assert!(out.contains(&format!("{b}: holds")), "{out}");
    assert!(
        stderr(&o).contains(&format!("{bad}:1:24: ")),
        "{}",
        stderr(&o)
    );
    let o = mdl(&["run", &a, &bad, &b]);
    assert_eq!(o.status.code(), Some(2));
    let out = stdout(&o);
    assert!(out.contains(&format!("== {b}")) && out.contains("s2: (line 2) -> granted"));
    assert!(
        stderr(&o).contains(&format!("{bad}:1:24: ")),
        "{}",
        stderr(&o)
    );
}

#[test]
fn the_worst_status_wins() {
    let (a, _, _) = good_bad_good();
    let violated = check_scenario("deadlock_x.mdl");
    let o = mdl(&["check", "--quiet", &a, &violated]);
    assert_eq!(o.status.code(), Some(1));
    // Big enough that 50 states do not finish it (the reductions finish bench_sw4.mdl in 13).
    let incomplete = root().join("models/scale/mixed6.mdl").display().to_string();
    let o = mdl(&["check", "--quiet", "--max-states", "50", &incomplete, &a]);
    assert_eq!(o.status.code(), Some(3), "{}", stdout(&o));
    let o = mdl(&[
        "check",
        "--max-states",
        "50",
        &incomplete,
        &violated,
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let docs = json_lines(&o.stdout);
    assert_eq!(docs[0]["status"], "incomplete");
    assert_eq!(docs[0]["exit"], 3);
    assert_eq!(docs[1]["status"], "fail");
    let missing = "/nonexistent/missing.mdl";
    let o = mdl(&["check", &violated, missing, "--format", "json"]);
    assert_eq!(o.status.code(), Some(2));
    let docs = json_lines(&o.stdout);
    assert_eq!(docs[1]["status"], "error");
    assert_eq!(docs[1]["error"]["line"], serde_json::Value::Null);
    let o = mdl(&["run", missing, &a, "--format", "json"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(json_lines(&o.stdout)[0]["status"], "error");
}

#[test]
fn a_file_invalid_midway_keeps_its_transcript_and_failed_expectations() {
    let p = tmp(
        "midway.mdl",
        "s1: acquire TABLE db.t X\n\
         s2: acquire TABLE db.t SR\n\
         expect s2 granted\n\
         s1: acquire TABLE db.u SR\n\
         s2: commit\n\
         s1: commit\n",
    );
    let path = p.display().to_string();
    for engine in ["manager", "table", "threads"] {
        let o = mdl(&["run", "--engine", engine, &path]);
        assert_eq!(o.status.code(), Some(2));
        let out = stdout(&o);
        assert!(
            out.contains("2    s2: acquire TABLE db.t SR transaction  -> waiting"),
            "{out}"
        );
        assert!(
            out.contains("3    expect s2 granted  -> FAILED (seen waiting)"),
            "{out}"
        );
        assert!(
            out.contains("4    s1: acquire TABLE db.u SR transaction  -> granted"),
            "{out}"
        );
        assert!(!out.contains("6    s1: commit"), "{out}");
        let err = stderr(&o);
        let failed = err
            .find(&format!("{path}:3: expectation failed"))
            .unwrap_or_else(|| panic!("{err}"));
        let invalid = err
            .find(&format!("{path}:5:1: a step for session `s2`"))
            .unwrap_or_else(|| panic!("{err}"));
        assert!(failed < invalid, "the failed expectation first:\n{err}");
        assert!(err.contains("  5 | s2: commit\n    | ^"), "{err}");

        let o = mdl(&["run", "--engine", engine, &path, "--format", "json"]);
        let d = &json_lines(&o.stdout)[0];
        assert_eq!(d["status"], "invalid");
        assert_eq!(d["error"]["line"], 5);
        assert_eq!(d["steps"].as_array().map(Vec::len), Some(3));
        assert_eq!(d["expects"][0]["ok"], false);
    }
}

#[test]
fn a_session_left_waiting_fails_the_run_unless_expected() {
    let text = "s1: acquire TABLE db.t X\ns2: acquire TABLE db.t SR\n";
    let p = tmp("left.mdl", text).display().to_string();
    let q = tmp("left-ok.mdl", format!("{text}expect s2 waiting\n"))
        .display()
        .to_string();
    for engine in ["manager", "table", "threads"] {
        let o = mdl(&["run", "--engine", engine, &p]);
        assert_eq!(o.status.code(), Some(1), "{engine}");
        assert!(
            stdout(&o).contains("end  s2: (line 2) still waiting  -> FAILED"),
            "{}",
            stdout(&o)
        );
        assert!(
            stderr(&o).contains(&format!("{p}:2: session `s2` is still waiting")),
            "{}",
            stderr(&o)
        );
        let o = mdl(&["run", "--engine", engine, &q]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(stdout(&o).contains("end  s2: (line 2) still waiting  -> expected (line 3)"));
        let o = mdl(&["run", "--engine", engine, &p, "--format", "json"]);
        let d = &json_lines(&o.stdout)[0];
        assert_eq!(d["status"], "fail");
        assert_eq!(d["left_waiting"][0]["session"], "s2");
        assert_eq!(d["left_waiting"][0]["covered_by"], serde_json::Value::Null);
    }
}

/// `mdl run` and `mdl check` refuse `bytes` with the same message, or both take it.
fn same_answer(name: &str, bytes: &[u8]) -> (Option<i32>, String) {
    let p = tmp(name, bytes).display().to_string();
    let r = mdl(&["run", &p]);
    let c = mdl(&["check", "--quiet", &p]);
    let first = |o: &std::process::Output| stderr(o).lines().next().unwrap_or("").to_owned();
    if r.status.code() == Some(2) || c.status.code() == Some(2) {
        assert_eq!(r.status.code(), c.status.code(), "{name}: run vs check");
        assert_eq!(first(&r), first(&c), "{name}: the same message");
    }
    (r.status.code(), first(&r))
}

#[test]
fn both_commands_read_files_the_same_way() {
    // Invalid UTF-8: refused by both, at its position.
    let (code, msg) = same_answer("latin1.mdl", b"s1: acquire TABLE db.caf\xE9 SR\n");
    assert_eq!(code, Some(2));
    assert!(
        msg.contains("latin1.mdl:1:25: the file is not UTF-8"),
        "{msg}"
    );
    // A byte-order mark: taken by both.
    let p = tmp(
        "bom.mdl",
        b"\xEF\xBB\xBFs1: acquire TABLE db.t SR\ns1: commit\n",
    );
    let p = p.display().to_string();
    assert_eq!(mdl(&["run", &p]).status.code(), Some(0));
    assert_eq!(mdl(&["check", "--quiet", &p]).status.code(), Some(0));
    // An invisible character elsewhere is shown as an escape.
    let (_, msg) = same_answer("zwsp.mdl", "s1: acquire TABLE db.t SR\u{200B}\n".as_bytes());
    assert!(msg.contains("\\u{200B}"), "{msg}");
    // Too many steps for one session: the same limit and message in both.
    let text = "s1: acquire TABLE db.t SR\n".repeat(65_536);
    let (code, msg) = same_answer("steps.mdl", text.as_bytes());
    assert_eq!(code, Some(2));
    assert!(
        msg.contains("steps.mdl:65536:1: too many steps for session `s1`: the limit is 65,535"),
        "{msg}"
    );
    // Too many sessions for any command: the reader's limit, the same in both.
    let text: String = (0..10_001).map(|i| format!("s{i}: commit\n")).collect();
    let (code, msg) = same_answer("sessions.mdl", text.as_bytes());
    assert_eq!(code, Some(2));
    assert!(
        msg.contains("sessions.mdl:10001:1: too many sessions"),
        "{msg}"
    );
    assert!(msg.contains("the limit is 10,000"), "{msg}");
}

#[test]
fn run_takes_more_sessions_than_check_and_check_says_so() {
    // 64 sessions: both take the file.
    let text: String = (0..64).map(|i| format!("s{i}: commit\n")).collect();
    let p = tmp("s64.mdl", text.as_bytes()).display().to_string();
    assert_eq!(mdl(&["run", &p]).status.code(), Some(0));
    assert_eq!(mdl(&["check", "--quiet", &p]).status.code(), Some(0));
    // 65: run plays it; check names its own limit and says that run takes the file.
    let text: String = (0..65).map(|i| format!("s{i}: commit\n")).collect();
    let p = tmp("s65.mdl", text.as_bytes()).display().to_string();
    assert_eq!(mdl(&["run", &p]).status.code(), Some(0));
    let c = mdl(&["check", "--quiet", &p]);
    assert_eq!(c.status.code(), Some(2));
    let msg = stderr(&c);
    assert!(msg.contains("check's model takes at most 64"), "{msg}");
    assert!(msg.contains("`mdl run` takes the file"), "{msg}");
}

#[test]
fn a_long_line_is_not_echoed_whole() {
    let long = "x".repeat(100_000);
    let p = tmp("long.mdl", format!("s1: acquire TABLE db.t {long}\n"));
    let p = p.display().to_string();
    for cmd in ["run", "check"] {
        let o = mdl(&[cmd, &p]);
        assert_eq!(o.status.code(), Some(2));
        let err = stderr(&o);
        assert!(err.len() < 1_000, "{cmd}: {} bytes of message", err.len());
        assert!(
            err.contains(&format!("{p}:1:24: expected a lock type")),
            "{err}"
        );
        assert!(err.contains("…"), "{err}");
        // The column is marked under the excerpt.
        let lines: Vec<&str> = err.lines().collect();
        let caret = lines
            .iter()
            .position(|l| l.ends_with('^'))
            .expect("a caret");
        let col = lines[caret].chars().count() - 1;
        assert_eq!(lines[caret - 1].chars().nth(col), Some('x'), "{err}");
        let o = mdl(&[cmd, &p, "--format", "json"]);
        let d = &json_lines(&o.stdout)[0];
        assert!(d["error"]["message"].as_str().unwrap().len() < 500);
    }
}

#[test]
fn output_paths_are_checked_before_the_work() {
    let slow = check_scenario("bench_sw5.mdl");
    for opt in ["--report", "--replay"] {
        let start = Instant::now();
        let o = mdl(&["check", &slow, opt, "/nonexistent/dir/out.md"]);
        assert_eq!(o.status.code(), Some(2), "{opt}");
        assert!(stdout(&o).is_empty(), "{opt}: no work:\n{}", stdout(&o));
        assert!(
            stderr(&o).contains(&format!("cannot write {opt} /nonexistent/dir/out.md")),
            "{}",
            stderr(&o)
        );
        assert!(start.elapsed() < Duration::from_secs(60));
    }
    // A folder is not a file.
    let dir = std::env::temp_dir().display().to_string();
    assert_eq!(
        mdl(&["check", &slow, "--report", &dir]).status.code(),
        Some(2)
    );
    // A replay path with no counterexample to write is not left behind.
    let out = tmp("unused.keep", "").with_file_name("replay-unused.mdl");
    let (a, _, _) = good_bad_good();
    let o = mdl(&[
        "check",
        "--quiet",
        &a,
        "--replay",
        &out.display().to_string(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert!(!out.exists());
}

/// Runs `mdl ARGS` with a hang guard; `None` if it did not end in time.
fn mdl_within(args: &[&str], limit: Duration) -> Option<std::process::ExitStatus> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mdl"))
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn mdl");
    let start = Instant::now();
    loop {
        if let Some(s) = child.try_wait().expect("wait") {
            return Some(s);
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A bulk request of 50,000 keys: linear work in every command (a hang guard, not a
/// speed measurement: the quadratic code took many minutes here, the linear one seconds;
/// speed is measured by `mdl bench`, not asserted).
#[test]
fn a_big_bulk_request_is_not_quadratic() {
    let keys: Vec<String> = (0..50_000).map(|i| format!("TABLE db.k{i} SR")).collect();
    let text = format!(
        "s1: acquire_all {}\ns2: acquire TABLE db.k7 X\ns1: commit\ns2: commit\n",
        keys.join(", ")
    );
    let p = tmp("bulk50k.mdl", text).display().to_string();
    let guard = Duration::from_secs(120);
    for args in [
        vec!["run", "--engine", "table", &p],
        vec!["run", "--engine", "manager", &p],
        vec!["check", "--quiet", &p],
    ] {
        let s = mdl_within(&args, guard)
            .unwrap_or_else(|| panic!("{args:?} did not end within {guard:?}"));
        assert!(matches!(s.code(), Some(0 | 1)), "{args:?}: {s}");
    }
}
