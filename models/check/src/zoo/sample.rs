//! `mdl zoo --simulate N`: the zoo's designs sampled instead of searched, by the engine's
//! one sampler ([`crate::model::sample`], the one `mdl check --simulate` runs), with the
//! same properties as the search (a design's checks but the liveness one, which is the
//! cycle search's and is not sampled).
//!
//! A sample decides only what it finds: an old design is *found* when some path reaches
//! a state that violates one of its `always` checks (the path is a real counterexample);
//! a new design is *violated* when some path does (a real counterexample against the
//! zoo's claim that it holds), and otherwise nothing is claimed of it.

use super::engine::Design;
use super::entries::Entry;
use crate::model::model_space::ModelSpace;
use crate::model::sample::{sample, SimOptions};
use std::fmt::Write as _;

/// The longest path when `--max-depth` is not given: every design's programs end well
/// within it, and a design that cycles (a starving run) is cut there.
pub const DEFAULT_DEPTH_CAP: usize = 200;

/// One `always` check that some path violated: its name, the path (from 0) that first
/// did, the seconds into the sample, and the length of that path to the violation.
#[derive(Clone, Debug, serde::Serialize)]
pub struct SampledViolation {
    pub property: String,
    pub path: u64,
    pub seconds: f64,
    pub trace_len: usize,
}

/// What sampling one design found.
#[derive(Clone, Debug, serde::Serialize)]
pub struct DesignSample {
    /// Paths taken (fewer than asked when `--max-time` stopped the sample).
    pub paths: u64,
    pub states: u64,
    pub unique: u64,
    pub seconds: f64,
    /// The `always` checks violated, in the design's order.
    pub violated: Vec<SampledViolation>,
    /// The design has an `eventually` check, which sampling does not decide.
    pub liveness_not_sampled: bool,
}

impl DesignSample {
    /// The first violation found, by path number.
    pub fn first(&self) -> Option<&SampledViolation> {
        self.violated.iter().min_by_key(|v| (v.path, v.trace_len))
    }
}

/// What sampling one entry's old and new designs found.
#[derive(Clone, Debug, serde::Serialize)]
pub struct EntrySample {
    pub id: String,
    pub old: DesignSample,
    pub new: DesignSample,
}

impl EntrySample {
    /// The old design's bug found, and no violation of the new one.
    pub fn found(&self) -> bool {
        !self.old.violated.is_empty()
    }
    /// A path violated the new design (the zoo's claim that it holds is wrong).
    pub fn new_violated(&self) -> bool {
        !self.new.violated.is_empty()
    }
}

/// Samples one design.
pub fn sample_design(m: &Design, o: &SimOptions) -> DesignSample {
    let s = sample(m, o, DEFAULT_DEPTH_CAP);
    let space = ModelSpace::new(m);
    let mut violated = Vec::new();
    for (i, (found, at)) in s.found.iter().zip(&s.sim.found_at).enumerate() {
        let (name, always) = space.prop(i);
        if let (true, Some(trace), Some((path, seconds))) = (always, found, at) {
            violated.push(SampledViolation {
                property: name.to_string(),
                path: *path,
                seconds: *seconds,
                trace_len: trace.len(),
            });
        }
    }
    DesignSample {
        paths: s.sim.paths,
        states: s.states,
        unique: s.unique,
        seconds: s.seconds,
        violated,
        liveness_not_sampled: m.checks.iter().any(|c| c.is_liveness()),
    }
}

/// Samples an entry's old and new designs with the same options.
pub fn sample_entry(e: &Entry, o: &SimOptions) -> EntrySample {
    EntrySample {
        id: e.id.to_string(),
        old: sample_design(&e.old, o),
        new: sample_design(&e.new, o),
    }
}

/// The samples as a text table: per entry, the old design's first violation (path
/// number, seconds, trace length) and the new design's verdict.
pub fn sample_table(rs: &[EntrySample]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<24} {:<8} {:<64} {:>6} {:>8} {:>5} | {:<9} {:>8}",
        "entry", "old", "violated property", "path", "seconds", "trace", "new", "paths"
    );
    for r in rs {
        let first = r.old.first();
        let old = match (first, r.old.liveness_not_sampled) {
            (Some(_), _) => "FOUND",
            (None, true) => "LIVENESS",
            (None, false) => "MISSED",
        };
        let new = if r.new_violated() {
            "VIOLATED"
        } else {
            "none seen"
        };
        let _ = writeln!(
            out,
            "{:<24} {:<8} {:<64} {:>6} {:>8.3} {:>5} | {:<9} {:>8}",
            r.id,
            old,
            first.map_or("-", |v| v.property.as_str()),
            first.map_or(String::from("-"), |v| v.path.to_string()),
            first.map_or(0.0, |v| v.seconds),
            first.map_or(0, |v| v.trace_len),
            new,
            r.new.paths,
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(paths: u64) -> SimOptions {
        SimOptions {
            paths,
            seed: 1,
            max_depth: None,
            max_time: None,
            max_memory: 1 << 30,
        }
    }

    #[test]
    fn an_old_design_is_found_by_sampling_and_its_new_one_holds() {
        let es = super::super::select(Some("update-vs-alter")).expect("the entry");
        let r = sample_entry(&es[0], &opts(200));
        assert!(r.found(), "the old design's bug within 200 paths: {r:?}");
        assert!(!r.new_violated(), "the new design holds: {r:?}");
        let v = r.old.first().expect("a violation");
        assert!(v.path < 200 && v.trace_len > 0);
        assert_eq!(r.new.paths, 200);
    }

    #[test]
    fn a_sample_is_the_same_for_the_same_seed() {
        let es = super::super::select(Some("update-vs-alter")).expect("the entry");
        let a = sample_entry(&es[0], &opts(50));
        let b = sample_entry(&es[0], &opts(50));
        let key = |r: &EntrySample| {
            let v: Vec<_> = r
                .old
                .violated
                .iter()
                .map(|v| (v.path, v.trace_len))
                .collect();
            (v, r.old.states, r.old.unique, r.new.states)
        };
        assert_eq!(key(&a), key(&b));
    }
}
