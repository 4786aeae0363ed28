//! A simulation of the same-table fast path beyond the cores this machine has
//! (`mdl bench --only scaling`; models/BENCH.md, "Beyond two cores"). Not a measurement:
//! a discrete-event model of cache-line ownership, fed with the single-thread cost this
//! run measured.
//!
//! Each of `n` threads runs acquire + commit in a loop on one table: local work (half of
//! `t0`), a read-modify-write of its stripe's line (the grant's addition), local work
//! (the other half), a read-modify-write of the same line (the release's subtraction).
//! A line has one owner at a time; an access by another core waits until the line is
//! free and pays `tx` to move it, an access by the owner pays `T_LOCAL`. Thread i uses
//! stripe i mod `stripes` (owner ids 0..n-1, as in `mdl bench --threads N`). One stripe
//! is the count before issue 30 (one word per lock object); `stripes` = n is a counter
//! per core.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The cost of a read-modify-write on a line the core already owns, ns.
pub const T_LOCAL: f64 = 5.0;
/// The cost of taking a line from another core, ns (the figure issue 30's Intel numbers
/// give: about 150 ns more per acquire + commit on one table, two transfers).
pub const TX: f64 = 75.0;

/// Simulated same-table throughput (operations per second) of `n` threads doing `ops`
/// acquire + commit each, with `stripes` counters, single-thread cost `t0` ns (the
/// atomics included) and line transfer `tx` ns.
pub fn same_table(n: usize, stripes: usize, t0: f64, tx: f64, ops: u64) -> f64 {
    let stripes = stripes.max(1);
    let n = n.max(1);
    let half = ((t0 - 2.0 * T_LOCAL) / 2.0).max(0.0);
    // Per line: (owner, free from). Per thread: accesses done (two per op).
    let mut lines: Vec<(Option<usize>, f64)> = vec![(None, 0.0); stripes];
    let mut done = vec![0u64; n];
    // Events: (time the thread wants its line, thread), earliest first (ps as integers).
    let ps = |t: f64| (t * 1000.0) as u64;
    let mut q: BinaryHeap<Reverse<(u64, usize)>> = (0..n).map(|i| Reverse((ps(half), i))).collect();
    let mut end = 0.0f64;
    while let Some(Reverse((at, i))) = q.pop() {
        let want = at as f64 / 1000.0;
        let line = &mut lines[i % stripes];
        let start = want.max(line.1);
        let cost = if line.0 == Some(i) { T_LOCAL } else { tx };
        let finish = start + cost;
        *line = (Some(i), finish);
        done[i] += 1;
        if done[i] == 2 * ops {
            end = end.max(finish);
        } else {
            q.push(Reverse((ps(finish + half), i)));
        }
    }
    (n as u64 * ops) as f64 / (end * 1e-9)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One thread per stripe scales linearly (no line moves); every thread on one stripe
    /// is bounded by the line: at most one transfer-bound operation per 2 tx.
    #[test]
    fn the_model_bounds() {
        let t0 = 100.0;
        let one = same_table(1, 1, t0, TX, 1000);
        let per_core = same_table(16, 16, t0, TX, 1000);
        assert!((per_core / one - 16.0).abs() < 0.1, "{}", per_core / one);
        let shared = same_table(16, 1, t0, TX, 1000);
        assert!(shared <= 1e9 / (2.0 * TX) * 1.01, "{shared}");
    }
}
