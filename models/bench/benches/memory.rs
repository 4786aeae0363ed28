//! Memory of the manager, measured with a counting global allocator (this binary only):
//! the sizes of the public per-lock and per-ticket types, the bytes allocated per lock
//! held (100,000 distinct locks in one context, for ours and the baselines), the bytes per
//! connection (10,000 contexts, idle, each holding one lock, after commit), and whether
//! memory stays flat while one million distinct keys are locked and released.
//!
//! `cargo bench -p mdl-bench --bench memory` (prints; no timing, no assertions).

use mdl_bench::baselines;

use mdl_core::Config;
use mdl_core::{Clock, Dialect, Duration, LockType, Manager, MdlKey, Outcome, WaitOption};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, AtomicUsize, Ordering::Relaxed};

struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);
static PEAK: AtomicIsize = AtomicIsize::new(0);
static ALLOCS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            let now = LIVE.fetch_add(l.size() as isize, Relaxed) + l.size() as isize;
            PEAK.fetch_max(now, Relaxed);
            ALLOCS.fetch_add(1, Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        LIVE.fetch_sub(l.size() as isize, Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() {
            let d = new as isize - l.size() as isize;
            let now = LIVE.fetch_add(d, Relaxed) + d;
            PEAK.fetch_max(now, Relaxed);
            ALLOCS.fetch_add(1, Relaxed);
        }
        q
    }
}

#[global_allocator]
static A: Counting = Counting;

fn live() -> isize {
    LIVE.load(Relaxed)
}

fn table_key(d: &Dialect, db: &str, i: usize) -> MdlKey {
    MdlKey::new(
        d.namespace_by_name("TABLE").expect("TABLE"),
        db,
        &format!("t{i}"),
    )
}

fn manager() -> Manager {
    Manager::new(Dialect::mysql80(), Config::default(), Clock::System)
}

fn manager_works() -> bool {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let ok = std::panic::catch_unwind(|| {
        let m = manager();
        let mut c = m.context();
        let o = c.acquire_outcome(
            &table_key(&Dialect::mysql80(), "p", 0),
            LockType::SR,
            Duration::Transaction,
            WaitOption::Forever,
        );
        c.commit();
        o == Ok(Outcome::Granted)
    })
    .unwrap_or(false);
    std::panic::set_hook(hook);
    ok
}

const HELD: usize = 100_000;
const STREAM: usize = 1_000_000;
const CONNS: usize = 10_000;

fn main() {
    // `cargo bench` passes `--bench`; under `cargo test --benches` (or `--all-targets`)
    // this is not a benchmark run: measure nothing (the full run takes minutes).
    if !std::env::args().any(|a| a == "--bench") {
        println!("memory bench: skipped (run it with `cargo bench -p mdl-bench --bench memory`)");
        return;
    }
    print_sizes();
    let d = Dialect::mysql80();
    let keys: Vec<MdlKey> = (0..HELD).map(|i| table_key(&d, "mem", i)).collect();
    per_lock_baselines(&keys);
    if !manager_works() {
        println!("  ours             not measured: mdl_core::Manager is not usable yet");
        return;
    }
    let m = manager();
    per_lock_ours(&m, &d, &keys);
    drop(keys);
    per_connection(&m, &d);
    stream(&m, &d);
}

/// The sizes of the public per-lock and per-ticket types.
fn print_sizes() {
    println!("size_of (public types; the manager's internals are private):");
    println!(
        "  MdlKey                  {:>4} B (+ one shared allocation per distinct key)",
        std::mem::size_of::<MdlKey>()
    );
    println!(
        "  lock::Ticket            {:>4} B",
        std::mem::size_of::<mdl_core::lock::Ticket>()
    );
    println!(
        "  lock::LockState         {:>4} B (+ its granted/waiting vectors)",
        std::mem::size_of::<mdl_core::lock::LockState>()
    );
    println!(
        "  book::Held              {:>4} B (one per ticket in a context's book)",
        std::mem::size_of::<mdl_core::book::Held>()
    );
}

/// Bytes per lock held by the baselines: HELD distinct locks in one context.
fn per_lock_baselines(keys: &[MdlKey]) {
    // Bytes per lock held: HELD distinct locks in one context, keys allocated beforehand.
    println!("\nbytes allocated per lock held ({HELD} distinct SR locks in one context):");
    {
        let nv = baselines::Naive::new();
        let mut c = nv.context();
        let before = live();
        for k in keys {
            nv.acquire(&mut c, k, baselines::Mode::Shared);
        }
        let held = live() - before;
        nv.commit(&mut c);
        let after = live() - before;
        println!(
            "  naive            {:>8.1} B/lock  (after commit: {after} B kept, map capacity)",
            held as f64 / HELD as f64
        );
    }
    {
        let dm = baselines::DashRw::new();
        let before = live();
        for k in keys {
            dm.insert(k);
        }
        let held = live() - before;
        println!(
            "  dashmap_rwlock   {:>8.1} B/lock  (never reclaimed)",
            held as f64 / HELD as f64
        );
    }
}

