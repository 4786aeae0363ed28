//! stateright's checker on a model with our extension trait ([`EngineModel`]): the one
//! reference runner ([`super::reference::run`]) on the model wrapped so that a state's
//! identity is the trait's encoding ([`EngineModel::encode`], the identity our engine
//! gives it: the two engines count the same states), and the model's notes are
//! gathered as the checker takes each step (what our engine's report keeps of the steps
//! taken, e.g. the outcomes SQL statements reached). Run it on the model without
//! reductions: this is the plain search the reductions are checked against.

use super::engine_model::EngineModel;
use super::reference::{prop_fns, run, RefOptions, RefRun};
use stateright::{Model, Property};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};

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
struct Noting<M: EngineModel>
where
    M::State: Hash + Send,
    M::Action: Copy + PartialEq + Send,
{
    m: M,
    conds: Arc<[Cond<M>]>,
    notes: Arc<Mutex<M::Notes>>,
}

type PropFn<M> = fn(&Noting<M>, &Named<<M as Model>::State>) -> bool;

/// stateright takes plain `fn`s: property `I` of the model.
fn p<M, const I: usize>(n: &Noting<M>, s: &Named<M::State>) -> bool
where
    M: EngineModel,
    M::State: Hash + Send,
    M::Action: Copy + PartialEq + Send,
{
    n.conds.get(I).is_none_or(|f| f(&n.m, &s.st))
}

impl<M: EngineModel> Noting<M>
where
    M::State: Hash + Send,
    M::Action: Copy + PartialEq + Send,
{
    fn named(&self, st: M::State) -> Named<M::State> {
        let mut id = Vec::new();
        self.m.encode(&st, &mut M::Scratch::default(), &mut id);
        Named { id, st }
    }
}

impl<M: EngineModel> Model for Noting<M>
where
    M::State: Hash + Send,
    M::Action: Copy + PartialEq + Send,
{
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
        let fns: [PropFn<M>; 71] = prop_fns!(p, M, PropFn<M>);
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
