//! A deadlock victim handled with `?`: two transactions lock two rows' tables in opposite
//! orders. One of them closes the cycle; the deadlock search picks a victim (the
//! lightest waiter of the cycle), whose `acquire` returns `AcquireError::Deadlock`. The
//! transaction function simply propagates it with `?`; its caller rolls back (gives its
//! locks back) and retries, as an application retries after MySQL's `ER_LOCK_DEADLOCK`.
//!
//! Run: `cargo run -p mdl-core --example deadlock_victim`.

use mdl_core::{
    AcquireError, Clock, Config, Context, Dialect, LockDuration, LockType, Manager, MdlKey,
    WaitOption,
};
use std::sync::Barrier;

const T: LockDuration = LockDuration::Transaction;

/// One transaction: X on `first`, then (after both transactions hold their first lock,
/// the first time round) X on `second`.
fn transaction(
    ctx: &mut Context,
    first: &MdlKey,
    second: &MdlKey,
    meet: Option<&Barrier>,
) -> Result<(), AcquireError> {
    ctx.acquire(first, LockType::X, T, WaitOption::Forever)?;
    if let Some(b) = meet {
        b.wait();
    }
    ctx.acquire(second, LockType::X, T, WaitOption::Forever)?;
    ctx.commit();
    Ok(())
}

/// Runs the transaction until it commits; returns how many times it was a victim.
fn with_retry(ctx: &mut Context, first: &MdlKey, second: &MdlKey, meet: &Barrier) -> u32 {
    let mut victims = 0;
    let mut meet = Some(meet);
    loop {
        match transaction(ctx, first, second, meet.take()) {
            Ok(()) => return victims,
            Err(AcquireError::Deadlock) => {
                println!(
                    "context {:?}: deadlock victim, rolling back and retrying",
                    ctx.id()
                );
                ctx.commit(); // the rollback: the transaction's locks go
                victims += 1;
            }
            Err(e) => panic!("unexpected: {e}"),
        }
    }
}

fn run() -> u32 {
    let mgr = Manager::new(Dialect::mariadb(), Config::default(), Clock::System);
    let d = mgr.dialect();
    let (a, b) = (
        d.table("bank", "a").expect("TABLE"),
        d.table("bank", "b").expect("TABLE"),
    );
    let meet = Barrier::new(2);
    let (mut c1, mut c2) = (mgr.context(), mgr.context());
    let victims = std::thread::scope(|s| {
        let t1 = s.spawn(|| with_retry(&mut c1, &a, &b, &meet));
        let t2 = s.spawn(|| with_retry(&mut c2, &b, &a, &meet));
        t1.join().expect("t1") + t2.join().expect("t2")
    });
    println!("both transactions committed; {victims} deadlock victim(s)");
    assert!(mgr.snapshot().is_empty());
    victims
}

fn main() {
    run();
}

#[test]
fn exactly_one_victim_and_both_commit() {
    assert_eq!(run(), 1);
}
