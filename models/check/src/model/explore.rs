//! The one Explorer adapter (`mdl explore`, stateright's Explorer) for every model the
//! checker explores: lock scenarios ([`super::lock_model::LockScenario`]) and SQL
//! scenarios (`crate::sql::model::SqlScenario`). The checking itself is
//! [`super::search`]'s; the Explorer only walks states one click at a time, so here a
//! state is shown and an action named by the model's [`Explain`] (beside our engine's trait in
//! [`super::engine_model`]) (the Explorer prints a
//! state with `{:#?}`: [`Shown`]'s `Debug` is the model's state text).

use super::engine_model::{prop_fns, wrapped_properties, Explain};
use stateright::{Model, Property};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// `mdl explore`'s model of a lock scenario.
pub type ExploreModel = Explorer<super::lock_model::LockScenario>;

/// A property's condition on the model.
type Cond<M> = fn(&M, &<M as Model>::State) -> bool;

/// A model for the Explorer.
pub struct Explorer<M: Model> {
    pub m: Arc<M>,
    conds: Arc<[Cond<M>]>,
}

impl<M: Model> Clone for Explorer<M> {
    fn clone(&self) -> Self {
        Explorer {
            m: self.m.clone(),
            conds: self.conds.clone(),
        }
    }
}

impl<M: Model> Explorer<M> {
    pub fn new(m: impl Into<M>) -> Explorer<M> {
        let m: M = m.into();
        let conds = m.properties().iter().map(|p| p.condition).collect();
        Explorer {
            m: Arc::new(m),
            conds,
        }
    }
}

/// A state with the model that shows it (not part of its identity).
pub struct Shown<M: Model> {
    pub st: M::State,
    pub m: Arc<M>,
}

impl<M: Model> Clone for Shown<M>
where
    M::State: Clone,
{
    fn clone(&self) -> Self {
        Shown {
            st: self.st.clone(),
            m: self.m.clone(),
        }
    }
}
impl<M: Model> PartialEq for Shown<M>
where
    M::State: PartialEq,
{
    fn eq(&self, o: &Self) -> bool {
        self.st == o.st
    }
}
impl<M: Model> Eq for Shown<M> where M::State: Eq {}
impl<M: Model> Hash for Shown<M>
where
    M::State: Hash,
{
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.st.hash(h)
    }
}
impl<M: Explain> fmt::Debug for Shown<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.m.state_text(&self.st))
    }
}

/// An action with the step it takes (for its name).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Labeled<A> {
    pub action: A,
    pub step: Option<usize>,
}

impl<A: fmt::Debug> fmt::Debug for Labeled<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.action)
    }
}

type PropFn<M> = fn(&Explorer<M>, &Shown<M>) -> bool;

/// stateright takes plain `fn`s: property `I` of the model.
fn p<M: Model, const I: usize>(e: &Explorer<M>, s: &Shown<M>) -> bool {
    e.conds.get(I).is_none_or(|f| f(&e.m, &s.st))
}

impl<M: Explain> Model for Explorer<M>
where
    M::Action: Copy + fmt::Debug,
    M::State: fmt::Debug,
{
    type State = Shown<M>;
    type Action = Labeled<M::Action>;

    fn init_states(&self) -> Vec<Shown<M>> {
        self.m
            .init_states()
            .into_iter()
            .map(|st| Shown {
                st,
                m: self.m.clone(),
            })
            .collect()
    }
    fn actions(&self, s: &Shown<M>, out: &mut Vec<Labeled<M::Action>>) {
        let mut v = Vec::new();
        self.m.actions(&s.st, &mut v);
        out.extend(v.into_iter().map(|a| Labeled {
            action: a,
            step: self.m.step_of(&s.st, a),
        }));
    }
    fn next_state(&self, s: &Shown<M>, a: Labeled<M::Action>) -> Option<Shown<M>> {
        self.m.next_state(&s.st, a.action).map(|st| Shown {
            st,
            m: self.m.clone(),
        })
    }
    fn format_action(&self, a: &Labeled<M::Action>) -> String {
        self.m.action_text(a.action, a.step)
    }
    fn format_step(&self, s: &Shown<M>, a: Labeled<M::Action>) -> Option<String> {
        self.m.step_text(&s.st, a.action)
    }
    fn properties(&self) -> Vec<Property<Self>> {
        // The model's properties: the same names and predicates.
        wrapped_properties(&*self.m, prop_fns!(p, M, PropFn<M>))
    }
}
