//! stateright's checker on a model with our extension trait ([`EngineModel`]), the
//! model's notes gathered as the checker takes each step (what our engine's report
//! keeps of the steps taken, e.g. the outcomes SQL statements reached): the one
//! reference runner ([`super::reference::run`]) on the model wrapped to note.

use super::engine_model::EngineModel;
use super::reference::{prop_fns, run, RefOptions, RefRun};
use stateright::{Model, Property};
use std::hash::Hash;
use std::sync::{Arc, Mutex};

/// A property's condition on the model.
type Cond<M> = fn(&M, &<M as Model>::State) -> bool;

/// The model, noting what each step the checker takes did.
struct Noting<M: EngineModel>
where
    M::State: Hash + Send,
    M::Action: Copy + PartialEq + Send,
{
    m: M,
    conds: Arc<[Cond<M>]>,
    notes: Arc<Mutex<M::Notes>>,
}

/// stateright takes plain `fn`s: property `I` of the model.
fn p<M, const I: usize>(n: &Noting<M>, s: &M::State) -> bool
where
    M: EngineModel,
    M::State: Hash + Send,
    M::Action: Copy + PartialEq + Send,
{
    n.conds.get(I).is_none_or(|f| f(&n.m, s))
}

impl<M: EngineModel> Model for Noting<M>
where
    M::State: Hash + Send,
    M::Action: Copy + PartialEq + Send,
{
    type State = M::State;
    type Action = M::Action;

    fn init_states(&self) -> Vec<M::State> {
        self.m.init_states()
    }
    fn actions(&self, s: &M::State, out: &mut Vec<M::Action>) {
        self.m.actions(s, out)
    }
    fn next_state(&self, s: &M::State, a: M::Action) -> Option<M::State> {
        let (next, rec) = self.m.step(s, a)?;
        let mut notes = self.notes.lock().unwrap_or_else(|e| e.into_inner());
        self.m.note(&rec, &mut notes);
        Some(next)
    }
    fn properties(&self) -> Vec<Property<Self>> {
        let fns: [fn(&Noting<M>, &M::State) -> bool; 71] =
            prop_fns!(p, M, fn(&Noting<M>, &M::State) -> bool);
        // The model's properties, on this model: the same names and predicates (at
        // most 71 of them: 7 built-in and 64 asserts).
        self.m
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
    let notes: Arc<Mutex<M::Notes>> = Arc::default();
    let noting = Noting {
        m: model,
        conds,
        notes: notes.clone(),
    };
    let r = run(noting, &names, o);
    let n = std::mem::take(&mut *notes.lock().unwrap_or_else(|e| e.into_inner()));
    (r, n)
}
