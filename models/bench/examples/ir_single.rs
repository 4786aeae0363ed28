//! Instruction counts of the uncontended single-thread row (`mdl bench --only single`):
//! `ir_single ours|dash|naive N` runs N SR acquire + commit on one table key, with our
//! manager, the DashMap + RwLock baseline or the naive manager, after one warm-up
//! operation. Run it under `valgrind --tool=callgrind` for two values of N: the
//! difference of the totals divided by the difference of the N is the cost of one
//! operation in instructions, which a loaded host does not disturb (models/BENCH.md,
//! issue 30, "instruction counts").

use mdl_bench::baselines::{DashRw, Mode, Naive};
use mdl_core::{Clock, Config, Dialect, LockDuration, LockType, Manager, MdlKey, WaitOption};
use std::hint::black_box;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (which, n) = match args.as_slice() {
        [_, w, n] => (w.as_str(), n.parse::<u64>().unwrap_or(0)),
        _ => {
            eprintln!("usage: ir_single ours|dash|naive N");
            std::process::exit(2);
        }
    };
    let d = Dialect::mysql80();
    let ns = d.namespace_by_name("TABLE").expect("TABLE namespace");
    let key = MdlKey::new(ns, "db", "t0");
    match which {
        "ours" => {
            let m = Manager::new(Dialect::mysql80(), Config::default(), Clock::System);
            let mut c = m.context();
            for _ in 0..=n {
                let o = c.acquire(
                    black_box(&key),
                    LockType::SR,
                    LockDuration::Transaction,
                    WaitOption::Forever,
                );
                let _ = black_box(o);
                c.commit();
            }
        }
        "dash" => {
            let dm = DashRw::new();
            dm.insert(&key);
            for _ in 0..=n {
                dm.op(black_box(&key));
            }
        }
        "naive" => {
            let nv = Naive::new();
            let mut nc = nv.context();
            for _ in 0..=n {
                nv.acquire(&mut nc, black_box(&key), Mode::Shared);
                nv.commit(&mut nc);
            }
        }
        other => {
            eprintln!("ir_single: unknown case `{other}`");
            std::process::exit(2);
        }
    }
}
