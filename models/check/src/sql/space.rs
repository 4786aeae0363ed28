//! A SQL scenario ([`SqlCheck`]) for our search engine ([`crate::model::space::Space`]),
//! the one `mdl check` runs on lock scenarios too.
//!
//! A state is named by its fingerprint ([`SqlState::fingerprint`]: the SQL model's lock
//! table, catalog, clock and sessions, and the counters of the check), the identity the
//! Explorer and stateright's checker give it too ([`super::explore`]); the SQL model has
//! no encoding a state can be rebuilt from, so the queue keeps the states themselves
//! aside ([`Space::STORES_STATES`]) and a handle to each; a state is small, its catalog
//! and sessions shared with the states it came from (`mdl_conform::model::encode`).
//! One reduction ([`super::quiet`]): a private step is taken first, alone.

use super::{SqlAction, SqlCheck, SqlProp, SqlRecord, SqlState};
use crate::model::por::PorStats;
use crate::model::space::Space;
use mdl_core::Outcome;
use std::collections::BTreeSet;
use std::sync::Mutex;

/// The states on the queue, by handle.
#[derive(Default)]
struct Aside {
    slots: Vec<Option<SqlState>>,
    free: Vec<u32>,
}

/// The model with the states its queue keeps.
pub struct SqlSpace<'m> {
    pub m: &'m SqlCheck,
    props: Vec<SqlProp>,
    aside: Mutex<Aside>,
    /// Private steps taken alone ([`super::quiet`]).
    reduce: bool,
}

impl<'m> SqlSpace<'m> {
    /// `reduce`: private steps taken first, alone ([`super::quiet`]).
    pub fn new(m: &'m SqlCheck, reduce: bool) -> SqlSpace<'m> {
        SqlSpace {
            m,
            props: m.props(),
            aside: Mutex::new(Aside::default()),
            reduce,
        }
    }
}

impl Space for SqlSpace<'_> {
    type State = SqlState;
    type Action = SqlAction;
    type Record = SqlRecord;
    type Scratch = ();
    /// Every (session, outcome) a statement reached.
    type Notes = BTreeSet<(usize, Outcome)>;
    const STORES_STATES: bool = true;

    fn initial(&self) -> SqlState {
        self.m.initial()
    }
    fn enabled(&self, st: &SqlState, out: &mut Vec<SqlAction>) {
        self.m.enabled(st, out)
    }
    fn apply(&self, st: &SqlState, a: SqlAction) -> Option<(SqlState, SqlRecord)> {
        Some(self.m.apply(st, a))
    }
    fn successors(
        &self,
        st: &SqlState,
        enabled: &[SqlAction],
        stats: &mut PorStats,
        out: &mut Vec<(SqlState, SqlRecord)>,
    ) {
        out.clear();
        if self.reduce && enabled.len() > 1 {
            if let Some(x) = super::quiet::private_step(self.m, st, enabled) {
                stats.reduced += 1;
                stats.skipped += enabled.len() as u64 - 1;
                out.push(x);
                return;
            }
        }
        out.extend(enabled.iter().filter_map(|&a| self.apply(st, a)));
    }
    fn reduces(&self) -> bool {
        self.reduce
    }
    fn action_of(&self, rec: &SqlRecord) -> SqlAction {
        rec.action
    }
    fn props(&self) -> usize {
        self.props.len()
    }
    fn fires(&self, i: usize, st: &SqlState) -> bool {
        self.m.occurs(self.props[i], st)
    }
    fn encode(&self, st: &SqlState, _: &mut (), out: &mut Vec<u8>) {
        out.clear();
        out.extend_from_slice(&st.fingerprint().to_le_bytes());
    }
    fn store(&self, st: Option<SqlState>, _: &[u8], out: &mut Vec<u8>) {
        let st = st.expect("the engine hands a SQL state to store");
        let mut a = self.aside.lock().unwrap_or_else(|e| e.into_inner());
        let h = match a.free.pop() {
            Some(h) => {
                a.slots[h as usize] = Some(st);
                h
            }
            None => {
                a.slots.push(Some(st));
                (a.slots.len() - 1) as u32
            }
        };
        out.clear();
        out.extend_from_slice(&h.to_le_bytes());
    }
    fn load(&self, stored: &[u8]) -> SqlState {
        let h = u32::from_le_bytes(stored[..4].try_into().expect("a 4-byte handle"));
        let mut a = self.aside.lock().unwrap_or_else(|e| e.into_inner());
        a.free.push(h);
        a.slots[h as usize]
            .take()
            .expect("each queue entry is loaded once")
    }

    fn new_notes(&self) -> Self::Notes {
        BTreeSet::new()
    }
    fn note(&self, rec: &SqlRecord, seen: &mut Self::Notes) {
        if let Some((o, _)) = rec.outcome {
            seen.insert((rec.action.session(), o));
        }
        for (s, o, _) in &rec.events {
            seen.insert((*s, *o));
        }
    }
    fn merge_notes(&self, into: &mut Self::Notes, from: &Self::Notes) {
        into.extend(from.iter().copied());
    }
}
