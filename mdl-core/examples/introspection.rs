//! Introspection: who holds what (`Manager::snapshot`, as
//! `performance_schema.metadata_locks`), who waits for whom (`Manager::lock_waits`, as
//! `sys.schema_table_lock_waits`), and the wait-for graph (`Manager::wait_edges`, and in
//! Graphviz DOT). A SELECT holds SR on `test.t1`; a DROP TABLE waits for X behind it; a
//! second SELECT queues behind the pending X (a pending X has priority over new readers).
//!
//! Run: `cargo run -p mdl-core --example introspection`.

use mdl_core::{
    AcquireError, Clock, Config, Dialect, LockDuration, LockType, Manager, OwnerId, WaitOption,
};

const T: LockDuration = LockDuration::Transaction;

fn run() -> Result<Vec<(OwnerId, OwnerId)>, AcquireError> {
    let mgr = Manager::new(Dialect::mysql80(), Config::default(), Clock::System);
    let t1 = mgr.dialect().table("test", "t1").expect("TABLE");
    let (mut select, mut drop_table, mut select2) = (mgr.context(), mgr.context(), mgr.context());
    select.acquire(&t1, LockType::SR, T, WaitOption::NoWait)?;
    let (hd, hs) = (drop_table.handle(), select2.handle());
    let edges = std::thread::scope(|s| {
        let k = t1.clone();
        let ddl = s.spawn(move || drop_table.acquire(&k, LockType::X, T, WaitOption::Forever));
        while !hd.is_waiting() {
            std::thread::yield_now();
        }
        let k = t1.clone();
        let reader = s.spawn(move || select2.acquire(&k, LockType::SR, T, WaitOption::Forever));
        while !hs.is_waiting() {
            std::thread::yield_now();
        }
        println!("metadata_locks:");
        for r in mgr.snapshot() {
            let state = if r.granted { "GRANTED" } else { "PENDING" };
            let key = r.key.display(mgr.dialect());
            println!("  owner {:?} {} {key} {state}", r.owner, r.ty);
        }
        println!("lock waits (waiter -> blocker):");
        for w in mgr.lock_waits() {
            println!(
                "  {:?} ({}) waits for {:?} ({}), {} ms",
                w.waiter, w.waiting_type, w.blocker, w.blocking_type, w.waited_ms
            );
        }
        println!("wait-for graph:\n{}", mgr.wait_for_graph_dot());
        let edges = mgr.wait_edges();
        select.commit(); // the DROP goes, then the second SELECT
        let ddl_result = ddl.join().expect("the DDL thread");
        ddl_result.map(|_| ())?;
        reader.join().expect("the reader thread")?;
        Ok::<_, AcquireError>(edges)
    })?;
    Ok(edges)
}

fn main() -> Result<(), AcquireError> {
    run().map(|_| ())
}

#[test]
fn the_drop_waits_for_the_select_and_the_reader_for_the_drop() {
    let edges = run().expect("granted in the end");
    // Owners 0 (SELECT), 1 (DROP), 2 (second SELECT): 1 waits for 0, 2 waits for 1.
    assert!(edges.contains(&(OwnerId(1), OwnerId(0))), "{edges:?}");
    assert!(edges.contains(&(OwnerId(2), OwnerId(1))), "{edges:?}");
}
