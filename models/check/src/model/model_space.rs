//! The one adapter between our engine ([`super::search`], over [`Space`]) and the models
//! it explores: any stateright model with our extension trait ([`EngineModel`]): its
//! initial state, actions, next states and `always`/`sometimes` properties as they are,
//! what the trait adds (the encoding that names a state, a reduction, symmetry, liveness,
//! notes) as the model gives it. When the model's encoding only names a state
//! ([`EngineModel::DECODES`] false), the states on the queue are kept aside here, one
//! store for every such model. SQL scenarios (`crate::sql::model`) and the zoo's
//! designs ([`crate::zoo`]) run through this.

use super::engine_model::EngineModel;
use super::por::PorStats;
use super::space::Space;
use stateright::{Expectation, Property};
use std::hash::Hash;
use std::sync::Mutex;

/// The states on the queue, by handle.
struct Aside<T> {
    slots: Vec<Option<T>>,
    free: Vec<u32>,
}

impl<T> Aside<T> {
    fn put(&mut self, st: T) -> u32 {
        match self.free.pop() {
            Some(h) => {
                self.slots[h as usize] = Some(st);
                h
            }
            None => {
                self.slots.push(Some(st));
                (self.slots.len() - 1) as u32
            }
        }
    }
    fn take(&mut self, h: u32) -> T {
        self.free.push(h);
        self.slots[h as usize]
            .take()
            .expect("each queue entry is loaded once")
    }
}

/// A model for our engine.
pub struct ModelSpace<'m, M: EngineModel>
where
    M::State: Hash + Send,
    M::Action: Copy + PartialEq + Send,
{
    pub m: &'m M,
    props: Vec<Property<M>>,
    aside: Mutex<Aside<M::State>>,
}

impl<'m, M: EngineModel> ModelSpace<'m, M>
where
    M::State: Hash + Send,
    M::Action: Copy + PartialEq + Send,
{
    /// The model with its properties, every one an `always` or a `sometimes` one (a
    /// model that may have an `eventually` one goes through [`ModelSpace::checked`]).
    pub fn new(m: &'m M) -> ModelSpace<'m, M> {
        ModelSpace {
            m,
            props: m.properties(),
            aside: Mutex::new(Aside {
                slots: Vec::new(),
                free: Vec::new(),
            }),
        }
    }

    /// The model with its `always` and `sometimes` properties; an `eventually` one is
    /// refused (liveness is the cycle search's, through [`EngineModel::pending`]).
    pub fn checked(m: &'m M) -> Result<ModelSpace<'m, M>, String> {
        let s = ModelSpace::new(m);
        match s
            .props
            .iter()
            .find(|p| p.expectation == Expectation::Eventually)
        {
            Some(p) => Err(format!(
                "property `{}`: an `eventually` property is checked by the cycle search",
                p.name
            )),
            None => Ok(s),
        }
    }

    /// Property `i`'s name and whether it is an `always` one.
    pub fn prop(&self, i: usize) -> (&'static str, bool) {
        let p = &self.props[i];
        (p.name, p.expectation == Expectation::Always)
    }
}

impl<M> Space for ModelSpace<'_, M>
where
    M: EngineModel,
    M::State: Hash + Send,
    M::Action: Copy + PartialEq + Send,
{
    type State = M::State;
    type Action = M::Action;
    type Record = M::Record;
    type Scratch = M::Scratch;
    type Notes = M::Notes;
    const STORES_STATES: bool = !M::DECODES;

    fn initial(&self) -> M::State {
        let mut v = self.m.init_states();
        assert_eq!(v.len(), 1, "a model with one initial state");
        v.remove(0)
    }
    fn enabled(&self, st: &M::State, out: &mut Vec<M::Action>) {
        self.m.actions(st, out)
    }
    fn apply(&self, st: &M::State, a: M::Action) -> Option<(M::State, M::Record)> {
        self.m.step(st, a)
    }
    fn action_of(&self, rec: &M::Record) -> M::Action {
        self.m.action_of(rec)
    }
    fn props(&self) -> usize {
        self.props.len()
    }
    fn fires(&self, i: usize, st: &M::State) -> bool {
        let p = &self.props[i];
        (p.condition)(self.m, st) != (p.expectation == Expectation::Always)
    }
    fn encode(&self, st: &M::State, scratch: &mut M::Scratch, out: &mut Vec<u8>) {
        self.m.encode(st, scratch, out)
    }
    fn store(&self, st: Option<M::State>, enc: &[u8], out: &mut Vec<u8>) {
        out.clear();
        if M::DECODES {
            out.extend_from_slice(enc);
            return;
        }
        let st = st.expect("the engine hands a state to store");
        let h = self.aside.lock().unwrap_or_else(|e| e.into_inner()).put(st);
        out.extend_from_slice(&h.to_le_bytes());
    }
    fn load(&self, stored: &[u8]) -> M::State {
        if M::DECODES {
            return self
                .m
                .decode(stored)
                .expect("a model that decodes rebuilds its encodings");
        }
        let h = u32::from_le_bytes(stored[..4].try_into().expect("a 4-byte handle"));
        self.aside.lock().unwrap_or_else(|e| e.into_inner()).take(h)
    }

    fn successors(
        &self,
        st: &M::State,
        enabled: &[M::Action],
        stats: &mut PorStats,
        out: &mut Vec<(M::State, M::Record)>,
    ) {
        self.m.successors(st, enabled, stats, out)
    }
    fn reduces(&self) -> bool {
        self.m.reduces()
    }
    fn order(&self, scratch: &M::Scratch) -> Vec<usize> {
        self.m.order(scratch)
    }
    fn relabel(&self, a: M::Action, real: &[usize]) -> M::Action {
        self.m.relabel(a, real)
    }
    fn pending(&self, st: &M::State) -> bool {
        self.m.pending(st)
    }

    fn new_notes(&self) -> M::Notes {
        self.m.new_notes()
    }
    fn note(&self, rec: &M::Record, notes: &mut M::Notes) {
        self.m.note(rec, notes)
    }
    fn merge_notes(&self, into: &mut M::Notes, from: &M::Notes) {
        self.m.merge_notes(into, from)
    }
    fn finish_notes(&self, notes: &mut M::Notes) {
        self.m.finish_notes(notes)
    }
}
