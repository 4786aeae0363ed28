//! Our extension trait over stateright's [`Model`]: what our search engine
//! ([`super::search`], generic over this trait) adds to a model. Every method has a default meaning "none", so a plain stateright
//! model runs with `type Record = Self::Action; type Scratch = (); type Notes = ();` and
//! [`EngineModel::step`] written as `next_state` with the action as its record.
//!
//! - identity: a state is named by [`EngineModel::encode`]'s bytes (by default, the
//!   state's `Hash`, the identity stateright's own checker gives it, so that the two
//!   engines count the same states);
//! - a compact encoding a state can be rebuilt from ([`EngineModel::DECODES`],
//!   [`EngineModel::decode`]): the queue then keeps encodings; otherwise the states
//!   themselves, aside ([`super::model_space`]);
//! - a reduction ([`EngineModel::successors`]: partial-order reduction, private steps
//!   taken alone), counted in [`PorStats`];
//! - symmetry ([`EngineModel::order`], [`EngineModel::relabel`]);
//! - liveness: the states in which an `eventually` property waits
//!   ([`EngineModel::pending`], for the cycle search of [`super::cycle`]);
//! - what the report keeps of the steps taken ([`EngineModel::Notes`]).
//!
//! Beside it, what the Explorer shows of a model ([`Explain`]: `mdl explore`,
//! [`super::explore`]) and `prop_fns!`, the table of property conditions that stateright's
//! `Property` takes as plain `fn`s.

use super::por::PorStats;
use stateright::{Model, Property};
use std::hash::{Hash, Hasher};

/// What our engine adds to a stateright model.
pub trait EngineModel: Model<State: Hash + Send, Action: Copy + PartialEq + Send> + Sync {
    /// What one action did (for the notes); a plain model's is the action.
    type Record: Send;
    /// Buffers reused across encodings (one per thread).
    type Scratch: Default + Send;
    /// What the search keeps of the actions it took, for the report (merged across
    /// threads).
    type Notes: Default + Send;
    /// [`EngineModel::encode`] gives an encoding the state can be rebuilt from
    /// ([`EngineModel::decode`]); `false`: it only names the state.
    const DECODES: bool = false;

    /// The next state and what the action did (stateright's `next_state` with a record);
    /// `None` when the action is not one.
    fn step(&self, st: &Self::State, a: Self::Action) -> Option<(Self::State, Self::Record)>;
    fn action_of(&self, rec: &Self::Record) -> Self::Action;

    /// The bytes that name the state (with symmetry: its class); by default its hash.
    fn encode(&self, st: &Self::State, scratch: &mut Self::Scratch, out: &mut Vec<u8>) {
        let _ = scratch;
        let mut h = std::collections::hash_map::DefaultHasher::new();
        st.hash(&mut h);
        out.clear();
        out.extend_from_slice(&h.finish().to_le_bytes());
    }
    /// The state an encoding stands for; only called when [`EngineModel::DECODES`]
    /// (`None`: the model has no such encoding).
    fn decode(&self, enc: &[u8]) -> Option<Self::State> {
        let _ = enc;
        None
    }

    /// The successors to explore: every enabled action's (the default), or fewer under a
    /// reduction (counted in `stats`).
    fn successors(
        &self,
        st: &Self::State,
        enabled: &[Self::Action],
        stats: &mut PorStats,
        out: &mut Vec<(Self::State, Self::Record)>,
    ) {
        let _ = stats;
        out.clear();
        out.extend(enabled.iter().filter_map(|&a| self.step(st, a)));
    }
    /// A reduction is on (its stats are reported).
    fn reduces(&self) -> bool {
        false
    }

    /// With symmetry: after an encoding, position `i` of it is session `order()[i]` of
    /// the state encoded (empty without symmetry).
    fn order(&self, scratch: &Self::Scratch) -> Vec<usize> {
        let _ = scratch;
        Vec::new()
    }
    /// The action of the real session `real[s]` for an action of session `s` of a
    /// representative.
    fn relabel(&self, a: Self::Action, real: &[usize]) -> Self::Action {
        let _ = real;
        a
    }

    /// Liveness: in this state an `eventually` property is still waiting.
    fn pending(&self, st: &Self::State) -> bool {
        let _ = st;
        false
    }

    /// The notes before any step.
    fn new_notes(&self) -> Self::Notes {
        Self::Notes::default()
    }
    /// Notes what a step did (nothing by default; a model with notes writes this and
    /// [`EngineModel::merge_notes`]).
    fn note(&self, rec: &Self::Record, notes: &mut Self::Notes) {
        let _ = (rec, notes);
    }
    fn merge_notes(&self, into: &mut Self::Notes, from: &Self::Notes) {
        let _ = (into, from);
    }
    /// Once, when the search ends (interchangeable sessions share what their steps did).
    fn finish_notes(&self, notes: &mut Self::Notes) {
        let _ = notes;
    }
}

/// What the Explorer shows of a model.
pub trait Explain: Model {
    /// A state, as the Explorer shows it (lock tables with session names, ...).
    fn state_text(&self, st: &Self::State) -> String;
    /// The step of its session's program an action takes in `st` (to name it).
    fn step_of(&self, st: &Self::State, a: Self::Action) -> Option<usize>;
    /// An action's name, with the step it takes.
    fn action_text(&self, a: Self::Action, step: Option<usize>) -> String;
    /// What an action does in `st` (its outcome and what it wakes).
    fn step_text(&self, st: &Self::State, a: Self::Action) -> Option<String>;
}

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
    // `prop_fns!(p, M, PropFn<M>)`: `p::<M, 0>` to `p::<M, 70>`, in a generic function.
    ($p:ident, $g:ty, $t:ty) => {
        prop_fns!(@@ $p, $g, $t;
            0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29
            30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56
            57 58 59 60 61 62 63 64 65 66 67 68 69 70)
    };
    (@@ $p:ident, $g:ty, $t:ty; $($i:literal)*) => { [$($p::<$g, $i> as $t),*] };
}
pub(crate) use prop_fns;

/// The properties of a model `W` that wraps `inner` (the Explorer's [`super::explore`],
/// the noting runner's [`super::reference`]): `inner`'s names and expectations, property
/// `i`'s condition being `fns[i]` (from [`prop_fns!`]: the wrapper's `p::<i>`, which
/// reads `inner`'s `i`-th condition). At most `fns.len()` (71) properties: every model
/// here has fewer (7 built-in and 64 asserts at most).
pub fn wrapped_properties<I: Model, W: Model>(
    inner: &I,
    fns: [fn(&W, &W::State) -> bool; 71],
) -> Vec<Property<W>> {
    inner
        .properties()
        .into_iter()
        .zip(fns)
        .map(|(p, f)| Property {
            expectation: p.expectation,
            name: p.name,
            condition: f,
        })
        .collect()
}
