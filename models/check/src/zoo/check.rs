//! Runs the zoo's designs on the checker's one search engine ([`crate::model::search`],
//! through the one adapter [`crate::model::model_space::ModelSpace`], with our
//! extension trait [`EngineModel`]): an old
//! design until its properties are decided (the shortest trace to the first violation,
//! breadth-first), a new design over every reachable state, and `assert eventually` by
//! the engine's cycle search over the explored graph ([`crate::model::cycle`]).
//!
//! Properties count when a state is expanded, as in stateright's checker
//! ([`Mode::at_expansion`]), so the states counted are the ones stateright's checker
//! counted when it ran the zoo.

use super::engine::{Check, Design, DesignState, StepInfo};
use super::entries::Entry;
use crate::model::cycle::pending_cycle;
use crate::model::engine_model::EngineModel;
use crate::model::model_space::ModelSpace;
use crate::model::reference::{self, RefOptions};
use crate::model::search::{Mode, Search, SearchOptions};
use stateright::Model;
use std::time::Instant;

/// A starving run: `prefix` leads from the initial state to a state from which `cycle`
/// leads back to it, the watched session waiting in every state of the cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lasso {
    pub prefix: Vec<u8>,
    pub cycle: Vec<u8>,
}

/// The most states the liveness search explores before it gives up (an error).
pub const LIVENESS_STATE_LIMIT: usize = 200_000;

/// What the checker found for an old design.
#[derive(Clone, Debug, serde::Serialize)]
pub struct OldResult {
    /// The first violated `always` property (None: the old design was not caught).
    pub property: Option<String>,
    /// Steps of the shortest trace.
    pub trace_len: usize,
    pub states: usize,
    pub millis: u128,
    /// The trace, rendered step by step.
    #[serde(skip)]
    pub steps: Vec<StepInfo>,
    /// The trace's actions (the session that stepped), from the initial state.
    #[serde(skip)]
    pub actions: Vec<u8>,
    /// For a design with `assert eventually`: a starving run (prefix and cycle lengths)
    /// when one exists.
    pub lasso: Option<LassoResult>,
}

/// A starving run found by [`starving_lasso`], rendered.
#[derive(Clone, Debug, serde::Serialize)]
pub struct LassoResult {
    pub prefix_len: usize,
    pub cycle_len: usize,
    #[serde(skip)]
    pub lasso: Lasso,
    #[serde(skip)]
    pub prefix_steps: Vec<StepInfo>,
    #[serde(skip)]
    pub cycle_steps: Vec<StepInfo>,
}

/// What the checker found for a new design.
#[derive(Clone, Debug, serde::Serialize)]
pub struct NewResult {
    /// Properties that failed (`always` with a counterexample, `sometimes` without an
    /// example). Empty when the design holds.
    pub failed: Vec<String>,
    pub properties: Vec<String>,
    pub states: usize,
    pub millis: u128,
    /// The `sometimes` property of the example trace shown on the entry's page.
    pub example: Option<String>,
    #[serde(skip)]
    pub example_steps: Vec<StepInfo>,
}

/// What the checker found for a variant of an entry's design (the same design with one
/// thing changed, e.g. the tables' names).
#[derive(Clone, Debug, serde::Serialize)]
pub struct VariantResult {
    pub label: String,
    /// The first violated `always` property (None: every property holds).
    pub property: Option<String>,
    pub trace_len: usize,
    pub states: usize,
    /// The entry expects this variant to be caught (true) or to hold (false).
    pub expect_caught: bool,
}

