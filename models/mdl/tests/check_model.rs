//! The stateright model and `mdl check`: scenarios built to hold hold, scenarios built to
//! violate are reported with a trace, and replays of counterexamples reproduce them.

// In a seeded-bug build only the seeded tests run; the helpers of the others are unused.
#![cfg_attr(
    any(
        mdl_bug = "skip_second_waiter",
        mdl_bug = "grant_ignores_conflict",
        mdl_bug = "false_deadlock",
        mdl_bug = "no_deadlock_detection",
        mdl_bug = "heaviest_victim",
        mdl_bug = "hog_count_off",
        mdl_bug = "no_pending_priority",
        mdl_bug = "por_release_independent"
    ),
    allow(dead_code, unused_imports)
)]

mod common;

use mdl_check::model::check::{check, Options};
use mdl_check::model::result::Status;
use mdl_check::model::{report, MdlModel};
use mdl_scenario::parse::parse;
use std::path::PathBuf;
use std::process::Command;

fn scenario_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/check_scenarios")
        .join(name)
}

/// A bundled scenario (`models/scenarios/`), for the seeded liveness tests.
#[allow(dead_code)]
fn bundled(name: &str) -> MdlModel {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../scenarios")
        .join(name);
    let text = std::fs::read_to_string(&p).expect("scenario file");
    let sc = parse(name, &text).unwrap_or_else(|e| panic!("{e}"));
    MdlModel::new(&sc).unwrap_or_else(|e| panic!("{e}"))
}

fn model(name: &str) -> MdlModel {
    let p = scenario_path(name);
    let text = std::fs::read_to_string(&p).expect("scenario file");
    let sc = parse(name, &text).unwrap_or_else(|e| panic!("{e}"));
    MdlModel::new(&sc).unwrap_or_else(|e| panic!("{e}"))
}

fn status(m: &MdlModel, o: &Options) -> Vec<(String, Status)> {
    check(m, o)
        .props
        .iter()
        .map(|p| (p.name.to_string(), p.status))
        .collect()
}

fn bfs() -> Options {
    Options::default()
}

fn dfs() -> Options {
    Options {
        dfs: true,
        ..Options::default()
    }
}

/// MariaDB's `reschedule_waiters` skips every waiting hog in the pass that gives way to
/// low-priority locks and never looks again: a compatible SNW stays waiting. The checker
/// reports that real stall as a lost wakeup in `dialect mariadb`; the same program in
/// `dialect mysql-8.0` (whose matrix switch keeps hogs in the pass) holds.
#[cfg(not(any(mdl_bug = "skip_second_waiter", mdl_bug = "hog_count_off")))]
#[test]
fn mariadbs_skipped_hog_is_a_lost_wakeup_and_mysqls_is_not() {
    let lost = |f: &str| {
        check(&model(f), &bfs())
            .props
            .iter()
            .find(|p| p.kind == mdl_check::model::PropKind::NoLostWakeup)
            .map(|p| p.status)
    };
    assert_eq!(
        lost("mariadb_skipped_hog_stall.mdl"),
        Some(Status::Violated)
    );
    assert_eq!(lost("mysql_skipped_hog_no_stall.mdl"), Some(Status::Holds));
}

#[cfg(not(any(
    mdl_bug = "skip_second_waiter",
    mdl_bug = "grant_ignores_conflict",
    mdl_bug = "false_deadlock",
    mdl_bug = "no_deadlock_detection",
    mdl_bug = "heaviest_victim",
    mdl_bug = "hog_count_off",
    mdl_bug = "no_pending_priority",
    mdl_bug = "por_release_independent"
)))]
#[test]
fn scenarios_built_to_hold_hold() {
    for f in [
        "holds_sw.mdl",
        "deadlock_plain.mdl",
        "two_readers_wake.mdl",
        "lost_wakeup.mdl",
        "chain.mdl",
        "victim_dml.mdl",
        "timeout_kill.mdl",
        "bulk.mdl",
        "backup_upgrade.mdl",
    ] {
        let m = model(f);
        for o in [bfs(), dfs()] {
            let r = check(&m, &o);
            for p in &r.props {
                assert_eq!(p.status, Status::Holds, "{f}: {} ({o:?})", p.name);
            }
            assert!(!r.limited, "{f}");
            assert!(r.unique_states > 1, "{f}");
        }
    }
}

