//! The SQL search's reductions against an exact search (issue 28, item 3): the
//! canonical fingerprint (`mdl_conform::model::canon`: ticket ids and acquisition
//! numbers left out) and the private steps taken alone (`mdl_check::sql::quiet`) give the
//! same verdict for every property as a search that tells states apart by their whole
//! `Debug` text and takes every action, on every bundled SQL scenario
//! (`models/scenarios/sql/`) and on random SQL scenarios (`mdl_conform::random`'s
//! generator, the one `mdl conform --random` plays on the server). The seeded bug of the
//! private steps (`sql_quiet_any_step`) is caught by the same comparison. (A seeded bug
//! that leaves the lock table out of the fingerprint altogether is not: the rest of a
//! SQL state, program counters and sessions with their statements in progress, decides
//! its lock table in every scenario compared.)

use mdl_check::sql::check::{check_with, options, DEFAULT_MAX_STATES};
use mdl_check::sql::{SqlAction, SqlCheck, SqlState};
use mdl_scenario::Scenario;
use std::collections::HashSet;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn parse(name: &str, text: &str) -> Scenario {
    mdl_scenario::read::read_bytes(name, text.as_bytes())
        .unwrap_or_else(|e| panic!("{e}"))
        .scenario
}

/// Every state reachable, told apart by its whole `Debug` text (no fingerprint, no
/// reduction): per property, whether some state shows it; `None` past `cap` states.
fn exact_found(m: &SqlCheck, cap: usize) -> Option<Vec<bool>> {
    let props = m.props();
    let mut found = vec![false; props.len()];
    let key = |s: &SqlState| {
        format!(
            "{:?}|{:?}|{:?}|{:?}|{:?}|{:?}",
            s.model, s.pc, s.last, s.kills_left, s.unmodelled, s.bad_grant
        )
    };
    let init = m.initial();
    let mut seen = HashSet::from([key(&init)]);
    let mut stack = vec![init];
    let mut acts: Vec<SqlAction> = Vec::new();
    while let Some(st) = stack.pop() {
        for (i, p) in props.iter().enumerate() {
            found[i] |= m.occurs(*p, &st);
        }
        acts.clear();
        m.enabled(&st, &mut acts);
        for &a in &acts {
            let (next, _) = m.apply(&st, a);
            if seen.insert(key(&next)) {
                if seen.len() > cap {
                    return None;
                }
                stack.push(next);
            }
        }
    }
    Some(found)
}

/// Per property, whether our search (with its reduction when `por`) found it shown.
fn search_found(m: &SqlCheck, por: bool) -> (Vec<bool>, u64) {
    let o = mdl_check::model::search::SearchOptions {
        por,
        ..options(DEFAULT_MAX_STATES)
    };
    let r = check_with(m, &o);
    assert!(r.complete, "{}: not complete", m.scenario.file);
    let found = r
        .props
        .iter()
        .map(|p| p.violated != m.is_sometimes(p.prop))
        .collect();
    (found, r.unique)
}

/// The bundled SQL scenarios and `random` generated ones.
fn scenarios(random: u64) -> Vec<Scenario> {
    let dir = root().join("models/scenarios/sql");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("models/scenarios/sql")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "mdl"))
        .collect();
    files.sort();
    let mut v: Vec<Scenario> = files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).expect("read");
            parse(&f.display().to_string(), &text)
        })
        .collect();
    let map = mdl_check::sql::mapping().expect("the learned table");
    for seed in 1..=random {
        let g = mdl_conform::random::generate(&map, 7_000 + seed, 3, 7);
        v.push(parse(
            &format!("random seed {}", 7_000 + seed),
            &g.text(&[]),
        ));
    }
    v
}

/// The files on which a search's verdicts differ from the exact search's, and how many
/// were compared.
fn compare(random: u64) -> (usize, Vec<String>) {
    let mut differ = Vec::new();
    let mut compared = 0;
    for sc in scenarios(random) {
        let Ok(m) = SqlCheck::new(&sc) else { continue };
        let Some(exact) = exact_found(&m, 300_000) else {
            continue;
        };
        compared += 1;
        for por in [false, true] {
            let (found, _) = search_found(&m, por);
            if found != exact {
                differ.push(format!(
                    "{} (reduction {}): {found:?}, exact {exact:?}",
                    sc.file,
                    if por { "on" } else { "off" }
                ));
            }
        }
    }
    (compared, differ)
}

#[cfg(not(mdl_bug = "sql_quiet_any_step"))]
#[test]
fn the_reductions_give_the_exact_searchs_verdicts() {
    let (compared, differ) = compare(40);
    assert!(compared >= 40, "only {compared} scenarios compared");
    assert!(differ.is_empty(), "{differ:#?}");
}

/// The reduction takes private steps alone: fewer states than without it, on a file whose
/// transactions begin while others run.
#[test]
fn private_steps_are_taken_alone() {
    let text = "dialect mariadb\n\
                a: sql BEGIN\n\
                a: sql UPDATE t1 SET b=1 WHERE a=1\n\
                a: sql COMMIT\n\
                b: sql BEGIN\n\
                b: sql UPDATE t1 SET b=2 WHERE a=2\n\
                b: sql COMMIT\n";
    let m = SqlCheck::new(&parse("begin.mdl", text)).expect("model");
    let (on, n_on) = search_found(&m, true);
    let (off, n_off) = search_found(&m, false);
    assert_eq!(on, off);
    assert!(
        n_on < n_off,
        "{n_on} states with the reduction, {n_off} without"
    );
}

#[cfg(mdl_bug = "sql_quiet_any_step")]
#[test]
fn the_comparison_catches_the_seeded_sql_quiet_bug() {
    let (_, differ) = compare(40);
    assert!(
        differ.iter().any(|d| d.contains("reduction on")),
        "the comparison missed the seeded bug of private steps"
    );
}
