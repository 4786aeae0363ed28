//! The bug zoo: every old design is caught (for the intended reason, with a shortest
//! trace) and every new one holds; the harness catches seeded mistakes in the fixes.

use mdl_check::zoo::engine::{canon_table, Check, Design, DesignState, Kind, Op};
use mdl_check::zoo::starving_lasso;
use mdl_check::zoo::{self, entries};
use mdl_core::dialect::Dialect;
use mdl_core::key::MdlKey;
use mdl_core::table::{Config, LockTable};
use mdl_core::types::{Duration, LockType, WaitOption};
use mdl_core::OwnerId;
use std::collections::HashSet;

fn entry(id: &str) -> entries::Entry {
    zoo::select(Some(id)).expect("entry").remove(0)
}

#[test]
fn every_old_design_is_caught_and_every_new_one_holds() {
    let es = entries::all();
    assert!(es.len() >= 22, "at least 22 entries");
    let mut ids: Vec<&str> = es.iter().map(|e| e.id).collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), es.len(), "entry ids are unique");
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
        for v in &r.variants {
            assert!(v.ok(), "{}: variant {} unexpected", e.id, v.label);
        }
        assert!(r.ok(), "{}", e.id);
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
        ("two-cycles-one-search", Check::NoStuckCycle),
        ("alter-under-transaction", Check::Isolation),
        ("show-under-lock-tables", Check::NoStuckCycle),
        ("read-no-insert-vs-alter", Check::NoStuckCycle),
        ("lock-tables-read-sro", Check::NoStuckCycle),
        ("snrw-starves-readers", Check::Bounded),
        ("lock-tables-name-order", Check::NoVictim),
        ("backup-tool-cycle", Check::NoStuckCycle),
        ("wrong-lock-type", Check::NoStuckCycle),
        ("merge-children", Check::NoStuckCycle),
        ("create-database-mutex", Check::NoStuckCycle),
        ("alter-database-commits", Check::NoStuckCycle),
        ("sr-then-sw-behind-snrw", Check::NoVictim),
        ("mariadb-skipped-hog", Check::NoLostWakeup),
        ("mysql-switch-cycle", Check::NoStuckCycle),
    ];
    assert_eq!(
        want.len(),
        entries::all().len(),
        "every entry is listed here"
    );
    for (id, c) in want {
        let r = zoo::check_old(&entry(id).old);
        assert_eq!(r.property.as_deref(), Some(c.name()), "{id}");
    }
}

fn violates(m: &Design, st: &DesignState) -> bool {
    m.checks.iter().any(|c| c.is_always() && !m.holds(*c, st))
}

/// An independent breadth-first search: the depth of the nearest violating state.
fn shortest_violation(m: &Design) -> Option<usize> {
    let mut seen: HashSet<DesignState> = HashSet::new();
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
        "alter-under-transaction",
        "lock-tables-read-sro",
        "wrong-lock-type",
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
    let text = zoo::report(&es, &rs, &zoo::latch::all());
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
        simulate: None,
        seed: 1,
        max_time: None,
        max_depth: None,
    });
    assert_eq!(code, 2);
}

fn sim(paths: u64) -> mdl_check::model::sample::SimOptions {
    mdl_check::model::sample::SimOptions {
        paths,
        seed: 1,
        max_depth: None,
        max_time: None,
        max_memory: 1 << 30,
    }
}

/// `mdl zoo --simulate`: sampling finds every old design's bug within 200 paths (the
/// most any entry needed at seed 1 was path 58 of 1,000, models/MODEL.md), and no path
/// violates a new design.
#[test]
fn sampling_finds_every_old_bug_and_no_new_violation() {
    for e in &entries::all() {
        let r = zoo::sample_entry(e, &sim(200));
        assert!(
            r.found(),
            "{}: old design's bug not sampled in 200 paths",
            e.id
        );
        assert!(
            !r.new_violated(),
            "{}: new design violated: {:?}",
            e.id,
            r.new
        );
        assert_eq!(r.new.paths, 200, "{}", e.id);
    }
}

/// The sampled violation is the one the search names (the first violation of a path
/// is a real counterexample to the same property).
#[test]
fn sampling_names_the_searched_property() {
    let r = zoo::sample_entry(&entry("update-vs-alter"), &sim(200));
    let first = r.old.first().expect("found");
    assert_eq!(first.property, Check::NoStuckCycle.name());
    assert!(first.trace_len >= zoo::check_old(&entry("update-vs-alter").old).trace_len);
}

