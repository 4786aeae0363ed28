//! Sessions as tokio tasks: 1,000 reader tasks on a 2-worker runtime, and a DDL that
//! waits for a long transaction without blocking them.
//!
//! A long transaction holds SR on `db.t0` for `HOLD_MS`; a DDL asks for X on `db.t0`
//! (`acquire_async`) and waits for it; a few readers of `db.t0` queue behind the pending
//! X (as in the server: a waiting DDL holds new readers of its table back), while 1,000
//! readers of the other tables go on taking and committing SR locks on the same two
//! worker threads. A blocking `acquire` in the DDL's task would have taken one of the
//! two workers away from the readers for the whole wait; the future gives it back.
//! Waits time out by the system clock on their own (the manager's timer; no ticker).
//!
//! Run: `cargo run --release -p mdl-core --example tokio_readers` (exits 1 when the
//! readers made no progress during the DDL's wait, or a wait did not end in a grant);
//! `cargo test -p mdl-core --example tokio_readers` runs it as a test (the quick tier's
//! `cargo test --workspace` does).

use mdl_core::{Clock, Config, Dialect, LockDuration, LockType, Manager, MdlKey, WaitOption};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

const READERS: usize = 1_000;
const TABLES: usize = 10;
/// Readers of the DDL's table (they wait behind it).
const T0_READERS: usize = 10;
const HOLD_MS: u64 = 300;
const T: LockDuration = LockDuration::Transaction;
const WAIT: WaitOption = WaitOption::Timeout(std::time::Duration::from_secs(10));

fn main() {
    let ok = runtime().block_on(run());
    std::process::exit(if ok { 0 } else { 1 });
}

/// Two worker threads, as on this 2-core machine.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_time()
        .build()
        .expect("a tokio runtime")
}

/// `cargo test` runs the example (`test = true` in mdl-core/Cargo.toml).
#[test]
fn the_ddl_waits_and_the_readers_go_on() {
    assert!(runtime().block_on(run()));
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

async fn run() -> bool {
    let m = Manager::new(Dialect::mysql80(), Config::default(), Clock::System);
    let key = |i: usize| m.dialect().table("db", &format!("t{i}")).expect("TABLE");
    let t0 = key(0);
    let rounds = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    println!(
        "tokio runtime: 2 worker threads; {READERS} reader tasks on db.t1..db.t{}, \
         {T0_READERS} readers of db.t0; a transaction holds SR on db.t0 for {HOLD_MS} ms",
        TABLES - 1
    );

    // The long transaction.
    let mut long = m.context();
    if long
        .acquire_async(&t0, LockType::SR, T, WAIT)
        .await
        .is_err()
    {
        return false;
    }

    // The DDL: it waits for the long transaction, as a future.
    let mut ddl = m.context();
    let ddl_handle = ddl.handle();
    let (t0d, rounds_d) = (t0.clone(), rounds.clone());
    let ddl_task = tokio::spawn(async move {
        let start = Instant::now();
        let before = rounds_d.load(Ordering::Relaxed);
        let o = ddl.acquire_async(&t0d, LockType::X, T, WAIT).await;
        let during = rounds_d.load(Ordering::Relaxed) - before;
        let waited = ms(start);
        ddl.commit();
        (o, waited, during)
    });
    while !ddl_handle.is_waiting() {
        tokio::task::yield_now().await;
    }
    // Readers of db.t0 arrive while the DDL waits: they queue behind it.
    let mut t0_readers = Vec::new();
    let mut t0_handles = Vec::new();
    for _ in 0..T0_READERS {
        let mut ctx = m.context();
        t0_handles.push(ctx.handle());
        let k = t0.clone();
        t0_readers.push(tokio::spawn(async move {
            let start = Instant::now();
            let o = ctx.acquire_async(&k, LockType::SR, T, WAIT).await;
            ctx.commit();
            (o, ms(start))
        }));
    }
    while !t0_handles.iter().all(|h| h.is_waiting()) {
        tokio::task::yield_now().await;
    }
    // The readers of the other tables: acquire, yield (the statement), commit, again.
    let mut readers = Vec::with_capacity(READERS);
    for r in 0..READERS {
        let mut ctx = m.context();
        let keys: Vec<MdlKey> = (1..TABLES).map(key).collect();
        let (rounds, stop) = (rounds.clone(), stop.clone());
        readers.push(tokio::spawn(async move {
            let mut mine = 0u64;
            let mut i = r;
            while !stop.load(Ordering::Relaxed) {
                let k = &keys[i % keys.len()];
                if ctx.acquire_async(k, LockType::SR, T, WAIT).await.is_err() {
                    return None;
                }
                tokio::task::yield_now().await;
                ctx.commit();
                rounds.fetch_add(1, Ordering::Relaxed);
                mine += 1;
                i += 1;
            }
            Some(mine)
        }));
    }
    // The long transaction ends after HOLD_MS.
    let holder = tokio::spawn(async move {
        let start = Instant::now();
        tokio::time::sleep(std::time::Duration::from_millis(HOLD_MS)).await;
        long.commit();
        ms(start)
    });
    let (ddl_outcome, ddl_waited, during) = ddl_task.await.expect("the DDL task");
    let mut t0_waits = Vec::new();
    let mut ok = ddl_outcome.is_ok();
    for t in t0_readers {
        let (o, w) = t.await.expect("a reader of db.t0");
        ok &= o.is_ok();
        t0_waits.push(w);
    }
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    stop.store(true, Ordering::Relaxed);
    let mut per_task = Vec::with_capacity(READERS);
    for t in readers {
        match t.await.expect("a reader task") {
            Some(n) => per_task.push(n),
            None => ok = false,
        }
    }
    let held = holder.await.expect("the long transaction");
    let total: u64 = per_task.iter().sum();
    let idle = per_task.iter().filter(|n| **n == 0).count();
    t0_waits.sort_by(f64::total_cmp);
    println!(
        "DDL (X on db.t0): {:?} after waiting {ddl_waited:.0} ms for the long transaction \
         (it slept {HOLD_MS} ms and committed {held:.0} ms after its task started)",
        ddl_outcome
    );
    println!(
        "during the DDL's wait the readers of db.t1..db.t{} completed {during} acquire + commit \
         rounds ({:.0} per ms) on the same 2 workers",
        TABLES - 1,
        during as f64 / ddl_waited.max(1.0)
    );
    println!(
        "{T0_READERS} readers of db.t0 queued behind the pending X and were granted after it, \
         waiting {:.0}-{:.0} ms",
        t0_waits.first().copied().unwrap_or(0.0),
        t0_waits.last().copied().unwrap_or(0.0)
    );
    println!(
        "all told: {total} rounds by {READERS} reader tasks ({idle} made none); left in the \
         lock manager: {} locks",
        m.snapshot().len()
    );
    ok &= during > 0 && idle == 0 && m.snapshot().is_empty();
    if !ok {
        println!("FAILED: a wait did not end in a grant, or the readers stalled");
    }
    ok
}
