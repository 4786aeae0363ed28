//! A simple timing loop: warm-up, then several timed runs, median of the runs. The
//! measurements of one group run interleaved (run 1 of every case, then run 2, ...), so
//! that a machine whose load changes during the run skews every side alike.
//! Nothing here is ever asserted on: `mdl bench` prints, tests only run it tiny.

use std::sync::Barrier;
use std::time::Instant;

/// How much to run.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    /// Untimed runs before the timed ones.
    pub warmup: usize,
    /// Timed runs; the median is reported.
    pub runs: usize,
    /// Scale on every benchmark's own operation count (1.0 full, smaller for `--quick`).
    pub scale: f64,
}

impl Plan {
    pub const FULL: Plan = Plan {
        warmup: 2,
        runs: 7,
        scale: 1.0,
    };
    pub const QUICK: Plan = Plan {
        warmup: 1,
        runs: 3,
        scale: 0.1,
    };
    /// For the smoke test: a handful of operations, no meaning.
    pub const SMOKE: Plan = Plan {
        warmup: 0,
        runs: 1,
        scale: 0.0,
    };

    /// `ops` scaled, at least 1.
    pub fn ops(&self, ops: u64) -> u64 {
        ((ops as f64 * self.scale) as u64).max(1)
    }
}

/// The spread of the runs of one measurement (per-op nanoseconds or ops/s).
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct Stats {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    pub runs: usize,
}

impl Stats {
    pub fn of(mut xs: Vec<f64>) -> Stats {
        xs.retain(|x| x.is_finite());
        if xs.is_empty() {
            return Stats {
                median: f64::NAN,
                min: f64::NAN,
                max: f64::NAN,
                runs: 0,
            };
        }
        xs.sort_by(|a, b| a.total_cmp(b));
        let n = xs.len();
        let median = if n % 2 == 1 {
            xs[n / 2]
        } else {
            (xs[n / 2 - 1] + xs[n / 2]) / 2.0
        };
        Stats {
            median,
            min: xs[0],
            max: xs[n - 1],
            runs: n,
        }
    }
}

/// One timed sample of `k` operations done by `f`: nanoseconds per operation.
pub fn sample_ops(k: u64, f: &mut dyn FnMut(u64)) -> f64 {
    let t = Instant::now();
    f(k);
    t.elapsed().as_nanos() as f64 / k as f64
}

/// One sample where `f` measures itself: (nanoseconds, units) to nanoseconds per unit.
pub fn sample_units(k: u64, f: &mut dyn FnMut(u64) -> (u128, u64)) -> f64 {
    let (ns, units) = f(k);
    ns as f64 / units.max(1) as f64
}

/// A measurement: one call gives one sample (a panic ends the measurement).
pub type Case<'a> = (String, Box<dyn FnMut() -> f64 + 'a>);

/// Runs `cases` interleaved: `plan.warmup` untimed rounds, then `plan.runs` rounds, each
/// round one sample of every case still alive. A case that panics (our manager not
/// finished, say) is dropped with its message; the others go on.
pub fn interleaved(plan: Plan, mut cases: Vec<Case<'_>>) -> Vec<(String, Result<Stats, String>)> {
    let mut samples: Vec<Vec<f64>> = cases.iter().map(|_| Vec::new()).collect();
    let mut failed: Vec<Option<String>> = cases.iter().map(|_| None).collect();
    for round in 0..plan.warmup + plan.runs.max(1) {
        for (i, (_, f)) in cases.iter_mut().enumerate() {
            if failed[i].is_some() {
                continue;
            }
            match super::guarded(&mut **f) {
                Ok(x) if round >= plan.warmup => samples[i].push(x),
                Ok(_) => {}
                Err(e) => failed[i] = Some(e),
            }
        }
    }
    cases
        .into_iter()
        .zip(samples.into_iter().zip(failed))
        .map(|((name, _), (xs, err))| match err {
            Some(e) => (name, Err(e)),
            None => (name, Ok(Stats::of(xs))),
        })
        .collect()
}

/// One throughput sample: `threads` workers made by `make` (outside the timed part),
/// each doing `k` operations after a common barrier; operations per second over the
/// span from the first worker's start to the last worker's end, each worker reading the
/// clock itself (so a main thread scheduled late cannot shrink the span).
pub fn sample_throughput<W>(threads: usize, k: u64, make: &dyn Fn(usize) -> W) -> f64
where
    W: FnMut(u64) + Send,
{
    let workers: Vec<W> = (0..threads).map(make).collect();
    let start = Barrier::new(threads);
    let spans: Vec<(Instant, Instant)> = std::thread::scope(|s| {
        let hs: Vec<_> = workers
            .into_iter()
            .map(|mut w| {
                let start = &start;
                s.spawn(move || {
                    start.wait();
                    let t0 = Instant::now();
                    w(k);
                    (t0, Instant::now())
                })
            })
            .collect();
        hs.into_iter()
            .map(|h| match h.join() {
                Ok(span) => span,
                Err(_) => panic!("a benchmark thread panicked"),
            })
            .collect()
    });
    let first = spans.iter().map(|s| s.0).min();
    let last = spans.iter().map(|s| s.1).max();
    match (first, last) {
        (Some(a), Some(b)) => (threads as u64 * k) as f64 / (b - a).as_secs_f64(),
        _ => f64::NAN,
    }
}
