//! Time of the uncontended single-thread row on a loaded host:
//! `time_single [ROUNDS [OPS [series]]]`
//! runs the `single` group's floor, DashMap + RwLock, naive and our SR acquire + commit
//! interleaved in many short rounds (default 400 rounds of 20,000 operations, about a
//! millisecond each) and prints, per case, the fastest round, the 10th percentile and the
//! median in ns per operation, and the ratios of ours to DashMap + RwLock at each; with
//! `series`, first every round of every case in order (what the host did over time).
//!
//! Why short rounds and their minimum: a host shared with other work takes the CPU away
//! for whole scheduler slices (milliseconds) and runs other threads on the sibling
//! hardware thread; a round of a millisecond is either hit or not, and the fastest rounds
//! are the ones nothing disturbed, the same for every case (models/BENCH.md, issue 30,
//! fourth round). `mdl bench` keeps its rounds of 0.7 M operations and medians.

use mdl_bench::baselines::{floor_op, DashRw, Mode, Naive};
use mdl_core::{Clock, Config, Dialect, LockDuration, LockType, Manager, MdlKey, WaitOption};
use std::hint::black_box;
use std::time::Instant;

/// One case: runs n operations.
type Case<'a> = (&'static str, Box<dyn FnMut(u64) + 'a>);

fn main() {
    let series = std::env::args().any(|a| a == "series");
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let rounds = args.first().copied().unwrap_or(400).max(1) as usize;
    let ops = args.get(1).copied().unwrap_or(20_000).max(1);
    let d = Dialect::mysql80();
    let ns = d.namespace_by_name("TABLE").expect("TABLE namespace");
    let key = MdlKey::new(ns, "db", "t0");
    let rw = parking_lot::RwLock::new(());
    let dm = DashRw::new();
    dm.insert(&key);
    let nv = Naive::new();
    let mut nc = nv.context();
    let m = Manager::new(Dialect::mysql80(), Config::default(), Clock::System);
    let mut c = m.context();
    let mut cases: Vec<Case<'_>> = vec![
        (
            "floor_rwlock",
            Box::new(|n| (0..n).for_each(|_| floor_op(black_box(&rw)))),
        ),
        (
            "dashmap_rwlock",
            Box::new(|n| (0..n).for_each(|_| dm.op(black_box(&key)))),
        ),
        (
            "naive_sr",
            Box::new(|n| {
                for _ in 0..n {
                    nv.acquire(&mut nc, black_box(&key), Mode::Shared);
                    nv.commit(&mut nc);
                }
            }),
        ),
        (
            "ours_sr",
            Box::new(|n| {
                for _ in 0..n {
                    let o = c.acquire_outcome(
                        black_box(&key),
                        LockType::SR,
                        LockDuration::Transaction,
                        WaitOption::Forever,
                    );
                    black_box(o).ok();
                    c.commit();
                }
            }),
        ),
    ];
    let mut ns_op: Vec<Vec<f64>> = cases.iter().map(|_| Vec::new()).collect();
    for round in 0..rounds + 2 {
        for (i, (_, f)) in cases.iter_mut().enumerate() {
            let t = Instant::now();
            f(ops);
            let x = t.elapsed().as_nanos() as f64 / ops as f64;
            if round >= 2 {
                ns_op[i].push(x);
            }
        }
    }
    if series {
        for ((name, _), xs) in cases.iter().zip(&ns_op) {
            let r: Vec<String> = xs.iter().map(|x| format!("{x:.0}")).collect();
            println!("{name}: {}", r.join(" "));
        }
    }
    let q = |xs: &mut Vec<f64>, p: f64| {
        xs.sort_by(|a, b| a.total_cmp(b));
        xs[((xs.len() - 1) as f64 * p) as usize]
    };
    let mut table = Vec::new();
    println!("{rounds} rounds of {ops} ops, interleaved; ns/op");
    println!("{:<16} {:>8} {:>8} {:>8}", "case", "min", "p10", "median");
    for ((name, _), xs) in cases.iter().zip(ns_op.iter_mut()) {
        let row = [q(xs, 0.0), q(xs, 0.1), q(xs, 0.5)];
        println!("{name:<16} {:>8.1} {:>8.1} {:>8.1}", row[0], row[1], row[2]);
        table.push(row);
    }
    let r = |j: usize| table[3][j] / table[1][j];
    println!(
        "ours_sr / dashmap_rwlock: {:.2} (min) {:.2} (p10) {:.2} (median)",
        r(0),
        r(1),
        r(2)
    );
}