#[cfg(not(any(
    mdl_bug = "skip_second_waiter",
    mdl_bug = "grant_ignores_conflict",
    mdl_bug = "false_deadlock",
    mdl_bug = "no_deadlock_detection",
    mdl_bug = "heaviest_victim",
    mdl_bug = "hog_count_off",
    mdl_bug = "no_pending_priority",
    mdl_bug = "por_release_independent"
)))]
#[test]
fn a_real_deadlock_is_reported_with_a_shortest_trace() {
    let m = model("deadlock_x.mdl");
    let r = check(&m, &bfs());
    let never = r
        .props
        .iter()
        .find(|p| p.name.starts_with("assert never s1 deadlock"))
        .expect("assert property");
    assert_eq!(never.status, Status::Violated);
    let t = never.trace.as_ref().expect("trace");
    // s2 takes t2 and waits for t1 after s1 took it; s1 closes the cycle: 4 steps.
    assert_eq!(t.records.len(), 4, "{}", report::trace_text(&m, t));
    assert_eq!(
        t.records.last().and_then(|r| r.outcome),
        Some(mdl_core::Outcome::Deadlock)
    );
    // The built-in properties hold; `sometimes * deadlock` holds.
    for p in &r.props {
        if p.name != never.name {
            assert_eq!(p.status, Status::Holds, "{}", p.name);
        }
    }
    let text = report::text(&m, &r, report::Replays::Shown);
    assert!(text.contains("violated"), "{text}");
    assert!(text.contains("replay"), "{text}");
}

#[cfg(not(any(
    mdl_bug = "skip_second_waiter",
    mdl_bug = "grant_ignores_conflict",
    mdl_bug = "false_deadlock",
    mdl_bug = "no_deadlock_detection",
    mdl_bug = "heaviest_victim",
    mdl_bug = "hog_count_off",
    mdl_bug = "no_pending_priority",
    mdl_bug = "por_release_independent"
)))]
#[test]
fn an_impossible_outcome_asserted_sometimes_is_violated() {
    let m = model("impossible.mdl");
    let st = status(&m, &bfs());
    assert_eq!(st.last().map(|s| s.1), Some(Status::Violated), "{st:?}");
    assert!(st[..4].iter().all(|s| s.1 == Status::Holds), "{st:?}");
}

#[cfg(not(any(
    mdl_bug = "skip_second_waiter",
    mdl_bug = "grant_ignores_conflict",
    mdl_bug = "false_deadlock",
    mdl_bug = "no_deadlock_detection",
    mdl_bug = "heaviest_victim",
    mdl_bug = "hog_count_off",
    mdl_bug = "no_pending_priority",
    mdl_bug = "por_release_independent"
)))]
#[test]
fn symmetry_reduction_shrinks_the_dfs_and_keeps_the_verdicts() {
    let text = "s1: acquire TABLE db.t1 SU\ns1: upgrade TABLE db.t1 X\ns1: commit\n\
                s2: acquire TABLE db.t1 SU\ns2: upgrade TABLE db.t1 X\ns2: commit\n\
                s3: acquire TABLE db.t1 SU\ns3: upgrade TABLE db.t1 X\ns3: commit\n";
    let sc = parse("sym.mdl", text).unwrap();
    let m = MdlModel::new(&sc).unwrap();
    assert!(m.has_symmetry());
    let with = check(&m, &dfs());
    let without = check(
        &m,
        &Options {
            symmetry: false,
            ..dfs()
        },
    );
    assert!(with.symmetry_used);
    assert!(with.all_hold() && without.all_hold());
    assert!(
        with.unique_states < without.unique_states,
        "{} vs {}",
        with.unique_states,
        without.unique_states
    );
}

#[cfg(not(any(
    mdl_bug = "skip_second_waiter",
    mdl_bug = "grant_ignores_conflict",
    mdl_bug = "false_deadlock",
    mdl_bug = "no_deadlock_detection",
    mdl_bug = "heaviest_victim",
    mdl_bug = "hog_count_off",
    mdl_bug = "no_pending_priority",
    mdl_bug = "por_release_independent"
)))]
#[test]
fn the_state_limit_stops_with_an_incomplete_result() {
    let m = model("timeout_kill.mdl");
    let r = check(
        &m,
        &Options {
            max_states: Some(5),
            ..bfs()
        },
    );
    assert!(r.limited);
    assert!(!r.all_hold());
    assert!(report::text(&m, &r, report::Replays::Omitted).contains("stopped at --max-states"));
}

