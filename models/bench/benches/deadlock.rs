//! Criterion benchmarks of the deadlock search: `mdl_core::deadlock::detect` over a
//! synthetic wait-for graph and over a `LockTable` (sessions each holding X on one table
//! and waiting for the next), in a chain and in a cycle of 10, 100 and 1,000 waiters; and
//! the table step that runs the detector. Throughput is in edges visited, so criterion's
//! elements/s is the inverse of the time per edge.
//!
//! `cargo bench -p mdl-bench --bench deadlock`. The graphs are the file `mdl bench` uses
//! (`mdl_bench::graphs`).

use mdl_bench::graphs;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use graphs::{Shape, Synthetic};
use std::hint::black_box;

fn search(c: &mut Criterion) {
    for shape in [Shape::Chain, Shape::Cycle] {
        let mut g = c.benchmark_group(format!("deadlock_{}", shape.name()));
        for n in [10usize, 100, 1_000] {
            let syn = Synthetic::new(shape, n);
            let (_, edges) = mdl_core::deadlock::find_cycle(&syn, 0);
            g.throughput(Throughput::Elements(edges as u64));
            g.bench_with_input(BenchmarkId::new("synthetic", n), &n, |b, _| {
                b.iter(|| mdl_core::deadlock::detect(black_box(&syn), 0))
            });
            let mut t = graphs::table_setup(shape, n).expect("table setup");
            let (_, edges) = t.search();
            g.throughput(Throughput::Elements(edges as u64));
            g.bench_with_input(BenchmarkId::new("table", n), &n, |b, _| {
                b.iter(|| black_box(t.search()))
            });
            g.bench_with_input(BenchmarkId::new("table_step", n), &n, |b, _| {
                b.iter(|| t.step().expect("step"))
            });
        }
        g.finish();
    }
}

criterion_group!(benches, search);
criterion_main!(benches);
