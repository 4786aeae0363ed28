//! `mdl check --engine stateright`: stateright's own checker (its BFS or DFS) on the same
//! model, as the reference for our search ([`super::search`]). The model is the same
//! [`MdlModel`] (its initial state, enabled actions, steps and properties); a state's
//! identity is its canonical encoding without symmetry ([`super::encode`]), the one our
//! search keeps without reductions, so that the two engines count the same unique states.
//! No partial-order reduction and no symmetry here: this is the plain search that the
//! reductions are checked against (`models/mdl/tests/engines_agree.rs`).

use super::encode::{Codec, Scratch};
use super::explore::{ExAction, ExploreModel};
use super::result::{replay, CheckResult, Coverage, PropResult, Status};
use super::search::Stop;
use super::{mem, MdlModel, PropKind, State};
use stateright::{Checker, HasDiscoveries, Model, Property};
use std::hash::{Hash, Hasher};
use std::sync::Arc;
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

/// A state and its canonical encoding (its identity).
#[derive(Clone)]
pub struct RefState {
    enc: Vec<u8>,
    st: State,
}

impl PartialEq for RefState {
    fn eq(&self, o: &Self) -> bool {
        self.enc == o.enc
    }
}
impl Eq for RefState {}
impl Hash for RefState {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.enc.hash(h)
    }
}
impl std::fmt::Debug for RefState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.st.pc)
    }
}

/// The model with the encoding that names its states.
#[derive(Clone)]
pub struct RefModel {
    ex: ExploreModel,
    codec: Arc<Codec>,
    kinds: Arc<[(PropKind, &'static str)]>,
}

impl RefModel {
    pub fn new(m: Arc<MdlModel>) -> RefModel {
        let codec = Arc::new(Codec::new(&m, false));
        let kinds = m.prop_kinds().into();
        RefModel {
            ex: ExploreModel(m),
            codec,
            kinds,
        }
    }
    fn wrap(&self, st: State) -> RefState {
        let mut enc = Vec::new();
        self.codec.encode(&st, &mut Scratch::default(), &mut enc);
        RefState { enc, st }
    }
}

/// stateright takes plain `fn`s: one per property, found by its index in
/// [`MdlModel::prop_kinds`] (at most 7 built-in properties and 64 asserts).
fn p<const I: usize>(m: &RefModel, s: &RefState) -> bool {
    m.kinds
        .get(I)
        .is_none_or(|(k, _)| m.ex.0.holds_in(*k, &s.st))
}

type PropFn = fn(&RefModel, &RefState) -> bool;

/// `prop_fns!(p, PropFn)`: the array of `p::<0>` to `p::<70>`, each as a `PropFn` (for
/// lock scenarios at most 7 built-in properties and 64 asserts; for SQL scenarios 4 and
/// [`crate::model::MAX_ASSERTS`]).
macro_rules! prop_fns {
    ($p:ident, $t:ty) => {
        prop_fns!(@ $p, $t;
            0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29
            30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56
            57 58 59 60 61 62 63 64 65 66 67 68 69 70)
    };
    (@ $p:ident, $t:ty; $($i:literal)*) => { [$($p::<$i> as $t),*] };
}
pub(crate) use prop_fns;

const PROP_FNS: [PropFn; 71] = prop_fns!(p, PropFn);

impl Model for RefModel {
    type State = RefState;
    type Action = ExAction;

    fn init_states(&self) -> Vec<RefState> {
        vec![self.wrap(self.ex.0.initial())]
    }
    fn actions(&self, s: &RefState, out: &mut Vec<ExAction>) {
        let ex = super::explore::ExState {
            st: s.st.clone(),
            m: self.ex.0.clone(),
        };
        self.ex.actions(&ex, out);
    }
    fn next_state(&self, s: &RefState, a: ExAction) -> Option<RefState> {
        self.ex
            .0
            .apply(&s.st, a.action)
            .map(|(st, _)| self.wrap(st))
    }
    fn properties(&self) -> Vec<Property<Self>> {
        let m = &self.ex.0;
        m.prop_kinds()
            .into_iter()
            .enumerate()
            .map(|(i, (k, name))| match k {
                PropKind::Assert(a) if m.asserts[a].is_sometimes() => {
                    Property::sometimes(name, PROP_FNS[i])
                }
                _ => Property::always(name, PROP_FNS[i]),
            })
            .collect()
    }
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
    let model = RefModel::new(Arc::new(m.clone()));
    let props = m.prop_kinds();
    let names: Vec<&'static str> = props.iter().map(|(_, n)| *n).collect();
    let r = run(model, &names, o);
    result(m, o, &props, start, cpu0, r)
}

/// Our result from a finished checker.
fn result(
    m: &MdlModel,
    o: &RefOptions,
    props: &[(PropKind, &'static str)],
    start: Instant,
    cpu0: Option<f64>,
    r: RefRun<ExAction>,
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
        let trace = found.and_then(|p| {
            let acts: Vec<_> = p.into_iter().map(|a| a.action).collect();
            replay(m, &acts)
        });
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
