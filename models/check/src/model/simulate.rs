//! `mdl check --simulate N`: N random paths through the model instead of every
//! interleaving, for files too big to search. Each path starts at the initial state and
//! takes a uniformly random enabled action until none is enabled (or the depth cap),
//! checking the same properties as the search at every state it reaches. Path `i` is
//! drawn from its own generator seeded with `(seed, i)`, so a path is replayed by its
//! seed and number alone, on any machine.
//!
//! A sample decides only what it finds: an `always` property it sees violated is
//! violated (with the path as its counterexample), a `sometimes` assert it sees met holds;
//! everything else stays `unknown` and the result is incomplete (exit 3).

use super::encode::{fingerprint, Codec, Scratch};
use super::result::{replay, CheckResult, Coverage, PropResult, Simulated, Status};
use super::{mem, Action, MdlModel, PropKind, State};
use std::collections::HashSet;
use std::time::Instant;

/// How to sample.
#[derive(Clone, Debug)]
pub struct SimOptions {
    /// Paths to take.
    pub paths: u64,
    pub seed: u64,
    /// Actions per path at most; `None`: [`default_depth_cap`].
    pub max_depth: Option<usize>,
    /// Stop (with the paths taken so far) after this many seconds.
    pub max_time: Option<f64>,
    pub max_memory: u64,
}

/// Distinct states counted at most (8 bytes each), so that counting never bounds a sample.
const MAX_COUNTED: usize = 1 << 24;

/// The default cap on a path: every action a program can cause (a step, a resume and a
/// timeout per step, every kill), and some slack.
pub fn default_depth_cap(m: &MdlModel) -> usize {
    let steps: usize = m.programs.iter().map(Vec::len).sum();
    let kills: usize = m.kills.iter().map(|&k| k as usize).sum();
    3 * steps + kills + 16
}

/// splitmix64: a small generator whose sequence is fixed (no dependency to change it).
struct Rng(u64);

impl Rng {
    fn new(seed: u64, path: u64) -> Rng {
        let mut r = Rng(seed ^ path.wrapping_mul(0xA076_1D64_78BD_642F));
        r.next();
        r
    }
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The running tally of a sample.
struct Tally<'a> {
    m: &'a MdlModel,
    props: Vec<(PropKind, &'static str)>,
    sometimes: Vec<bool>,
    /// Per property: the actions to the state that decided it.
    found: Vec<Option<Vec<Action>>>,
    found_at: Vec<Option<(u64, f64)>>,
    steps_seen: Vec<Vec<u8>>,
    codec: Codec,
    scratch: Scratch,
    enc: Vec<u8>,
    seen: HashSet<u64>,
    states: u64,
    max_depth: usize,
}

impl Tally<'_> {
    /// Checks the properties at a state reached by `path`.
    fn visit(&mut self, st: &State, path: &[Action], n: u64, start: &Instant) {
        self.states += 1;
        self.max_depth = self.max_depth.max(path.len());
        if self.seen.len() < MAX_COUNTED {
            self.codec.encode(st, &mut self.scratch, &mut self.enc);
            self.seen.insert(fingerprint(&self.enc));
        }
        for (i, (k, _)) in self.props.iter().enumerate() {
            if self.found[i].is_none() && self.m.holds_in(*k, st) == self.sometimes[i] {
                self.found[i] = Some(path.to_vec());
                self.found_at[i] = Some((n, start.elapsed().as_secs_f64()));
            }
        }
    }
}

/// Samples `o.paths` random paths of the model.
pub fn simulate(m: &MdlModel, o: &SimOptions) -> CheckResult {
    let start = Instant::now();
    let cpu0 = mem::cpu_seconds();
    let props = m.prop_kinds();
    let sometimes = props
        .iter()
        .map(|(k, _)| matches!(k, PropKind::Assert(i) if m.asserts[*i].is_sometimes()))
        .collect();
    let n_props = props.len();
    let mut t = Tally {
        m,
        props,
        sometimes,
        found: vec![None; n_props],
        found_at: vec![None; n_props],
        steps_seen: m.programs.iter().map(|p| vec![0; p.len()]).collect(),
        codec: Codec::new(m, false),
        scratch: Scratch::default(),
        enc: Vec::new(),
        seen: HashSet::new(),
        states: 0,
        max_depth: 0,
    };
    let cap = o.max_depth.unwrap_or_else(|| default_depth_cap(m));
    let (mut capped, mut timed_out, mut taken) = (false, false, 0u64);
    let mut enabled = Vec::new();
    let mut path = Vec::new();
    for n in 0..o.paths {
        if o.max_time
            .is_some_and(|s| start.elapsed().as_secs_f64() >= s)
        {
            timed_out = true;
            break;
        }
        taken += 1;
        let mut rng = Rng::new(o.seed, n);
        let mut st = m.initial();
        path.clear();
        t.visit(&st, &path, n, &start);
        loop {
            enabled.clear();
            m.enabled(&st, &mut enabled);
            if enabled.is_empty() {
                break;
            }
            if path.len() >= cap {
                capped = true;
                break;
            }
            let a = enabled[rng.below(enabled.len())];
            let Some((next, rec)) = m.apply(&st, a) else {
                break;
            };
            if let (Action::Step(p), Some(i)) = (rec.action, rec.step) {
                let bits = if rec.outcome == Some(mdl_core::Outcome::Error) {
                    1
                } else {
                    3
                };
                t.steps_seen[p as usize][i] |= bits;
            }
            path.push(a);
            t.visit(&next, &path, n, &start);
            st = next;
        }
    }
    let mut result_props = Vec::new();
    for (i, (kind, name)) in t.props.iter().enumerate() {
        let status = match (t.sometimes[i], &t.found[i]) {
            (true, Some(_)) => Status::Holds,
            (false, Some(_)) => Status::Violated,
            (_, None) => Status::Unknown,
        };
        result_props.push(PropResult {
            kind: *kind,
            name,
            status,
            trace: t.found[i].as_deref().and_then(|a| replay(m, a)),
        });
    }
    let seconds = start.elapsed().as_secs_f64();
    let coverage = Coverage::of(m, &t.steps_seen);
    CheckResult {
        props: result_props,
        states: t.states,
        unique_states: t.seen.len() as u64,
        max_depth: t.max_depth,
        seconds,
        search_seconds: seconds,
        search_cpu_seconds: mem::cpu_seconds().zip(cpu0).map(|(b, a)| b - a),
        limited: timed_out,
        stop: None,
        symmetry_used: false,
        dfs: false,
        switched_to_dfs: None,
        depth_bound: o.max_depth,
        depth_cut: false,
        por: None,
        por_off: None,
        search_bytes: (t.seen.capacity() * 9) as u64,
        heap_peak: mem::heap_bytes().map(|h| h as u64),
        peak_rss: mem::peak_rss(),
        max_memory: o.max_memory,
        threads: 1,
        warnings: Vec::new(),
        coverage,
        simulated: Some(Simulated {
            asked: o.paths,
            paths: taken,
            seed: o.seed,
            depth_cap: cap,
            capped,
            timed_out,
            found_at: t.found_at,
        }),
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
