//! A lock scenario ([`MdlModel`]) as a stateright [`Model`] with our engine's extension
//! ([`EngineModel`]): the one model that `mdl check` runs on our engine (through
//! [`super::model_space::ModelSpace`]), on stateright's checker (`--engine stateright`,
//! without reductions: [`super::reference`]) and in the Explorer ([`super::explore`]).
//!
//! What the trait adds here: the compact canonical encoding a state is named by and
//! rebuilt from ([`super::encode`], with symmetry and keys quiet from a state on), the
//! partial-order reduction ([`super::por`]), symmetry (the order of the representative's
//! sessions), and the steps taken (for the coverage and the warnings of the report).

use super::encode::{Codec, Scratch};
use super::engine_model::{prop_fns, EngineModel};
use super::por::{Por, PorStats};
use super::search::SearchOptions;
use super::{Action, MdlModel, PropKind, Record, State};
use stateright::{Model, Property};
use std::sync::Arc;

/// The model with the reductions a search asked for.
#[derive(Clone, Debug)]
pub struct LockScenario {
    pub m: Arc<MdlModel>,
    pub codec: Arc<Codec>,
    por: Option<Arc<Por>>,
    /// Why the reduction is off although asked for.
    pub por_off: Option<String>,
    pub symmetry: bool,
    /// Per property ([`MdlModel::prop_kinds`]): its kind, name, and whether it is a
    /// `sometimes` one.
    props: Arc<[(PropKind, &'static str, bool)]>,
}

impl LockScenario {
    /// With the reductions of `o` that the model allows.
    pub fn new(m: Arc<MdlModel>, o: &SearchOptions) -> LockScenario {
        let symmetry = o.symmetry && m.has_symmetry();
        let mut codec = Codec::new(&m, symmetry);
        if o.dynamic_quiet {
            codec = codec.with_dynamic_quiet(&m);
        }
        let (por, por_off) = if o.por {
            match Por::new(&m, &codec) {
                Some(p) => (Some(Arc::new(p)), None),
                None => (
                    None,
                    Some(format!(
                        "partial-order reduction off: the scenario names more than {} keys",
                        super::keys::MAX_KEYS
                    )),
                ),
            }
        } else {
            (None, None)
        };
        let props = m
            .prop_kinds()
            .into_iter()
            .map(|(k, name)| {
                let sometimes = matches!(k, PropKind::Assert(i) if m.asserts[i].is_sometimes());
                (k, name, sometimes)
            })
            .collect();
        LockScenario {
            m,
            codec: Arc::new(codec),
            por,
            por_off,
            symmetry,
            props,
        }
    }

    /// Without reductions: every state named by its encoding without symmetry (the
    /// model stateright's checker and the Explorer run).
    pub fn plain(m: Arc<MdlModel>) -> LockScenario {
        let o = SearchOptions {
            dfs: false,
            symmetry: false,
            por: false,
            dynamic_quiet: false,
            max_depth: None,
            max_states: None,
            max_memory: 0,
            progress: false,
            threads: 1,
            max_time: None,
        };
        LockScenario::new(m, &o)
    }
}

/// stateright takes plain `fn`s: property `I` holds in `s`.
fn p<const I: usize>(m: &LockScenario, s: &State) -> bool {
    m.props.get(I).is_none_or(|(k, _, _)| m.m.holds_in(*k, s))
}

type PropFn = fn(&LockScenario, &State) -> bool;

/// At most 7 built-in properties and 64 asserts.
const PROP_FNS: [PropFn; 71] = prop_fns!(p, PropFn);

impl Model for LockScenario {
    type State = State;
    type Action = Action;

    fn init_states(&self) -> Vec<State> {
        vec![self.m.initial()]
    }
    fn actions(&self, s: &State, out: &mut Vec<Action>) {
        self.m.enabled(s, out)
    }
    fn next_state(&self, s: &State, a: Action) -> Option<State> {
        self.m.apply(s, a).map(|(n, _)| n)
    }
    fn properties(&self) -> Vec<Property<Self>> {
        self.props
            .iter()
            .enumerate()
            .map(|(i, &(_, name, sometimes))| {
                if sometimes {
                    Property::sometimes(name, PROP_FNS[i])
                } else {
                    Property::always(name, PROP_FNS[i])
                }
            })
            .collect()
    }
}

impl EngineModel for LockScenario {
    type Record = Record;
    type Scratch = Scratch;
    /// Per session, per step: bit 1 the step was taken, bit 2 with an outcome other than
    /// `error`.
    type Notes = Vec<Vec<u8>>;
    const DECODES: bool = true;

    fn step(&self, st: &State, a: Action) -> Option<(State, Record)> {
        self.m.apply(st, a)
    }
    fn action_of(&self, rec: &Record) -> Action {
        rec.action
    }
    fn encode(&self, st: &State, scratch: &mut Scratch, out: &mut Vec<u8>) {
        self.codec.encode(st, scratch, out)
    }
    fn decode(&self, enc: &[u8]) -> Option<State> {
        Some(self.codec.decode(enc))
    }

    /// One action's successor if partial-order reduction finds an invisible, independent
    /// one; every enabled action's otherwise.
    fn successors(
        &self,
        st: &State,
        enabled: &[Action],
        stats: &mut PorStats,
        out: &mut Vec<(State, Record)>,
    ) {
        out.clear();
        if let Some(p) = &self.por {
            let mut cands = Vec::new();
            p.candidates(&self.codec, st, enabled, &mut cands);
            for &a in cands.iter() {
                if let Some((next, rec)) = self.m.apply(st, a) {
                    if Por::invisible(&self.m, st, &next, &rec) {
                        stats.reduced += 1;
                        stats.skipped += enabled.len() as u64 - 1;
                        out.clear();
                        out.push((next, rec));
                        return;
                    }
                    // Not chosen: kept, so the full expansion need not take it again.
                    out.push((next, rec));
                }
            }
        }
        let tried = out.len();
        for &a in enabled {
            if out[..tried].iter().any(|(_, r)| r.action == a) {
                continue;
            }
            if let Some(x) = self.m.apply(st, a) {
                out.push(x);
            }
        }
    }
    fn reduces(&self) -> bool {
        self.por.is_some()
    }

    fn order(&self, scratch: &Scratch) -> Vec<usize> {
        self.codec.last_order(scratch).to_vec()
    }
    fn relabel(&self, a: Action, real: &[usize]) -> Action {
        a.with_session(real[a.session()])
    }

    fn new_notes(&self) -> Vec<Vec<u8>> {
        self.m.programs.iter().map(|p| vec![0; p.len()]).collect()
    }
    fn note(&self, rec: &Record, seen: &mut Vec<Vec<u8>>) {
        if let (Action::Step(p), Some(i)) = (rec.action, rec.step) {
            seen[p as usize][i] |= if rec.outcome == Some(mdl_core::Outcome::Error) {
                1
            } else {
                3
            };
        }
    }
    fn merge_notes(&self, into: &mut Vec<Vec<u8>>, from: &Vec<Vec<u8>>) {
        for (a, b) in into.iter_mut().zip(from) {
            for (x, y) in a.iter_mut().zip(b) {
                *x |= *y;
            }
        }
    }
    fn finish_notes(&self, seen: &mut Vec<Vec<u8>>) {
        if !self.symmetry {
            return;
        }
        let mut by: std::collections::BTreeMap<u8, Vec<usize>> = Default::default();
        for (x, c) in self.m.classes.iter().enumerate() {
            by.entry(*c).or_default().push(x);
        }
        for g in by.values().filter(|g| g.len() > 1) {
            let mut bits = vec![0u8; seen[g[0]].len()];
            for &x in g {
                for (b, s) in bits.iter_mut().zip(&seen[x]) {
                    *b |= s;
                }
            }
            for &x in g {
                seen[x].copy_from_slice(&bits);
            }
        }
    }
}

/// A lock scenario without reductions (the Explorer's).
impl From<MdlModel> for LockScenario {
    fn from(m: MdlModel) -> LockScenario {
        LockScenario::plain(Arc::new(m))
    }
}

/// Lock scenarios in the Explorer: states as lock tables with session names, actions as
/// the steps' text.
#[cfg(feature = "stateright")]
impl super::engine_model::Explain for LockScenario {
    fn state_text(&self, st: &State) -> String {
        super::report::state_table(&self.m, st)
    }
    fn step_of(&self, st: &State, a: Action) -> Option<usize> {
        let pc = st.pc[a.session()] as usize;
        match a {
            Action::Step(_) => Some(pc),
            Action::Resume(_) => pc.checked_sub(1),
            _ => None,
        }
    }
    fn action_text(&self, a: Action, step: Option<usize>) -> String {
        super::report::action_name(&self.m, a, step)
    }
    fn step_text(&self, st: &State, a: Action) -> Option<String> {
        let (_, rec) = self.m.apply(st, a)?;
        let mut out = super::report::record_text(&self.m, &rec);
        if let Some(o) = rec.outcome {
            out.push_str(&format!(" -> {o}"));
        }
        for e in &rec.events {
            out.push_str(&format!("\n  => {}", super::report::event_text(&self.m, e)));
        }
        Some(out)
    }
}
