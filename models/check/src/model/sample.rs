//! Random paths through any model of the engine ([`EngineModel`]): what `mdl check
//! --simulate N` samples, for lock scenarios ([`super::simulate`]) and SQL scenarios
//! (`crate::sql::check::simulate`) alike. Each path starts at the initial state and takes
//! a uniformly random enabled action until none is enabled (or the depth cap), checking
//! the model's properties at every state it reaches (a property *fires* in a state that
//! violates an `always` or meets a `sometimes`, [`ModelSpace::fires`]). Path `i` is drawn
//! from its own generator seeded with `(seed, i)`, so a path is replayed by its seed and
//! number alone, on any machine. Distinct states are counted by the model's encoding
//! ([`EngineModel::encode`]: without symmetry, the caller's choice).

use super::encode::fingerprint;
use super::engine_model::EngineModel;
use super::model_space::ModelSpace;
use super::result::Simulated;
use std::collections::HashSet;
use std::time::Instant;

/// How to sample.
#[derive(Clone, Debug)]
pub struct SimOptions {
    /// Paths to take.
    pub paths: u64,
    pub seed: u64,
    /// Actions per path at most; `None`: the model's default cap (its caller's).
    pub max_depth: Option<usize>,
    /// Stop (with the paths taken so far) after this many seconds.
    pub max_time: Option<f64>,
    pub max_memory: u64,
}

/// Distinct states counted at most (8 bytes each), so that counting never bounds a sample.
const MAX_COUNTED: usize = 1 << 24;

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

/// What a sample found.
pub struct Sample<M: EngineModel> {
    /// Per property (the model's order): the actions to the first state that fired it.
    pub found: Vec<Option<Vec<M::Action>>>,
    /// States visited (with repeats, the initial state of every path included).
    pub states: u64,
    /// Distinct states visited (at most [`MAX_COUNTED`] counted).
    pub unique: u64,
    pub max_depth: usize,
    /// What the model kept of the steps taken ([`EngineModel::Notes`]).
    pub notes: M::Notes,
    pub seconds: f64,
    /// The bytes of the set of distinct states.
    pub seen_bytes: u64,
    pub sim: Simulated,
}

/// The running tally of a sample.
struct Tally<'a, M: EngineModel> {
    space: ModelSpace<'a, M>,
    found: Vec<Option<Vec<M::Action>>>,
    found_at: Vec<Option<(u64, f64)>>,
    scratch: M::Scratch,
    enc: Vec<u8>,
    seen: HashSet<u64>,
    states: u64,
    max_depth: usize,
}

impl<M: EngineModel> Tally<'_, M> {
    /// Checks the properties at a state reached by `path` (path number `n`).
    fn visit(&mut self, st: &M::State, path: &[M::Action], n: u64, start: &Instant) {
        self.states += 1;
        self.max_depth = self.max_depth.max(path.len());
        if self.seen.len() < MAX_COUNTED {
            self.space.m.encode(st, &mut self.scratch, &mut self.enc);
            self.seen.insert(fingerprint(&self.enc));
        }
        for i in 0..self.found.len() {
            if self.found[i].is_none() && self.space.fires(i, st) {
                self.found[i] = Some(path.to_vec());
                self.found_at[i] = Some((n, start.elapsed().as_secs_f64()));
            }
        }
    }
}

/// Samples `o.paths` random paths of `m`, each at most `cap` actions long (`o.max_depth`
/// when given).
pub fn sample<M: EngineModel>(m: &M, o: &SimOptions, cap: usize) -> Sample<M> {
    let start = Instant::now();
    let space = ModelSpace::new(m);
    let n_props = space.props();
    let mut t = Tally {
        space,
        found: vec![None; n_props],
        found_at: vec![None; n_props],
        scratch: M::Scratch::default(),
        enc: Vec::new(),
        seen: HashSet::new(),
        states: 0,
        max_depth: 0,
    };
    let cap = o.max_depth.unwrap_or(cap);
    let mut notes = m.new_notes();
    let (mut capped, mut timed_out, mut taken) = (false, false, 0u64);
    let (mut enabled, mut path) = (Vec::new(), Vec::new());
    for n in 0..o.paths {
        if o.max_time
            .is_some_and(|s| start.elapsed().as_secs_f64() >= s)
        {
            timed_out = true;
            break;
        }
        taken += 1;
        let mut rng = Rng::new(o.seed, n);
        let mut st = t.space.initial();
        path.clear();
        t.visit(&st, &path, n, &start);
        loop {
            enabled.clear();
            m.actions(&st, &mut enabled);
            if enabled.is_empty() {
                break;
            }
            if path.len() >= cap {
                capped = true;
                break;
            }
            let a = enabled[rng.below(enabled.len())];
            let Some((next, rec)) = m.step(&st, a) else {
                break;
            };
            m.note(&rec, &mut notes);
            path.push(a);
            t.visit(&next, &path, n, &start);
            st = next;
        }
    }
    m.finish_notes(&mut notes);
    Sample {
        found: t.found,
        states: t.states,
        unique: t.seen.len() as u64,
        max_depth: t.max_depth,
        notes,
        seconds: start.elapsed().as_secs_f64(),
        seen_bytes: (t.seen.capacity() * 9) as u64,
        sim: Simulated {
            asked: o.paths,
            paths: taken,
            seed: o.seed,
            depth_cap: cap,
            capped,
            timed_out,
            found_at: t.found_at,
        },
    }
}
