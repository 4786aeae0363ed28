//! Our search against stateright's checker (`mdl check --engine stateright`) on the same
//! model: every bundled scenario (`models/scenarios/*.mdl`, `tests/check_scenarios/`) and
//! the SQL scenarios (`models/scenarios/sql/*.mdl`, on the SQL model: verdicts, unique
//! states and the outcomes statements reached), every design of the bug zoo (a
//! stateright model on our engine through its adapter: verdicts and unique states) and
//! a few hundred random scenarios (kills, timeouts, bulk requests, upgrades and every
//! assert kind). Without reductions, every property gets the same verdict and a complete
//! search the same number of unique states; with the reductions (our default), the same
//! verdicts (for SQL scenarios: private steps alone and symmetry). A file whose search is cut by the state bound in either engine is not
//! compared (the test requires them to be few).
//!
//! This runs in the seeded-bug builds too: a seeded bug of the lock core changes both
//! engines alike. The seeded bug of our engine (`search_drops_state`: a state marked seen
//! but never expanded) must be found by the comparison: the test then asserts that it is.

use mdl_check::model::check::{check, Options};
use mdl_check::model::reference::{self, RefOptions};
use mdl_check::model::result::CheckResult;
use mdl_check::model::MdlModel;
use mdl_check::sql::check::SqlResult;
use mdl_check::sql::SqlCheck;
use mdl_scenario::parse::parse;
use std::path::PathBuf;

/// States per engine and file (a debug build).
const MAX_STATES: u64 = 30_000;
/// Random scenarios (`MDL_ENGINES_RANDOM` changes it).
const RANDOM: usize = 300;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn files() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for d in [
        "models/scenarios",
        "models/scenarios/sql",
        "models/mdl/tests/check_scenarios",
    ] {
        for e in std::fs::read_dir(root().join(d)).expect("folder") {
            let p = e.expect("entry").path();
            if p.extension().is_some_and(|x| x == "mdl") {
                v.push(p);
            }
        }
    }
    v.sort();
    v
}

fn model(name: &str, text: &str) -> Option<MdlModel> {
    let sc = parse(name, text).ok()?;
    MdlModel::new(&sc).ok()
}

/// A file of `sql` steps: the SQL model, which both engines run too.
fn sql_model(name: &str, text: &str) -> Option<SqlCheck> {
    let sc = parse(name, text).ok()?;
    mdl_check::sql::is_sql(&sc).then(|| SqlCheck::new(&sc).ok())?
}

/// The two engines on a SQL scenario: the differences found, or `None` when a bound cut
/// a search.
fn compare_sql(name: &str, m: &SqlCheck) -> Option<(Vec<String>, bool)> {
    let ours = mdl_check::sql::check::check(m, MAX_STATES);
    let theirs = mdl_check::sql::reference::check(
        m,
        &RefOptions {
            max_states: Some(MAX_STATES * 4),
            threads: 1,
            ..RefOptions::default()
        },
    );
    if ours.incomplete || theirs.incomplete {
        return None;
    }
    let verdicts = |r: &SqlResult| {
        r.props
            .iter()
            .map(|p| (p.name.clone(), p.violated))
            .collect::<Vec<_>>()
    };
    let mut diffs = Vec::new();
    if verdicts(&ours) != verdicts(&theirs) {
        diffs.push(format!(
            "{name}: verdicts differ: ours {:?}, stateright's {:?}",
            verdicts(&ours),
            verdicts(&theirs)
        ));
    }
    // Ours with its reductions (private steps alone, symmetry): the same verdicts.
    let reduced = mdl_check::sql::check::check_with(
        m,
        &mdl_check::model::search::SearchOptions {
            por: true,
            symmetry: true,
            ..mdl_check::sql::check::options(MAX_STATES)
        },
    );
    if !reduced.incomplete && verdicts(&reduced) != verdicts(&theirs) {
        diffs.push(format!(
            "{name}: verdicts with reductions differ: ours {:?}, stateright's {:?}",
            verdicts(&reduced),
            verdicts(&theirs)
        ));
    }
    let both = ours.complete && theirs.complete;
    if both && ours.unique != theirs.unique {
        diffs.push(format!(
            "{name}: unique states differ: ours {}, stateright's {}",
            ours.unique, theirs.unique
        ));
    }
    if both && ours.outcomes != theirs.outcomes {
        diffs.push(format!(
            "{name}: outcomes seen differ: ours {:?}, stateright's {:?}",
            ours.outcomes, theirs.outcomes
        ));
    }
    Some((diffs, both))
}

/// A zoo design (a stateright model run on our engine through its adapter): per property
/// the same verdict, the same unique states; `None` when a bound cut a search.
fn compare_zoo(name: &str, d: &mdl_check::zoo::engine::Design) -> Option<(Vec<String>, bool)> {
    let [ours, theirs] = mdl_check::zoo::both_engines(d, MAX_STATES).ok()?;
    let mut diffs = Vec::new();
    if ours.fired != theirs.fired {
        diffs.push(format!(
            "{name}: verdicts differ: ours {:?}, stateright's {:?}",
            ours.fired, theirs.fired
        ));
    }
    if ours.unique != theirs.unique {
        diffs.push(format!(
            "{name}: unique states differ: ours {}, stateright's {}",
            ours.unique, theirs.unique
        ));
    }
    Some((diffs, true))
}