#[test]
fn zoo_simulate_command_exits_by_what_it_found() {
    let args = |entry: &str, paths: u64| mdl::cmd::zoo::Args {
        format: mdl::cmd::zoo::Format::Json,
        entry: Some(entry.into()),
        report: None,
        list: false,
        simulate: Some(paths),
        seed: 1,
        max_time: None,
        max_depth: None,
    };
    assert_eq!(mdl::cmd::zoo::main(args("update-vs-alter", 100)), 0);
    // One path whose bug is first met on a later path: not found, so incomplete (3).
    assert_eq!(mdl::cmd::zoo::main(args("temp-name-review", 1)), 3);
    let mut bad = args("update-vs-alter", 0);
    assert_eq!(mdl::cmd::zoo::main(bad), 2);
    bad = args("update-vs-alter", 10);
    bad.simulate = None;
    bad.max_time = Some(1.0);
    assert_eq!(mdl::cmd::zoo::main(bad), 2);
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

/// The one-pass detector of bug #50998's old design left one cycle standing; the fixed
/// design's repeated search breaks both at the one wait that closes them.
#[test]
fn both_cycles_are_broken_by_the_fixed_detector() {
    let r = zoo::check_new(&entry("two-cycles-one-search").new);
    assert_eq!(r.example.as_deref(), Some(Check::TwoDeadlocks.name()));
    let last = r.example_steps.last().expect("steps");
    let aborted = last
        .events
        .iter()
        .filter(|(_, o)| *o == mdl_core::Outcome::Deadlock)
        .count();
    assert_eq!(aborted, 2, "both INSERTs aborted at the upgrade: {last:?}");
}

/// Seeded mistake for `Isolation`'s fix: without the back-off the old 5.4 design still
/// deadlocks invisibly (the THR_LOCK half), so each half of the old design is caught on
/// its own.
#[test]
fn old_alter_design_without_back_off_hangs_instead() {
    let mut m = entry("alter-under-transaction").old;
    m.backoff = false;
    let r = zoo::check_old(&m);
    assert_eq!(r.property.as_deref(), Some(Check::NoStuckCycle.name()));
}

/// Seeded mistakes for the THR_LOCK entries' fixes: each fix taken back is caught.
#[test]
fn thr_lock_fixes_taken_back_are_caught() {
    let mut m = entry("show-under-lock-tables").new;
    m.show_no_wait = false;
    assert_eq!(
        zoo::check_old(&m).property.as_deref(),
        Some(Check::NoStuckCycle.name())
    );
    let mut m = entry("read-no-insert-vs-alter").new;
    m.res[0].kind = Kind::ThrLockOld;
    assert_eq!(
        zoo::check_old(&m).property.as_deref(),
        Some(Check::NoStuckCycle.name())
    );
}

/// The name dependence of bug #65890: the same old design with the transaction's tables
/// the other way round reaches no deadlock at all.
#[test]
fn lock_tables_deadlock_depends_on_names() {
    let r = zoo::run_entry(&entry("lock-tables-name-order"));
    assert!(r.old.property.is_some());
    assert_eq!(r.variants.len(), 2);
    assert!(r.variants.iter().all(|v| v.property.is_none()), "{r:?}");
}

/// `assert eventually`: the old design's starving run is a real lasso (every step
/// enabled, the cycle returns to the state it left, the reader waits throughout).
#[test]
fn starving_run_is_a_lasso() {
    let m = entries::snrw_stream(u64::MAX);
    let l = starving_lasso(&m).expect("finite").expect("starves");
    assert!(!l.cycle.is_empty());
    let mut st = m.init();
    for a in &l.prefix {
        assert!(m.enabled(&st, *a as usize));
        st = m.step(&st, *a as usize).0;
    }
    let start = st.clone();
    for a in &l.cycle {
        assert!(m.watched_waiting(&st), "the reader waits along the cycle");
        assert!(m.enabled(&st, *a as usize));
        st = m.step(&st, *a as usize).0;
    }
    assert!(st == start, "the cycle closes");
    let r = zoo::check_old(&m);
    let lr = r.lasso.as_ref().map(|x| (x.prefix_len, x.cycle_len));
    assert_eq!(lr, Some((l.prefix.len(), l.cycle.len())));
}

/// The hog counter's limit is the bound: with `max_write_lock_count` = 2 the reader is
/// passed over at most twice (not once), and never starves.
#[test]
fn bound_follows_max_write_lock_count() {
    let mut m = entries::snrw_stream(2);
    assert!(starving_lasso(&m).expect("finite").is_none());
    assert_eq!(
        zoo::check_old(&m).property.as_deref(),
        Some(Check::Bounded.name()),
        "passed over twice: over N = 1"
    );
    m.starve_bound = 2;
    assert_eq!(zoo::check_old(&m).property, None, "N = 2 holds");
}

/// States are compared up to the renaming of ticket ids: two tables that differ only in
/// how their tickets were numbered are one state, others are not.
#[test]
fn states_are_equal_up_to_ticket_renaming() {
    let d = Dialect::mysql80();
    let ns = d.namespace_by_name("TABLE").expect("TABLE");
    let a = MdlKey::new(ns, "test", "a");
    let b = MdlKey::new(ns, "test", "b");
    let s0 = OwnerId(0);
    let w = WaitOption::Forever;
    let mut t1 = LockTable::new(std::sync::Arc::new(d.clone()), Config::default());
    t1.add_session();
    let _ = t1.acquire(s0, &a, LockType::SR, Duration::Statement, w);
    let _ = t1.end_statement(s0);
    let _ = t1.acquire(s0, &b, LockType::SR, Duration::Statement, w);
    let mut t2 = LockTable::new(std::sync::Arc::new(d.clone()), Config::default());
    t2.add_session();
    let _ = t2.acquire(s0, &b, LockType::SR, Duration::Statement, w);
    assert!(t1 != t2, "the tickets are numbered differently");
    assert_eq!(canon_table(&t1), canon_table(&t2));
    let _ = t2.acquire(s0, &a, LockType::SR, Duration::Statement, w);
    assert_ne!(canon_table(&t1), canon_table(&t2));
}

/// The latch-level entries: each names a seeded bug of the concurrent shell that the
/// registry says its shuttle test catches, the test exists in `proofs/tests/latch.rs`,
/// the recorded trace is a failure of that test, and `mdl zoo` lists them.
#[test]
fn latch_entries_name_registered_bugs_and_existing_tests() {
    use mdl_ci::bugs::{self, Harness, Layer};
    let latch = zoo::latch::all();
    assert!(latch.len() >= 3, "three latch-level entries");
    let protocol = entries::all();
    assert!(protocol.len() + latch.len() >= 22, "at least 22 entries");
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let src = std::fs::read_to_string(format!("{root}/{}", zoo::latch::TEST_FILE))
        .expect("proofs/tests/latch.rs");
    let mut ids: HashSet<&str> = protocol.iter().map(|e| e.id).collect();
    for e in &latch {
        assert!(ids.insert(e.id), "{}: id used twice", e.id);
        let b = bugs::find(e.seeded_bug)
            .unwrap_or_else(|| panic!("{}: seeded bug {} not registered", e.id, e.seeded_bug));
        assert_eq!(b.layer, Layer::ConcurrentShell, "{}", e.id);
        assert!(
            b.catches.iter().any(|c| c.harness == Harness::Shuttle
                && c.file == zoo::latch::TEST_FILE
                && c.test == e.test),
            "{}: the registry does not say that shuttle `{}` catches {}",
            e.id,
            e.test,
            e.seeded_bug
        );
        assert!(
            src.contains(&format!("#[test]\nfn {}() {{", e.test)),
            "{}: no test `{}` in {}",
            e.id,
            e.test,
            zoo::latch::TEST_FILE
        );
        assert!(
            e.trace
                .contains(&format!("proof {}: FAILED at schedule", e.test)),
            "{}: the recorded trace is not a failure of `{}` (models/zoo/latch/{}.txt)",
            e.id,
            e.test,
            e.id
        );
        assert!(
            e.trace.contains(" | mdl "),
            "{}: no event in the trace",
            e.id
        );
        assert!(e
            .command_old()
            .starts_with(&format!("MDL_BUG={} ", e.seeded_bug)));
        assert!(e
            .command_new()
            .contains(&format!("--test latch {} ", e.test)));
        assert!(!e.command_new().contains("MDL_BUG"));
    }
    let table = zoo::latch::table(&latch);
    for e in &latch {
        assert!(table.contains(&e.command_old()), "{}", e.id);
    }
    // `--entry` selects a latch entry too.
    let code = mdl::cmd::zoo::main(mdl::cmd::zoo::Args {
        format: mdl::cmd::zoo::Format::Text,
        entry: Some(latch[0].id.into()),
        report: None,
        list: false,
        simulate: None,
        seed: 1,
        max_time: None,
        max_depth: None,
    });
    assert_eq!(code, 0);
}

/// Finding 2's patch breaks the cycle the switch made with one victim, the lighter DML
/// session `b`, and finding 1's leaves nobody waiting who could go.
#[test]
fn the_findings_patches_break_the_cycle_and_leave_no_stall() {
    let new = entries::switch_cycle_design(true);
    assert!(new.checks.contains(&Check::DeadlockReported));
    let r = zoo::check_new(&new);
    assert!(r.failed.is_empty(), "{:?}", r.failed);
    let victims: HashSet<usize> = r
        .example_steps
        .iter()
        .flat_map(|s| s.events.iter())
        .filter(|(_, o)| *o == mdl_core::Outcome::Deadlock)
        .map(|(w, _)| *w)
        .collect();
    assert_eq!(victims, HashSet::from([2]), "only b (DML) is a victim");
    // Without the search, the same programs hang in the cycle.
    let old = zoo::check_old(&entries::switch_cycle_design(false));
    assert_eq!(old.property.as_deref(), Some(Check::NoStuckCycle.name()));
    let old = zoo::check_old(&entries::skipped_hog_design(false));
    assert_eq!(old.property.as_deref(), Some(Check::NoLostWakeup.name()));
    assert!(zoo::check_new(&entries::skipped_hog_design(true))
        .failed
        .is_empty());
}

/// Finding 1's patch as a dialect folder (`models/zoo/designs/mariadb-repass`): over every
/// bundled lock scenario that reads in mariadb, as written and with
/// `max_write_lock_count 1`, `mdl check` gives the same verdicts as in `mariadb`, except
/// that the skipped hog's lost wakeup is gone: no new victim (false deadlock), stall or
/// stuck state.
#[test]
fn the_repass_design_changes_no_bundled_verdict_but_the_stall() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let design = root.join("models/zoo/designs/mariadb-repass");
    let tmp = std::env::temp_dir().join(format!("mdl-zoo-repass-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let verdicts = |dialect: &std::path::Path, f: &std::path::Path| -> Vec<String> {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_mdl"))
            .args(["check", "--max-states", "300000", "--dialect"])
            .arg(dialect)
            .arg(f)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .take_while(|l| !l.trim_start().starts_with('`'))
            .filter(|l| l.starts_with("  ") && (l.ends_with(" holds") || l.ends_with(" violated")))
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect()
    };
    let mut files = Vec::new();
    for dir in ["models/scenarios", "models/mdl/tests/check_scenarios"] {
        for e in std::fs::read_dir(root.join(dir)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "mdl") {
                files.push(p);
            }
        }
    }
    files.sort();
    let (mut compared, mut changed) = (0, Vec::new());
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        if text.lines().any(|l| l.contains(": sql ")) {
            continue;
        }
        let limited = tmp.join(f.file_name().unwrap());
        if text.lines().any(|l| l.starts_with("max_write_lock_count")) {
            std::fs::write(&limited, &text).unwrap();
        } else {
            std::fs::write(&limited, format!("max_write_lock_count 1\n{text}")).unwrap();
        }
        for x in [f.clone(), limited] {
            let a = verdicts(std::path::Path::new("mariadb"), &x);
            if a.is_empty() {
                continue; // not a mariadb file (GLOBAL, USER_LEVEL_LOCK)
            }
            compared += 1;
            let b = verdicts(&design, &x);
            if a != b {
                let name = x.file_name().unwrap().to_string_lossy().to_string();
                let gone = a.iter().zip(&b).all(|(p, q)| {
                    p == q || (p == "no lost wakeup violated" && q == "no lost wakeup holds")
                });
                assert!(gone && a.len() == b.len(), "{name}: {a:?} -> {b:?}");
                changed.push(name);
            }
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(compared >= 80, "{compared} runs compared");
    changed.sort();
    changed.dedup();
    assert_eq!(
        changed,
        [
            "mariadb_skipped_hog_stall.mdl",
            "mysql_skipped_hog_no_stall.mdl"
        ],
        "only the stall's files change"
    );
}

