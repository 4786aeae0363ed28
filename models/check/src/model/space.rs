//! What our search engine ([`super::search`]) needs of a model, in the engine's shape.
//! One implementation: [`super::model_space::ModelSpace`], over any stateright `Model`
//! with our extension trait ([`super::engine_model::EngineModel`]): lock scenarios
//! ([`super::lock_model::LockScenario`]), SQL scenarios (`crate::sql::model`), the zoo's
//! designs. A model implements that trait, not this one.
//!
//! The first four methods are stateright's `Model` in our engine's shape (an initial
//! state, the enabled actions, the next state, the properties as predicates); the rest
//! is what the engine adds: a compact canonical encoding that names a state (with
//! symmetry: its class), the successors under partial-order reduction, and what the
//! report keeps of the actions taken (coverage).

use super::por::PorStats;

/// A model our engine can search.
pub trait Space: Sync {
    type State: Send;
    type Action: Copy + PartialEq + Send;
    type Record: Send;
    /// Buffers reused across encodings (one per thread).
    type Scratch: Default + Send;
    /// What the search keeps of the actions it took, for the report (merged across
    /// threads).
    type Notes: Send;
    /// States the queue keeps as states (not as their encodings): `true` when an
    /// encoding only names a state and cannot be decoded ([`Space::store`]).
    const STORES_STATES: bool = false;

    fn initial(&self) -> Self::State;
    fn enabled(&self, st: &Self::State, out: &mut Vec<Self::Action>);
    /// The next state and what the action did; `None` when the action is not one.
    fn apply(&self, st: &Self::State, a: Self::Action) -> Option<(Self::State, Self::Record)>;
    fn action_of(&self, rec: &Self::Record) -> Self::Action;

    /// How many properties; property `i` *fires* in a state that violates it (an
    /// `always`) or shows it (a `sometimes`).
    fn props(&self) -> usize;
    fn fires(&self, i: usize, st: &Self::State) -> bool;

    /// The canonical encoding that names the state (its fingerprint is the state's
    /// identity in the search).
    fn encode(&self, st: &Self::State, scratch: &mut Self::Scratch, out: &mut Vec<u8>);
    /// What the queue keeps of a new state: its encoding (the default), or, with
    /// [`Space::STORES_STATES`], a handle to the state kept aside.
    fn store(&self, st: Option<Self::State>, enc: &[u8], out: &mut Vec<u8>) {
        let _ = st;
        out.clear();
        out.extend_from_slice(enc);
    }
    /// The state a queue entry stands for (once per entry).
    fn load(&self, stored: &[u8]) -> Self::State;

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
        out.extend(enabled.iter().filter_map(|&a| self.apply(st, a)));
    }
    /// A partial-order reduction is on (its stats are reported).
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

    /// Liveness: in this state an `eventually` property is still waiting (the cycle
    /// search of [`super::cycle`] looks for a run that stays in such states for ever).
    fn pending(&self, st: &Self::State) -> bool {
        let _ = st;
        false
    }

    fn new_notes(&self) -> Self::Notes;
    fn note(&self, rec: &Self::Record, notes: &mut Self::Notes);
    fn merge_notes(&self, into: &mut Self::Notes, from: &Self::Notes);
    /// Once, when the search ends (interchangeable sessions share what their steps did).
    fn finish_notes(&self, notes: &mut Self::Notes) {
        let _ = notes;
    }
}
