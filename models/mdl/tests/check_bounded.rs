//! Answers in bounded time: `mdl check --max-time` stops with exit 3 and a partial result,
//! and `mdl check --simulate N` samples seeded random paths with the same properties.
//! (How fast a sample finds each seeded bug on a 30-session file is measured in
//! models/MODEL.md, not asserted here.)

// The seeded model bugs change verdicts on purpose (ci/seeded-model.sh runs their own
// tests in models/mdl/tests/check_model.rs).
#![cfg(not(any(
    mdl_bug = "skip_second_waiter",
    mdl_bug = "grant_ignores_conflict",
    mdl_bug = "false_deadlock",
    mdl_bug = "no_deadlock_detection",
    mdl_bug = "heaviest_victim",
    mdl_bug = "hog_count_off",
    mdl_bug = "no_pending_priority",
    mdl_bug = "por_release_independent"
)))]

mod common;

use common::{json_lines, mdl, root, stdout, tmp};

fn many30() -> String {
    root().join("models/scale/many30.mdl").display().to_string()
}

#[test]
fn max_time_stops_with_exit_3_and_a_partial_result() {
    let f = many30();
    let out = mdl(&["check", "--max-time", "1", "--format", "json", &f]);
    assert_eq!(out.status.code(), Some(3));
    let docs = json_lines(&out.stdout);
    let d = &docs[0];
    assert_eq!(d["stop"], "max-time");
    assert_eq!(d["complete"], false);
    assert!(d["unique_states"].as_u64().unwrap_or(0) > 1, "{d}");
    assert!(d["max_depth"].as_u64().unwrap_or(0) >= 1, "{d}");
    let c = &d["actions_covered"];
    assert_eq!(c["steps"], 90, "{d}");
    assert!(c["steps_taken"].as_u64().unwrap_or(0) > 0, "{d}");
    assert!(d["properties"]
        .as_array()
        .expect("properties")
        .iter()
        .all(|p| p["status"] == "unknown"));
    // The text says why and what was covered.
    let out = mdl(&["check", "--max-time", "1", &f]);
    assert_eq!(out.status.code(), Some(3));
    let text = stdout(&out);
    assert!(text.contains("stopped at --max-time"), "{text}");
    assert!(text.contains("actions covered:"), "{text}");
}

#[test]
fn max_time_does_not_touch_a_check_that_finishes() {
    let f = root().join("models/scenarios/basic-conflict.mdl");
    let out = mdl(&[
        "check",
        "--max-time",
        "600",
        "--quiet",
        &f.display().to_string(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    for bad in ["0", "-1", "x"] {
        let out = mdl(&["check", "--max-time", bad, &f.display().to_string()]);
        assert_eq!(out.status.code(), Some(2), "--max-time {bad}");
    }
}

/// Two transactions taking two tables in opposite orders: `assert never a deadlock` is
/// violated on some interleavings only (a quarter of the random orders reach it).
const OPPOSITE: &str = "a: acquire TABLE d.t1 X\nb: acquire TABLE d.t2 X\n\
a: acquire TABLE d.t2 X\nb: acquire TABLE d.t1 X\na: commit\nb: commit\n\
assert never a deadlock\nassert sometimes b deadlock\n";

#[test]
fn a_sample_finds_a_violation_and_replays_it() {
    let p = tmp("opposite.mdl", OPPOSITE).display().to_string();
    let replay = tmp("opposite-replay.mdl", "").display().to_string();
    let out = mdl(&[
        "check",
        "--simulate",
        "100",
        "--seed",
        "5",
        "--format",
        "json",
        "--replay",
        &replay,
        &p,
    ]);
    assert_eq!(out.status.code(), Some(1));
    let d = &json_lines(&out.stdout)[0];
    let props = d["properties"].as_array().expect("properties");
    let never = props
        .iter()
        .find(|x| {
            x["name"]
                .as_str()
                .is_some_and(|n| n.starts_with("assert never a"))
        })
        .expect("the assert");
    assert_eq!(never["status"], "violated", "{d}");
    let sim = &d["simulate"];
    assert_eq!(sim["paths_asked"], 100);
    assert_eq!(sim["seed"], 5);
    // The counterexample is a real path: `mdl run` replays it to the deadlock.
    let run = mdl(&["run", &replay]);
    assert!(
        stdout(&run).contains("deadlock"),
        "{}",
        std::fs::read_to_string(&replay).unwrap_or_default()
    );
}

#[test]
fn a_sample_is_reproducible_and_never_says_holds_for_always() {
    let f = many30();
    let a = mdl(&[
        "check",
        "--simulate",
        "20",
        "--seed",
        "9",
        "--format",
        "json",
        &f,
    ]);
    let b = mdl(&[
        "check",
        "--simulate",
        "20",
        "--seed",
        "9",
        "--format",
        "json",
        &f,
    ]);
    assert_eq!(a.status.code(), Some(3));
    let (da, db) = (&json_lines(&a.stdout)[0], &json_lines(&b.stdout)[0]);
    for k in ["states", "unique_states", "max_depth", "actions_covered"] {
        assert_eq!(da[k], db[k], "{k}");
    }
    assert!(da["properties"]
        .as_array()
        .expect("properties")
        .iter()
        .all(|p| p["status"] == "unknown"));
    let text = stdout(&mdl(&["check", "--simulate", "20", &f]));
    assert!(text.contains("sampled 20 random paths (seed 1"), "{text}");
    assert!(text.contains("the check is incomplete"), "{text}");
}

/// `--simulate` runs on any model of the engine: a SQL scenario is sampled by the same
/// sampler (`mdl_check::model::sample`), reproducibly, and a `sometimes` assert a path
/// meets holds with its path; the rest stays unknown (exit 3, incomplete).
#[test]
fn a_sql_scenario_is_sampled_too() {
    let f = root()
        .join("models/scenarios/sql/lock-tables-deadlock-t2.mdl")
        .display()
        .to_string();
    let args = [
        "check",
        "--simulate",
        "40",
        "--seed",
        "3",
        "--format",
        "json",
        &f,
    ];
    let (a, b) = (mdl(&args), mdl(&args));
    assert_eq!(a.status.code(), Some(3), "{}", stdout(&a));
    let (da, db) = (&json_lines(&a.stdout)[0], &json_lines(&b.stdout)[0]);
    for k in ["states", "unique_states", "max_depth"] {
        assert_eq!(da[k], db[k], "{k}");
    }
    let paths = |d: &serde_json::Value| {
        d["simulate"]["found_at"]
            .as_array()
            .map(|v| v.iter().map(|f| f["path"].clone()).collect::<Vec<_>>())
    };
    assert_eq!(paths(da), paths(db));
    assert_eq!(da["simulate"]["paths"], 40, "{da}");
    let props = da["properties"].as_array().expect("properties");
    let status = |name: &str| {
        props
            .iter()
            .find(|p| p["name"].as_str().is_some_and(|n| n.contains(name)))
            .map(|p| p["status"].clone())
    };
    assert_eq!(status("s1 deadlock"), Some("holds".into()), "{da}");
    assert!(props.iter().all(|p| p["status"] != "violated"), "{da}");
    let text = stdout(&mdl(&["check", "--simulate", "40", "--seed", "3", &f]));
    assert!(
        text.contains("simulated: 40 random paths of 40 (seed 3"),
        "{text}"
    );
}
