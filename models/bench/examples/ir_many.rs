//! Counters of the `many` group (`mdl bench --only many`): `ir_many ours|naive N R` takes
//! SR on N table keys in one context and commits, R times, after one warm-up round, as
//! the group's `ours_nN` and `naive_nN` rows do (`ours-shuffled`: the rounds after the
//! warm-up take the keys in another order, `many::shuffled`, so the pins' neighbour hint
//! misses). Run it under
//! `valgrind --tool=cachegrind --cache-sim=yes` for two values of R: the difference of
//! the totals over the difference of the R, divided by N, is the cost of one lock in
//! instructions and in simulated cache misses (D1, LL), which a loaded host does not
//! disturb (models/BENCH.md, issue 30, "many locks per context"). Under callgrind
//! (`--cache-sim=yes`) the commit's share is `Context::commit`'s inclusive cost.

use mdl_bench::baselines::Naive;
use mdl_bench::many;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let parsed = match args.as_slice() {
        [_, w, n, r] => n
            .parse::<usize>()
            .ok()
            .zip(r.parse::<u64>().ok())
            .map(|(n, r)| (w.as_str(), n, r)),
        _ => None,
    };
    let Some((which, n, rounds)) = parsed else {
        eprintln!("usage: ir_many ours|ours-shuffled|naive N R");
        std::process::exit(2);
    };
    let keys = many::keys(n);
    match which {
        "ours" => {
            let m = many::manager();
            let mut c = m.context();
            for _ in 0..=rounds {
                many::ours_round(&mut c, &keys);
            }
        }
        "ours-shuffled" => {
            // Two rounds in key order make the pins (a context's first big round gives
            // them back at its commit, down to the old cap); the others take the same
            // keys in another order.
            let m = many::manager();
            let mut c = m.context();
            many::ours_round(&mut c, &keys);
            many::ours_round(&mut c, &keys);
            let other = many::shuffled(&keys);
            for _ in 0..rounds {
                many::ours_round(&mut c, &other);
            }
        }
        "naive" => {
            let nv = Naive::new();
            let mut nc = nv.context();
            for _ in 0..=rounds {
                many::naive_round(&nv, &mut nc, &keys);
            }
        }
        other => {
            eprintln!("ir_many: unknown case `{other}`");
            std::process::exit(2);
        }
    }
}