#[cfg(not(any(
    mdl_bug = "skip_second_waiter",
    mdl_bug = "grant_ignores_conflict",
    mdl_bug = "false_deadlock",
    mdl_bug = "no_deadlock_detection",
    mdl_bug = "heaviest_victim",
    mdl_bug = "hog_count_off",
    mdl_bug = "no_pending_priority",
    mdl_bug = "por_release_independent"
)))]
#[test]
fn markdown_report_has_mermaid_diagrams() {
    let m = model("deadlock_x.mdl");
    let r = check(&m, &bfs());
    let md = report::markdown(&m, &r);
    assert!(md.contains("| property | result |"), "{md}");
    assert!(md.contains("sequenceDiagram"), "{md}");
    assert!(md.contains("graph LR"), "{md}");
    assert!(md.contains("participant LM as lock manager"), "{md}");
}

#[test]
fn invalid_files_are_exit_2_with_a_position() {
    let dir = std::env::temp_dir().join(format!("mdl-check-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("bad.mdl");
    std::fs::write(&f, "s1: acquire TABLE db.t1 SR\ns1: frobnicate\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mdl"))
        .arg("check")
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.mdl:2:"), "{err}");
    let out = Command::new(env!("CARGO_BIN_EXE_mdl"))
        .args(["check", "--max-states", "x"])
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `mdl check ARGS FILE` (JSON output is validated against the documented schema).
fn mdl_check(args: &[&str], file: &str) -> std::process::Output {
    let path = scenario_path(file).display().to_string();
    let mut all = vec!["check"];
    all.extend_from_slice(args);
    all.push(&path);
    common::mdl(&all)
}

#[cfg(not(any(
    mdl_bug = "skip_second_waiter",
    mdl_bug = "grant_ignores_conflict",
    mdl_bug = "false_deadlock",
    mdl_bug = "no_deadlock_detection",
    mdl_bug = "heaviest_victim",
    mdl_bug = "hog_count_off",
    mdl_bug = "no_pending_priority",
    mdl_bug = "por_release_independent"
)))]
#[test]
fn cli_exit_codes_and_json() {
    assert_eq!(
        mdl_check(&["--quiet"], "holds_sw.mdl").status.code(),
        Some(0)
    );
    let out = mdl_check(&["--format", "json"], "deadlock_x.mdl");
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["all_hold"], false);
    let props = v["properties"].as_array().unwrap();
    assert_eq!(props.len(), 6);
    assert_eq!(props[5]["status"], "violated");
    assert!(props[5]["trace"].as_array().unwrap().len() == 4);
}

