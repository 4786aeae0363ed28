//! A simple timing loop: warm-up, then several timed runs, median of the runs.
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

/// Nanoseconds per operation: `f(k)` performs `k` operations; each run times one call.
pub fn per_op(plan: Plan, ops: u64, mut f: impl FnMut(u64)) -> Stats {
    let k = plan.ops(ops);
    for _ in 0..plan.warmup {
        f(k);
    }
    let xs = (0..plan.runs.max(1))
        .map(|_| {
            let t = Instant::now();
            f(k);
            t.elapsed().as_nanos() as f64 / k as f64
        })
        .collect();
    Stats::of(xs)
}

/// Nanoseconds per unit when a run times only part of its work: `f(k)` performs `k`
/// repetitions and returns the nanoseconds it measured itself and the units done.
pub fn per_unit(plan: Plan, reps: u64, mut f: impl FnMut(u64) -> (u128, u64)) -> Stats {
    let k = plan.ops(reps);
    for _ in 0..plan.warmup {
        f(k);
    }
    let xs = (0..plan.runs.max(1))
        .map(|_| {
            let (ns, units) = f(k);
            ns as f64 / units.max(1) as f64
        })
        .collect();
    Stats::of(xs)
}

/// Operations per second of `threads` threads each doing `ops` operations. `make(i)`
/// builds thread `i`'s worker (on the calling thread); the worker runs on its own thread
/// and gets the operation count. The clock runs from the common start to the last join.
pub fn throughput<W>(plan: Plan, threads: usize, ops: u64, make: impl Fn(usize) -> W) -> Stats
where
    W: FnMut(u64) + Send,
{
    let threads = threads.max(1);
    let k = plan.ops(ops);
    let one = |k: u64| -> f64 {
        let workers: Vec<W> = (0..threads).map(&make).collect();
        let start = Barrier::new(threads + 1);
        std::thread::scope(|s| {
            let hs: Vec<_> = workers
                .into_iter()
                .map(|mut w| {
                    let start = &start;
                    s.spawn(move || {
                        start.wait();
                        w(k);
                    })
                })
                .collect();
            start.wait();
            let t = Instant::now();
            for h in hs {
                if h.join().is_err() {
                    return f64::NAN;
                }
            }
            (threads as u64 * k) as f64 / t.elapsed().as_secs_f64()
        })
    };
    for _ in 0..plan.warmup {
        one(k);
    }
    let xs = (0..plan.runs.max(1)).map(|_| one(k)).collect();
    Stats::of(xs)
}
