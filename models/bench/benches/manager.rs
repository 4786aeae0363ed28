//! Criterion benchmarks of the concurrent manager against the baselines (one run, side
//! by side): uncontended acquire + commit (fast path SR/SW, slow path SU, IX on GLOBAL),
//! N threads on one table and on distinct tables, n locks in one context, the first DDL
//! after 10 .. 10,000 contexts used a table on the fast path (`first_ddl`), and the
//! mixed OLTP workload on 1, 2, 4, 8 threads (`oltp`).
//!
//! `cargo bench -p mdl-bench --bench manager` (`-- --quick` for a short run). The
//! baselines are the file `mdl bench` uses (`mdl_bench::baselines`). While the
//! manager is still a stub, its benchmarks are skipped with a message.

use mdl_bench::baselines;
use mdl_bench::many;

use baselines::{DashRw, Mode, Naive};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use mdl_core::Config;
use mdl_core::{Clock, Context, Dialect, Duration, LockType, Manager, MdlKey, Outcome, WaitOption};
use std::hint::black_box;
use std::sync::Barrier;
use std::time::Instant;

fn manager() -> Manager {
    Manager::new(Dialect::mysql80(), Config::default(), Clock::System)
}

fn table_key(d: &Dialect, db: &str, i: usize) -> MdlKey {
    MdlKey::new(
        d.namespace_by_name("TABLE").expect("TABLE"),
        db,
        &format!("t{i}"),
    )
}

/// Is the manager implemented yet? (A `todo!()` stub panics.)
fn manager_works() -> bool {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let ok = std::panic::catch_unwind(|| {
        let d = Dialect::mysql80();
        let m = manager();
        let mut c = m.context();
        let o = c.acquire_outcome(
            &table_key(&d, "probe", 0),
            LockType::SR,
            Duration::Transaction,
            WaitOption::Forever,
        );
        c.commit();
        o == Ok(Outcome::Granted)
    })
    .unwrap_or(false);
    std::panic::set_hook(hook);
    if !ok {
        eprintln!(
            "manager bench: mdl_core::Manager is not usable yet; measuring the baselines only"
        );
    }
    ok
}

#[inline]
fn ours_op(c: &mut Context, k: &MdlKey, ty: LockType) {
    let o = c.acquire_outcome(k, ty, Duration::Transaction, WaitOption::Forever);
    black_box(o).ok();
    c.commit();
}

fn uncontended(c: &mut Criterion) {
    let ours = manager_works();
    let d = Dialect::mysql80();
    let key = table_key(&d, "db", 0);
    let global = MdlKey::singleton(d.namespace_by_name("GLOBAL").expect("GLOBAL"));
    let mut g = c.benchmark_group("uncontended");
    let rw = parking_lot::RwLock::new(());
    g.bench_function("floor_rwlock", |b| {
        b.iter(|| baselines::floor_op(black_box(&rw)))
    });
    let dm = DashRw::new();
    dm.insert(&key);
    g.bench_function("dashmap_rwlock", |b| b.iter(|| dm.op(black_box(&key))));
    let nv = Naive::new();
    let mut nc = nv.context();
    g.bench_function("naive_sr", |b| {
        b.iter(|| {
            nv.acquire(&mut nc, black_box(&key), Mode::Shared);
            nv.commit(&mut nc);
        })
    });
    if ours {
        let m = manager();
        let mut cx = m.context();
        for (name, k, ty) in [
            ("ours_sr", &key, LockType::SR),
            ("ours_sw", &key, LockType::SW),
            ("ours_su", &key, LockType::SU),
            ("ours_ix_global", &global, LockType::IX),
        ] {
            g.bench_function(name, |b| b.iter(|| ours_op(&mut cx, black_box(k), ty)));
        }
    }
    g.finish();
}

/// `threads` threads each doing `iters` operations; the time from the common start to
/// the last join.
fn run_threads<W: FnMut(u64) + Send>(
    threads: usize,
    iters: u64,
    make: impl Fn(usize) -> W,
) -> std::time::Duration {
    let workers: Vec<W> = (0..threads).map(make).collect();
    let start = Barrier::new(threads + 1);
    std::thread::scope(|s| {
        let hs: Vec<_> = workers
            .into_iter()
            .map(|mut w| {
                let start = &start;
                s.spawn(move || {
                    start.wait();
                    w(iters)
                })
            })
            .collect();
        start.wait();
        let t = Instant::now();
        for h in hs {
            h.join().expect("bench thread");
        }
        t.elapsed()
    })
}

