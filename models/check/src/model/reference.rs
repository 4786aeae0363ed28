//! `mdl check --engine stateright`: stateright's own checker (its BFS or DFS) on the same
//! model, as the reference for our search ([`super::search`]). One runner ([`run`]) for
//! every model: lock scenarios ([`check`], on [`LockScenario::plain`]), SQL scenarios
//! (`crate::sql::reference`), both through [`run_noting`] (a
//! state's identity is our extension trait's encoding: for lock scenarios the canonical
//! encoding without symmetry, [`super::encode`], the one our search keeps without
//! reductions, so that the two engines count the same unique states), and the zoo's
//! designs. No partial-order reduction and no symmetry here: this is the plain search
//! that the reductions are checked against (`models/mdl/tests/engines_agree.rs`).

use super::engine_model::{prop_fns, wrapped_properties, EngineModel};
use super::lock_model::LockScenario;
use super::result::{replay, CheckResult, Coverage, PropResult, Status};
use super::search::Stop;
use super::{mem, Action, MdlModel, PropKind};
use stateright::{Checker, HasDiscoveries, Model, Property};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How to run stateright's checker.
#[derive(Clone, Debug, Default)]
pub struct RefOptions {
    pub dfs: bool,
    /// Stop after about this many states generated (stateright's `target_state_count`).
    pub max_states: Option<u64>,
    pub max_time: Option<f64>,
    pub threads: usize,
    /// Explore every state even when every property is decided (for comparing counts).
    pub exhaustive: bool,
}

/// A name no property has: waiting for its discovery explores every state.
const NEVER: &str = "(every state)";

/// What stateright's checker found on a model: per property (in the order of the names
/// asked for) the actions of its discovery; the states generated, the unique ones, the
/// deepest; why it stopped before every property had a discovery (a bound), if it did.
pub struct RefRun<A> {
    pub found: Vec<Option<Vec<A>>>,
    pub states: u64,
    pub unique: u64,
    pub max_depth: usize,
    pub stop: Option<Stop>,
}

impl<A> RefRun<A> {
    pub fn all_found(&self) -> bool {
        self.found.iter().all(Option::is_some)
    }
}