impl VariantResult {
    pub fn ok(&self) -> bool {
        self.property.is_some() == self.expect_caught
    }
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct EntryResult {
    pub id: String,
    pub bug: String,
    pub old: OldResult,
    pub new: NewResult,
    pub variants: Vec<VariantResult>,
}

impl EntryResult {
    pub fn ok(&self) -> bool {
        self.old.property.is_some()
            && self.new.failed.is_empty()
            && self.variants.iter().all(|v| v.ok())
    }
}

/// What one search of a design found.
struct Explored {
    /// Per property of the design's model (its checks but the liveness one, in order):
    /// the first state that fires it and the actions to it.
    found: Vec<Option<(u32, Vec<u8>)>>,
    unique: usize,
    complete: bool,
    /// With [`Mode::graph`]: a starving run.
    lasso: Option<Lasso>,
}

/// A design on our engine: stateright's model as it is, the watched session's wait as
/// the state in which `eventually` waits.
impl EngineModel for Design {
    type Record = u8;
    type Scratch = ();
    type Notes = ();
    fn step(&self, st: &DesignState, a: u8) -> Option<(DesignState, u8)> {
        self.next_state(st, a).map(|n| (n, a))
    }
    fn action_of(&self, rec: &u8) -> u8 {
        *rec
    }
    fn pending(&self, st: &DesignState) -> bool {
        self.watched_waiting(st)
    }
}

/// Breadth-first on one thread, bounded by `max_states` only.
fn explore(m: &Design, mode: Mode, max_states: Option<u64>) -> Result<Explored, String> {
    let space = ModelSpace::checked(m)?;
    let o = SearchOptions {
        dfs: false,
        symmetry: false,
        por: false,
        dynamic_quiet: false,
        max_depth: None,
        max_states,
        max_memory: crate::model::check::Options::default().max_memory,
        progress: false,
        threads: 1,
        max_time: None,
    };
    let (search, r) = Search::run_mode(&space, &o, mode);
    let path = |i: u32| search.path(i).ok_or(format!("no path to state {i}"));
    let mut found = Vec::new();
    for f in &r.found {
        found.push(match *f {
            Some(i) => Some((i, path(i)?)),
            None => None,
        });
    }
    let lasso = match search.graph.as_ref().and_then(pending_cycle) {
        Some(c) => Some(Lasso {
            prefix: path(c.state)?,
            cycle: c.cycle,
        }),
        None => None,
    };
    Ok(Explored {
        found,
        unique: r.unique as usize,
        complete: r.complete(),
        lasso,
    })
}

/// The design's checks as its model's properties (the liveness one is the cycle
/// search's).
fn props(m: &Design) -> Vec<Check> {
    m.checks
        .iter()
        .copied()
        .filter(|c| !c.is_liveness())
        .collect()
}

/// The steps of a run from the initial state and the state it ends in.
fn replay(m: &Design, actions: &[u8]) -> (Vec<StepInfo>, DesignState) {
    let mut st = m.init();
    let mut steps = Vec::new();
    for a in actions {
        let (n, info) = m.step(&st, *a as usize);
        steps.push(info);
        st = n;
    }
    (steps, st)
}

fn violated(m: &Design, st: &DesignState) -> Option<Check> {
    m.checks
        .iter()
        .copied()
        .find(|c| c.is_always() && !c.is_liveness() && !m.holds(*c, st))
}

/// Checks [`Check::Eventually`]: explores every reachable state (states compared up to
/// the renaming of ticket ids, see [`super::engine::canon_table`]) and looks for a cycle
/// of states in which the watched session waits for its lock throughout while the others
/// take the steps. Returns the first such state in breadth-first order (so the prefix is
/// a shortest path to a starving state) with a shortest cycle through it, or None when
/// every wait of the watched session ends on every run. Err when the state space is over
/// the limit.
pub fn starving_lasso(m: &Design) -> Result<Option<Lasso>, String> {
    let mode = Mode {
        graph: true,
        ..Mode::default()
    };
    let e = explore(m, mode, Some(LIVENESS_STATE_LIMIT as u64 + 1))?;
    if !e.complete {
        return Err(format!("over {LIVENESS_STATE_LIMIT} states"));
    }
    Ok(e.lasso)
}

/// Runs the liveness check of a design that has one: Ok(None) when it holds or the design
/// has none, Err when the search could not finish.
fn liveness(m: &Design) -> Result<Option<LassoResult>, String> {
    if !m.checks.contains(&Check::Eventually) {
        return Ok(None);
    }
    Ok(starving_lasso(m)?.map(|l| {
        let (prefix_steps, _) = replay(m, &l.prefix);
        let mut all = l.prefix.clone();
        all.extend_from_slice(&l.cycle);
        let (mut cycle_steps, _) = replay(m, &all);
        cycle_steps.drain(..l.prefix.len());
        LassoResult {
            prefix_len: l.prefix.len(),
            cycle_len: l.cycle.len(),
            lasso: l,
            prefix_steps,
            cycle_steps,
        }
    }))
}

/// The example a new design's page shows (the first of these in the design's checks): a
/// deadlock reported at once, two of them, or the watched request granted.
fn example_check(m: &Design) -> Option<Check> {
    m.checks.iter().copied().find(|c| {
        matches!(
            c,
            Check::DeadlockReported
                | Check::WatchedGranted
                | Check::GrantedAfterPassedOver
                | Check::TwoDeadlocks
        )
    })
}

/// The first state (in breadth-first order) that violates an `always` property: its
/// index and the actions to it.
fn first_violation<'e>(m: &Design, e: &'e Explored) -> Option<&'e (u32, Vec<u8>)> {
    props(m)
        .iter()
        .zip(&e.found)
        .filter(|(c, _)| c.is_always())
        .filter_map(|(_, f)| f.as_ref())
        .min_by_key(|(i, _)| *i)
}

