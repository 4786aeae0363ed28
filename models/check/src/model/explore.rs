//! The model as a stateright [`Model`], for `mdl explore` (stateright's Explorer). The
//! checking itself is [`super::search`]'s; the Explorer only walks states one click at a
//! time, so here the states are shown as lock tables with session names and the actions
//! as the steps' text (the Explorer prints a state with `{:#?}`: [`ExState`]'s `Debug`
//! is that table).

use super::{report, Action, MdlModel, PropKind, State, MAX_ASSERTS};
use stateright::{Model, Property};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// The model for the Explorer.
#[derive(Clone, Debug)]
pub struct ExploreModel(pub Arc<MdlModel>);

/// A state with the model that names its sessions and keys (not part of its identity).
#[derive(Clone)]
pub struct ExState {
    pub st: State,
    pub m: Arc<MdlModel>,
}

impl PartialEq for ExState {
    fn eq(&self, o: &Self) -> bool {
        self.st == o.st
    }
}
impl Eq for ExState {}
impl Hash for ExState {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.st.hash(h)
    }
}
impl fmt::Debug for ExState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&report::state_table(&self.m, &self.st))
    }
}

/// An action with the step it takes (for its name).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ExAction {
    pub action: Action,
    /// The step index for `Step`, the bulk acquire's for `Resume`.
    pub step: Option<usize>,
}

impl fmt::Debug for ExAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.action)
    }
}

fn p_builtin<const K: u8>(m: &ExploreModel, s: &ExState) -> bool {
    let k = match K {
        0 => PropKind::NoConflict,
        1 => PropKind::NoLostWakeup,
        2 => PropKind::NoStuck,
        3 => PropKind::NoFalseDeadlock,
        4 => PropKind::NoCycle,
        5 => PropKind::ReorderOnCycle,
        _ => PropKind::ReorderBounded,
    };
    m.0.holds_in(k, &s.st)
}
fn p_assert<const I: usize>(m: &ExploreModel, s: &ExState) -> bool {
    m.0.holds_in(PropKind::Assert(I), &s.st)
}

type PropFn = fn(&ExploreModel, &ExState) -> bool;

macro_rules! assert_fns {
    ($($i:literal)*) => { [$(p_assert::<$i> as PropFn),*] };
}

/// One property function per assert index (stateright takes plain `fn`s).
const ASSERT_FNS: [PropFn; MAX_ASSERTS] = assert_fns!(
    0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
    32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60
    61 62 63
);

impl Model for ExploreModel {
    type State = ExState;
    type Action = ExAction;

    fn init_states(&self) -> Vec<ExState> {
        vec![ExState {
            st: self.0.initial(),
            m: self.0.clone(),
        }]
    }

    fn actions(&self, s: &ExState, out: &mut Vec<ExAction>) {
        let mut v = Vec::new();
        self.0.enabled(&s.st, &mut v);
        out.extend(v.into_iter().map(|a| {
            let pc = s.st.pc[a.session()] as usize;
            let step = match a {
                Action::Step(_) => Some(pc),
                Action::Resume(_) => pc.checked_sub(1),
                _ => None,
            };
            ExAction { action: a, step }
        }));
    }

    fn next_state(&self, s: &ExState, a: ExAction) -> Option<ExState> {
        self.0.apply(&s.st, a.action).map(|(st, _)| ExState {
            st,
            m: self.0.clone(),
        })
    }

    fn format_action(&self, a: &ExAction) -> String {
        report::action_name(&self.0, a.action, a.step)
    }

    fn format_step(&self, s: &ExState, a: ExAction) -> Option<String> {
        let (_, rec) = self.0.apply(&s.st, a.action)?;
        let mut out = report::record_text(&self.0, &rec);
        if let Some(o) = rec.outcome {
            out.push_str(&format!(" -> {o}"));
        }
        for e in &rec.events {
            out.push_str(&format!("\n  => {}", report::event_text(&self.0, e)));
        }
        Some(out)
    }

    fn properties(&self) -> Vec<Property<Self>> {
        use super::{
            NO_CONFLICT, NO_CYCLE, NO_FALSE_DEADLOCK, NO_LOST_WAKEUP, NO_STUCK, REORDER_BOUNDED,
            REORDER_ON_CYCLE,
        };
        let mut v = vec![
            Property::always(NO_CONFLICT, p_builtin::<0> as PropFn),
            Property::always(NO_LOST_WAKEUP, p_builtin::<1> as PropFn),
            Property::always(NO_STUCK, p_builtin::<2> as PropFn),
            Property::always(NO_FALSE_DEADLOCK, p_builtin::<3> as PropFn),
        ];
        if self.0.dialect.soft_edges {
            v.push(Property::always(NO_CYCLE, p_builtin::<4> as PropFn));
            v.push(Property::always(REORDER_ON_CYCLE, p_builtin::<5> as PropFn));
            v.push(Property::always(REORDER_BOUNDED, p_builtin::<6> as PropFn));
        }
        for (i, a) in self.0.asserts.iter().enumerate() {
            v.push(if a.is_sometimes() {
                Property::sometimes(a.name, ASSERT_FNS[i])
            } else {
                Property::always(a.name, ASSERT_FNS[i])
            });
        }
        v
    }
}
