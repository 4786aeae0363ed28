//! A SQL scenario as a stateright [`Model`], for `mdl explore`: states shown as each
//! session's place in its program and its locks, actions as the SQL statements.

use super::text::{action_text, record_text, state_lines};
use super::{SqlAction, SqlCheck, SqlProp, SqlState};
use crate::model::MAX_ASSERTS;
use stateright::{Model, Property};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// The model for the Explorer, with its asserts' names.
#[derive(Clone, Debug)]
pub struct ExploreSql(pub Arc<SqlCheck>, pub Arc<[&'static str]>);

impl ExploreSql {
    pub fn new(m: SqlCheck) -> ExploreSql {
        // stateright names properties with `&'static str`: one leak per assert of the
        // one file the Explorer serves.
        let names: Vec<&'static str> = m
            .asserts
            .iter()
            .map(|a| &*Box::leak(a.name.clone().into_boxed_str()))
            .collect();
        ExploreSql(Arc::new(m), names.into())
    }
}

/// A state with the model that names its sessions (not part of its identity).
#[derive(Clone)]
pub struct ExSqlState {
    pub st: SqlState,
    pub m: Arc<SqlCheck>,
}

impl PartialEq for ExSqlState {
    fn eq(&self, o: &Self) -> bool {
        self.st.fingerprint() == o.st.fingerprint()
    }
}
impl Eq for ExSqlState {}
impl Hash for ExSqlState {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.st.fingerprint().hash(h)
    }
}
impl fmt::Debug for ExSqlState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&state_lines(&self.m, &self.st).join("\n"))
    }
}

/// An action with the statement it runs (for its name).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ExSqlAction {
    pub action: SqlAction,
    pub step: Option<usize>,
}

impl fmt::Debug for ExSqlAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.action)
    }
}

type PropFn = fn(&ExploreSql, &ExSqlState) -> bool;

fn p_builtin<const K: u8>(m: &ExploreSql, s: &ExSqlState) -> bool {
    let p = match K {
        0 => SqlProp::NoConflict,
        1 => SqlProp::NoLostWakeup,
        2 => SqlProp::NoStuck,
        _ => SqlProp::Modelled,
    };
    !m.0.occurs(p, &s.st)
}

fn p_assert<const I: usize>(m: &ExploreSql, s: &ExSqlState) -> bool {
    let occurs = m.0.occurs(SqlProp::Assert(I), &s.st);
    if m.0.is_sometimes(SqlProp::Assert(I)) {
        occurs
    } else {
        !occurs
    }
}

macro_rules! assert_fns {
    ($($i:literal)*) => { [$(p_assert::<$i> as PropFn),*] };
}

const ASSERT_FNS: [PropFn; MAX_ASSERTS] = assert_fns!(
    0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
    32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60
    61 62 63
);

impl Model for ExploreSql {
    type State = ExSqlState;
    type Action = ExSqlAction;

    fn init_states(&self) -> Vec<ExSqlState> {
        vec![ExSqlState {
            st: self.0.initial(),
            m: self.0.clone(),
        }]
    }

    fn actions(&self, s: &ExSqlState, out: &mut Vec<ExSqlAction>) {
        let mut v = Vec::new();
        self.0.enabled(&s.st, &mut v);
        out.extend(v.into_iter().map(|a| ExSqlAction {
            action: a,
            step: matches!(a, SqlAction::Step(_)).then(|| {
                let x = a.session();
                s.st.pc[x] as usize - usize::from(s.st.model.between_instructions(x))
            }),
        }));
    }

    fn next_state(&self, s: &ExSqlState, a: ExSqlAction) -> Option<ExSqlState> {
        let (st, _) = self.0.apply(&s.st, a.action);
        Some(ExSqlState {
            st,
            m: self.0.clone(),
        })
    }

    fn format_action(&self, a: &ExSqlAction) -> String {
        action_text(&self.0, a.action, a.step)
    }

    fn format_step(&self, s: &ExSqlState, a: ExSqlAction) -> Option<String> {
        let (_, rec) = self.0.apply(&s.st, a.action);
        Some(record_text(&self.0, &rec))
    }

    fn properties(&self) -> Vec<Property<Self>> {
        let mut v = vec![
            Property::always(super::PROPS[0], p_builtin::<0> as PropFn),
            Property::always(super::PROPS[1], p_builtin::<1> as PropFn),
            Property::always(super::PROPS[2], p_builtin::<2> as PropFn),
            Property::always(super::PROPS[3], p_builtin::<3> as PropFn),
        ];
        for (i, f) in ASSERT_FNS.iter().enumerate().take(self.0.asserts.len()) {
            let name = self.1.get(i).copied().unwrap_or("assert");
            v.push(if self.0.is_sometimes(SqlProp::Assert(i)) {
                Property::sometimes(name, *f)
            } else {
                Property::always(name, *f)
            });
        }
        v
    }
}
