//! `mdl conform --random N [--seed S] [--sessions K]`: random multi-session SQL scenarios
//! from the statement table, run on the throwaway server and on our model; every
//! difference is shrunk to a smallest file kept under `models/conformance/found/` with the
//! seed that produced it.
//!
//! A scenario is generated with our model running alongside, so that a session whose
//! statement waits takes no further step until a later step ends its wait (a release, a
//! `kill`, an `advance` past its timeout). The statements are the forms of
//! [`forms::FORMS`] (one line each, with a weight: every family the model plays, over the
//! fixture tables `t1`, `t2`, the MyISAM `m1`, new names `t3`, `t4`, views, triggers,
//! routines, sequences, schema `db1`); a statement the model refuses in the state reached
//! is drawn again. Scenario `i` of a run with seed `S` is generated from seed `S + i`
//! alone, so one scenario can be made again ([`generate`]; the mapping is in
//! `random/forms.rs`).

pub mod forms;
pub use forms::{Form, FORMS};

use super::scenario::{run_scenario, Report};
use super::server::Server;
use super::ConformError;
use mdl_sql::mapping::Mapping;
use mdl_sql::model::SqlModel;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::io::Write;
use std::path::PathBuf;

/// The `advance` that passes a generated `SET lock_wait_timeout` (ms; the timeout is
/// [`forms::TIMEOUT_S`]).
const ADVANCE_MS: u64 = 1600;

/// One line of a generated scenario.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Line {
    Sql(usize, String),
    Kill(usize),
    Advance(u64),
}

/// A generated scenario: its lines and the seed that made it.
#[derive(Clone, Debug)]
pub struct Generated {
    pub seed: u64,
    pub sessions: usize,
    pub lines: Vec<Line>,
}

fn session_name(i: usize) -> String {
    format!("s{}", i + 1)
}

impl Generated {
    /// The scenario as a file `mdl conform` runs.
    pub fn text(&self, header: &[String]) -> String {
        let mut s = String::new();
        for h in header {
            s.push_str(&format!("# {h}\n"));
        }
        s.push_str("dialect mariadb\n");
        for l in &self.lines {
            match l {
                Line::Sql(i, q) => s.push_str(&format!("{}: sql {q}\n", session_name(*i))),
                Line::Kill(i) => s.push_str(&format!("kill {}\n", session_name(*i))),
                Line::Advance(ms) => s.push_str(&format!("advance {ms}\n")),
            }
        }
        s
    }
}

/// Generates scenario number `seed` with `k` sessions and about `steps` lines.
pub fn generate(map: &Mapping, seed: u64, k: usize, steps: usize) -> Generated {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    let mut model = SqlModel::new(map.clone());
    for _ in 0..k {
        model.add_session();
    }
    let names: Vec<String> = (0..k).map(session_name).collect();
    model.name_sessions(&names);
    let mut lines = Vec::new();
    let mut serial = 0u32;
    let mut started = vec![false; k];
    let mut advances = 0;
    let mut tries = 0;
    while lines.len() < steps && tries < steps * 20 {
        tries += 1;
        let free: Vec<usize> = (0..k).filter(|s| !model.is_waiting(*s)).collect();
        let waiting: Vec<usize> = (0..k).filter(|s| model.is_waiting(*s)).collect();
        let roll = r.random_range(0..100u32);
        if !waiting.is_empty() && (free.is_empty() || roll < 8) {
            // End a wait: a kill, or (rarely, it costs real time) an advance.
            let timed = waiting
                .iter()
                .any(|s| model.session(*s).lock_wait_timeout.is_some());
            if timed && advances < 1 && r.random_range(0..3u32) == 0 {
                model.advance(ADVANCE_MS);
                model.take_events();
                lines.push(Line::Advance(ADVANCE_MS));
                advances += 1;
            } else {
                let s = waiting[r.random_range(0..waiting.len())];
                model.kill(s);
                model.take_events();
                lines.push(Line::Kill(s));
            }
            continue;
        }
        if free.is_empty() {
            break;
        }
        let s = free[r.random_range(0..free.len())];
        // KILL QUERY names a session that has run a statement (the harness kills its
        // connection; seed 320021).
        let others: Vec<usize> = (0..k).filter(|o| *o != s && started[*o]).collect();
        let other =
            (!others.is_empty()).then(|| session_name(others[r.random_range(0..others.len())]));
        let f1 = model.catalog.routines.functions().any(|f| f.name == "f1");
        let locked = model.session(s).under_lock_tables();
        let d = forms::draw(&mut r, serial, other, (f1, locked));
        let q = forms::statement(&d);
        serial = d.serial.get();
        if model.step(s, &q).is_err() {
            continue;
        }
        model.take_events();
        started[s] = true;
        lines.push(Line::Sql(s, q));
    }
    Generated {
        seed,
        sessions: k,
        lines,
    }
}

