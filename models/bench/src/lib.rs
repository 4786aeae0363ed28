//! `mdl bench`: our manager and the baselines measured in the same run, with a simple
//! timing loop (warm-up, median of several runs), printed as ns/op or ops/s with the
//! ratios the project targets. The criterion benches in `models/bench/benches/` measure the
//! same things more carefully; this is the quick side-by-side summary.
//!
//! Nothing here asserts anything about speed; the only test runs it minuscule.

pub mod abort_mix;
mod async_wait;
pub mod baselines;
pub mod ddl;
pub mod graphs;
pub mod many;
pub mod oltp;
pub mod plot;
pub mod scaling;
pub mod targets;
pub mod timing;
pub mod verdict;

use baselines::{DashRw, Mode, Naive};
use graphs::{Shape, Synthetic, TableSetup};
use mdl_core::{Clock, Config, Context, Dialect, Duration, LockType, Manager, MdlKey, WaitOption};
use serde::Serialize;
use std::hint::black_box;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Instant;
use timing::{Plan, Stats};

/// What to run.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub plan: Plan,
    /// Threads of the contended benchmarks.
    pub threads: usize,
    /// Lock counts of the "many locks in one context" benchmark.
    pub many: &'static [usize],
    /// Waiter counts of the deadlock-search benchmark.
    pub waiters: &'static [usize],
    /// Context counts of the first-DDL benchmark (contexts that used the lock on the
    /// fast path).
    pub pinners: &'static [usize],
    /// Thread counts of the mixed OLTP workload (its curves).
    pub oltp_threads: &'static [usize],
    /// Only these groups (`single`, `threads`, `many`, `deadlock`, `ddl`, `oltp`,
    /// `async`, `scaling`); empty: all.
    pub only: &'static [&'static str],
}

impl Options {
    pub fn full(threads: usize) -> Options {
        Options {
            plan: Plan::FULL,
            threads,
            many: &[1, 100, 10_000],
            waiters: &[10, 100, 1_000],
            pinners: &[10, 100, 1_000, 10_000],
            oltp_threads: &[1, 2, 4, 8],
            only: &[],
        }
    }
    pub fn quick(threads: usize) -> Options {
        Options {
            plan: Plan::QUICK,
            ..Options::full(threads)
        }
    }
    /// A handful of operations of every benchmark (for the smoke test).
    pub fn smoke() -> Options {
        Options {
            plan: Plan::SMOKE,
            threads: 2,
            many: &[1, 10],
            waiters: &[3, 5],
            pinners: &[2, 5],
            oltp_threads: &[1, 2],
            only: &[],
        }
    }
}

/// One measurement.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub group: String,
    pub name: String,
    /// `ns/op`, `ns/lock`, `ns/edge` or `ops/s`.
    pub unit: &'static str,
    pub stats: Stats,
}

/// A target: a ratio of two rows' medians against a limit.
#[derive(Clone, Debug, Serialize)]
pub struct Target {
    pub name: String,
    /// How the ratio is formed, e.g. `ours.sr / dashmap_rwlock`.
    pub ratio_of: String,
    pub ratio: Option<f64>,
    /// `<= 3` or `>= 5`.
    pub limit: String,
    /// None when a side was not measured (the manager unavailable).
    pub ok: Option<bool>,
    /// The ratio at the pessimistic ends of the rounds nearest the medians
    /// (`verdict.rs`).
    pub ratio_at_ends: Option<f64>,
    /// Why the verdict can be trusted: `ends` (it holds at the pessimistic ends) or
    /// `spreads` (both spreads at most `MAX_SPREAD_PCT`); None when it cannot.
    pub trusted_by: Option<&'static str>,
    /// Why the verdict cannot be trusted, if it cannot: the host's parallel speedup
    /// under `MIN_SPEEDUP` (for a target over a contended group), or the ends overturn
    /// it and a side's spread between rounds is over `MAX_SPREAD_PCT`.
    pub not_trustworthy: Option<String>,
}