/// Finding 2's lock-level scenario (`models/zoo/findings/mysql_switch_cycle.mdl`): `mdl
/// check` finds the stuck cycle with `max_write_lock_count 1` and nothing without it.
#[test]
fn the_switch_cycle_scenario_is_stuck_only_with_the_limit() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let f = root.join("models/zoo/findings/mysql_switch_cycle.mdl");
    let check = |p: &std::path::Path| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_mdl"))
            .arg("check")
            .arg(p)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let with = check(&f);
    assert!(with.contains("no stuck state         violated"), "{with}");
    assert!(
        with.contains("a waits for b on TABLE db.t (wants SNRW; b queued SW, pending"),
        "{with}"
    );
    let text = std::fs::read_to_string(&f).unwrap();
    let tmp = std::env::temp_dir().join(format!("mdl-switch-{}.mdl", std::process::id()));
    let without: String = text
        .lines()
        .filter(|l| !l.starts_with("max_write_lock_count"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&tmp, without).unwrap();
    let without = check(&tmp);
    let _ = std::fs::remove_file(&tmp);
    assert!(!without.contains("violated"), "{without}");
}

/// Seeded bug `cycle_ignores_pending` (the checker's cycle search, `model/cycle.rs`, takes
/// any cycle for a starving run): the fixed design of `snrw-starves-readers`, whose
/// writers loop for ever after the reader was served, fails its `assert eventually`.
#[cfg(mdl_bug = "cycle_ignores_pending")]
#[test]
fn seeded_cycle_ignores_pending_is_caught() {
    let r = zoo::check_new(&entry("snrw-starves-readers").new);
    assert!(
        r.failed.iter().any(|f| f == Check::Eventually.name()),
        "the cycle search's seeded bug was not caught: {:?}",
        r.failed
    );
}
