//! `mdl check` on a SQL scenario: our search engine ([`crate::model::search`], the one
//! lock scenarios run on) over the SQL model as a stateright model with our extension
//! trait ([`super::model::SqlScenario`], through the one adapter
//! [`crate::model::model_space::ModelSpace`]), its result in the SQL report's form. Breadth-first by default: the first state that shows a
//! property (a violation, or a `sometimes` witness) is at the fewest actions from the
//! start, and its trace is replayed from the actions on the path.

use super::model::SqlScenario;
use super::{SqlAction, SqlCheck, SqlProp, SqlRecord, SqlState};
use crate::model::mem;
use crate::model::model_space::ModelSpace;
use crate::model::por::PorStats;
use crate::model::result::Simulated;
use crate::model::search::{Search, SearchOptions, Stop};
use mdl_core::Outcome;
use std::collections::BTreeSet;
use std::sync::Arc;

/// The default `--max-states` of a SQL check.
pub const DEFAULT_MAX_STATES: u64 = 200_000;

/// The result of one property.
#[derive(Clone, Debug)]
pub struct PropResult {
    pub prop: SqlProp,
    pub name: String,
    /// Violated (a counterexample was found; for a `sometimes`: no witness in a complete
    /// search).
    pub violated: bool,
    /// The actions to the counterexample or the witness, and the state reached.
    pub trace: Option<(Vec<SqlRecord>, SqlState)>,
}

/// The result of a SQL check.
#[derive(Clone, Debug)]
pub struct SqlResult {
    pub props: Vec<PropResult>,
    /// States generated (with repeats) and unique states.
    pub states: u64,
    pub unique: u64,
    pub max_depth: usize,
    pub secs: f64,
    /// The search stopped at a limit (which: `stop`) or a depth bound cut it.
    pub incomplete: bool,
    pub stop: Option<Stop>,
    /// Every reachable state was expanded (not cut, not stopped once every property was
    /// decided): the unique states are all the model's.
    pub complete: bool,
    /// Every (session, outcome) a statement reached in some interleaving.
    pub outcomes: BTreeSet<(usize, Outcome)>,
    /// The search was depth-first (asked for, or after passing half of `--max-memory`).
    pub dfs: bool,
    pub threads: usize,
    /// The run was stateright's checker (`--engine stateright`), not ours.
    pub stateright: bool,
    /// The reduction's counts, when it was on ([`super::quiet`]).
    pub por: Option<PorStats>,
    /// Symmetry, when it named states ([`super::symmetry`]): `None` when it was off or
    /// no two sessions were interchangeable.
    pub symmetry: Option<SymmetryUsed>,
    /// CPU seconds of the process during the search (Linux).
    pub cpu_secs: Option<f64>,
    /// The most bytes the search's own structures took (the states seen, the queue of
    /// handles; not the states kept aside: `heap_peak` counts those).
    pub search_bytes: u64,
    /// The largest live heap seen during the search (the `mdl` binary's counting
    /// allocator).
    pub heap_peak: Option<u64>,
    /// The process's peak resident size (Linux).
    pub peak_rss: Option<u64>,
    /// `--max-memory` (0: not bounded, stateright's checker).
    pub max_memory: u64,
    /// A breadth-first search went on depth-first past half of `--max-memory`: at this
    /// depth, with this many bytes.
    pub switched_to_dfs: Option<(usize, u64)>,
    /// `--simulate N`: the sample taken ([`super::simulate`]); `None` for a search.
    pub simulated: Option<Simulated>,
}

/// What symmetry did in a SQL search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SymmetryUsed {
    /// The classes of interchangeable sessions, by name.
    pub groups: Vec<Vec<String>>,
    /// States generated (with repeats) that were named by another member of their orbit:
    /// each would have been a state of its own without symmetry unless another path
    /// reached it too, so this bounds the unique states saved from above.
    pub renamed: u64,
}

impl SymmetryUsed {
    fn of(m: &SqlCheck, model: &SqlScenario) -> Option<SymmetryUsed> {
        model.has_symmetry().then(|| SymmetryUsed {
            groups: model
                .classes
                .iter()
                .map(|c| c.iter().map(|&s| m.session_name(s).to_owned()).collect())
                .collect(),
            renamed: model.renamed(),
        })
    }
}

impl SqlResult {
    pub fn any_violated(&self) -> bool {
        self.props.iter().any(|p| p.violated)
    }
}

/// The search options of a SQL check bounded by `max_states` only (breadth-first, one
/// thread, the default memory bound).
pub fn options(max_states: u64) -> SearchOptions {
    let o = crate::model::check::Options::default();
    SearchOptions {
        dfs: false,
        symmetry: false,
        por: false,
        dynamic_quiet: false,
        max_depth: None,
        max_states: Some(max_states),
        max_memory: o.max_memory,
        progress: false,
        threads: 1,
        max_time: None,
    }
}

/// Explores every interleaving of `m` (at most `max_states` unique states).
pub fn check(m: &SqlCheck, max_states: u64) -> SqlResult {
    check_with(m, &options(max_states))
}

/// Explores every interleaving of `m` within the bounds of `o`.
pub fn check_with(m: &SqlCheck, o: &SearchOptions) -> SqlResult {
    let model = SqlScenario::new(Arc::new(m.clone()), o.por).symmetric(o.symmetry);
    let cpu0 = mem::cpu_seconds();
    // Its properties are `always` and `sometimes` ones (`assert never|sometimes`).
    let space = ModelSpace::new(&model);
    let (search, r) = Search::run(&space, o);
    let incomplete = r.stop.is_some() || r.depth_cut;
    let props = m
        .props()
        .into_iter()
        .zip(&r.found)
        .map(|(p, f)| {
            let sometimes = m.is_sometimes(p);
            let violated = if sometimes {
                f.is_none() && !incomplete
            } else {
                f.is_some()
            };
            PropResult {
                prop: p,
                name: m.prop_name(p),
                violated,
                trace: f.and_then(|n| search.path(n)).map(|acts| replay(m, &acts)),
            }
        })
        .collect();
    SqlResult {
        props,
        states: r.states,
        unique: r.unique,
        max_depth: r.max_depth,
        secs: r.seconds,
        incomplete,
        stop: r.stop,
        complete: r.complete(),
        outcomes: r.notes,
        dfs: r.dfs,
        threads: r.threads,
        stateright: false,
        por: r.por,
        symmetry: SymmetryUsed::of(m, &model),
        cpu_secs: mem::cpu_seconds().zip(cpu0).map(|(b, a)| b - a),
        search_bytes: r.search_bytes,
        heap_peak: r.heap_peak,
        peak_rss: mem::peak_rss(),
        max_memory: o.max_memory,
        switched_to_dfs: r.switched_to_dfs,
        simulated: None,
    }
}

/// Plays `actions` from the initial state: their records and the state reached.
pub fn replay(m: &SqlCheck, actions: &[SqlAction]) -> (Vec<SqlRecord>, SqlState) {
    let mut st = m.initial();
    let mut recs = Vec::new();
    for a in actions {
        let (next, rec) = m.apply(&st, *a);
        recs.push(rec);
        st = next;
    }
    (recs, st)
}