/// Below this parallel speedup (2 busy threads over 1), the host did not give two real
/// cores: contended figures measure its scheduler.
pub const MIN_SPEEDUP: f64 = 1.6;
/// Above this spread between rounds (`Stats::spread_pct`: the range of the rounds nearest
/// the median, one in five left out, over the median), a median is not a figure.
pub const MAX_SPREAD_PCT: f64 = 20.0;

#[derive(Clone, Debug, Serialize)]
pub struct Machine {
    pub nproc: usize,
    /// `model name` and `vendor_id` of /proc/cpuinfo.
    pub cpu: String,
    pub vendor: String,
    /// Benchmark threads are pinned to distinct CPUs (`sched_setaffinity` accepted).
    pub pinned: bool,
    /// The parallel speedup the machine gave during the run: a busy loop's throughput
    /// on `threads` threads over one thread's (measured before and after the groups;
    /// the lower figure). 2.0 on two idle cores; about 1 when the host gives less.
    pub speedup: f64,
    /// The load average (1 minute) when the run started, from /proc/loadavg.
    pub load: Option<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub machine: Machine,
    pub warmup: usize,
    pub runs: usize,
    pub scale: f64,
    pub threads: usize,
    /// Why our manager was not measured, when it was not.
    pub manager_unavailable: Option<String>,
    pub rows: Vec<Row>,
    pub targets: Vec<Target>,
}

impl Report {
    pub fn median(&self, group: &str, name: &str) -> Option<f64> {
        self.rows
            .iter()
            .find(|r| r.group == group && r.name == name)
            .map(|r| r.stats.median)
            .filter(|x| x.is_finite())
    }
}

fn machine() -> Machine {
    let nproc = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |name: &str| {
        info.lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_once(':'))
            .map_or_else(|| "unknown".into(), |(_, v)| v.trim().to_owned())
    };
    Machine {
        nproc,
        cpu: field("model name"),
        vendor: field("vendor_id"),
        pinned: timing::pinning_works(),
        speedup: f64::NAN,
        load: std::fs::read_to_string("/proc/loadavg")
            .ok()
            .and_then(|s| s.split_whitespace().next()?.parse().ok()),
    }
}

/// A busy loop's throughput on `threads` threads over one thread's (about 30 ms each).
pub fn parallel_speedup(threads: usize) -> f64 {
    let spin = |n: u64| {
        let mut x = 1u64;
        for i in 0..n {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(i));
        }
        x
    };
    let k = 20_000_000;
    let one = timing::sample_throughput(1, k, &|_| {
        move |n: u64| {
            spin(n);
        }
    });
    let many = timing::sample_throughput(threads.max(1), k, &|_| {
        move |n: u64| {
            spin(n);
        }
    });
    many / one
}

/// Runs `f`, turning a panic into an error message (without printing it).
pub(crate) fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let r = catch_unwind(AssertUnwindSafe(f));
    std::panic::set_hook(hook);
    r.map_err(|e| {
        e.downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| e.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "panic".into())
    })
}

pub(crate) fn new_manager() -> Manager {
    Manager::new(Dialect::mysql80(), Config::default(), Clock::System)
}

/// Can our manager take and give back a lock? (It may still be a `todo!()` stub.)
pub fn probe_manager() -> Result<(), String> {
    guarded(|| {
        let m = new_manager();
        let d = Dialect::mysql80();
        let mut c = m.context();
        let k = table_key(&d, "probe", 0);
        match c.acquire_outcome(&k, LockType::SR, Duration::Transaction, WaitOption::Forever) {
            Ok(mdl_core::Outcome::Granted) => {}
            other => return Err(format!("acquire SR gave {other:?}")),
        }
        c.commit();
        if !c.held().is_empty() {
            return Err("commit left tickets".into());
        }
        Ok(())
    })
    .and_then(|r| r)
}

pub(crate) fn table_key(d: &Dialect, db: &str, i: usize) -> MdlKey {
    let ns = d.namespace_by_name("TABLE").expect("TABLE namespace");
    MdlKey::new(ns, db, &format!("t{i}"))
}

fn global_key(d: &Dialect) -> MdlKey {
    MdlKey::singleton(d.namespace_by_name("GLOBAL").expect("GLOBAL namespace"))
}

