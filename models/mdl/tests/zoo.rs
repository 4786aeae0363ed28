//! The bug zoo: every old design is caught (for the intended reason, with a shortest
//! trace) and every new one holds; the harness catches seeded mistakes in the fixes.

use mdl_check::zoo::engine::{Check, Design, Op, St};
use mdl_check::zoo::{self, entries};
use mdl_core::types::{Duration, LockType};
use std::collections::HashSet;

fn entry(id: &str) -> entries::Entry {
    zoo::select(Some(id)).expect("entry").remove(0)
}

#[test]
fn every_old_design_is_caught_and_every_new_one_holds() {
    let es = entries::all();
    assert!(es.len() >= 9, "at least nine entries");
    for e in &es {
        let r = zoo::run_entry(e);
        assert!(r.old.property.is_some(), "{}: old design not caught", e.id);
        assert!(
            r.new.failed.is_empty(),
            "{}: new design fails {:?}",
            e.id,
            r.new.failed
        );
        assert!(r.new.states > 1, "{}: new design explored nothing", e.id);
    }
}

#[test]
fn old_designs_fail_for_the_intended_reason() {
    let want = [
        ("update-vs-alter", Check::NoStuckCycle),
        ("needless-deadlock", Check::NoFalseDeadlock),
        ("handler-vs-ftwrl", Check::NoStuckCycle),
        ("ftwrl-starvation", Check::BoundedWait),
        ("analyze-pileup", Check::NoFlushPileUp),
        ("purge-temp-name", Check::RefCount),
        ("temp-name-review", Check::RefCount),
        ("lock-tables-deadlock", Check::NoStuckCycle),
        ("victim-livelock", Check::FairVictims),
        ("backup-lock-order", Check::NoStuckCycle),
        ("fk-metadata", Check::NoStaleMeta),
    ];
    for (id, c) in want {
        let r = zoo::check_old(&entry(id).old);
        assert_eq!(r.property.as_deref(), Some(c.name()), "{id}");
    }
}

fn violates(m: &Design, st: &St) -> bool {
    m.checks.iter().any(|c| c.is_always() && !m.holds(*c, st))
}

/// An independent breadth-first search: the depth of the nearest violating state.
fn shortest_violation(m: &Design) -> Option<usize> {
    let mut seen: HashSet<St> = HashSet::new();
    let mut frontier = vec![m.init()];
    seen.insert(m.init());
    for depth in 0..64 {
        if frontier.iter().any(|s| violates(m, s)) {
            return Some(depth);
        }
        let mut next = Vec::new();
        for s in &frontier {
            for a in 0..m.progs.len() {
                if m.enabled(s, a) {
                    let (n, _) = m.step(s, a);
                    if seen.insert(n.clone()) {
                        next.push(n);
                    }
                }
            }
        }
        if next.is_empty() {
            return None;
        }
        frontier = next;
    }
    None
}

#[test]
fn traces_end_in_the_violation_and_are_shortest() {
    for e in entries::all() {
        let r = zoo::check_old(&e.old);
        let m = &e.old;
        let mut st = m.init();
        for a in &r.actions {
            assert!(
                !violates(m, &st),
                "{}: violated before the trace's end",
                e.id
            );
            assert!(
                m.enabled(&st, *a as usize),
                "{}: trace step not enabled",
                e.id
            );
            st = m.step(&st, *a as usize).0;
        }
        assert!(
            violates(m, &st),
            "{}: trace does not end in a violation",
            e.id
        );
        assert_eq!(r.actions.len(), r.trace_len);
        assert_eq!(
            shortest_violation(m),
            Some(r.trace_len),
            "{}: not a shortest trace",
            e.id
        );
    }
}

/// The fixed designs rely on the foreign-wait hook: without it, the HANDLER/FTWRL cycle
/// is invisible again and the checker says so.
#[test]
fn unregistered_flush_wait_is_caught() {
    let mut m = entry("handler-vs-ftwrl").new;
    m.visible = false;
    let r = zoo::check_old(&m);
    assert_eq!(r.property.as_deref(), Some(Check::NoStuckCycle.name()));
}