/// The result of a random run.
#[derive(Debug, Default)]
pub struct Summary {
    pub run: usize,
    pub agreed: usize,
    /// Files written under `found/` (shrunk differences).
    pub found: Vec<PathBuf>,
    /// Differences explained outside MDL (by `known` patterns), by pattern.
    pub explained: usize,
    /// Differences that did not come back: the same scenario agreed when run again, so
    /// the server itself answers it in more than one way (the threads that one release
    /// lets in race; see `known-differences/woken-sessions-race.mdl`).
    pub raced: usize,
}

/// How many times a differing scenario is run again before it counts as a difference.
pub const RERUNS: usize = 3;

/// Runs `g` again up to [`RERUNS`] times; the run (1-based) that agreed, if one did.
pub fn agrees_on_rerun(
    server: &Server,
    map: &Mapping,
    g: &Generated,
) -> Result<Option<usize>, ConformError> {
    for k in 1..=RERUNS {
        let agrees = run_one(server, map, g)?.agrees();
        if agrees || cfg!(mdl_bug = "conform_rerun_excuses_all") {
            return Ok(Some(k));
        }
    }
    Ok(None)
}

/// Runs one generated scenario; its report.
pub fn run_one(server: &Server, map: &Mapping, g: &Generated) -> Result<Report, ConformError> {
    let file = format!("random-seed-{}", g.seed);
    let text = g.text(&[]);
    let sc = super::scenario::load_text(&file, &text, map)?;
    let mut sink = std::io::sink();
    run_scenario(server, map, &sc, false, &mut sink)
}

/// Differences explained outside MDL (see `models/conformance/README.md`): a statement
/// blocked on something that is not a metadata lock (an InnoDB row or table lock, a
/// table flush, a MyISAM table lock). Such a scenario is not a model fault.
pub fn explained(rep: &Report) -> Option<&'static str> {
    // The first difference is the server blocked outside MDL; the rest follow from it.
    match rep.diffs.first() {
        Some(d) if d.contains("blocked (not on a metadata lock)") => {
            Some("blocked outside MDL (an InnoDB row or table lock, a MyISAM table lock)")
        }
        // A DML (or the commit, explicit or implicit, of a transaction of DML) that
        // changed no row has nothing to commit: the server takes no BACKUP_COMMIT
        // (ha_commit_trans asks for it only for a read-write transaction, and a row marks
        // it so), while ours, which does not know the rows, waits for it behind a BACKUP
        // STAGE BLOCK_COMMIT or FTWRL (known-differences/no-row-changed-commit.mdl); a
        // statement that commits such a transaction implicitly then gives its own answer,
        // which may be an error (known-differences/no-row-changed-implicit-commit.mdl:
        // BACKUP STAGE BLOCK_COMMIT with no backup, ER_BACKUP_NOT_RUNNING; seed 110698).
        // Or the statement waits on both, the server already past that commit at its own
        // lock (its BACKUP_DDL behind the FTWRL; known-differences/no-row-changed-
        // implicit-commit-behind-ftwrl.mdl, seeds 270072 and 470524).
        Some(d)
            if (answered_at_once(d) || server_waits_past_commit(d))
                && rep.diffs.iter().any(|x| {
                    x.split_once(", ours {")
                        .is_some_and(|(_, ours)| ours.contains("BACKUP - BACKUP_COMMIT (pending)"))
                }) =>
        {
            Some("data, not MDL: a statement that changed no row commits without BACKUP_COMMIT")
        }
        // InnoDB refuses a consistent read of a table rebuilt after the transaction's read
        // view was made (ER_TABLE_DEF_CHANGED), once the metadata lock is granted
        // (known-differences/table-def-changed.mdl).
        // (Or the handler's own code for it, HA_ERR_TABLE_DEF_CHANGED 159, which a
        // multi-table UPDATE returns: seed 340050.)
        Some(d)
            if d.contains("the server gave error 1412, ours ok")
                || d.contains("the server gave error 159, ours ok") =>
        {
            Some("InnoDB, not MDL: a table rebuilt after the transaction's read view (1412)")
        }
        // A UNION of two tables whose column counts differ once a generated ADD COLUMN
        // added one to either: the server's ER_WRONG_NUMBER_OF_COLUMNS_IN_SELECT (1222)
        // after its locks, a fact of the columns, not of MDL (seeds 390234, 390248 of
        // `--random 300 --seed 390001`).
        Some(d) if d.contains("the server gave error 1222, ours ok") => {
            Some("data, not MDL: a UNION of tables with different numbers of columns (1222)")
        }
        // The server's lock_wait_timeout runs on the wall clock: on a loaded machine a
        // wait of a generated 1 s timeout can end while the harness plays a later step that
        // moves no model time (not an `advance`), where ours still waits
        // (known-differences/wall-clock-timeout.mdl; seed 91549).
        Some(d) if wall_clock_timeout(d) => {
            Some("the harness, not MDL: a server timeout on the wall clock during a step")
        }
        _ => None,
    }
}

/// The server answered the step at once (ok or an error), where ours waits.
/// The difference is the statement's locks: the server waits for a lock of its own, not
/// for BACKUP_COMMIT (its implicit commit took none: the transaction changed no row).
fn server_waits_past_commit(d: &str) -> bool {
    d.split_once(" holds on the server {")
        .and_then(|(_, rest)| rest.split_once("}, ours {"))
        .is_some_and(|(server, _)| {
            server.contains("(pending)") && !server.contains("BACKUP_COMMIT")
        })
}