/// Our acquire + commit of one lock; a refusal is a bug of the benchmark.
#[inline]
fn ours_op(c: &mut Context, k: &MdlKey, ty: LockType) {
    let o = c.acquire_outcome(k, ty, Duration::Transaction, WaitOption::Forever);
    debug_assert_eq!(o, Ok(mdl_core::Outcome::Granted));
    black_box(o).ok();
    c.commit();
}

struct Runner {
    opts: Options,
    rows: Vec<Row>,
    ours: bool,
    log: bool,
}

impl Runner {
    fn push(&mut self, group: &str, name: &str, unit: &'static str, stats: Stats) {
        if self.log {
            eprintln!("  {group:<10} {name:<28} {:>14.1} {unit}", stats.median);
        }
        self.rows.push(Row {
            group: group.into(),
            name: name.into(),
            unit,
            stats,
        });
    }

    /// Runs one group's cases interleaved and records them; a case that panicked (our
    /// manager unfinished) is reported on stderr and left out.
    fn group(&mut self, group: &str, unit: &'static str, cases: Vec<timing::Case<'_>>) {
        for (name, r) in timing::interleaved(self.opts.plan, cases) {
            match r {
                Ok(s) => self.push(group, &name, unit, s),
                Err(e) => eprintln!("mdl bench: {group}/{name}: panicked: {e}"),
            }
        }
    }

