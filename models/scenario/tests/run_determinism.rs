//! `mdl run` does not depend on thread timing: every bundled scenario
//! (`models/scenarios/*.mdl`, `models/mdl/tests/check_scenarios/*.mdl`), every scenario
//! example of the docs and a few hundred random scenarios, played many times on the
//! concurrent manager (its task engine and its thread engine), give one transcript
//! each, equal to the sequential table's.
//!
//! The random scenarios aim at what used to race: waits sharing a deadline
//! (`lock_wait_timeout` and a few `timeout=` values, `advance` past several at once),
//! bulk requests woken together, kills of waiters whose abort lets others in (kills
//! during reschedules), deadlocks found while a timeout is carried out, and files that
//! turn invalid midway.
//!
//! Counts: `MDL_RUN_REPEAT` runs per file on the manager (default 50), `MDL_RUN_RANDOM`
//! random files (default 300), `MDL_RUN_SEED` the first seed (default 1). The nightly
//! tier raises them (`ci/README.md`).

#![cfg(not(mdl_bug = "run_report_early"))]

use mdl_scenario::parse::parse;
use mdl_scenario::runner::{self, Engine, Entry, Transcript};
use mdl_scenario::{Command, Item, Scenario};
use std::path::{Path, PathBuf};

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A transcript with the error of an invalid file: what must be equal.
fn outcome(t: &Transcript) -> String {
    match &t.invalid {
        Some(e) => format!("{}invalid: {e}\n", t.text()),
        None => t.text(),
    }
}

fn mdl_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "mdl"))
        .collect();
    v.sort();
    v
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The bundled scenarios and the model checker's test scenarios.
fn bundled() -> Vec<(String, Scenario)> {
    let mut out = Vec::new();
    for dir in ["models/scenarios", "models/mdl/tests/check_scenarios"] {
        for p in mdl_files(&root().join(dir)) {
            let text = std::fs::read_to_string(&p).expect("read");
            let name = p.display().to_string();
            let sc = parse(&name, &text).unwrap_or_else(|e| panic!("{e}"));
            out.push((name, sc));
        }
    }
    out
}

/// Every ```text block of the docs that is a scenario (without `sql` steps).
fn doc_examples() -> Vec<(String, Scenario)> {
    let mut out = Vec::new();
    let mut docs = vec![root().join("README.md")];
    for dir in ["models/docs", "models"] {
        let mut v: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
            .expect("docs")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == "md"))
            .collect();
        v.sort();
        docs.extend(v);
    }
    for d in docs {
        let text = std::fs::read_to_string(&d).expect("doc");
        let mut rest = text.as_str();
        let mut n = 0;
        while let Some(i) = rest.find("```text\n") {
            let body = &rest[i + 8..];
            let Some(j) = body.find("```") else { break };
            n += 1;
            let name = format!("{} example {n}", d.display());
            if let Ok(sc) = parse(&name, &body[..j]) {
                let steps = sc.lines.iter().any(|l| matches!(l.item, Item::Step { .. }));
                let sql = sc.lines.iter().any(|l| {
                    matches!(
                        &l.item,
                        Item::Step {
                            cmd: Command::Sql(_),
                            ..
                        }
                    )
                });
                if steps && !sql {
                    out.push((name, sc));
                }
            }
            rest = &body[j + 3..];
        }
    }
    out
}

/// splitmix64.
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
    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// Per session: does its latest step still wait, at the end of a transcript?
fn waiting(t: &Transcript, sessions: &[String]) -> Vec<bool> {
    let mut w = vec![false; sessions.len()];
    let idx = |name: &str| sessions.iter().position(|s| s == name);
    for e in &t.entries {
        match e {
            Entry::Step(s) => {
                if let Some(i) = idx(&s.session) {
                    w[i] = s.outcome == mdl_core::Outcome::Waiting;
                }
            }
            Entry::Event(v) => {
                if let Some(i) = idx(&v.session) {
                    w[i] = false;
                }
            }
            _ => {}
        }
    }
    w
}