fn threads(c: &mut Criterion) {
    let ours = manager_works();
    let d = Dialect::mysql80();
    let n: usize = std::env::var("MDL_BENCH_THREADS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2);
    let ty = |i: usize| {
        if i.is_multiple_of(2) {
            LockType::SR
        } else {
            LockType::SW
        }
    };
    for (shape, distinct) in [("same_table", false), ("distinct_tables", true)] {
        let keys: Vec<MdlKey> = (0..n)
            .map(|i| table_key(&d, "db", if distinct { i } else { 0 }))
            .collect();
        let mut g = c.benchmark_group(format!("{n}threads_{shape}"));
        g.throughput(Throughput::Elements(n as u64));
        let dm = DashRw::new();
        keys.iter().for_each(|k| dm.insert(k));
        g.bench_function("dashmap_rwlock", |b| {
            b.iter_custom(|iters| {
                run_threads(n, iters, |i| {
                    let (dm, k) = (&dm, keys[i].clone());
                    move |it: u64| (0..it).for_each(|_| dm.op(&k))
                })
            })
        });
        let nv = Naive::new();
        g.bench_function("naive", |b| {
            b.iter_custom(|iters| {
                run_threads(n, iters, |i| {
                    let (nv, k) = (nv.clone(), keys[i].clone());
                    move |it: u64| {
                        let mut c = nv.context();
                        for _ in 0..it {
                            nv.acquire(&mut c, &k, Mode::of(ty(i)));
                            nv.commit(&mut c);
                        }
                    }
                })
            })
        });
        if ours {
            let m = manager();
            g.bench_function("ours", |b| {
                b.iter_custom(|iters| {
                    run_threads(n, iters, |i| {
                        let (m, k) = (m.clone(), keys[i].clone());
                        move |it: u64| {
                            let mut c = m.context();
                            (0..it).for_each(|_| ours_op(&mut c, &k, ty(i)));
                        }
                    })
                })
            });
        }
        g.finish();
    }
}

fn many(c: &mut Criterion) {
    let ours = manager_works();
    let keys = many::keys(10_000);
    let mut g = c.benchmark_group("many_locks");
    for n in [1usize, 100, 10_000] {
        let ks = &keys[..n];
        g.throughput(Throughput::Elements(n as u64));
        let nv = Naive::new();
        let mut nc = nv.context();
        g.bench_with_input(BenchmarkId::new("naive", n), &n, |b, _| {
            b.iter(|| many::naive_round(&nv, &mut nc, ks))
        });
        if ours {
            let m = manager();
            let mut cx = m.context();
            g.bench_with_input(BenchmarkId::new("ours", n), &n, |b, _| {
                b.iter(|| many::ours_round(&mut cx, ks))
            });
        }
    }
    g.finish();
}

/// The first DDL after n contexts used the table on the fast path (`mdl_bench::ddl`: the
/// readers' rounds and a cache-evicting walk outside the clock).
fn first_ddl(c: &mut Criterion) {
    let ours = manager_works();
    let mut g = c.benchmark_group("first_ddl");
    g.sample_size(10);
    for n in [10usize, 100, 1_000, 10_000] {
        let mut engines = vec![("naive_released", mdl_bench::ddl::FirstDdl::naive(n))];
        if ours {
            engines.push(("ours_released", mdl_bench::ddl::FirstDdl::ours(n, false)));
            engines.push(("ours_held", mdl_bench::ddl::FirstDdl::ours(n, true)));
        }
        for (name, mut e) in engines {
            g.bench_with_input(BenchmarkId::new(name, n), &n, |b, _| {
                b.iter_custom(|iters| {
                    let ns: u128 = (0..iters).map(|_| e.round()).sum();
                    std::time::Duration::from_nanos(ns as u64)
                })
            });
        }
    }
    g.finish();
}

/// The mixed OLTP workload (`mdl_bench::oltp`) on 1, 2, 4, 8 threads: time per
/// statement (throughput = statements).
fn oltp(c: &mut Criterion) {
    use mdl_bench::oltp::{sampler, Engine, Latencies};
    let ours = manager_works();
    let mut g = c.benchmark_group("oltp");
    g.sample_size(10);
    g.throughput(Throughput::Elements(1));
    for t in [1usize, 2, 4, 8] {
        for e in Engine::ALL {
            if e == Engine::Ours && !ours {
                continue;
            }
            let lat = std::sync::Arc::new(std::sync::Mutex::new(Latencies::default()));
            let mut f = sampler(e, t, lat.clone());
            g.bench_with_input(BenchmarkId::new(e.name(), t), &t, |b, &t| {
                b.iter_custom(|iters| {
                    let per_thread = iters.div_ceil(t as u64).max(1);
                    let ops_per_s = f(per_thread);
                    // The latencies are `mdl bench`'s; here they only take memory.
                    *lat.lock().unwrap_or_else(|e| e.into_inner()) = Latencies::default();
                    std::time::Duration::from_secs_f64(iters as f64 / ops_per_s)
                })
            });
        }
    }
    g.finish();
}

criterion_group!(benches, uncontended, threads, many, first_ddl, oltp);
criterion_main!(benches);