    fn uncontended(&mut self) {
        let p = self.opts.plan;
        let d = Dialect::mysql80();
        let key = table_key(&d, "db", 0);
        let g = global_key(&d);
        let k = p.ops(1_000_000);

        let rw = parking_lot::RwLock::new(());
        let dm = DashRw::new();
        dm.insert(&key);
        let nv = Naive::new();
        let mut nc = nv.context();
        let mut cases: Vec<timing::Case<'_>> = vec![
            (
                "floor_rwlock".into(),
                Box::new(|| {
                    timing::sample_ops(k, &mut |n| {
                        for _ in 0..n {
                            baselines::floor_op(black_box(&rw));
                        }
                    })
                }),
            ),
            (
                "dashmap_rwlock".into(),
                Box::new(|| {
                    timing::sample_ops(k, &mut |n| {
                        for _ in 0..n {
                            dm.op(black_box(&key));
                        }
                    })
                }),
            ),
            (
                "naive_sr".into(),
                Box::new(|| {
                    timing::sample_ops(k, &mut |n| {
                        for _ in 0..n {
                            nv.acquire(&mut nc, black_box(&key), Mode::Shared);
                            nv.commit(&mut nc);
                        }
                    })
                }),
            ),
        ];
        if self.ours {
            for (name, kk, ty) in [
                ("ours_sr", &key, LockType::SR),
                ("ours_sw", &key, LockType::SW),
                ("ours_su", &key, LockType::SU),
                ("ours_ix_global", &g, LockType::IX),
            ] {
                let m = new_manager();
                let mut c = m.context();
                cases.push((
                    name.into(),
                    Box::new(move || {
                        timing::sample_ops(k, &mut |n| {
                            for _ in 0..n {
                                ours_op(&mut c, black_box(kk), ty);
                            }
                        })
                    }),
                ));
            }
        }
        self.group("single", "ns/op", cases);
    }

    fn contended(&mut self) {
        let p = self.opts.plan;
        let t = self.opts.threads.max(1);
        let d = &Dialect::mysql80();
        let k = p.ops(2_000_000);
        // Thread i takes SR when i is even, SW when odd.
        let ty = |i: usize| {
            if i.is_multiple_of(2) {
                LockType::SR
            } else {
                LockType::SW
            }
        };
        // Each worker builds its own key, as every connection builds the MDL key of the
        // table its statement names (same name: the same lock).
        let key = move |distinct: bool, i: usize| table_key(d, "db", if distinct { i } else { 0 });
        let group = format!("{t}threads");
        let mut cases: Vec<timing::Case<'_>> = Vec::new();
        for (shape, distinct) in [("same", false), ("distinct", true)] {
            let dm = DashRw::new();
            (0..t).for_each(|i| dm.insert(&key(distinct, i)));
            cases.push((
                format!("{shape}_dashmap_rwlock"),
                Box::new(move || {
                    timing::sample_throughput(t, k, &|i| {
                        let (dm, key) = (&dm, key(distinct, i));
                        move |n: u64| {
                            for _ in 0..n {
                                dm.op(&key);
                            }
                        }
                    })
                }),
            ));
            let nv = Naive::new();
            cases.push((
                format!("{shape}_naive"),
                Box::new(move || {
                    timing::sample_throughput(t, k, &|i| {
                        let (nv, key) = (nv.clone(), key(distinct, i));
                        let mut c = nv.context();
                        move |n: u64| {
                            for _ in 0..n {
                                nv.acquire(&mut c, &key, Mode::of(ty(i)));
                                nv.commit(&mut c);
                            }
                        }
                    })
                }),
            ));
            if self.ours {
                let m = new_manager();
                cases.push((
                    format!("{shape}_ours"),
                    Box::new(move || {
                        timing::sample_throughput(t, k, &|i| {
                            let key = key(distinct, i);
                            let mut c = m.context();
                            move |n: u64| {
                                for _ in 0..n {
                                    ours_op(&mut c, &key, ty(i));
                                }
                            }
                        })
                    }),
                ));
            }
        }
        self.group(&group, "ops/s", cases);
    }

    fn many(&mut self) {
        let p = self.opts.plan;
        let max = self.opts.many.iter().copied().max().unwrap_or(1);
        let keys = many::keys(max);
        let mut cases: Vec<timing::Case<'_>> = Vec::new();
        // About 200,000 locks per sample whatever n.
        for &n in self.opts.many {
            let reps = p.ops((200_000 / n as u64).max(1));
            let ks = &keys[..n];
            let nv = Naive::new();
            let mut nc = nv.context();
            cases.push((
                format!("naive_n{n}"),
                Box::new(move || {
                    timing::sample_units(reps, &mut |r| {
                        let t = Instant::now();
                        for _ in 0..r {
                            many::naive_round(&nv, &mut nc, ks);
                        }
                        (t.elapsed().as_nanos(), r * n as u64)
                    })
                }),
            ));
            if !self.ours {
                continue;
            }
            let m = new_manager();
            let mut c = m.context();
            cases.push((
                format!("ours_n{n}"),
                Box::new(move || {
                    timing::sample_units(reps, &mut |r| {
                        let t = Instant::now();
                        for _ in 0..r {
                            many::ours_round(&mut c, ks);
                        }
                        (t.elapsed().as_nanos(), r * n as u64)
                    })
                }),
            ));
            // The commit alone (its own clock around each commit).
            let m = new_manager();
            let mut c = m.context();
            cases.push((
                format!("ours_commit_n{n}"),
                Box::new(move || {
                    timing::sample_units(reps, &mut |r| {
                        let mut ns = 0u128;
                        for _ in 0..r {
                            many::ours_acquire_all(&mut c, ks);
                            let t = Instant::now();
                            c.commit();
                            ns += t.elapsed().as_nanos();
                        }
                        (ns, r * n as u64)
                    })
                }),
            ));
            // Each round in a fresh context (made and dropped outside the clock): its
            // first transaction, so every lock object is looked up in the map and every
            // book entry is new (no warm pins).
            let m = new_manager();
            cases.push((
                format!("ours_cold_n{n}"),
                Box::new(move || {
                    timing::sample_units(reps, &mut |r| {
                        let mut cs: Vec<Context> = (0..r).map(|_| m.context()).collect();
                        let t = Instant::now();
                        for c in &mut cs {
                            many::ours_acquire_all(c, ks);
                            c.commit();
                        }
                        let ns = t.elapsed().as_nanos();
                        drop(cs);
                        (ns, r * n as u64)
                    })
                }),
            ));
        }
        self.group("many", "ns/lock", cases);
    }

    fn deadlock(&mut self) {
        let p = self.opts.plan;
        let mut graphs: Vec<(String, usize, Synthetic, TableSetup)> = Vec::new();
        // The steps mutate their own copies of the tables.
        let mut steps: Vec<(String, usize, TableSetup, usize)> = Vec::new();
        for shape in [Shape::Chain, Shape::Cycle] {
            for &n in self.opts.waiters {
                let name = format!("{}_{n}", shape.name());
                match graphs::table_setup(shape, n)
                    .and_then(|a| Ok((a, graphs::table_setup(shape, n)?)))
                {
                    Ok((a, b)) => {
                        let (_, edges) = a.search();
                        graphs.push((name.clone(), n, Synthetic::new(shape, n), a));
                        steps.push((name, n, b, edges));
                    }
                    Err(e) => eprintln!("mdl bench: deadlock table setup failed: {e}"),
                }
            }
        }
        let mut cases: Vec<timing::Case<'_>> = Vec::new();
        for (name, n, g, t) in &graphs {
            let n = *n;
            // About 1,000,000 edges per sample for the searches, 200,000 for the steps.
            let reps = p.ops((1_000_000 / n as u64).max(1));

            cases.push((
                format!("synthetic_{name}"),
                Box::new(move || {
                    timing::sample_units(reps, &mut |r| {
                        let t = Instant::now();
                        let mut e = 0usize;
                        for _ in 0..r {
                            // `detect`, as the table runs it; a chain visits its n edges.
                            match mdl_core::deadlock::detect(black_box(g), 0) {
                                Some(dl) => e += dl.edges_visited,
                                None => e += n,
                            }
                        }
                        (t.elapsed().as_nanos(), e as u64)
                    })
                }),
            ));
            let ts: &TableSetup = t;
            cases.push((
                format!("table_{name}"),
                Box::new(move || {
                    timing::sample_units(reps, &mut |r| {
                        let t = Instant::now();
                        let mut e = 0;
                        for _ in 0..r {
                            e += black_box(ts.search()).1;
                        }
                        (t.elapsed().as_nanos(), e as u64)
                    })
                }),
            ));
        }
        for (name, n, t, edges) in &mut steps {
            let (n, edges) = (*n, *edges);
            let reps = p.ops((200_000 / n as u64).max(1));
            cases.push((
                format!("step_{name}"),
                Box::new(move || {
                    timing::sample_units(reps, &mut |r| {
                        let c = Instant::now();
                        for _ in 0..r {
                            if let Err(e) = t.step() {
                                panic!("deadlock table step failed: {e}");
                            }
                        }
                        (c.elapsed().as_nanos(), r * edges as u64)
                    })
                }),
            ));
        }
        self.group("deadlock", "ns/edge", cases);
    }

    fn oltp(&mut self) {
        let (cases, lats) = oltp::cases(self.opts.plan, self.opts.oltp_threads, self.ours);
        self.group("oltp", "ops/s", cases);
        for (name, lat) in lats {
            let mut l = match lat.lock() {
                Ok(l) => l,
                Err(e) => e.into_inner(),
            };
            let oltp::Latencies { ddl, read } = &mut *l;
            for (what, xs) in [("ddl", ddl), ("read", read)] {
                let n = xs.len();
                if let Some(p) = oltp::percentiles(xs) {
                    for (q, v) in ["p50", "p99", "p999"].iter().zip(p) {
                        // A percentile over every round: no spread between rounds.
                        let stats = Stats {
                            spread_pct: 0.0,
                            ..Stats::spread_of(v, v, v, n)
                        };
                        self.push("oltp_wait", &format!("{name}_{what}_{q}"), "ns", stats);
                    }
                }
            }
        }
    }

    /// The simulation of `scaling.rs`: same-table throughput at 2, 16 and 64 threads with
    /// one counter per lock object (before issue 30), 8 stripes (now) and one per core,
    /// from this run's single-thread SR cost (120 ns when `single` did not run).
    fn scaling(&mut self) {
        let rows = self.rows.iter();
        let t0 = rows
            .filter(|r| r.group == "single" && r.name == "ours_sr")
            .map(|r| r.stats.median)
            .find(|x| x.is_finite())
            .unwrap_or(120.0);
        let ops = self.opts.plan.ops(2_000).max(10);
        for n in [2usize, 16, 64] {
            for (what, stripes) in [("one_count", 1), ("stripes8", 8), ("per_core", n)] {
                let x = scaling::same_table(n, stripes, t0, scaling::TX, ops);
                let stats = Stats {
                    spread_pct: 0.0,
                    ..Stats::spread_of(x, x, x, 1)
                };
                self.push("scaling", &format!("sim_same_{what}_n{n}"), "ops/s", stats);
            }
        }
    }

    fn ddl(&mut self) {
        let cases = ddl::cases(self.opts.plan, self.opts.pinners, self.ours);
        self.group("ddl", "ns/op", cases);
    }
}