/// A random scenario, built line by line: a step is only given to a session that does
/// not wait (the table engine tells), except at the very end of some files, which turn
/// invalid there.
fn random_scenario(seed: u64) -> String {
    let mut r = Rng(seed);
    let mariadb = r.chance(25);
    let mut head = String::new();
    if mariadb {
        head.push_str("dialect mariadb\n");
    }
    let shared = [10u64, 20, 50];
    if r.chance(60) {
        head.push_str(&format!("lock_wait_timeout {}\n", r.pick(&shared)));
    }
    if r.chance(20) {
        head.push_str(&format!("max_write_lock_count {}\n", 1 + r.below(2)));
    }
    let pile = !mariadb && r.chance(35);
    let n = if pile { 4 } else { 2 + r.below(3) };
    let sessions: Vec<String> = (1..=n).map(|i| format!("s{i}")).collect();
    let keys = ["TABLE db.t1", "TABLE db.t2", "TABLE db.t3"];
    let keys = &keys[..2 + r.below(2)];
    let types: &[&str] = if mariadb {
        &["S", "SH", "SR", "SW", "SU", "SRO", "SNW", "SNRW", "X"]
    } else {
        &[
            "S", "SH", "SR", "SW", "SWLP", "SU", "SRO", "SNW", "SNRW", "X",
        ]
    };
    let waits = [
        "",
        "",
        " timeout=10",
        " timeout=20",
        " timeout=50",
        " nowait",
    ];
    let mut lines: Vec<String> = Vec::new();
    let mut gone = vec![false; n];
    let mut len = 8 + r.below(22);
    if pile {
        lines = pile_up(&mut r, keys);
        len = r.below(8);
    }
    let play = |lines: &[String]| {
        let text = format!("{head}{}", lines.join(""));
        let sc = parse("gen.mdl", &text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        runner::run_engine(&sc, Engine::Table)
    };
    // Session names in order of first appearance are the runner's order.
    let mut order: Vec<String> = Vec::new();
    for l in &lines {
        let name = l.split(':').next().unwrap_or("").to_owned();
        if l.contains(": ") && !order.contains(&name) {
            order.push(name);
        }
    }
    let mut w = vec![false; n];
    if !lines.is_empty() {
        let t = play(&lines);
        let by_order = waiting(&t, &order);
        for (i, name) in order.iter().enumerate() {
            if let Some(s) = sessions.iter().position(|x| x == name) {
                w[s] = by_order[i];
            }
        }
    }
    for _ in 0..len {
        let free: Vec<usize> = (0..n).filter(|&s| !w[s] && !gone[s]).collect();
        let waiting_now: Vec<usize> = (0..n).filter(|&s| w[s]).collect();
        let roll = r.below(100);
        let line = if !waiting_now.is_empty() && roll < 12 {
            format!("kill {}\n", sessions[*r.pick(&waiting_now)])
        } else if roll < 24 {
            format!("advance {}\n", r.pick(&[5u64, 10, 20, 30, 50, 100]))
        } else if free.is_empty() {
            format!("advance {}\n", r.pick(&[10u64, 20, 50]))
        } else {
            let s = *r.pick(&free);
            let name = &sessions[s];
            let key = *r.pick(keys);
            let ty = *r.pick(types);
            let wait = *r.pick(&waits);
            let cmd = match r.below(100) {
                0..=34 => format!("acquire {key} {ty}{wait}"),
                35..=49 => {
                    let k = 2 + r.below(2);
                    let reqs: Vec<String> = (0..k)
                        .map(|_| format!("{} {}", r.pick(keys), r.pick(types)))
                        .collect();
                    format!("acquire_all{wait} {}", reqs.join(", "))
                }
                50..=59 => format!("upgrade {key} {}{wait}", r.pick(&["SNW", "SNRW", "X"])),
                60..=63 => format!("downgrade {key} {}", r.pick(&["SR", "SU", "SNW"])),
                64..=71 => format!("release {key}"),
                72..=87 => "commit".into(),
                88..=91 => "end_statement".into(),
                92..=94 => format!("acquire {key} {ty} explicit{wait}"),
                95..=96 => "release_explicit".into(),
                97 => "force_dml_weight on".into(),
                98 => "disconnect".into(),
                _ if mariadb => format!(
                    "acquire BACKUP - {}{wait}",
                    r.pick(&[
                        "BACKUP_DML",
                        "BACKUP_DDL",
                        "BACKUP_FTWRL1",
                        "BACKUP_BLOCK_DDL"
                    ])
                ),
                _ => format!("acquire GLOBAL - {}{wait}", r.pick(&["IX", "S"])),
            };
            if cmd == "disconnect" {
                gone[s] = true;
            }
            format!("{name}: {cmd}\n")
        };
        if line.contains(": ") {
            let name = line.split(':').next().unwrap_or("").to_owned();
            if !order.contains(&name) {
                order.push(name);
            }
        } else if line.starts_with("kill") && order.is_empty() {
            continue;
        }
        lines.push(line);
        if r.chance(15) && !order.is_empty() {
            let who = r.pick(&order).clone();
            let what = r.pick(&["waiting", "granted", "timeout", "deadlock", "killed"]);
            lines.push(format!("expect {who} {what}\n"));
        }
        let t = play(&lines);
        let by_order = waiting(&t, &order);
        w = vec![false; n];
        for (i, name) in order.iter().enumerate() {
            if let Some(s) = sessions.iter().position(|x| x == name) {
                w[s] = by_order[i];
            }
        }
    }
    // Some files turn invalid at their end: a step for a session that still waits.
    if let Some(s) = (0..n).find(|&s| w[s]) {
        if r.chance(30) {
            lines.push(format!("{}: commit\n", sessions[s]));
            lines.push("advance 1000\n".into());
        }
    }
    format!("{head}{}", lines.join(""))
}

/// The start of a pile-up on one key (mysql-8.0, sessions s1-s4), randomised: s1 holds
/// a shared lock on `a`, s4 holds `b`; s2 waits for a strong lock on `a`; s3's bulk
/// request (`a`, then `b`) and s4's request on `a` queue behind s2's pending one. Then
/// s2's wait ends by a kill or by a timeout (sometimes sharing its deadline with s3's and
/// s4's): that lets s3 and s4 in, or not, and s3 going on to `b` may close a cycle with
/// s4, decided while the kill or the timeout is carried out.
fn pile_up(r: &mut Rng, keys: &[&str]) -> Vec<String> {
    let a = keys[0];
    let b = keys[1];
    let held = *r.pick(&["SR", "SH", "S", "SW"]);
    let strong = *r.pick(&["X", "SNRW", "X"]);
    let timed = r.chance(50);
    let t = *r.pick(&[10u64, 20]);
    let wait = |r: &mut Rng| {
        if timed && r.chance(50) {
            format!(" timeout={t}")
        } else {
            String::new()
        }
    };
    let bulk_a = *r.pick(&["SW", "SR", "SW"]);
    let bulk_b = *r.pick(&["SW", "SR", "X"]);
    let later = *r.pick(&["SRO", "SNW", "SRO", "X", "SU"]);
    let mut v = vec![
        format!("s1: acquire {a} {held}\n"),
        format!("s4: acquire {b} X\n"),
        format!(
            "s2: acquire {a} {strong}{}\n",
            if timed {
                format!(" timeout={t}")
            } else {
                String::new()
            }
        ),
        format!("s3: acquire_all{} {a} {bulk_a}, {b} {bulk_b}\n", wait(r)),
        format!("s4: acquire {a} {later}{}\n", wait(r)),
    ];
    if timed {
        v.push(format!("advance {t}\n"));
    } else {
        v.push("kill s2\n".into());
    }
    v
}

struct Tally {
    files: usize,
    runs: usize,
    deadlocks: usize,
    timeouts: usize,
    kills: usize,
    invalid: usize,
    left_waiting: usize,
    /// Files where a `kill` or `advance` line ended with a deadlock (a bulk request let
    /// in went on and closed a cycle).
    deadlock_on_kill_or_advance: usize,
    /// Files where a `kill` let another session in.
    kill_lets_in: usize,
    /// Files where one `advance` timed out two waits or more.
    shared_deadline: usize,
}

/// Plays `sc` on the table once and on the manager `repeat` times; every manager
/// transcript must be the table's.
fn same_every_time(name: &str, sc: &Scenario, repeat: usize, tally: &mut Tally) {
    let want = runner::run_engine(sc, Engine::Table);
    let want_text = outcome(&want);
    for (e, i) in [Engine::Manager, Engine::Threads]
        .into_iter()
        .flat_map(|e| (0..repeat).map(move |i| (e, i)))
    {
        let got = outcome(&runner::run_engine(sc, e));
        if got != want_text {
            let first = want_text
                .lines()
                .zip(got.lines())
                .find(|(a, b)| a != b)
                .map(|(a, b)| format!("table:   {a}\nmanager: {b}"))
                .unwrap_or_else(|| "one transcript is longer".into());
            panic!(
                "{name}: run {} of {repeat} on the {e:?} engine differs from the table; \
                 first difference:\n{first}\n\ntable:\n{want_text}\nmanager:\n{got}",
                i + 1
            );
        }
    }
    tally.files += 1;
    tally.runs += repeat;
    let has = |o: mdl_core::Outcome| {
        want.steps().any(|s| s.outcome == o) || want.events().any(|e| e.outcome == o)
    };
    tally.deadlocks += usize::from(has(mdl_core::Outcome::Deadlock));
    tally.timeouts += usize::from(has(mdl_core::Outcome::Timeout));
    tally.kills += usize::from(has(mdl_core::Outcome::Killed));
    tally.invalid += usize::from(want.invalid.is_some());
    tally.left_waiting += usize::from(!want.left_waiting.is_empty());
    let mut dl = false;
    let mut lets_in = false;
    let mut shared = false;
    for e in &want.entries {
        let Entry::Top { line, text } = e else {
            continue;
        };
        let ev: Vec<_> = want.events().filter(|v| v.after_line == *line).collect();
        dl |= ev.iter().any(|v| v.outcome == mdl_core::Outcome::Deadlock);
        if let Some(victim) = text.strip_prefix("kill ") {
            lets_in |= ev
                .iter()
                .any(|v| v.session != victim && v.outcome == mdl_core::Outcome::Granted);
        }
        if text.starts_with("advance") {
            shared |= ev
                .iter()
                .filter(|v| v.outcome == mdl_core::Outcome::Timeout)
                .count()
                >= 2;
        }
    }
    tally.deadlock_on_kill_or_advance += usize::from(dl);
    tally.kill_lets_in += usize::from(lets_in);
    tally.shared_deadline += usize::from(shared);
}

#[test]
fn every_scenario_gives_one_transcript_on_both_engines() {
    let repeat = env_usize("MDL_RUN_REPEAT", 50);
    let randoms = env_usize("MDL_RUN_RANDOM", 300);
    let seed = env_usize("MDL_RUN_SEED", 1) as u64;
    let start = std::time::Instant::now();
    let mut tally = Tally {
        files: 0,
        runs: 0,
        deadlocks: 0,
        timeouts: 0,
        kills: 0,
        invalid: 0,
        left_waiting: 0,
        deadlock_on_kill_or_advance: 0,
        kill_lets_in: 0,
        shared_deadline: 0,
    };
    let fixed = bundled();
    assert!(fixed.len() >= 30, "{} bundled scenarios", fixed.len());
    let examples = doc_examples();
    assert!(!examples.is_empty(), "no scenario example in the docs");
    for (name, sc) in fixed.iter().chain(&examples) {
        same_every_time(name, sc, repeat, &mut tally);
    }
    let named = tally.files;
    for i in 0..randoms as u64 {
        let text = random_scenario(seed + i);
        let name = format!("random scenario, seed {}", seed + i);
        let sc = parse(&name, &text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        same_every_time(&format!("{name}:\n{text}\n"), &sc, repeat, &mut tally);
    }
    eprintln!(
        "{} files ({} bundled and doc examples, {randoms} random), {} runs on the manager \
         ({repeat} each), in {:.1} s; files with a deadlock {}, a timeout {}, a kill {}, \
         invalid midway {}, left waiting {}, a deadlock decided by a kill or advance line {}, \
         a kill that let another in {}, two timeouts in one advance {}",
        tally.files,
        named,
        tally.runs,
        start.elapsed().as_secs_f64(),
        tally.deadlocks,
        tally.timeouts,
        tally.kills,
        tally.invalid,
        tally.left_waiting,
        tally.deadlock_on_kill_or_advance,
        tally.kill_lets_in,
        tally.shared_deadline
    );
    // The random files reach what they aim at.
    if randoms >= 100 {
        for (what, n) in [
            ("a deadlock", tally.deadlocks),
            ("a timeout", tally.timeouts),
            ("a kill", tally.kills),
            ("invalid midway", tally.invalid),
            ("a kill that let another in", tally.kill_lets_in),
            ("two timeouts in one advance", tally.shared_deadline),
            (
                "a deadlock decided by a kill or advance line",
                tally.deadlock_on_kill_or_advance,
            ),
        ] {
            assert!(n >= randoms / 50, "only {n} files with {what}");
        }
    }
}

/// Plays `text` 50 times on each engine; every transcript must be the same and every
/// expectation must hold.
fn always(name: &str, text: &str) {
    let sc = parse(name, text).unwrap_or_else(|e| panic!("{e}"));
    let want = runner::run_engine(&sc, Engine::Table);
    assert!(want.ok(), "{name}: table:\n{}", outcome(&want));
    for e in [Engine::Table, Engine::Manager, Engine::Threads] {
        for i in 0..50 {
            let t = runner::run_engine(&sc, e);
            assert_eq!(
                outcome(&t),
                outcome(&want),
                "{name}: run {} on the {e:?} engine",
                i + 1
            );
        }
    }
}

/// The issue's first case: an upgrade and a reader queued behind it share a deadline.
/// The upgrade asked first, so it times out first, and that lets the reader in.
#[test]
fn waits_sharing_a_deadline_end_in_request_order() {
    always(
        "pending-upgrade.mdl",
        "lock_wait_timeout 100\n\
         s1: acquire TABLE a.t SU\n\
         s2: acquire TABLE a.t SR\n\
         s1: upgrade TABLE a.t X\n\
         s3: acquire TABLE a.t SR\n\
         expect s3 waiting\n\
         advance 100\n\
         expect s1 timeout\n\
         expect s3 granted\n",
    );
}

/// An ALTER pile-up: a long SELECT, an ALTER waiting to upgrade, readers and writers and
/// a second ALTER behind it, every wait with the same `lock_wait_timeout`. One outcome.
#[test]
fn an_alter_pile_up_has_one_outcome() {
    always(
        "alter-pile-up.mdl",
        "lock_wait_timeout 50\n\
         s1: acquire TABLE db.t SR\n\
         s2: acquire TABLE db.t SU\n\
         s2: upgrade TABLE db.t X\n\
         s3: acquire TABLE db.t SR\n\
         s4: acquire TABLE db.t SW\n\
         s5: acquire TABLE db.t SU\n\
         expect s3 waiting\n\
         advance 50\n\
         expect s2 timeout\n\
         expect s3 granted\n\
         expect s4 granted\n\
         expect s5 timeout\n\
         s2: commit\n\
         s1: commit\n\
         s3: commit\n\
         s4: commit\n",
    );
}

/// Two bulk requests woken by one release race for their next key: the lower session
/// goes on first, on both engines.
#[test]
fn bulk_requests_woken_together_go_on_lowest_session_first() {
    always(
        "bulk-race.mdl",
        "s1: acquire TABLE a.a X\n\
         s2: acquire_all TABLE a.a SR, TABLE a.c X\n\
         s3: acquire_all TABLE a.a SR, TABLE a.c X\n\
         s1: commit\n\
         expect s2 granted\n\
         expect s3 waiting\n\
         s2: commit\n\
         expect s3 granted\n",
    );
}
