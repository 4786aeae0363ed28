//! A tiny engine on mdl-core's root-level API: a transaction that takes a table's lock and
//! returns `Result<_, AcquireError>`, so a deadlock (or a timeout) stops it with `?`, and a
//! caller that rolls back and retries on `AcquireError::Deadlock`.

use mdl_core::{
    AcquireError, Clock, Config, Context, DeadlockResolution, Dialect, LockDuration, LockType,
    Manager, MdlKey, WaitOption,
};
use std::sync::Barrier;
use std::time::Duration;

/// Updates `first` then `second` (both X for the transaction), meeting the other
/// transaction in between when `meet` is given.
fn update_both(
    ctx: &mut Context,
    first: &MdlKey,
    second: &MdlKey,
    meet: Option<&Barrier>,
) -> Result<(), AcquireError> {
    let wait = WaitOption::Timeout(Duration::from_secs(30));
    ctx.acquire(first, LockType::X, LockDuration::Transaction, wait)?;
    if let Some(b) = meet {
        b.wait();
    }
    ctx.acquire(second, LockType::X, LockDuration::Transaction, wait)?;
    ctx.commit();
    Ok(())
}

/// Retries after a deadlock; any other error is the caller's. Returns the victims seen.
fn run_transaction(
    ctx: &mut Context,
    first: &MdlKey,
    second: &MdlKey,
    meet: &Barrier,
) -> Result<u32, AcquireError> {
    let mut victims = 0;
    let mut meet = Some(meet);
    loop {
        match update_both(ctx, first, second, meet.take()) {
            Ok(()) => return Ok(victims),
            Err(AcquireError::Deadlock) => {
                ctx.commit(); // roll back: the transaction's locks go
                victims += 1;
            }
            Err(other) => return Err(other),
        }
    }
}

/// Two transactions in opposite orders: one deadlock, one victim, both commit.
fn run() -> Result<u32, AcquireError> {
    let config = Config::builder()
        .max_write_lock_count(u64::MAX)
        .deadlock_resolution(DeadlockResolution::Victim)
        .build();
    let mgr = Manager::new(Dialect::mysql80(), config, Clock::System);
    let d = mgr.dialect();
    let (a, b) = (d.table("shop", "a").expect("TABLE"), d.table("shop", "b").expect("TABLE"));
    let meet = Barrier::new(2);
    let (mut c1, mut c2) = (mgr.context(), mgr.context());
    let (v1, v2) = std::thread::scope(|s| {
        let t1 = s.spawn(|| run_transaction(&mut c1, &a, &b, &meet));
        let t2 = s.spawn(|| run_transaction(&mut c2, &b, &a, &meet));
        (t1.join().expect("t1"), t2.join().expect("t2"))
    });
    let victims = v1? + v2?;
    println!("{mgr:?}: both committed, {victims} deadlock victim(s)");
    Ok(victims)
}

fn main() -> Result<(), AcquireError> {
    run().map(|_| ())
}

#[test]
fn a_deadlock_stops_the_transaction_with_question_mark_and_the_retry_commits() {
    assert_eq!(run(), Ok(1));
}

#[test]
fn a_busy_lock_is_an_error_not_a_value_to_compare() {
    let mgr = Manager::new(Dialect::mariadb(), Config::default(), Clock::System);
    let t = mgr.dialect().table("db", "t").expect("TABLE");
    let mut holder = mgr.context();
    holder
        .acquire(&t, LockType::X, LockDuration::Explicit, WaitOption::NoWait)
        .expect("uncontended");
    let mut other = mgr.context();
    let busy = other.acquire(&t, LockType::SR, LockDuration::Statement, WaitOption::NoWait);
    assert_eq!(busy, Err(AcquireError::Busy));
    let timeout = WaitOption::Timeout(Duration::from_millis(20));
    let timed = other.acquire(&t, LockType::SR, LockDuration::Statement, timeout);
    assert_eq!(timed, Err(AcquireError::Timeout));
    assert_eq!(holder.held().len(), 1);
}