/// Runs every benchmark. `log` prints each result to stderr as it comes.
pub fn run(opts: Options, log: bool) -> Report {
    let unavailable = probe_manager().err();
    let speedup_before = parallel_speedup(2);
    let mut r = Runner {
        opts,
        rows: Vec::new(),
        ours: unavailable.is_none(),
        log,
    };
    let on = |g: &str| opts.only.is_empty() || opts.only.contains(&g);
    if on("single") {
        r.uncontended();
    }
    if on("threads") {
        r.contended();
    }
    if on("many") {
        r.many();
    }
    if on("deadlock") {
        r.deadlock();
    }
    if on("ddl") {
        r.ddl();
    }
    if on("oltp") {
        r.oltp();
    }
    if on("async") {
        r.async_vs_sync();
    }
    if on("scaling") {
        r.scaling();
    }
    let speedup_after = parallel_speedup(2);
    let mut rep = Report {
        machine: Machine {
            speedup: speedup_before.min(speedup_after),
            ..machine()
        },
        warmup: opts.plan.warmup,
        runs: opts.plan.runs,
        scale: opts.plan.scale,
        threads: opts.threads,
        manager_unavailable: unavailable,
        rows: r.rows,
        targets: Vec::new(),
    };
    rep.targets = targets::targets(&rep, &opts);
    rep
}

