//! Any stateright model ([`stateright::Model`]) as a [`Space`] for our engine: its
//! initial state, actions, next states and `always`/`sometimes` properties as they are, a
//! state named by its hash (the identity stateright's own checker gives it, so that the
//! two engines count the same states), the states on the queue kept aside. No reductions.
//! The zoo's designs run through this ([`crate::zoo`]).

use super::space::Space;
use stateright::{Expectation, Model, Property};
use std::hash::{Hash, Hasher};
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

/// A stateright model for our engine.
pub struct ModelSpace<'m, M: Model> {
    pub m: &'m M,
    props: Vec<Property<M>>,
    /// The states in which an `eventually` property waits ([`Space::pending`]).
    pending: Option<fn(&M, &M::State) -> bool>,
    aside: Mutex<Aside<M::State>>,
}

impl<'m, M: Model> ModelSpace<'m, M> {
    /// The model with its `always` and `sometimes` properties (an `eventually` one is
    /// refused: liveness is the cycle search's, given as `pending`).
    pub fn new(
        m: &'m M,
        pending: Option<fn(&M, &M::State) -> bool>,
    ) -> Result<ModelSpace<'m, M>, String> {
        let props = m.properties();
        if let Some(p) = props
            .iter()
            .find(|p| p.expectation == Expectation::Eventually)
        {
            return Err(format!(
                "property `{}`: an `eventually` property is checked by the cycle search",
                p.name
            ));
        }
        Ok(ModelSpace {
            m,
            props,
            pending,
            aside: Mutex::new(Aside {
                slots: Vec::new(),
                free: Vec::new(),
            }),
        })
    }

    /// Property `i`'s name and whether it is an `always` one.
    pub fn prop(&self, i: usize) -> (&'static str, bool) {
        let p = &self.props[i];
        (p.name, p.expectation == Expectation::Always)
    }
}

impl<M> Space for ModelSpace<'_, M>
where
    M: Model + Sync,
    M::State: Hash + Send,
    M::Action: Copy + PartialEq + Send,
{
    type State = M::State;
    type Action = M::Action;
    type Record = M::Action;
    type Scratch = ();
    type Notes = ();
    const STORES_STATES: bool = true;

    fn initial(&self) -> M::State {
        let mut v = self.m.init_states();
        assert_eq!(v.len(), 1, "a model with one initial state");
        v.remove(0)
    }
    fn enabled(&self, st: &M::State, out: &mut Vec<M::Action>) {
        self.m.actions(st, out)
    }
    fn apply(&self, st: &M::State, a: M::Action) -> Option<(M::State, M::Action)> {
        self.m.next_state(st, a).map(|n| (n, a))
    }
    fn action_of(&self, rec: &M::Action) -> M::Action {
        *rec
    }
    fn props(&self) -> usize {
        self.props.len()
    }
    fn fires(&self, i: usize, st: &M::State) -> bool {
        let p = &self.props[i];
        (p.condition)(self.m, st) != (p.expectation == Expectation::Always)
    }
    fn encode(&self, st: &M::State, _: &mut (), out: &mut Vec<u8>) {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        st.hash(&mut h);
        out.clear();
        out.extend_from_slice(&h.finish().to_le_bytes());
    }
    fn store(&self, st: Option<M::State>, _: &[u8], out: &mut Vec<u8>) {
        let st = st.expect("the engine hands a state to store");
        let h = self.aside.lock().unwrap_or_else(|e| e.into_inner()).put(st);
        out.clear();
        out.extend_from_slice(&h.to_le_bytes());
    }
    fn load(&self, stored: &[u8]) -> M::State {
        let h = u32::from_le_bytes(stored[..4].try_into().expect("a 4-byte handle"));
        self.aside.lock().unwrap_or_else(|e| e.into_inner()).take(h)
    }
    fn pending(&self, st: &M::State) -> bool {
        self.pending.is_some_and(|p| p(self.m, st))
    }

    fn new_notes(&self) {}
    fn note(&self, _: &M::Action, _: &mut ()) {}
    fn merge_notes(&self, _: &mut (), _: &()) {}
}