/// Runs stateright's checker (its BFS or DFS, within `o`'s bounds) on any model: the
/// one reference runner of `mdl check --engine stateright` (lock scenarios here, SQL
/// scenarios in `crate::sql::reference`) and of the zoo's comparison. `names`: the
/// properties whose discoveries are returned.
pub fn run<M>(model: M, names: &[&'static str], o: &RefOptions) -> RefRun<M::Action>
where
    M: Model + Send + Sync + 'static,
    M::State: Hash + Send + Sync + Clone + PartialEq + 'static,
    M::Action: Clone + PartialEq,
{
    let start = Instant::now();
    let mut b = model.checker().threads(o.threads.max(1));
    if o.exhaustive {
        b = b.finish_when(HasDiscoveries::AllOf([NEVER].into_iter().collect()));
    }
    if let Some(n) = o.max_states {
        b = b.target_state_count(n as usize);
    }
    if let Some(t) = o.max_time {
        b = b.timeout(Duration::from_secs_f64(t));
    }
    let mut r = if o.dfs {
        outcome(names, b.spawn_dfs().join())
    } else {
        outcome(names, b.spawn_bfs().join())
    };
    r.stop = if r.all_found() {
        None
    } else if o.max_states.is_some_and(|n| r.states >= n) {
        Some(Stop::States)
    } else if o
        .max_time
        .is_some_and(|t| start.elapsed().as_secs_f64() >= t)
    {
        Some(Stop::Time)
    } else {
        None
    };
    r
}

/// A finished checker's discoveries and counts.
fn outcome<M>(names: &[&'static str], c: impl Checker<M>) -> RefRun<M::Action>
where
    M: Model,
    M::State: Clone + PartialEq,
    M::Action: Clone + PartialEq,
{
    RefRun {
        found: names
            .iter()
            .map(|n| c.discovery(n).map(|p| p.into_actions()))
            .collect(),
        states: c.state_count() as u64,
        unique: c.unique_state_count() as u64,
        max_depth: c.max_depth(),
        stop: None,
    }
}

/// Checks a model with stateright's checker; the result in our form.
pub fn check(m: &MdlModel, o: &RefOptions) -> CheckResult {
    let start = Instant::now();
    let cpu0 = mem::cpu_seconds();
    let model = LockScenario::plain(Arc::new(m.clone()));
    let props = m.prop_kinds();
    let (r, _) = run_noting(model, o);
    result(m, o, &props, start, cpu0, r)
}

/// Our result from a finished checker.
fn result(
    m: &MdlModel,
    o: &RefOptions,
    props: &[(PropKind, &'static str)],
    start: Instant,
    cpu0: Option<f64>,
    r: RefRun<Action>,
) -> CheckResult {
    let all_found = r.all_found();
    let stop = r.stop;
    let limited = stop.is_some();
    let mut out = Vec::new();
    for ((kind, name), found) in props.iter().zip(r.found) {
        let sometimes = matches!(kind, PropKind::Assert(a) if m.asserts[*a].is_sometimes());
        let status = match (sometimes, found.is_some()) {
            (true, true) => Status::Holds,
            (false, true) => Status::Violated,
            (_, false) if limited => Status::Unknown,
            (true, false) => Status::Violated,
            (false, false) => Status::Holds,
        };
        let trace = found.and_then(|acts| replay(m, &acts));
        out.push(PropResult {
            kind: *kind,
            name,
            status,
            trace,
        });
    }
    let seconds = start.elapsed().as_secs_f64();
    CheckResult {
        props: out,
        states: r.states,
        unique_states: r.unique,
        max_depth: r.max_depth,
        seconds,
        search_seconds: seconds,
        search_cpu_seconds: mem::cpu_seconds().zip(cpu0).map(|(b, a)| b - a),
        limited,
        stop,
        symmetry_used: false,
        dfs: o.dfs,
        switched_to_dfs: None,
        depth_bound: None,
        depth_cut: false,
        por: None,
        por_off: None,
        search_bytes: 0,
        heap_peak: mem::heap_bytes().map(|h| h as u64),
        peak_rss: mem::peak_rss(),
        max_memory: 0,
        threads: o.threads.max(1),
        warnings: Vec::new(),
        coverage: Coverage::default(),
        simulated: None,
        stateright: true,
        complete: !all_found && !limited,
    }
}

// stateright's checker on a model with our extension trait ([`EngineModel`],
// [`run_noting`]): the one runner ([`run`]) on the model wrapped so that a state's
// identity is the trait's encoding ([`EngineModel::encode`], the identity our engine
// gives it: the two engines count the same states), and the model's notes are gathered
// as the checker takes each step (what our engine's report keeps of the steps taken,
// e.g. the outcomes SQL statements reached). Run it on the model without reductions:
// this is the plain search the reductions are checked against.

/// A property's condition on the model.
type Cond<M> = fn(&M, &<M as Model>::State) -> bool;

/// A state with the encoding that names it.
#[derive(Clone)]
pub struct Named<S> {
    id: Vec<u8>,
    pub st: S,
}

impl<S> PartialEq for Named<S> {
    fn eq(&self, o: &Self) -> bool {
        self.id == o.id
    }
}
impl<S> Eq for Named<S> {}
impl<S> Hash for Named<S> {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.id.hash(h)
    }
}
impl<S: fmt::Debug> fmt::Debug for Named<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.st.fmt(f)
    }
}

/// The model, noting what each step the checker takes did.
struct Noting<M: EngineModel> {
    m: M,
    conds: Arc<[Cond<M>]>,
    notes: Arc<Mutex<M::Notes>>,
}

type PropFn<M> = fn(&Noting<M>, &Named<<M as Model>::State>) -> bool;

/// stateright takes plain `fn`s: property `I` of the model.
fn p<M, const I: usize>(n: &Noting<M>, s: &Named<M::State>) -> bool
where
    M: EngineModel,
{
    n.conds.get(I).is_none_or(|f| f(&n.m, &s.st))
}

impl<M: EngineModel> Noting<M> {
    fn named(&self, st: M::State) -> Named<M::State> {
        let mut id = Vec::new();
        self.m.encode(&st, &mut M::Scratch::default(), &mut id);
        Named { id, st }
    }
}

impl<M: EngineModel> Model for Noting<M> {
    type State = Named<M::State>;
    type Action = M::Action;

    fn init_states(&self) -> Vec<Named<M::State>> {
        self.m
            .init_states()
            .into_iter()
            .map(|s| self.named(s))
            .collect()
    }
    fn actions(&self, s: &Named<M::State>, out: &mut Vec<M::Action>) {
        self.m.actions(&s.st, out)
    }
    fn next_state(&self, s: &Named<M::State>, a: M::Action) -> Option<Named<M::State>> {
        let (next, rec) = self.m.step(&s.st, a)?;
        let mut notes = self.notes.lock().unwrap_or_else(|e| e.into_inner());
        self.m.note(&rec, &mut notes);
        drop(notes);
        Some(self.named(next))
    }
    fn properties(&self) -> Vec<Property<Self>> {
        // The model's properties, on this model: the same names and predicates.
        wrapped_properties(&self.m, prop_fns!(p, M, PropFn<M>))
    }
}

/// Runs stateright's checker on `model` ([`run`]): what it found, and the notes of
/// every step it took.
pub fn run_noting<M>(model: M, o: &RefOptions) -> (RefRun<M::Action>, M::Notes)
where
    M: EngineModel + Send + 'static,
    M::State: Hash + Send + Sync + Clone + PartialEq + 'static,
    M::Action: Copy + PartialEq + Send + Sync + 'static,
    M::Notes: Sync,
{
    let props = model.properties();
    let names: Vec<&'static str> = props.iter().map(|p| p.name).collect();
    let conds: Arc<[Cond<M>]> = props.iter().map(|p| p.condition).collect();
    let notes = Arc::new(Mutex::new(model.new_notes()));
    let noting = Noting {
        m: model,
        conds,
        notes: notes.clone(),
    };
    let r = run(noting, &names, o);
    let n = std::mem::take(&mut *notes.lock().unwrap_or_else(|e| e.into_inner()));
    (r, n)
}
