//! `mdl check` at scale and what its results contain: the reductions keep every verdict,
//! the liveness asserts, the memory bound, bounded checks, warnings, the deadlock
//! diagnosis, the escaping of keys in diagrams, and the Explorer's views.
//!
//! Speed and memory are measured by the benchmark over `models/scale/` (models/MODEL.md),
//! not asserted here.

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

use mdl_check::model::check::{check, Options};
use mdl_check::model::explore::ExploreModel;
use mdl_check::model::result::Status;
use mdl_check::model::{report, MdlModel, PropKind};
use mdl_scenario::parse::parse;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn load(path: &Path) -> MdlModel {
    let text = std::fs::read_to_string(path).expect("scenario file");
    let sc = parse(&path.display().to_string(), &text).unwrap_or_else(|e| panic!("{e}"));
    MdlModel::new(&sc).unwrap_or_else(|e| panic!("{e}"))
}

fn inline(text: &str) -> MdlModel {
    let sc = parse("inline.mdl", text).unwrap_or_else(|e| panic!("{e}"));
    MdlModel::new(&sc).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn liveness_asserts_hold_on_the_real_design() {
    for f in [
        "starvation-ftwrl.mdl",
        "starvation-hogs.mdl",
        "ddl-pileup.mdl",
    ] {
        let m = load(&root().join("models/scenarios").join(f));
        let r = check(&m, &Options::default());
        for p in &r.props {
            assert_eq!(p.status, Status::Holds, "{f}: {}", p.name);
        }
        assert!(m.asserts.iter().any(|a| a.is_liveness()), "{f}");
    }
}

#[test]
fn bounded_counts_grants_to_others_while_waiting() {
    // s2 waits for X behind s1's SR; s3's SH, asked for later, is granted past the
    // pending X: one pass. s4's SR waits behind the pending X: passed over by s3's SH and
    // by s2's X, then granted when s2 commits.
    let text = "s1: acquire TABLE db.t1 SR\ns2: acquire TABLE db.t1 X\n\
                s3: acquire TABLE db.t1 SH\ns4: acquire TABLE db.t1 SR\n\
                s1: commit\ns2: commit\ns3: commit\ns4: commit\n\
                assert bounded s2 0\nassert bounded s2 1\nassert bounded s4 1\n\
                assert bounded s4 2\n";
    let m = inline(text);
    let r = check(&m, &Options::default());
    let st: Vec<(&str, Status)> = r.props.iter().map(|p| (p.name, p.status)).collect();
    assert_eq!(st[4].1, Status::Violated, "{st:?}");
    assert_eq!(st[5].1, Status::Holds, "{st:?}");
    assert_eq!(st[6].1, Status::Violated, "{st:?}");
    assert_eq!(st[7].1, Status::Holds, "{st:?}");
    let d = report::violation_detail(&m, &r.props[4]).expect("detail");
    assert!(
        d.contains("passed over by 1 grant to other sessions"),
        "{d}"
    );
    // The shortest trace ends with the pass.
    let t = r.props[4].trace.as_ref().expect("trace");
    let last = report::record_text(&m, t.records.last().expect("a step"));
    assert!(last.contains("s3: acquire TABLE db.t1 SH"), "{last}");
}

#[test]
fn eventually_fails_on_a_deadlock_of_its_session() {
    let text = "s1: acquire TABLE db.t1 SW\ns2: acquire TABLE db.t2 SNRW\n\
                s2: acquire TABLE db.t1 SNRW\ns1: acquire TABLE db.t2 SW\n\
                s1: commit\ns2: commit\nassert eventually s1 granted\n\
                assert eventually s2 granted\n";
    let m = inline(text);
    let r = check(&m, &Options::default());
    assert_eq!(r.props[4].status, Status::Violated);
    assert_eq!(r.props[5].status, Status::Holds);
    let d = report::violation_detail(&m, &r.props[4]).expect("detail");
    assert!(d.contains("ended in `deadlock`"), "{d}");
}

#[test]
fn at_line_names_a_step_of_the_session() {
    let base = "s1: acquire TABLE db.t1 X\ns2: acquire TABLE db.t1 X\ns1: commit\ns2: commit\n";
    let m = inline(&format!("{base}assert sometimes s2 waiting at line 2\n"));
    assert_eq!(m.asserts[0].at_step, Some((1, 0)));
    let r = check(&m, &Options::default());
    assert_eq!(r.props[4].status, Status::Holds);
    // s2's commit (line 4) is never `waiting`.
    let m = inline(&format!("{base}assert sometimes s2 waiting at line 4\n"));
    assert_eq!(
        check(&m, &Options::default()).props[4].status,
        Status::Violated
    );
    for (line, msg) in [
        (
            "assert never s1 ok at line 2",
            "line 2 is a step of `s2`, not of `s1`",
        ),
        ("assert never s1 ok at line 9", "line 9 is not a step"),
    ] {
        let sc = parse("inline.mdl", &format!("{base}{line}\n")).unwrap();
        let e = MdlModel::new(&sc).expect_err("invalid");
        assert!(e.to_string().starts_with("inline.mdl:5:1: "), "{e}");
        assert!(e.to_string().contains(msg), "{e}");
    }
}

#[test]
fn a_deadlock_trace_shows_the_cycle_and_why_that_victim() {
    let m = load(&root().join("models/mdl/tests/check_scenarios/deadlock_x.mdl"));
    let r = check(&m, &Options::default());
    let p = r
        .props
        .iter()
        .find(|p| p.status == Status::Violated)
        .expect("violated");
    let text = report::trace_text(&m, p.trace.as_ref().expect("trace"));
    assert!(text.contains("deadlock cycle: s1 -> s2 -> s1"), "{text}");
    assert!(text.contains("s1 waits for s2 on TABLE db.t2"), "{text}");
    assert!(text.contains("granted"), "{text}");
    assert!(
        text.contains("victim s1: the lowest deadlock weight"),
        "{text}"
    );
    let json = report::json(&m, &r);
    let steps = json["properties"][5]["trace"].as_array().expect("trace");
    let d = &steps.last().expect("a step")["deadlocks"][0];
    assert_eq!(d["victim"], "s1");
    assert_eq!(d["cycle"].as_array().expect("cycle").len(), 2);
    assert!(d["weights"][0]["weight"].as_u64().is_some());
}

#[test]
fn a_sometimes_that_holds_shows_an_example() {
    let m = load(&root().join("models/scenarios/upgrade-race.mdl"));
    let r = check(&m, &Options::default());
    let text = report::text(&m, &r, report::Replays::Omitted);
    assert!(text.contains("holds; an example ("), "{text}");
    let json = report::json(&m, &r);
    let ex = json["properties"]
        .as_array()
        .expect("properties")
        .iter()
        .find(|p| p["example"].is_array())
        .expect("an example");
    assert!(!ex["example"].as_array().expect("steps").is_empty());
}

/// Every character a backtick-quoted key part may hold (anything but a backtick or a
/// newline): printable ASCII, a tab, and some non-ASCII ones.
fn key_chars() -> Vec<char> {
    let mut v: Vec<char> = (' '..='~').filter(|c| *c != '`').collect();
    v.extend(['\t', 'é', 'ü', '€', '中', '😀', '\u{a0}']);
    v
}

/// Undoes Mermaid entity codes (`#35;`).
fn unmermaid(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find('#') {
        out.push_str(&rest[..i]);
        let tail = &rest[i + 1..];
        let end = tail.find(';').expect("entity end");
        let code: u32 = tail[..end].parse().expect("entity code");
        out.push(char::from_u32(code).expect("char"));
        rest = &tail[end + 1..];
    }
    out.push_str(rest);
    out
}

#[test]
fn mermaid_and_dot_escape_every_key_character() {
    for c in key_chars() {
        let s = format!("TABLE test.`#sql-{c}-1a2b`");
        let m = report::mermaid_text(&s);
        assert!(
            m.chars()
                .all(|x| x.is_ascii_alphanumeric() || " ._-,=#;".contains(x)),
            "{c:?}: {m}"
        );
        assert_eq!(unmermaid(&m), s, "{c:?}");
        let d = report::dot_string(&s);
        assert!(d.starts_with('"') && d.ends_with('"'));
        let inner = &d[1..d.len() - 1];
        // Every quote and backslash inside is escaped, and no raw newline.
        let mut it = inner.chars();
        while let Some(x) = it.next() {
            assert_ne!(x, '"', "{c:?}: {d}");
            assert_ne!(x, '\n', "{c:?}: {d}");
            if x == '\\' {
                assert!(
                    matches!(it.next(), Some('\\' | '"' | 'n' | 'r')),
                    "{c:?}: {d}"
                );
            }
        }
    }
    // End to end: a deadlock on the spec's own example key.
    let text = "s1: acquire TABLE `test`.`#sql-alter-1a2b` X\ns2: acquire TABLE `d;b`.`x\"y|z` X\n\
                s2: acquire TABLE `test`.`#sql-alter-1a2b` X\ns1: acquire TABLE `d;b`.`x\"y|z` X\n\
                s1: commit\ns2: commit\nassert never * deadlock\n";
    let m = inline(text);
    let r = check(&m, &Options::default());
    assert!(r.any_violated());
    let md = report::markdown(&m, &r);
    let mut in_mermaid = false;
    for line in md.lines() {
        if line.starts_with("```mermaid") {
            in_mermaid = true;
            continue;
        }
        if line.starts_with("```") {
            in_mermaid = false;
            continue;
        }
        if in_mermaid && (line.contains("->>") || line.contains("-->|")) {
            let label = line.split_once(": ").map(|x| x.1).unwrap_or(line);
            let label = label.split('|').nth(1).unwrap_or(label);
            assert!(
                !label.contains("#sql"),
                "raw `#` in a Mermaid label: {line}"
            );
            assert!(
                !label.contains('`'),
                "raw backtick in a Mermaid label: {line}"
            );
        }
    }
    assert!(md.contains("#35;sql-alter-1a2b"), "{md}");
    assert!(md.contains("digraph waits"), "{md}");
    assert!(md.contains("x\\\"y|z"), "{md}");
}

#[test]
fn warnings_for_steps_that_always_fail() {
    let dir = std::env::temp_dir().join(format!("mdl-check-warn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let typo = dir.join("typo.mdl");
    std::fs::write(
        &typo,
        "s1: acquire TABLE db.t1 SR\ns1: release TABLE db.t2\ns1: commit\n",
    )
    .unwrap();
    let meant = dir.join("meant.mdl");
    std::fs::write(
        &meant,
        "s1: acquire TABLE db.t1 SR\ns1: release TABLE db.t2\nexpect s1 error\ns1: commit\n",
    )
    .unwrap();
    let m = load(&typo);
    let r = check(&m, &Options::default());
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    assert_eq!(r.warnings[0].line, 2);
    assert!(r.warnings[0]
        .message
        .contains("the session holds no such lock"));
    assert!(check(&load(&meant), &Options::default())
        .warnings
        .is_empty());
    let run = |args: &[&str], f: &Path| {
        Command::new(env!("CARGO_BIN_EXE_mdl"))
            .arg("check")
            .args(args)
            .arg(f)
            .output()
            .unwrap()
    };
    let out = run(&[], &typo);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("typo.mdl:2: `s1: release TABLE db.t2`"),
        "{text}"
    );
    assert_eq!(run(&["--deny-warnings"], &typo).status.code(), Some(2));
    assert_eq!(run(&["--deny-warnings"], &meant).status.code(), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn max_depth_is_complete_up_to_that_depth() {
    let m = load(&root().join("models/mdl/tests/check_scenarios/deadlock_plain.mdl"));
    let r = check(
        &m,
        &Options {
            max_depth: Some(2),
            ..Options::default()
        },
    );
    assert!(r.depth_cut);
    assert!(r.props[..4]
        .iter()
        .all(|p| p.status == Status::HoldsToDepth));
    let text = report::text(&m, &r, report::Replays::Omitted);
    assert!(text.contains("complete up to depth 2"), "{text}");
    assert!(text.contains("holds up to depth 2"), "{text}");
    assert!(!r.incomplete());
    // Deep enough, the bound cuts nothing: a plain complete check.
    let r = check(
        &m,
        &Options {
            max_depth: Some(100),
            ..Options::default()
        },
    );
    assert!(!r.depth_cut);
    assert!(r.props.iter().all(|p| p.status == Status::Holds));
}

#[test]
fn the_memory_bound_ends_a_huge_search_with_exit_3() {
    // Twelve sessions alternating DML and DDL on two tables: far too many interleavings
    // for 2 MB (models/scale/many30.mdl is the benchmark's thirty-session file).
    let mut text = String::new();
    for i in 0..12 {
        if i % 2 == 0 {
            text.push_str(&format!(
                "s{i}: acquire TABLE db.t1 SW\ns{i}: acquire TABLE db.t2 SW\ns{i}: commit\n"
            ));
        } else {
            text.push_str(&format!(
                "s{i}: acquire TABLE db.t2 X\ns{i}: acquire TABLE db.t1 X\ns{i}: commit\n"
            ));
        }
    }
    let dir = std::env::temp_dir().join(format!("mdl-check-mem-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("many12.mdl");
    std::fs::write(&f, text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mdl"))
        .args(["check", "--format", "json", "--max-memory", "2M"])
        .arg(&f)
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["stop"], "max-memory");
    assert_eq!(v["complete"], false);
    assert!(v["coverage"]
        .as_str()
        .unwrap()
        .contains("no violation so far"));
    assert!(v["heap_peak_bytes"].as_u64().unwrap() <= 2 << 20);
    // Breadth-first passed half the bound and went on depth-first.
    assert!(v["switched_to_dfs"]["depth"].as_u64().is_some(), "{v}");
    assert_eq!(v["search"], "dfs");
    for p in v["properties"].as_array().unwrap() {
        assert_eq!(p["status"], "unknown", "{p}");
    }
}

#[test]
fn json_reports_memory_and_reductions() {
    let f = root().join("models/scale/sw5.mdl");
    let out = Command::new(env!("CARGO_BIN_EXE_mdl"))
        .args(["check", "--format", "json"])
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert!(v["bytes_per_state"].as_f64().unwrap() > 0.0);
    assert!(v["peak_rss_bytes"].as_u64().unwrap() > 0);
    assert!(v["heap_peak_bytes"].as_u64().unwrap() > 0);
    assert!(v["max_memory_bytes"].as_u64().unwrap() > 0);
    assert_eq!(v["reduction"]["symmetry"], true);
    assert_eq!(v["reduction"]["symmetry_groups"][0], 5);
    assert_eq!(v["reduction"]["por"], true);
    assert_eq!(v["complete"], true);
    assert!(v["states_per_second"].as_f64().unwrap() > 0.0);
}

#[test]
fn symmetry_under_bfs_keeps_shortest_traces() {
    // Three interchangeable DDL sessions and one DML that deadlocks with them.
    let text = "a: acquire TABLE db.t1 X\na: acquire TABLE db.t2 X\na: commit\n\
                b: acquire TABLE db.t1 X\nb: acquire TABLE db.t2 X\nb: commit\n\
                c: acquire TABLE db.t1 X\nc: acquire TABLE db.t2 X\nc: commit\n\
                d: acquire TABLE db.t2 SW\nd: acquire TABLE db.t1 SW\nd: commit\n\
                assert never d deadlock\n";
    let m = inline(text);
    assert!(m.has_symmetry());
    let with = check(&m, &Options::default());
    let without = check(
        &m,
        &Options {
            symmetry: false,
            por: false,
            ..Options::default()
        },
    );
    assert!(with.symmetry_used);
    assert!(with.unique_states < without.unique_states);
    let len = |r: &mdl_check::model::result::CheckResult| {
        r.props
            .iter()
            .find(|p| p.kind == PropKind::Assert(0))
            .and_then(|p| p.trace.as_ref())
            .map(|t| t.records.len())
    };
    assert_eq!(len(&with), len(&without));
    assert!(len(&with).is_some());
}

#[test]
fn the_explorer_shows_lock_tables_and_step_names() {
    use stateright::Model;
    let m = load(&root().join("models/scenarios/upgrade-race.mdl"));
    let e = ExploreModel(std::sync::Arc::new(m));
    let init = e.init_states().remove(0);
    let mut acts = Vec::new();
    e.actions(&init, &mut acts);
    let name = e.format_action(&acts[0]);
    assert!(name.contains("s1: acquire TABLE test.t1 SU"), "{name}");
    assert!(name.contains("(line 3)"), "{name}");
    let next = e.next_state(&init, acts[0]).expect("a step");
    let shown = format!("{next:#?}");
    assert!(shown.contains("locks:"), "{shown}");
    assert!(shown.contains("TABLE test.t1"), "{shown}");
    assert!(shown.contains("granted: s1 SU"), "{shown}");
    assert!(!shown.contains("LockTable"), "{shown}");
    let step = e.format_step(&init, acts[0]).expect("outcome");
    assert!(step.contains("-> granted"), "{step}");
}
