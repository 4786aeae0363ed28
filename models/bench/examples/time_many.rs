//! Time of the `many` group's rows on a loaded host: `time_many [ROUNDS]` runs ours and
//! the naive manager's "SR on n table keys in one context, then commit" for n = 100 and
//! n = 10,000 (and ours with the keys in another order than the round that made its
//! pins, `ours_shuffled`), interleaved in many short rounds of about 20,000 locks each (default
//! 300 rounds, after two warm-up rounds), and prints per case the fastest round, the
//! 10th percentile and the median in ns per lock, and each manager's n = 10,000 over
//! n = 100 ratio at each (the method of `time_single`: the fastest short rounds are the
//! ones the host did not disturb; models/BENCH.md, issue 30, fourth and fifth rounds).

use mdl_bench::baselines::Naive;
use mdl_bench::many;
use std::time::Instant;

/// One case: name, locks per round, and a run of that many locks (n per transaction).
type Case<'a> = (String, u64, Box<dyn FnMut() + 'a>);

const NS: [usize; 2] = [100, 10_000];

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(300)
        .max(1);
    let keys = many::keys(NS[1]);
    let mut cases: Vec<Case<'_>> = Vec::new();
    for n in NS {
        let ks = &keys[..n];
        let reps = (20_000 / n).max(1);
        let nv = Naive::new();
        let mut nc = nv.context();
        cases.push((
            format!("naive_n{n}"),
            (reps * n) as u64,
            Box::new(move || {
                for _ in 0..reps {
                    many::naive_round(&nv, &mut nc, ks);
                }
            }),
        ));
        let m = many::manager();
        let mut c = m.context();
        cases.push((
            format!("ours_n{n}"),
            (reps * n) as u64,
            Box::new(move || {
                for _ in 0..reps {
                    many::ours_round(&mut c, ks);
                }
            }),
        ));
        // The same locks in another order than the round that made the pins (the
        // neighbour hint misses: `many::shuffled`).
        // (Two rounds: a context's first big round gives its pins back at its commit.)
        let m = many::manager();
        let mut c = m.context();
        many::ours_round(&mut c, ks);
        many::ours_round(&mut c, ks);
        let other = many::shuffled(ks);
        cases.push((
            format!("ours_shuffled_n{n}"),
            (reps * n) as u64,
            Box::new(move || {
                for _ in 0..reps {
                    many::ours_round(&mut c, &other);
                }
            }),
        ));
    }
    let mut ns_lock: Vec<Vec<f64>> = cases.iter().map(|_| Vec::new()).collect();
    for round in 0..rounds + 2 {
        for (i, (_, locks, f)) in cases.iter_mut().enumerate() {
            let t = Instant::now();
            f();
            if round >= 2 {
                ns_lock[i].push(t.elapsed().as_nanos() as f64 / *locks as f64);
            }
        }
    }
    let q = |xs: &mut Vec<f64>, p: f64| {
        xs.sort_by(|a, b| a.total_cmp(b));
        xs[((xs.len() - 1) as f64 * p) as usize]
    };
    println!("{rounds} rounds of about 20,000 locks, interleaved; ns/lock");
    println!("{:<16} {:>8} {:>8} {:>8}", "case", "min", "p10", "median");
    let mut table = Vec::new();
    for ((name, _, _), xs) in cases.iter().zip(ns_lock.iter_mut()) {
        let row = [q(xs, 0.0), q(xs, 0.1), q(xs, 0.5)];
        println!("{name:<16} {:>8.1} {:>8.1} {:>8.1}", row[0], row[1], row[2]);
        table.push(row);
    }
    // Cases in order: naive_n100, ours_n100, ours_shuffled_n100, then the same at 10000.
    for (name, lo, hi) in [("naive", 0, 3), ("ours", 1, 4), ("ours_shuffled", 2, 5)] {
        let r = |j: usize| table[hi][j] / table[lo][j];
        println!(
            "{name} n=10000 / n=100: {:.2} (min) {:.2} (p10) {:.2} (median)",
            r(0),
            r(1),
            r(2)
        );
    }
}