/// The report as text: one line per measurement, then the targets.
pub fn render(r: &Report) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "machine: {} cpus, {} ({}); threads pinned to distinct cpus: {}; {} warm-up + {} \
         runs (median), scale {}",
        r.machine.nproc,
        r.machine.cpu,
        r.machine.vendor,
        if r.machine.pinned { "yes" } else { "no" },
        r.warmup,
        r.runs,
        r.scale
    );
    let _ = writeln!(
        s,
        "parallel speedup during the run (2 busy threads / 1): {:.2}; load average at start: {}",
        r.machine.speedup,
        r.machine.load.map_or("-".into(), |l| format!("{l:.2}"))
    );
    let _ = writeln!(
        s,
        "spread: (max - min) / median of the runs nearest the median, the {} farthest of {} \
         left out; range: of every run; a verdict is trusted when it holds at the \
         pessimistic ends of the runs nearest the median (\"ends\") or when both spreads \
         are at most {MAX_SPREAD_PCT}% (\"spreads\"), and, contended, only at {MIN_SPEEDUP} \
         speedup or more; else NOT TRUSTWORTHY",
        timing::left_out(r.runs),
        r.runs
    );
    if let Some(e) = &r.manager_unavailable {
        let _ = writeln!(s, "our manager: NOT MEASURED ({e})");
    }
    let _ = writeln!(
        s,
        "{:<10} {:<28} {:>14} {:<8} {:>14} {:>14} {:>7} {:>7}",
        "group", "name", "median", "unit", "min", "max", "spread", "range"
    );
    for row in &r.rows {
        let _ = writeln!(
            s,
            "{:<10} {:<28} {:>14.1} {:<8} {:>14.1} {:>14.1} {:>6.0}% {:>6.0}%",
            row.group,
            row.name,
            row.stats.median,
            row.unit,
            row.stats.min,
            row.stats.max,
            row.stats.spread_pct,
            row.stats.range_pct
        );
    }
    let _ = writeln!(s, "\ntargets:");
    for t in &r.targets {
        let verdict = match t.ok {
            Some(true) => "PASS",
            Some(false) => "FAIL",
            None => "n/a ",
        };
        let ratio = t.ratio.map_or("-".into(), |x| format!("{x:.2}"));
        let ends = t.ratio_at_ends.map_or("-".into(), |x| format!("{x:.2}"));
        let trust = match (&t.not_trustworthy, t.trusted_by) {
            (Some(why), _) => format!(" NOT TRUSTWORTHY ({why}; at the ends {ends})"),
            (None, Some(by)) => format!(" trusted: {by} (at the ends {ends})"),
            (None, None) => String::new(),
        };
        let _ = writeln!(
            s,
            "  {verdict} {:<52} ratio {ratio:>7} (want {}){trust}",
            t.name, t.limit
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smoke_runs_every_benchmark_tiny() {
        let r = run(Options::smoke(), false);
        for name in ["floor_rwlock", "dashmap_rwlock", "naive_sr"] {
            assert!(r.median("single", name).is_some(), "{name}");
        }
        assert!(r.median("2threads", "same_naive").is_some());
        assert!(r.median("many", "naive_n10").is_some());
        assert!(r.median("ddl", "naive_released_n5").is_some());
        assert!(r.median("oltp", "naive_t2").is_some());
        assert!(r.median("oltp_wait", "naive_t2_read_p99").is_some());
        assert!(r.machine.speedup.is_finite());
        for k in ["synthetic", "table", "step"] {
            for sh in ["chain", "cycle"] {
                assert!(
                    r.median("deadlock", &format!("{k}_{sh}_5")).is_some(),
                    "{k} {sh}"
                );
            }
        }
        if r.manager_unavailable.is_none() {
            assert!(r.median("single", "ours_sr").is_some());
            assert!(r.median("ddl", "ours_released_n5").is_some());
            assert!(r.median("ddl", "ours_held_n5").is_some());
            assert!(r.median("oltp", "ours_t2").is_some());
            assert!(r.median("async", "async_sr").is_some());
        }
        let j = serde_json::to_string(&r).expect("json");
        assert!(j.contains("\"targets\""));
        assert!(render(&r).contains("targets:"));
        // Every verdict says why it can be trusted or why not.
        for t in r.targets.iter().filter(|t| t.ok.is_some()) {
            assert!(
                t.trusted_by.is_some() != t.not_trustworthy.is_some(),
                "{t:?}"
            );
        }
    }

    #[test]
    fn naive_excludes_and_shares() {
        let d = Dialect::mysql80();
        let k = table_key(&d, "db", 0);
        let nv = Naive::new();
        let (mut a, mut b) = (nv.context(), nv.context());
        assert!(nv.try_acquire(&mut a, &k, Mode::of(LockType::SR)));
        assert!(nv.try_acquire(&mut b, &k, Mode::of(LockType::SW)));
        let mut c = nv.context();
        assert!(!nv.try_acquire(&mut c, &k, Mode::of(LockType::X)));
        nv.commit(&mut a);
        nv.commit(&mut b);
        assert_eq!(nv.lock_object_count(), 0);
        assert!(nv.try_acquire(&mut c, &k, Mode::Exclusive));
        assert!(!nv.try_acquire(&mut a, &k, Mode::Shared));
        // A blocked acquire is woken by the commit (no timing: the waiter either parks
        // before the commit or finds the lock free).
        std::thread::scope(|s| {
            let nv2 = nv.clone();
            let k2 = k.clone();
            let h = s.spawn(move || {
                let mut x = nv2.context();
                nv2.acquire(&mut x, &k2, Mode::Shared);
                x.held()
            });
            nv.commit(&mut c);
            assert_eq!(h.join().expect("waiter"), 1);
        });
    }

    #[test]
    fn deadlock_graphs_visit_n_edges() {
        for shape in [Shape::Chain, Shape::Cycle] {
            for n in [2, 3, 10, 57] {
                let (c, e) = mdl_core::deadlock::find_cycle(&Synthetic::new(shape, n), 0);
                assert_eq!((c.is_some(), e), (shape == Shape::Cycle, n));
                let mut t = graphs::table_setup(shape, n).expect("setup");
                assert_eq!(t.search(), (shape == Shape::Cycle, n), "{shape:?} {n}");
                let want = match shape {
                    Shape::Chain => mdl_core::Outcome::Waiting,
                    Shape::Cycle => mdl_core::Outcome::Deadlock,
                };
                for _ in 0..3 {
                    assert_eq!(t.step(), Ok(want));
                    t.t.check().expect("consistent");
                }
            }
        }
    }
}
