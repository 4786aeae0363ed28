//! `mdl check --engine stateright` on a SQL scenario: stateright's own checker (its BFS
//! or DFS) on the one SQL model ([`super::model::SqlScenario`], the model our engine
//! runs, without its reduction), through the one reference runner
//! ([`crate::model::reference::run_noting`], the outcomes statements reached
//! noted through our extension trait as the checker takes each step), as the reference
//! for our engine ([`super::check`]). A state's identity is the same fingerprint in both,
//! so a complete search counts the same unique states
//! (models/mdl/tests/engines_agree.rs).

use super::check::{replay, PropResult, SqlResult};
use super::model::SqlScenario;
use super::{SqlAction, SqlCheck, SqlProp};
use crate::model::mem;
use crate::model::reference::run_noting;
use crate::model::reference::RefOptions;
use std::sync::Arc;
use std::time::Instant;

/// Checks a SQL scenario with stateright's checker; the result in the SQL report's form.
pub fn check(m: &SqlCheck, o: &RefOptions) -> SqlResult {
    let start = Instant::now();
    let cpu0 = mem::cpu_seconds();
    let (r, outcomes) = run_noting(SqlScenario::new(Arc::new(m.clone()), false), o);
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
        symmetry: None,
        cpu_secs: mem::cpu_seconds().zip(cpu0).map(|(b, a)| b - a),
        search_bytes: 0,
        heap_peak: mem::heap_bytes().map(|h| h as u64),
        peak_rss: mem::peak_rss(),
        max_memory: 0,
        switched_to_dfs: None,
        simulated: None,
    }
}

fn prop_result(m: &SqlCheck, p: SqlProp, violated: bool, f: Option<Vec<SqlAction>>) -> PropResult {
    PropResult {
        prop: p,
        name: m.prop_name(p),
        violated,
        trace: f.map(|acts| replay(m, &acts)),
    }
}