/// Runs the replay of a counterexample through `mdl run`, which must reproduce it
/// (every `expect` line holds: exit 0).
fn replay_reproduces(file: &str, prop_prefix: &str) {
    let m = model(file);
    let r = check(&m, &bfs());
    let p = r
        .props
        .iter()
        .find(|p| p.name.starts_with(prop_prefix))
        .expect("property");
    let t = p.trace.as_ref().expect("trace");
    let text = report::replay_scenario(&m, t, "replay");
    // The replay is a valid scenario with the same steps.
    let sc = parse("replay.mdl", &text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert!(!sc.lines.is_empty());
    let dir = std::env::temp_dir().join(format!("mdl-replay-{}-{file}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("replay.mdl");
    std::fs::write(&f, &text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mdl"))
        .arg("run")
        .arg(&f)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        out.status.code(),
        Some(0),
        "replay:\n{text}\nstdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[cfg(not(any(
    mdl_bug = "skip_second_waiter",
    mdl_bug = "grant_ignores_conflict",
    mdl_bug = "false_deadlock",
    mdl_bug = "no_deadlock_detection",
    mdl_bug = "heaviest_victim",
    mdl_bug = "hog_count_off",
    mdl_bug = "no_pending_priority",
    mdl_bug = "por_release_independent"
)))]
#[test]
fn replay_of_a_deadlock_reproduces_under_mdl_run() {
    replay_reproduces("deadlock_x.mdl", "assert never s1 deadlock");
}

#[cfg(not(any(
    mdl_bug = "skip_second_waiter",
    mdl_bug = "grant_ignores_conflict",
    mdl_bug = "false_deadlock",
    mdl_bug = "no_deadlock_detection",
    mdl_bug = "heaviest_victim",
    mdl_bug = "hog_count_off",
    mdl_bug = "no_pending_priority",
    mdl_bug = "por_release_independent"
)))]
#[test]
fn replay_with_timeout_and_kill_reproduces_under_mdl_run() {
    // A file whose counterexample has a timeout: `assert never s2 timeout`.
    let dir = std::env::temp_dir().join(format!("mdl-replay-t-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = "lock_wait_timeout 50\n\
                s1: acquire TABLE db.t1 X\n\
                s2: acquire TABLE db.t1 SR\n\
                s3: acquire TABLE db.t1 SW\n\
                kill s3\n\
                s1: commit\n\
                s2: commit\n\
                s3: commit\n\
                assert never s2 timeout\n\
                assert never s3 killed\n";
    let sc = parse("tk.mdl", text).unwrap();
    let m = MdlModel::new(&sc).unwrap();
    let r = check(&m, &bfs());
    for prefix in ["assert never s2 timeout", "assert never s3 killed"] {
        let p = r.props.iter().find(|p| p.name.starts_with(prefix)).unwrap();
        assert_eq!(p.status, Status::Violated, "{prefix}");
        let t = p.trace.as_ref().unwrap();
        // Shortest: s1 takes X, the other waits, and times out or is killed.
        assert_eq!(t.records.len(), 3, "{}", report::trace_text(&m, t));
        let replay = report::replay_scenario(&m, t, "replay");
        let f = dir.join("replay.mdl");
        std::fs::write(&f, &replay).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_mdl"))
            .arg("run")
            .arg(&f)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "replay:\n{replay}\nstdout:\n{}\nstderr:\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn explore_refuses_non_loopback_addresses() {
    assert!(mdl::cmd::explore::loopback("127.0.0.1:3000").is_ok());
    assert!(mdl::cmd::explore::loopback("0.0.0.0:3000").is_err());
}

// --- seeded bugs: each built-in property can fail ----------------------------------------

#[cfg(any(
    mdl_bug = "skip_second_waiter",
    mdl_bug = "grant_ignores_conflict",
    mdl_bug = "false_deadlock",
    mdl_bug = "no_deadlock_detection",
    mdl_bug = "heaviest_victim",
    mdl_bug = "hog_count_off",
    mdl_bug = "no_pending_priority",
    mdl_bug = "por_release_independent",
    mdl_bug = "soft_reorder_outside_cycle",
    mdl_bug = "soft_reorder_unbounded"
))]
use mdl_check::model::PropKind;

#[cfg(any(
    mdl_bug = "skip_second_waiter",
    mdl_bug = "grant_ignores_conflict",
    mdl_bug = "false_deadlock",
    mdl_bug = "no_deadlock_detection",
    mdl_bug = "heaviest_victim",
    mdl_bug = "hog_count_off",
    mdl_bug = "no_pending_priority",
    mdl_bug = "por_release_independent",
    mdl_bug = "soft_reorder_outside_cycle",
    mdl_bug = "soft_reorder_unbounded"
))]
fn violated(file: &str, kind: PropKind) -> bool {
    let m = model(file);
    check(&m, &bfs())
        .props
        .iter()
        .any(|p| p.kind == kind && p.status == Status::Violated)
}

#[cfg(mdl_bug = "skip_second_waiter")]
#[test]
fn seeded_lost_wakeup_is_caught() {
    assert!(violated("lost_wakeup.mdl", PropKind::NoLostWakeup));
}

#[cfg(mdl_bug = "grant_ignores_conflict")]
#[test]
fn seeded_conflicting_grant_is_caught() {
    assert!(violated("two_readers_wake.mdl", PropKind::NoConflict));
}

#[cfg(mdl_bug = "false_deadlock")]
#[test]
fn seeded_false_deadlock_is_caught() {
    assert!(violated("chain.mdl", PropKind::NoFalseDeadlock));
}

