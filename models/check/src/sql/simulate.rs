//! `mdl check --simulate N` on a SQL scenario: N random paths through the SQL model,
//! drawn by the engine's one sampler ([`crate::model::sample`]) on the scenario without
//! its reduction ([`SqlScenario`]), the result in the SQL report's form. As for lock
//! scenarios: a violation seen is a violation (with its path), a `sometimes` assert met
//! holds, the rest is unknown and the result incomplete (exit 3).

use super::check::{replay, PropResult, SqlResult};
use super::model::SqlScenario;
use super::SqlCheck;
use crate::model::mem;
use crate::model::sample::{sample, SimOptions};
use std::sync::Arc;

/// The default cap on a path: every action a program can cause (a step and a timeout per
/// statement, every kill), and some slack. (Every SQL action moves a program counter, the
/// clock or a kill count on, so a path ends; the cap is a bound all the same.)
pub fn default_depth_cap(m: &SqlCheck) -> usize {
    let steps: usize = m.programs.iter().map(Vec::len).sum();
    let kills: usize = m.kills.iter().map(|&k| k as usize).sum();
    3 * steps + kills + 16
}

/// Samples `o.paths` random paths of the SQL scenario.
pub fn simulate(m: &SqlCheck, o: &SimOptions) -> SqlResult {
    let cpu0 = mem::cpu_seconds();
    let model = SqlScenario::new(Arc::new(m.clone()), false);
    let s = sample(&model, o, default_depth_cap(m));
    let props = m
        .props()
        .into_iter()
        .zip(&s.found)
        .map(|(p, f)| PropResult {
            prop: p,
            name: m.prop_name(p),
            // A sample shows violations only; an unmet `sometimes` is unknown.
            violated: f.is_some() && !m.is_sometimes(p),
            trace: f.as_deref().map(|acts| replay(m, acts)),
        })
        .collect();
    SqlResult {
        props,
        states: s.states,
        unique: s.unique,
        max_depth: s.max_depth,
        secs: s.seconds,
        incomplete: true,
        stop: None,
        complete: false,
        outcomes: s.notes,
        dfs: false,
        threads: 1,
        stateright: false,
        por: None,
        symmetry: None,
        cpu_secs: mem::cpu_seconds().zip(cpu0).map(|(b, a)| b - a),
        search_bytes: s.seen_bytes,
        heap_peak: mem::heap_bytes().map(|h| h as u64),
        peak_rss: mem::peak_rss(),
        max_memory: o.max_memory,
        switched_to_dfs: None,
        simulated: Some(s.sim),
    }
}