/// Every design of the zoo: each entry's old and new design and its variants.
fn zoo_designs() -> Vec<(String, mdl_check::zoo::engine::Design)> {
    let mut v = Vec::new();
    for e in mdl_check::zoo::entries::all() {
        v.push((format!("zoo {} (old)", e.id), e.old.clone()));
        v.push((format!("zoo {} (new)", e.id), e.new.clone()));
        for x in &e.variants {
            v.push((format!("zoo {} ({})", e.id, x.label), x.design.clone()));
        }
    }
    v
}

/// splitmix64, for the random scenarios.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, v: &[&'a str]) -> &'a str {
        v[self.below(v.len())]
    }
}

/// A random scenario: 2-4 sessions, two tables and the global lock, requests of every
/// strength with and without timeouts, bulk requests, upgrades, releases, commits, kills
/// and asserts of every kind.
fn random_scenario(seed: u64) -> String {
    let mut r = Rng(seed);
    let n = 2 + r.below(3);
    let keys = ["TABLE db.t1", "TABLE db.t2", "GLOBAL -"];
    let types = ["SR", "SW", "SU", "SNW", "SNRW", "X", "S", "SH"];
    let waits = ["", "", "", " nowait", " timeout=100"];
    let mut out = String::new();
    if r.below(3) == 0 {
        out.push_str("lock_wait_timeout 200\n");
    }
    for s in 0..n {
        for _ in 0..1 + r.below(3) {
            let line = match r.below(8) {
                0 => format!(
                    "acquire_all {} {}, {} {}",
                    r.pick(&keys[..2]),
                    r.pick(&types),
                    keys[2],
                    r.pick(&["IX", "S"])
                ),
                1 => format!("upgrade {} {}", r.pick(&keys[..2]), r.pick(&["SNW", "X"])),
                2 => format!("release {}", r.pick(&keys)),
                3 => "commit".into(),
                k => {
                    let key = if k == 4 { keys[2] } else { r.pick(&keys[..2]) };
                    let ty = if k == 4 {
                        r.pick(&["IX", "S"])
                    } else {
                        r.pick(&types)
                    };
                    format!("acquire {key} {ty} transaction{}", r.pick(&waits))
                }
            };
            out.push_str(&format!("s{s}: {line}\n"));
        }
        out.push_str(&format!("s{s}: commit\n"));
    }
    if r.below(3) == 0 {
        out.push_str(&format!("kill s{}\n", r.below(n)));
    }
    let outcomes = ["granted", "waiting", "deadlock", "busy", "timeout", "error"];
    for _ in 0..r.below(3) {
        let s = r.below(n);
        let line = match r.below(4) {
            0 => format!("assert never s{s} {}", r.pick(&outcomes)),
            1 => format!("assert sometimes s{s} {}", r.pick(&outcomes)),
            2 => format!("assert eventually s{s} granted"),
            _ => format!("assert bounded s{s} {}", r.below(3)),
        };
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The two engines on one model: the differences found, or `None` when a bound cut a
/// search.
fn compare(name: &str, m: &MdlModel) -> Option<(Vec<String>, bool)> {
    let plain = Options {
        symmetry: false,
        por: false,
        dynamic_quiet: false,
        max_states: Some(MAX_STATES),
        threads: 1,
        ..Options::default()
    };
    let ours = check(m, &plain);
    let reduced = check(
        m,
        &Options {
            max_states: Some(MAX_STATES),
            ..Options::default()
        },
    );
    let theirs = reference::check(
        m,
        &RefOptions {
            max_states: Some(MAX_STATES * 4),
            threads: 1,
            ..RefOptions::default()
        },
    );
    if ours.limited || reduced.limited || theirs.limited {
        return None;
    }
    let mut diffs = Vec::new();
    let verdicts = |r: &CheckResult| {
        r.props
            .iter()
            .map(|p| (p.name, p.status))
            .collect::<Vec<_>>()
    };
    if verdicts(&ours) != verdicts(&theirs) {
        diffs.push(format!(
            "{name}: verdicts differ: ours {:?}, stateright's {:?}",
            verdicts(&ours),
            verdicts(&theirs)
        ));
    }
    if verdicts(&reduced) != verdicts(&theirs) {
        diffs.push(format!(
            "{name}: verdicts with reductions differ: ours {:?}, stateright's {:?}",
            verdicts(&reduced),
            verdicts(&theirs)
        ));
    }
    if ours.complete && theirs.complete && ours.unique_states != theirs.unique_states {
        diffs.push(format!(
            "{name}: unique states differ: ours {}, stateright's {}",
            ours.unique_states, theirs.unique_states
        ));
    }
    Some((diffs, ours.complete && theirs.complete))
}

struct Tally {
    compared: usize,
    /// Compared files whose searches were complete in both engines (unique states).
    both_complete: usize,
    skipped: Vec<String>,
    counted: usize,
    /// SQL scenarios compared (models/scenarios/sql/).
    sql: usize,
    differences: Vec<String>,
    /// Zoo designs compared.
    zoo: usize,
}

fn run_all() -> Tally {
    let mut t = Tally {
        compared: 0,
        both_complete: 0,
        skipped: Vec::new(),
        counted: 0,
        sql: 0,
        zoo: 0,
        differences: Vec::new(),
    };
    let mut tally = |name: &str, r: Option<(Vec<String>, bool)>| match r {
        Some((d, counted)) => {
            t.compared += 1;
            t.both_complete += usize::from(counted);
            t.differences.extend(d);
        }
        None => t.skipped.push(name.to_owned()),
    };
    let mut sql_files = 0;
    for f in files() {
        let text = std::fs::read_to_string(&f).expect("file");
        let name = f.display().to_string();
        if let Some(m) = model(&name, &text) {
            tally(&name, compare(&name, &m));
        } else if let Some(m) = sql_model(&name, &text) {
            sql_files += 1;
            tally(&name, compare_sql(&name, &m));
        }
    }
    let random = std::env::var("MDL_ENGINES_RANDOM")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(RANDOM);
    let mut seed = 1u64;
    let mut made = 0;
    while made < random && seed < 20 * random as u64 {
        let text = random_scenario(seed);
        let name = format!("random-{seed}");
        seed += 1;
        let Some(m) = model(&name, &text) else {
            continue;
        };
        made += 1;
        let name = format!("{name}:\n{text}");
        tally(&name, compare(&name, &m));
    }
    let mut zoo = 0;
    for (name, d) in zoo_designs() {
        zoo += 1;
        tally(&name, compare_zoo(&name, &d));
    }
    t.zoo = zoo;
    t.counted = made;
    t.sql = sql_files;
    t
}

#[cfg(not(mdl_bug = "search_drops_state"))]
#[test]
fn the_engines_agree_on_every_bundled_file_and_random_scenarios() {
    let t = run_all();
    eprintln!(
        "{} compared ({} random, {} SQL, {} zoo designs), {} cut by the state bound, {} complete in both engines \
         (unique states compared)",
        t.compared,
        t.counted,
        t.sql,
        t.zoo,
        t.skipped.len(),
        t.both_complete
    );
    assert!(t.sql >= 10, "only {} SQL scenarios compared", t.sql);
    assert!(t.zoo >= 52, "only {} zoo designs compared", t.zoo);
    assert!(
        t.counted >= RANDOM.min(200),
        "only {} random scenarios",
        t.counted
    );
    assert!(
        t.differences.is_empty(),
        "{} differences:\n{}",
        t.differences.len(),
        t.differences.join("\n")
    );
    assert!(
        t.skipped.len() * 10 <= t.compared,
        "{} cut by the state bound, {} compared: {:?}",
        t.skipped.len(),
        t.compared,
        t.skipped
    );
    assert!(
        t.both_complete * 2 >= t.compared,
        "{} of {}",
        t.both_complete,
        t.compared
    );
}

/// The seeded bug of our engine (a state marked seen but never expanded) is caught.
#[cfg(mdl_bug = "search_drops_state")]
#[test]
fn the_comparison_catches_a_dropped_state() {
    let t = run_all();
    assert!(
        t.differences
            .iter()
            .any(|d| d.contains("unique states differ")),
        "the engine comparison missed the dropped state: {:?}",
        t.differences
    );
}

/// The engines also agree through the command line (the same report shape).
#[cfg(not(mdl_bug = "search_drops_state"))]
#[test]
fn the_command_line_runs_both_engines() {
    let f = root().join("models/scenarios/basic-conflict.mdl");
    let f = f.display().to_string();
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_mdl"))
            .args(args)
            .output()
            .expect("mdl runs");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (a, ta) = run(&["check", "--engine", "stateright", "--format", "json", &f]);
    let (b, tb) = run(&[
        "check",
        "--no-por",
        "--no-symmetry",
        "--no-dynamic-quiet",
        "--format",
        "json",
        &f,
    ]);
    assert_eq!(a, b);
    let ja: serde_json::Value = serde_json::from_str(ta.trim()).expect("json");
    let jb: serde_json::Value = serde_json::from_str(tb.trim()).expect("json");
    assert_eq!(ja["search_engine"], "stateright");
    assert_eq!(jb["search_engine"], "mdl");
    assert_eq!(ja["unique_states"], jb["unique_states"]);
    let names = |j: &serde_json::Value| {
        j["properties"]
            .as_array()
            .expect("properties")
            .iter()
            .map(|p| (p["name"].clone(), p["status"].clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(names(&ja), names(&jb));
    let (code, _) = run(&["check", "--engine", "stateright", "--simulate", "3", &f]);
    assert_eq!(code, Some(2));
}