/// Bytes per lock held by ours: HELD distinct SR locks on the fast path, then a tenth as
/// many SU locks on the slow path.
fn per_lock_ours(m: &Manager, d: &Dialect, keys: &[MdlKey]) {
    {
        let mut c = m.context();
        let before = live();
        for k in keys {
            let o = c.acquire_outcome(k, LockType::SR, Duration::Transaction, WaitOption::Forever);
            assert_eq!(o, Ok(Outcome::Granted));
        }
        let held = live() - before;
        let objects = m.lock_object_count();
        c.commit();
        let after = live() - before;
        println!(
            "  ours (SR, fast)  {:>8.1} B/lock  ({objects} lock objects while held; after commit: {after} B kept, {} objects)",
            held as f64 / HELD as f64,
            m.lock_object_count()
        );
        // Fewer for the slow path: its acquire + commit grow with the number held.
        // Distinct keys: the SR objects may still be in the map (reclaimed by a later sweep).
        let su: Vec<MdlKey> = (0..HELD / 10).map(|i| table_key(d, "memsu", i)).collect();
        let before = live();
        for k in &su {
            let o = c.acquire_outcome(k, LockType::SU, Duration::Transaction, WaitOption::Forever);
            assert_eq!(o, Ok(Outcome::Granted));
        }
        let held = live() - before;
        c.commit();
        let after = live() - before;
        println!(
            "  ours (SU, slow)  {:>8.1} B/lock  ({} locks; after commit: {after} B kept, {} objects)",
            held as f64 / su.len() as f64,
            su.len(),
            m.lock_object_count()
        );
    }
}

/// Bytes per connection, the naive baseline's and ours.
fn per_connection(m: &Manager, d: &Dialect) {
    // Bytes per connection: CONNS contexts made (idle), then each takes SR on one table
    // and keeps it (one lock held per connection, on the same table), then commits
    // (each keeps its idle pin of the table: a connection's cache of map lookups).
    println!("\nbytes per connection ({CONNS} connections, one table):");
    let t = table_key(d, "conn", 0);
    {
        let nv = baselines::Naive::new();
        let before = live();
        let mut cs: Vec<_> = (0..CONNS).map(|_| nv.context()).collect();
        let made = live() - before;
        for c in &mut cs {
            nv.acquire(c, &t, baselines::Mode::Shared);
        }
        let held = live() - before - made;
        cs.iter_mut().for_each(|c| nv.commit(c));
        let after = live() - before;
        println!(
            "  naive            {:>8.1} B/connection idle, {:>8.1} B/lock held, {:>8.1} B/connection after commit",
            made as f64 / CONNS as f64,
            held as f64 / CONNS as f64,
            after as f64 / CONNS as f64
        );
    }
    {
        let before = live();
        let mut cs: Vec<_> = (0..CONNS).map(|_| m.context()).collect();
        let made = live() - before;
        for c in &mut cs {
            let o = c.acquire_outcome(&t, LockType::SR, Duration::Transaction, WaitOption::Forever);
            assert_eq!(o, Ok(Outcome::Granted));
        }
        let held = live() - before - made;
        cs.iter_mut().for_each(|c| c.commit());
        let after = live() - before;
        println!(
            "  ours             {:>8.1} B/connection idle, {:>8.1} B/lock held, {:>8.1} B/connection after commit (idle pin kept)",
            made as f64 / CONNS as f64,
            held as f64 / CONNS as f64,
            after as f64 / CONNS as f64
        );
    }
}

/// One million distinct keys through one context: memory stays flat.
fn stream(m: &Manager, d: &Dialect) {
    // One million distinct keys locked and released, one at a time, each key made and
    // dropped in the loop: live bytes and lock objects sampled every 100,000.
    println!("\none million distinct keys locked (SR, then SU every 10th) and released:");
    let mut c = m.context();
    PEAK.store(live(), Relaxed);
    let start = live();
    let a0 = ALLOCS.load(Relaxed);
    for i in 0..STREAM {
        let k = table_key(d, "stream", i);
        let ty = if i % 10 == 9 {
            LockType::SU
        } else {
            LockType::SR
        };
        let o = c.acquire_outcome(&k, ty, Duration::Transaction, WaitOption::Forever);
        assert_eq!(o, Ok(Outcome::Granted));
        c.commit();
        if (i + 1) % 100_000 == 0 {
            println!(
                "  after {:>7} keys: live {:+} B vs start, {} lock objects",
                i + 1,
                live() - start,
                m.lock_object_count()
            );
        }
    }
    println!(
        "  peak {:+} B over the start; {:.2} allocations per lock+release",
        PEAK.load(Relaxed) - start,
        (ALLOCS.load(Relaxed) - a0) as f64 / STREAM as f64
    );
}
