//! `mdl check --simulate N` on a lock scenario: N random paths through the model instead
//! of every interleaving, for files too big to search, drawn by the one sampler of the
//! engine ([`super::sample`], over any [`super::engine_model::EngineModel`]) on the lock
//! scenario without reductions ([`LockScenario::plain`]), its result in the lock report's form.
//!
//! A sample decides only what it finds: an `always` property it sees violated is
//! violated (with the path as its counterexample), a `sometimes` assert it sees met holds;
//! everything else stays `unknown` and the result is incomplete (exit 3).

use super::lock_model::LockScenario;
use super::result::{replay, CheckResult, Coverage, PropResult, Status};
use super::sample::sample;
pub use super::sample::SimOptions;
use super::{mem, MdlModel, PropKind};
use std::sync::Arc;

/// The default cap on a path: every action a program can cause (a step, a resume and a
/// timeout per step, every kill), and some slack.
pub fn default_depth_cap(m: &MdlModel) -> usize {
    let steps: usize = m.programs.iter().map(Vec::len).sum();
    let kills: usize = m.kills.iter().map(|&k| k as usize).sum();
    3 * steps + kills + 16
}

/// Samples `o.paths` random paths of the model.
pub fn simulate(m: &MdlModel, o: &SimOptions) -> CheckResult {
    let cpu0 = mem::cpu_seconds();
    let plain = LockScenario::plain(Arc::new(m.clone()));
    let s = sample(&plain, o, default_depth_cap(m));
    let mut props = Vec::new();
    for (i, (kind, name)) in m.prop_kinds().into_iter().enumerate() {
        let sometimes = matches!(kind, PropKind::Assert(a) if m.asserts[a].is_sometimes());
        let status = match (sometimes, &s.found[i]) {
            (true, Some(_)) => Status::Holds,
            (false, Some(_)) => Status::Violated,
            (_, None) => Status::Unknown,
        };
        props.push(PropResult {
            kind,
            name,
            status,
            trace: s.found[i].as_deref().and_then(|a| replay(m, a)),
        });
    }
    CheckResult {
        props,
        states: s.states,
        unique_states: s.unique,
        max_depth: s.max_depth,
        seconds: s.seconds,
        search_seconds: s.seconds,
        search_cpu_seconds: mem::cpu_seconds().zip(cpu0).map(|(b, a)| b - a),
        limited: s.sim.timed_out,
        stop: None,
        symmetry_used: false,
        dfs: false,
        switched_to_dfs: None,
        depth_bound: o.max_depth,
        depth_cut: false,
        por: None,
        por_off: None,
        search_bytes: s.seen_bytes,
        heap_peak: mem::heap_bytes().map(|h| h as u64),
        peak_rss: mem::peak_rss(),
        max_memory: o.max_memory,
        threads: 1,
        warnings: Vec::new(),
        coverage: Coverage::of(m, &s.notes),
        simulated: Some(s.sim),
        stateright: false,
        complete: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(text: &str) -> MdlModel {
        let sc = mdl_scenario::parse::parse("t.mdl", text).expect("parses");
        MdlModel::new(&sc).expect("models")
    }

    fn opts(paths: u64, seed: u64) -> SimOptions {
        SimOptions {
            paths,
            seed,
            max_depth: None,
            max_time: None,
            max_memory: 1 << 30,
        }
    }

    #[test]
    fn a_sample_is_the_same_for_the_same_seed() {
        let m = model(
            "a: acquire TABLE d.t1 X\nb: acquire TABLE d.t2 X\na: acquire TABLE d.t2 X\n\
             b: acquire TABLE d.t1 X\na: commit\nb: commit\nassert sometimes * deadlock\n",
        );
        let x = simulate(&m, &opts(50, 7));
        let y = simulate(&m, &opts(50, 7));
        assert_eq!(x.states, y.states);
        assert_eq!(x.unique_states, y.unique_states);
        let at = |r: &CheckResult| r.simulated.as_ref().map(|s| s.found_at.clone());
        let paths =
            |r: &CheckResult| at(r).map(|v| v.iter().map(|f| f.map(|p| p.0)).collect::<Vec<_>>());
        assert_eq!(paths(&x), paths(&y));
        // The deadlock is met by some path of 50 (half of the orders reach it).
        let last = x.props.last().expect("the assert");
        assert_eq!(last.status, Status::Holds);
        assert!(last.trace.is_some());
    }

    #[test]
    fn nothing_found_is_unknown_not_holds() {
        let m = model("a: acquire TABLE d.t1 SR\nb: acquire TABLE d.t1 SR\n");
        let r = simulate(&m, &opts(10, 1));
        assert!(r.props.iter().all(|p| p.status == Status::Unknown));
        assert!(r.incomplete());
        assert_eq!(r.coverage.taken, r.coverage.total);
    }
}
