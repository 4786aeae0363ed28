//! A SQL scenario ([`SqlCheck`]) as a stateright [`Model`] with our engine's extension
//! ([`EngineModel`]): the one model that `mdl check` runs on our engine (through
//! [`crate::model::model_space::ModelSpace`]) and on stateright's checker
//! (`--engine stateright`, [`super::reference`]).
//!
//! A state is named by its fingerprint ([`SqlState::fingerprint`]: the SQL model's lock
//! table, catalog, clock and sessions, and the counters of the check), its `Hash` and
//! equality too, so that both engines count the same states. The SQL model has no
//! encoding a state can be rebuilt from, so our engine keeps the states on its queue
//! aside (a state is small: its catalog and sessions are shared with the states it came
//! from, `mdl_sql::model::encode`). Two reductions, each a step taken first, alone: a
//! private step ([`super::quiet`]) and a step on keys no other session touches
//! ([`super::key_por`]). The notes: every (session, outcome) a statement reached.

use super::{SqlAction, SqlCheck, SqlProp, SqlRecord, SqlState};
use crate::model::engine_model::prop_fns;
use crate::model::engine_model::EngineModel;
use crate::model::por::PorStats;
use mdl_core::Outcome;
use stateright::{Model, Property};
use std::collections::{BTreeSet, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// A SQL scenario with the reduction a search asked for.
#[derive(Clone, Debug)]
pub struct SqlScenario {
    pub m: Arc<SqlCheck>,
    /// Its properties, built-ins first ([`SqlCheck::props`]).
    props: Arc<[SqlProp]>,
    /// Private steps taken alone ([`super::quiet`]), and steps on keys no other session
    /// touches ([`super::key_por`]).
    pub reduce: bool,
    key_por: Option<Arc<super::key_por::KeyPor>>,
    /// With symmetry: the classes of interchangeable sessions ([`super::symmetry`]);
    /// empty without.
    pub classes: Arc<[Vec<usize>]>,
    /// States generated whose name is another member of their symmetry orbit
    /// ([`super::symmetry::name`] replayed a renaming): the report's count.
    renamed: Arc<AtomicU64>,
}

impl SqlScenario {
    pub fn new(m: Arc<SqlCheck>, reduce: bool) -> SqlScenario {
        let props = m.props().into();
        let key_por = reduce.then(|| Arc::new(super::key_por::KeyPor::new(&m)));
        SqlScenario {
            m,
            props,
            reduce,
            key_por,
            classes: Arc::from(Vec::new()),
            renamed: Arc::default(),
        }
    }

    /// With symmetry when `on` and the scenario has interchangeable sessions.
    pub fn symmetric(mut self, on: bool) -> SqlScenario {
        if on {
            self.classes = super::symmetry::classes(&self.m).into();
        }
        self
    }

    /// Symmetry names states (some sessions are interchangeable).
    pub fn has_symmetry(&self) -> bool {
        !self.classes.is_empty()
    }

    /// States generated so far that symmetry named by another member of their orbit.
    pub fn renamed(&self) -> u64 {
        self.renamed.load(Ordering::Relaxed)
    }

    /// Takes one action; with symmetry the new state keeps the actions into it.
    fn play(&self, st: &SqlState, a: SqlAction) -> (SqlState, SqlRecord) {
        let (mut next, rec) = self.m.apply(st, a);
        if self.has_symmetry() {
            next.trail = st.trail.push(a);
        }
        (next, rec)
    }
}

/// stateright names properties with `&'static str`: each distinct name is leaked once.
fn static_name(s: String) -> &'static str {
    static NAMES: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut names = NAMES
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(n) = names.get(s.as_str()) {
        return n;
    }
    let n: &'static str = Box::leak(s.into_boxed_str());
    names.insert(n);
    n
}

/// Property `I`'s condition: it holds in `s` (an `always` one: does not occur; a
/// `sometimes` one: occurs).
fn p<const I: usize>(m: &SqlScenario, s: &SqlState) -> bool {
    m.props
        .get(I)
        .is_none_or(|&p| m.m.occurs(p, s) == m.m.is_sometimes(p))
}

type PropFn = fn(&SqlScenario, &SqlState) -> bool;

/// The 4 built-in properties and at most [`crate::model::MAX_ASSERTS`] asserts.
const PROP_FNS: [PropFn; 71] = prop_fns!(p, PropFn);

impl Model for SqlScenario {
    type State = SqlState;
    type Action = SqlAction;

    fn init_states(&self) -> Vec<SqlState> {
        vec![self.m.initial()]
    }
    fn actions(&self, s: &SqlState, out: &mut Vec<SqlAction>) {
        self.m.enabled(s, out)
    }
    fn next_state(&self, s: &SqlState, a: SqlAction) -> Option<SqlState> {
        Some(self.m.apply(s, a).0)
    }
    fn properties(&self) -> Vec<Property<Self>> {
        self.props
            .iter()
            .enumerate()
            .map(|(i, &p)| {
                let name = static_name(self.m.prop_name(p));
                if self.m.is_sometimes(p) {
                    Property::sometimes(name, PROP_FNS[i])
                } else {
                    Property::always(name, PROP_FNS[i])
                }
            })
            .collect()
    }
}

impl EngineModel for SqlScenario {
    type Record = SqlRecord;
    type Scratch = ();
    type Notes = BTreeSet<(usize, Outcome)>;

    fn step(&self, st: &SqlState, a: SqlAction) -> Option<(SqlState, SqlRecord)> {
        Some(self.play(st, a))
    }
    fn action_of(&self, rec: &SqlRecord) -> SqlAction {
        rec.action
    }
    fn encode(&self, st: &SqlState, _: &mut (), out: &mut Vec<u8>) {
        out.clear();
        let name = if self.has_symmetry() {
            let (name, renamed) = super::symmetry::name(&self.m, &self.classes, st);
            if renamed {
                self.renamed.fetch_add(1, Ordering::Relaxed);
            }
            name
        } else {
            st.fingerprint()
        };
        out.extend_from_slice(&name.to_le_bytes());
    }

    fn successors(
        &self,
        st: &SqlState,
        enabled: &[SqlAction],
        stats: &mut PorStats,
        out: &mut Vec<(SqlState, SqlRecord)>,
    ) {
        out.clear();
        if self.reduce && enabled.len() > 1 {
            let alone = super::quiet::private_step(&self.m, st, enabled).or_else(|| {
                let k = self.key_por.as_ref()?;
                k.alone(&self.m, st, enabled)
            });
            if let Some((mut x, rec)) = alone {
                stats.reduced += 1;
                stats.skipped += enabled.len() as u64 - 1;
                if self.has_symmetry() {
                    x.trail = st.trail.push(rec.action);
                }
                out.push((x, rec));
                return;
            }
        }
        out.extend(enabled.iter().map(|&a| self.play(st, a)));
    }
    fn reduces(&self) -> bool {
        self.reduce
    }

    fn note(&self, rec: &SqlRecord, seen: &mut Self::Notes) {
        if let Some((o, _)) = rec.outcome {
            seen.insert((rec.action.session(), o));
        }
        for (s, o, _) in &rec.events {
            seen.insert((*s, *o));
        }
    }
    fn merge_notes(&self, into: &mut Self::Notes, from: &Self::Notes) {
        into.extend(from.iter().copied());
    }
}