/// Runs an old design: breadth-first until every property is decided.
pub fn check_old(m: &Design) -> OldResult {
    let start = Instant::now();
    let mode = Mode {
        at_expansion: true,
        ..Mode::default()
    };
    // A search that cannot run is a failure to check: the old design counts as not
    // caught (fail closed); likewise a liveness check that cannot finish.
    let e = explore(m, mode, None).ok();
    let lasso = liveness(m).ok().flatten();
    let states = e.as_ref().map_or(0, |e| e.unique);
    let found = e
        .as_ref()
        .and_then(|e| first_violation(m, e))
        .and_then(|(_, path)| {
            let (steps, last) = replay(m, path);
            violated(m, &last).map(|c| (c, steps, path.clone()))
        });
    let millis = start.elapsed().as_millis();
    match found {
        Some((chk, steps, actions)) => OldResult {
            property: Some(chk.name().to_string()),
            trace_len: steps.len(),
            states,
            millis,
            steps,
            actions,
            lasso,
        },
        None => OldResult {
            property: lasso.as_ref().map(|_| Check::Eventually.name().to_string()),
            trace_len: lasso.as_ref().map_or(0, |l| l.prefix_len + l.cycle_len),
            states,
            millis,
            steps: Vec::new(),
            actions: Vec::new(),
            lasso,
        },
    }
}

/// The names of the checks a complete search of a new design found failing (`always`
/// with a counterexample, `sometimes` without an example, `eventually` with a starving
/// run or a search that could not finish); every check when the search could not run.
fn failed(m: &Design, e: Option<&Explored>) -> Vec<String> {
    let mut failed = Vec::new();
    let mut found = e.map(|e| e.found.iter());
    for chk in &m.checks {
        let fails = if chk.is_liveness() {
            !matches!(liveness(m), Ok(None))
        } else {
            match found.as_mut().and_then(|f| f.next()) {
                Some(f) => f.is_some() == chk.is_always(),
                None => true,
            }
        };
        if fails {
            failed.push(chk.name().to_string());
        }
    }
    failed
}

/// Runs a new design: breadth-first over every reachable state.
pub fn check_new(m: &Design) -> NewResult {
    let start = Instant::now();
    let mode = Mode {
        at_expansion: true,
        ..Mode::default()
    };
    let e = explore(m, mode, None).ok();
    let example = example_check(m).and_then(|c| {
        let i = props(m).iter().position(|p| *p == c)?;
        let (_, path) = e.as_ref()?.found[i].as_ref()?;
        Some((c, replay(m, path).0))
    });
    let (example, example_steps) = match example {
        Some((c, steps)) => (Some(c.name().to_string()), steps),
        None => (None, Vec::new()),
    };
    NewResult {
        failed: failed(m, e.as_ref()),
        properties: m.checks.iter().map(|c| c.name().to_string()).collect(),
        states: e.as_ref().map_or(0, |e| e.unique),
        millis: start.elapsed().as_millis(),
        example,
        example_steps,
    }
}

/// What one engine found on a design, every state explored: per property of its model
/// whether it fired (an `always` one violated, a `sometimes` one met), and the unique
/// states.
#[derive(Debug, PartialEq, Eq)]
pub struct EngineRun {
    pub fired: Vec<bool>,
    pub unique: u64,
}

/// A design on our engine and on stateright's checker (the comparison of
/// `models/mdl/tests/engines_agree.rs`), each exploring every state (at most
/// `max_states`): `[ours, stateright's]`, or why a search could not run or finish.
pub fn both_engines(m: &Design, max_states: u64) -> Result<[EngineRun; 2], String> {
    let mode = Mode {
        exhaustive: true,
        ..Mode::default()
    };
    let e = explore(m, mode, Some(max_states))?;
    let names: Vec<&'static str> = props(m).iter().map(|c| c.name()).collect();
    let o = RefOptions {
        max_states: Some(max_states * 4),
        threads: 1,
        exhaustive: true,
        ..RefOptions::default()
    };
    let r = reference::run(m.clone(), &names, &o);
    if !e.complete || r.stop.is_some() {
        return Err(format!("over {max_states} states"));
    }
    Ok([
        EngineRun {
            fired: e.found.iter().map(Option::is_some).collect(),
            unique: e.unique as u64,
        },
        EngineRun {
            fired: r.found.iter().map(Option::is_some).collect(),
            unique: r.unique,
        },
    ])
}

pub fn run_entry(e: &Entry) -> EntryResult {
    EntryResult {
        id: e.id.to_string(),
        bug: e.bug.to_string(),
        old: check_old(&e.old),
        new: check_new(&e.new),
        variants: e
            .variants
            .iter()
            .map(|v| {
                let r = check_old(&v.design);
                VariantResult {
                    label: v.label.to_string(),
                    property: r.property,
                    trace_len: r.trace_len,
                    states: r.states,
                    expect_caught: v.expect_caught,
                }
            })
            .collect(),
    }
}
