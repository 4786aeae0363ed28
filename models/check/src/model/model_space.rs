//! A model as our engine ([`super::search`], generic over [`EngineModel`]) holds it while
//! it searches: the model, its `always`/`sometimes` properties as predicates that *fire*
//! (read once from stateright's `Model::properties`), and, when the model's encoding only
//! names a state ([`EngineModel::DECODES`] false), the states on the queue kept aside
//! here, one store for every such model. The engine calls the model's own methods
//! (stateright's `actions`, our trait's `step`, `encode`, `successors`, ...) directly. Lock scenarios, SQL scenarios (`crate::sql::model`) and the
//! zoo's designs ([`crate::zoo`]) run through this.

use super::engine_model::EngineModel;
use stateright::{Expectation, Property};
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
pub struct ModelSpace<'m, M: EngineModel> {
    pub m: &'m M,
    props: Vec<Property<M>>,
    aside: Mutex<Aside<M::State>>,
}

impl<'m, M: EngineModel> ModelSpace<'m, M> {
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

impl<M: EngineModel> ModelSpace<'_, M> {
    /// The model's one initial state.
    pub fn initial(&self) -> M::State {
        let mut v = self.m.init_states();
        assert_eq!(v.len(), 1, "a model with one initial state");
        v.remove(0)
    }
    /// How many properties; property `i` *fires* in a state that violates it (an
    /// `always`) or shows it (a `sometimes`).
    pub fn props(&self) -> usize {
        self.props.len()
    }
    pub fn fires(&self, i: usize, st: &M::State) -> bool {
        let p = &self.props[i];
        (p.condition)(self.m, st) != (p.expectation == Expectation::Always)
    }
    /// What the queue keeps of a new state: its encoding when the model decodes
    /// ([`EngineModel::DECODES`]), else a handle to the state kept aside.
    pub fn store(&self, st: Option<M::State>, enc: &[u8], out: &mut Vec<u8>) {
        out.clear();
        if M::DECODES {
            out.extend_from_slice(enc);
            return;
        }
        let st = st.expect("the engine hands a state to store");
        let h = self.aside.lock().unwrap_or_else(|e| e.into_inner()).put(st);
        out.extend_from_slice(&h.to_le_bytes());
    }
    /// The state a queue entry stands for (once per entry).
    pub fn load(&self, stored: &[u8]) -> M::State {
        if M::DECODES {
            return self
                .m
                .decode(stored)
                .expect("a model that decodes rebuilds its encodings");
        }
        let h = u32::from_le_bytes(stored[..4].try_into().expect("a 4-byte handle"));
        self.aside.lock().unwrap_or_else(|e| e.into_inner()).take(h)
    }
}