fn answered_at_once(d: &str) -> bool {
    d.contains("the server gave ok, ours waiting")
        || d.split_once("the server gave error ")
            .is_some_and(|(_, rest)| rest.ends_with(", ours waiting"))
}

/// The difference is another session's wait (one that waited at an earlier step on both,
/// so not a zero timeout) that the server ended with `timeout` at a step that is not an
/// `advance`, where ours did not.
fn wall_clock_timeout(d: &str) -> bool {
    if d.contains(": advance ") {
        return false;
    }
    let Some((_, rest)) = d.split_once("waits ended on the server: [") else {
        return false;
    };
    let Some((server, ours)) = rest.split_once("], ours: [") else {
        return false;
    };
    let ours: Vec<&str> = ours.trim_end_matches(']').split(", ").collect();
    server
        .split(", ")
        .filter(|w| w.ends_with(" timeout"))
        .any(|w| !ours.contains(&w))
}

/// Shrinks a scenario that differs: drops lines while it still differs (on the server).
pub fn shrink(
    server: &Server,
    map: &Mapping,
    g: &Generated,
    log: &mut dyn Write,
) -> Result<(Generated, Report), ConformError> {
    let mut best = g.clone();
    let mut best_rep = run_one(server, map, &best)?;
    let mut changed = true;
    while changed {
        changed = false;
        let mut i = best.lines.len();
        while i > 0 {
            i -= 1;
            let mut cand = best.clone();
            cand.lines.remove(i);
            if cand.lines.is_empty() {
                continue;
            }
            // A candidate the model refuses (a step for a session still waiting) is no
            // scenario.
            let Ok(rep) = run_one(server, map, &cand) else {
                continue;
            };
            if !rep.agrees() && explained(&rep).is_none() && rep.invalid.is_none() {
                best = cand;
                best_rep = rep;
                changed = true;
                let _ = writeln!(log, "  shrunk to {} lines", best.lines.len());
            }
        }
    }
    Ok((best, best_rep))
}

/// How a random run goes.
#[derive(Clone, Debug)]
pub struct Options {
    pub n: usize,
    /// Scenario `i` uses seed `seed + i`.
    pub seed: u64,
    pub sessions: usize,
    pub steps: usize,
    /// Where shrunk differences are kept.
    pub found_dir: PathBuf,
    /// Shrink each difference (the command does; a test that only needs to see one
    /// need not).
    pub shrink: bool,
    /// Stop at the first difference.
    pub stop_at_first: bool,
}

/// Runs random scenarios (see [`Options`]).
pub fn run(
    server: &Server,
    map: &Mapping,
    o: &Options,
    log: &mut dyn Write,
) -> Result<Summary, ConformError> {
    let (n, seed, sessions, steps, found_dir) = (o.n, o.seed, o.sessions, o.steps, &o.found_dir);
    let mut sum = Summary::default();
    for i in 0..n {
        let g = generate(map, seed.wrapping_add(i as u64), sessions, steps);
        let rep = run_one(server, map, &g)?;
        sum.run += 1;
        if rep.agrees() {
            sum.agreed += 1;
            continue;
        }
        if let Some(why) = explained(&rep) {
            sum.explained += 1;
            let _ = writeln!(log, "seed {}: explained: {why}", g.seed);
            continue;
        }
        if let Some(k) = agrees_on_rerun(server, map, &g)? {
            sum.raced += 1;
            let _ = writeln!(
                log,
                "seed {}: raced: differed ({}), agreed when run again (run {k} of {RERUNS})",
                g.seed,
                rep.summary()
            );
            continue;
        }
        let _ = writeln!(log, "seed {}: differs ({})", g.seed, rep.summary());
        let (small, srep) = if o.shrink {
            shrink(server, map, &g, log)?
        } else {
            (g.clone(), rep)
        };
        std::fs::create_dir_all(found_dir).map_err(|e| ConformError::Io(e.to_string()))?;
        // A file kept by an earlier run (same scenario seed, an older model) stays.
        let mut path = found_dir.join(format!("seed-{}.mdl", g.seed));
        let mut k = 2;
        while path.exists() {
            path = found_dir.join(format!("seed-{}-{k}.mdl", g.seed));
            k += 1;
        }
        let mut header = vec![
            format!(
                "Found by `mdl conform --random {n} --seed {seed} --sessions {sessions}` (scenario seed {}),",
                g.seed
            ),
            format!("shrunk from {} to {} lines. Differences:", g.lines.len(), small.lines.len()),
        ];
        for d in srep.diffs.iter().chain(srep.diverged.iter()) {
            header.push(format!("  {d}"));
        }
        std::fs::write(&path, small.text(&header)).map_err(|e| ConformError::Io(e.to_string()))?;
        let _ = writeln!(log, "  kept {}", path.display());
        sum.found.push(path);
        if o.stop_at_first {
            break;
        }
    }
    Ok(sum)
}
