//! `mdl check --engine stateright` on a SQL scenario: stateright's own checker (its BFS
//! or DFS) on the SQL model as a stateright `Model` ([`super::explore::ExploreSql`], the
//! Explorer's), as the reference for our engine ([`super::check`]). A state's identity
//! is the same fingerprint in both, so a complete search counts the same unique states
//! (models/mdl/tests/engines_agree.rs). The outcomes statements reached are gathered as
//! stateright takes each step.

use super::check::{replay, PropResult, SqlResult};
use super::explore::{ExSqlAction, ExSqlState, ExploreSql};
use super::{SqlCheck, SqlProp};
use crate::model::reference::{self, prop_fns, RefOptions};
use mdl_core::Outcome;
use stateright::{Model, Property};
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// The Explorer's model, noting the outcomes of the steps the checker takes.
#[derive(Clone)]
struct RefSql {
    ex: ExploreSql,
    conds: Arc<[Cond]>,
    seen: Arc<Mutex<BTreeSet<(usize, Outcome)>>>,
}

impl Model for RefSql {
    type State = ExSqlState;
    type Action = ExSqlAction;

    fn init_states(&self) -> Vec<ExSqlState> {
        self.ex.init_states()
    }
    fn actions(&self, s: &ExSqlState, out: &mut Vec<ExSqlAction>) {
        self.ex.actions(s, out)
    }
    fn next_state(&self, s: &ExSqlState, a: ExSqlAction) -> Option<ExSqlState> {
        let (st, rec) = self.ex.0.apply(&s.st, a.action);
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((o, _)) = rec.outcome {
            seen.insert((a.action.session(), o));
        }
        for (x, o, _) in &rec.events {
            seen.insert((*x, *o));
        }
        Some(ExSqlState { st, m: s.m.clone() })
    }
    fn properties(&self) -> Vec<Property<Self>> {
        // The Explorer's properties, on this model: the same predicates and names.
        self.ex
            .properties()
            .into_iter()
            .enumerate()
            .map(|(i, p)| Property {
                expectation: p.expectation,
                name: p.name,
                condition: PROP_FNS[i],
            })
            .collect()
    }
}

type Cond = fn(&ExploreSql, &ExSqlState) -> bool;

/// stateright takes plain `fn`s: property `I` of the Explorer's model.
fn p<const I: usize>(m: &RefSql, s: &ExSqlState) -> bool {
    m.conds.get(I).is_none_or(|f| f(&m.ex, s))
}

type PropFn = fn(&RefSql, &ExSqlState) -> bool;

/// The 4 built-in properties and at most [`crate::model::MAX_ASSERTS`] asserts.
const PROP_FNS: [PropFn; 71] = prop_fns!(p, PropFn);

/// Checks a SQL scenario with stateright's checker (the one reference runner,
/// [`reference::run`]); the result in the SQL report's form.
pub fn check(m: &SqlCheck, o: &RefOptions) -> SqlResult {
    let start = Instant::now();
    let ex = ExploreSql::new(m.clone());
    let conds = ex.properties().iter().map(|p| p.condition).collect();
    let model = RefSql {
        ex,
        conds,
        seen: Arc::default(),
    };
    let names: Vec<&'static str> = model.ex.properties().iter().map(|p| p.name).collect();
    let seen = model.seen.clone();
    let r = reference::run(model, &names, o);
    let all_found = r.all_found();
    let stop = r.stop;
    let incomplete = stop.is_some();
    let props = m
        .props()
        .into_iter()
        .zip(r.found)
        .map(|(p, f)| {
            let violated = if m.is_sometimes(p) {
                f.is_none() && !incomplete
            } else {
                f.is_some()
            };
            prop_result(m, p, violated, f)
        })
        .collect();
    let outcomes = std::mem::take(&mut *seen.lock().unwrap_or_else(|e| e.into_inner()));
    SqlResult {
        props,
        states: r.states,
        unique: r.unique,
        max_depth: r.max_depth,
        secs: start.elapsed().as_secs_f64(),
        incomplete,
        stop,
        complete: !all_found && !incomplete,
        outcomes,
        dfs: o.dfs,
        threads: o.threads.max(1),
        stateright: true,
        por: None,
    }
}

fn prop_result(
    m: &SqlCheck,
    p: SqlProp,
    violated: bool,
    f: Option<Vec<ExSqlAction>>,
) -> PropResult {
    PropResult {
        prop: p,
        name: m.prop_name(p),
        violated,
        trace: f.map(|acts| {
            let acts: Vec<_> = acts.into_iter().map(|a| a.action).collect();
            replay(m, &acts)
        }),
    }
}
