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
    /// 11 rounds of 0.7 of each benchmark's operations: about the time 7 full rounds
    /// took, with enough rounds that two of them may be left out of the spread
    /// ([`Stats::spread_pct`]).
    pub const FULL: Plan = Plan {
        warmup: 2,
        runs: 11,
        scale: 0.7,
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
    /// The spread between rounds, in percent (NaN without runs): the range of the rounds
    /// nearest the median, over the median, the `left_out(runs)` rounds farthest from
    /// the median left out (one in five: none of 3 rounds, one of 7, two of 11). One or
    /// two rounds that the host interrupted do not make it; a median whose rounds
    /// scatter does. With 11 rounds it is the range of 9, which for smooth noise is
    /// wider than the full range of 7 that the rule used before (about 3.0 against 2.7
    /// standard deviations): no laxer there (models/BENCH.md, issue 30, third round).
    pub spread_pct: f64,
    /// The full range of the rounds, (max - min) / median, in percent.
    pub range_pct: f64,
    /// The lowest and the highest of the rounds nearest the median (those the spread
    /// covers): the pessimistic ends a verdict is checked at (`verdict.rs`).
    pub near_lo: f64,
    pub near_hi: f64,
}

/// How many rounds of `n`, the farthest from the median, the spread leaves out.
pub fn left_out(n: usize) -> usize {
    n / 5
}

/// The lowest and the highest of the sorted rounds `xs` nearest `median`, the
/// `left_out` farthest left out (see [`Stats::spread_pct`]).
fn nearest(xs: &[f64], median: f64) -> (f64, f64) {
    let (mut lo, mut hi) = (0, xs.len() - 1);
    for _ in 0..left_out(xs.len()) {
        // Leave out whichever end is farther from the median.
        if median - xs[lo] > xs[hi] - median {
            lo += 1;
        } else {
            hi -= 1;
        }
    }
    (xs[lo], xs[hi])
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
                range_pct: f64::NAN,
                near_lo: f64::NAN,
                near_hi: f64::NAN,
            };
        }
        xs.sort_by(|a, b| a.total_cmp(b));
        let n = xs.len();
        let median = if n % 2 == 1 {
            xs[n / 2]
        } else {
            (xs[n / 2 - 1] + xs[n / 2]) / 2.0
        };
        let (near_lo, near_hi) = nearest(&xs, median);
        Stats {
            spread_pct: 100.0 * (near_hi - near_lo) / median,
            near_lo,
            near_hi,
            ..Stats::spread_of(median, xs[0], xs[n - 1], n)
        }
    }

    /// Stats from their parts, the spread computed from the full range (no round left
    /// out: the caller has only these).
    pub fn spread_of(median: f64, min: f64, max: f64, runs: usize) -> Stats {
        let range_pct = 100.0 * (max - min) / median;
        Stats {
            median,
            min,
            max,
            runs,
            spread_pct: range_pct,
            range_pct,
            near_lo: min,
            near_hi: max,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// One round the host interrupted (of 7) does not make the spread; a median whose
    /// rounds scatter evenly does; two interrupted rounds of 11 are left out, three are
    /// not.
    #[test]
    fn the_spread_leaves_out_the_farthest_rounds_only() {
        let one_slow = Stats::of(vec![100.0, 101.0, 99.0, 100.0, 102.0, 98.0, 300.0]);
        assert!(one_slow.spread_pct <= 5.0, "{one_slow:?}");
        assert!(one_slow.range_pct >= 200.0, "{one_slow:?}");
        let one_fast = Stats::of(vec![100.0, 101.0, 99.0, 100.0, 102.0, 98.0, 10.0]);
        assert!(one_fast.spread_pct <= 5.0, "{one_fast:?}");
        let even = Stats::of((0..7).map(|i| 85.0 + 5.0 * i as f64).collect());
        assert!(even.spread_pct > 20.0, "{even:?}");
        let mut xs: Vec<f64> = vec![100.0; 9];
        xs.extend([250.0, 20.0]);
        assert!(Stats::of(xs.clone()).spread_pct < 1.0);
        xs[0] = 200.0;
        assert!(Stats::of(xs).spread_pct > 20.0);
        let three = Stats::of(vec![100.0, 130.0, 70.0]);
        assert_eq!(three.spread_pct, three.range_pct);
        assert_eq!((three.near_lo, three.near_hi), (70.0, 130.0));
        // The ends nearest the median leave the farthest rounds out.
        let ends = Stats::of(vec![100.0, 101.0, 99.0, 100.0, 102.0, 98.0, 300.0]);
        assert_eq!((ends.near_lo, ends.near_hi), (98.0, 102.0));
    }
}