#[cfg(mdl_bug = "no_deadlock_detection")]
#[test]
fn seeded_undetected_deadlock_is_caught_as_stuck() {
    assert!(violated("deadlock_plain.mdl", PropKind::NoStuck));
}

#[cfg(mdl_bug = "heaviest_victim")]
#[test]
fn seeded_wrong_victim_is_caught_by_an_assert() {
    assert!(violated("victim_dml.mdl", PropKind::Assert(0)));
}

#[cfg(mdl_bug = "soft_reorder_outside_cycle")]
#[test]
fn seeded_reordering_off_the_cycle_is_caught() {
    assert!(violated("soft_outside_cycle.mdl", PropKind::ReorderOnCycle));
}

#[cfg(mdl_bug = "soft_reorder_unbounded")]
#[test]
fn seeded_unbounded_reordering_is_caught() {
    assert!(violated("soft_unbounded.mdl", PropKind::ReorderBounded));
}

/// The ports of MySQL's MDL unit tests (`models/scenarios/mysql-unit/`): on every
/// interleaving explored (depth first, up to 100,000 states each: the two long
/// compatibility tests are not explored completely, see that folder's README) no built-in
/// property and no `assert` is violated.
#[cfg(not(any(
    mdl_bug = "skip_second_waiter",
    mdl_bug = "grant_ignores_conflict",
    mdl_bug = "false_deadlock",
    mdl_bug = "no_deadlock_detection",
    mdl_bug = "heaviest_victim",
    mdl_bug = "hog_count_off",
    mdl_bug = "no_pending_priority",
    mdl_bug = "por_release_independent"
)))]
#[test]
fn mysql_unit_ports_hold_their_properties() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenarios/mysql-unit");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("mysql-unit folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "mdl"))
        .collect();
    files.sort();
    assert!(files.len() >= 45, "{} ports", files.len());
    let o = Options {
        dfs: true,
        max_states: Some(100_000),
        ..Options::default()
    };
    let mut limited = Vec::new();
    for p in &files {
        let text = std::fs::read_to_string(p).expect("read");
        let sc = parse(&p.display().to_string(), &text).unwrap_or_else(|e| panic!("{e}"));
        let m = MdlModel::new(&sc).unwrap_or_else(|e| panic!("{e}"));
        let r = check(&m, &o);
        for prop in &r.props {
            assert_ne!(
                prop.status,
                Status::Violated,
                "{}: {}\n{}",
                p.display(),
                prop.name,
                report::text(&m, &r, report::Replays::Shown)
            );
        }
        if r.limited {
            limited.push(p.file_name().expect("name").to_owned());
        }
    }
    // Only the long ones are cut short.
    assert!(limited.len() <= 6, "limited: {limited:?}");
}

#[cfg(mdl_bug = "hog_count_off")]
#[test]
fn seeded_uncounted_hogs_are_caught_by_bounded() {
    let m = bundled("starvation-hogs.mdl");
    let r = check(&m, &bfs());
    let bounded = r
        .props
        .iter()
        .find(|p| p.name.starts_with("assert bounded reader 1"))
        .expect("the assert");
    assert_eq!(bounded.status, Status::Violated);
    assert!(bounded.trace.is_some());
}

#[cfg(mdl_bug = "no_pending_priority")]
#[test]
fn seeded_ftwrl_starvation_is_caught_by_eventually() {
    let m = bundled("starvation-ftwrl.mdl");
    let r = check(&m, &bfs());
    let ev = r
        .props
        .iter()
        .find(|p| p.name.starts_with("assert eventually ftwrl granted"))
        .expect("the assert");
    assert_eq!(ev.status, Status::Violated);
    let t = ev.trace.as_ref().expect("trace");
    let d = report::violation_detail(&m, ev).expect("detail");
    assert!(d.contains("starvation"), "{d}");
    assert!(t.records.len() >= 4, "{}", report::trace_text(&m, t));
}

#[cfg(mdl_bug = "por_release_independent")]
#[test]
fn seeded_reduction_bug_is_caught_by_the_verdict_comparison() {
    let m = model("por_release.mdl");
    let with = status(&m, &bfs());
    let without = status(
        &m,
        &Options {
            por: false,
            ..bfs()
        },
    );
    assert_ne!(with, without);
}