/// Seeded mistake for `ExactKeys`: the ALTER's temporary name confused with the user
/// table literally named `#sql-alter-9` (one key for both).
#[test]
fn confusing_a_temporary_name_with_a_user_table_is_caught() {
    let mut m = entry("temp-name-review").new;
    let k = m.table_key("#sql-alter-9");
    let alter = m
        .progs
        .iter_mut()
        .find(|p| p.name == "alter")
        .expect("alter");
    alter.ops[1].0 = Op::Acq(k, LockType::X, Duration::Transaction);
    let r = zoo::check_old(&m);
    assert_eq!(r.property.as_deref(), Some(Check::ExactKeys.name()));
}

/// Seeded mistake for `RefCount` in the fix: purge does not check the name again.
#[test]
fn purge_without_the_recheck_is_caught() {
    let mut m = entry("purge-temp-name").new;
    m.purge = mdl_check::zoo::engine::PurgeRule::Stale;
    let r = zoo::check_old(&m);
    assert_eq!(r.property.as_deref(), Some(Check::RefCount.name()));
}

/// Seeded mistake for `NoFalseDeadlock`: the avoidance rule put back into the fix.
#[test]
fn suspicion_rule_is_caught_in_the_fixed_design_too() {
    let mut m = entry("needless-deadlock").new;
    m.suspicion = true;
    let r = zoo::check_old(&m);
    assert_eq!(r.property.as_deref(), Some(Check::NoFalseDeadlock.name()));
}

#[test]
fn fixes_report_deadlocks_at_once() {
    for id in [
        "handler-vs-ftwrl",
        "lock-tables-deadlock",
        "backup-lock-order",
    ] {
        let r = zoo::check_new(&entry(id).new);
        assert_eq!(
            r.example.as_deref(),
            Some(Check::DeadlockReported.name()),
            "{id}"
        );
        assert!(!r.example_steps.is_empty());
    }
}

#[test]
fn report_is_up_to_date() {
    let es = entries::all();
    let rs: Vec<_> = es.iter().map(zoo::run_entry).collect();
    let text = zoo::report(&es, &rs);
    for e in &es {
        assert!(text.contains(&format!("<a id=\"{}\"></a>", e.id)));
    }
    assert!(text.matches("sequenceDiagram").count() >= es.len());
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../zoo/README.md");
    let on_disk = std::fs::read_to_string(path).expect("models/zoo/README.md");
    assert!(
        on_disk == text,
        "models/zoo/README.md is stale: run `mdl zoo --report models/zoo/README.md`"
    );
}

#[test]
fn unknown_entry_is_an_error() {
    let e = zoo::select(Some("no-such-entry")).err().expect("error");
    assert!(e.contains("update-vs-alter"), "{e}");
    let code = mdl::cmd::zoo::main(mdl::cmd::zoo::Args {
        format: mdl::cmd::zoo::Format::Text,
        entry: Some("no-such-entry".into()),
        report: None,
        list: false,
    });
    assert_eq!(code, 2);
}

/// Seeded mistake for `NoStuckState`: the invisible cycle of the old UPDATE/ALTER design
/// is also a state where nobody can move, and the property alone catches it.
#[test]
fn stuck_state_is_caught() {
    let mut m = entry("update-vs-alter").old;
    m.checks = vec![Check::NoStuckState];
    let r = zoo::check_old(&m);
    assert_eq!(r.property.as_deref(), Some(Check::NoStuckState.name()));
}

#[test]
fn json_results_carry_the_numbers() {
    let r = zoo::run_entry(&entry("lock-tables-deadlock"));
    let v = serde_json::to_value(&r).expect("json");
    assert_eq!(v["id"], "lock-tables-deadlock");
    assert_eq!(v["old"]["property"], Check::NoStuckCycle.name());
    assert_eq!(v["old"]["trace_len"], 4);
    assert!(v["new"]["states"].as_u64().unwrap_or(0) > 1);
    assert_eq!(v["new"]["failed"].as_array().map(|a| a.len()), Some(0));
}

#[test]
fn property_names_are_unique_per_design() {
    for e in entries::all() {
        for m in [&e.old, &e.new] {
            let mut names: Vec<&str> = m.checks.iter().map(|c| c.name()).collect();
            let n = names.len();
            names.sort();
            names.dedup();
            assert_eq!(names.len(), n, "{}: a property listed twice", e.id);
        }
    }
}
