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
    /// The spread between rounds: (max - min) / median, in percent (NaN without runs).
    pub spread_pct: f64,
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
                spread_pct: f64::NAN,
            };
        }
        xs.sort_by(|a, b| a.total_cmp(b));
        let n = xs.len();
        let median = if n % 2 == 1 {
            xs[n / 2]
        } else {
            (xs[n / 2 - 1] + xs[n / 2]) / 2.0
        };
        Stats::spread_of(median, xs[0], xs[n - 1], n)
    }

    /// Stats from their parts, the spread computed.
    pub fn spread_of(median: f64, min: f64, max: f64, runs: usize) -> Stats {
        Stats {
            median,
            min,
            max,
            runs,
            spread_pct: 100.0 * (max - min) / median,
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
    let cpus = allowed_cpus();
    let spans: Vec<(Instant, Instant)> = std::thread::scope(|s| {
        let hs: Vec<_> = workers
            .into_iter()
            .enumerate()
            .map(|(i, mut w)| {
                let start = &start;
                let cpu = (!cpus.is_empty()).then(|| cpus[i % cpus.len()]);
                s.spawn(move || {
                    if let Some(c) = cpu {
                        pin_to(c);
                    }
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

/// The CPUs this process may run on (empty where the OS does not say).
#[cfg(target_os = "linux")]
pub fn allowed_cpus() -> Vec<usize> {
    // SAFETY: `cpu_set_t` is a plain bit array (all zeroes is a valid empty set), and
    // `sched_getaffinity` writes at most `size_of::<cpu_set_t>()` bytes into the set we
    // own; `CPU_ISSET` only reads it, with an index below `CPU_SETSIZE`.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Vec::new();
        }
        (0..libc::CPU_SETSIZE as usize)
            .filter(|&c| libc::CPU_ISSET(c, &set))
            .collect()
    }
}
#[cfg(not(target_os = "linux"))]
pub fn allowed_cpus() -> Vec<usize> {
    Vec::new()
}

/// Pins the calling thread to CPU `cpu`; false when the OS refused (or cannot).
#[cfg(target_os = "linux")]
pub fn pin_to(cpu: usize) -> bool {
    // SAFETY: as in `allowed_cpus`: a zeroed `cpu_set_t` we own, `CPU_SET` with an index
    // that `allowed_cpus` read from a set of `CPU_SETSIZE` bits, and `sched_setaffinity`
    // (thread 0: the caller) only reads the set.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) == 0
    }
}
#[cfg(not(target_os = "linux"))]
pub fn pin_to(_cpu: usize) -> bool {
    false
}

/// Whether threads can be pinned to distinct CPUs here: two CPUs allowed and a thread
/// pinned to each of the first two.
pub fn pinning_works() -> bool {
    let cpus = allowed_cpus();
    cpus.len() >= 2
        && std::thread::scope(|s| {
            let a = s.spawn(|| pin_to(cpus[0]));
            let b = s.spawn(|| pin_to(cpus[1]));
            a.join().unwrap_or(false) && b.join().unwrap_or(false)
        })
}
