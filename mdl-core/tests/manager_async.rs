//! The async waits (`Context::acquire_async`, `upgrade_async`, `acquire_all_async`):
//! the blocking calls' outcomes, tasks woken by grants, timeouts from the clock, a
//! dropped future withdrawn as a kill. (Every interleaving of the races: the loom models
//! `async_*` of `proofs/tests/loom.rs`.)

use mdl_core::dialect::Dialect;
use mdl_core::{BulkReq, Config};
use mdl_core::{Clock, Duration, LockType, Manager, MdlKey, Outcome, WaitOption};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context as TaskCx, Poll, Waker};

const T: Duration = Duration::Transaction;
const F: WaitOption = WaitOption::Forever;

fn manager(clock: Clock) -> (Manager, MdlKey, MdlKey) {
    let d = Dialect::mysql80();
    let k1 = MdlKey::parse(&d, "TABLE", "db.t1").unwrap();
    let k2 = MdlKey::parse(&d, "TABLE", "db.t2").unwrap();
    (Manager::new(d, Config::default(), clock), k1, k2)
}

/// Polls once with a waker that does nothing.
fn poll_once<F: Future + Unpin>(f: &mut F) -> Poll<F::Output> {
    let mut cx = TaskCx::from_waker(Waker::noop());
    Pin::new(f).poll(&mut cx)
}

/// Polls `f` until it is ready, on this thread (the waiter's task is woken by others).
fn block_on<F: Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(f)
}

fn owners_on(m: &Manager) -> Vec<(u32, LockType, bool)> {
    let mut v: Vec<_> = m
        .snapshot()
        .into_iter()
        .map(|r| (r.owner.0, r.ty, r.granted))
        .collect();
    v.sort_by_key(|x| (x.0, x.1.to_string(), x.2));
    v
}

#[test]
fn an_uncontended_acquire_resolves_in_its_first_poll() {
    let (m, k1, _) = manager(Clock::manual());
    let mut a = m.context();
    let mut f = Box::pin(a.acquire_outcome_async(&k1, LockType::SR, T, F));
    assert_eq!(poll_once(&mut f), Poll::Ready(Ok(Outcome::Granted)));
    drop(f);
    assert_eq!(a.held().len(), 1);
    a.commit();
    assert!(m.snapshot().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_release_wakes_the_waiting_task() {
    let (m, k1, _) = manager(Clock::manual());
    let mut a = m.context();
    assert_eq!(
        a.acquire_outcome(&k1, LockType::X, T, F),
        Ok(Outcome::Granted)
    );
    let (mut b, kb) = (m.context(), k1.clone());
    let bh = b.handle();
    let task = tokio::spawn(async move {
        let o = b.acquire_outcome_async(&kb, LockType::SR, T, F).await;
        (o, b.held().len())
    });
    while !bh.is_waiting() {
        tokio::task::yield_now().await;
    }
    a.commit();
    assert_eq!(task.await.unwrap(), (Ok(Outcome::Granted), 1));
}

#[test]
fn dropping_a_waiting_future_withdraws_it_and_reschedules() {
    let (m, k1, _) = manager(Clock::manual());
    let mut a = m.context();
    assert_eq!(
        a.acquire_outcome(&k1, LockType::SR, T, F),
        Ok(Outcome::Granted)
    );
    let mut b = m.context();
    let bh = b.handle();
    let mut f = Box::pin(b.acquire_outcome_async(&k1, LockType::X, T, F));
    assert!(poll_once(&mut f).is_pending());
    assert!(bh.is_waiting());
    // A reader behind the pending X waits, in a thread.
    let (mut c, kc) = (m.context(), k1.clone());
    let ch = c.handle();
    let reader = std::thread::spawn(move || {
        let o = c.acquire_outcome(&kc, LockType::SR, T, F);
        c.commit();
        o
    });
    while !ch.is_waiting() {
        std::thread::yield_now();
    }
    drop(f); // as a kill: the X leaves the queue, the reader is granted
    assert_eq!(reader.join().unwrap(), Ok(Outcome::Granted));
    assert!(!bh.is_waiting());
    assert!(b.held().is_empty());
    assert_eq!(owners_on(&m), vec![(0, LockType::SR, true)]);
    m.check_invariants().unwrap();
}

#[test]
fn a_grant_nobody_saw_is_released_when_the_future_is_dropped() {
    let (m, k1, _) = manager(Clock::manual());
    let mut a = m.context();
    assert_eq!(
        a.acquire_outcome(&k1, LockType::X, T, F),
        Ok(Outcome::Granted)
    );
    let mut b = m.context();
    let mut f = Box::pin(b.acquire_outcome_async(&k1, LockType::SR, T, F));
    assert!(poll_once(&mut f).is_pending());
    a.commit(); // grants b's SR; the future is not polled again
    assert_eq!(owners_on(&m), vec![(1, LockType::SR, true)]);
    drop(f);
    assert!(b.held().is_empty());
    assert!(m.snapshot().is_empty());
}

#[test]
fn the_manual_clock_times_out_a_waiting_future() {
    let (m, k1, _) = manager(Clock::manual());
    let mut a = m.context();
    assert_eq!(
        a.acquire_outcome(&k1, LockType::X, T, F),
        Ok(Outcome::Granted)
    );
    let mut b = m.context();
    let mut f = Box::pin(b.acquire_outcome_async(&k1, LockType::SR, T, WaitOption::millis(50)));
    assert!(poll_once(&mut f).is_pending());
    m.advance_clock(49);
    assert!(poll_once(&mut f).is_pending());
    m.advance_clock(1);
    assert_eq!(poll_once(&mut f), Poll::Ready(Ok(Outcome::Timeout)));
    drop(f);
    assert_eq!(owners_on(&m), vec![(0, LockType::X, true)]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_system_clock_times_out_a_future_polled_after_its_deadline() {
    // The contract: the engine's ticker (`advance_clock(0)`) wakes expired waits.
    let (m, k1, _) = manager(Clock::System);
    let mut a = m.context();
    assert_eq!(
        a.acquire_outcome(&k1, LockType::X, T, F),
        Ok(Outcome::Granted)
    );
    let mut b = m.context();
    let m2 = m.clone();
    let ticker = tokio::spawn(async move {
        loop {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            m2.advance_clock(0);
        }
    });
    let o = b
        .acquire_outcome_async(&k1, LockType::SR, T, WaitOption::millis(30))
        .await;
    ticker.abort();
    assert_eq!(o, Ok(Outcome::Timeout));
    assert!(b.held().is_empty());
}

/// No ticker: the manager's timer times the wait out at its deadline and wakes the task
/// (without it, nobody would poll the future again and the 10 s guard would fail).
#[tokio::test(flavor = "current_thread")]
async fn the_system_clock_times_out_a_waiting_future_without_a_ticker() {
    let (m, k1, _) = manager(Clock::System);
    let mut a = m.context();
    a.acquire(&k1, LockType::X, T, F).expect("uncontended");
    let mut b = m.context();
    let wait = WaitOption::Timeout(std::time::Duration::from_millis(30));
    let start = std::time::Instant::now();
    // A guard against a hang: the test fails (not hangs) when the timer never fires.
    let o = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        b.acquire_async(&k1, LockType::SR, T, wait),
    )
    .await
    .expect("the future resolved before the 10 s guard");
    assert_eq!(o, Err(mdl_core::AcquireError::Timeout));
    let took = start.elapsed();
    assert!(took >= std::time::Duration::from_millis(30));
    // Not when the guard polled it again (a future polled after its deadline times out).
    assert!(
        took < std::time::Duration::from_secs(5),
        "timed out after {took:?}"
    );
    assert!(b.held().is_empty());
    // A wait granted before its deadline leaves no timeout behind.
    let mut c = m.context();
    let long = WaitOption::Timeout(std::time::Duration::from_millis(50));
    let fut = c.acquire_async(&k1, LockType::SR, T, long);
    a.commit();
    assert!(fut.await.is_ok());
}

/// Seeded bug `async_no_timer` (no timer is scheduled): the future of the test above is
/// not polled again before the guard wakes its task, so it times out only then. Run with
/// `MDL_BUG=async_no_timer`.
#[cfg(mdl_bug = "async_no_timer")]
#[test]
fn seeded_async_no_timer_is_caught() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let (m, k1, _) = manager(Clock::System);
    let mut a = m.context();
    a.acquire(&k1, LockType::X, T, F).expect("uncontended");
    let mut b = m.context();
    let wait = WaitOption::Timeout(std::time::Duration::from_millis(30));
    let guard = std::time::Duration::from_millis(500);
    let start = std::time::Instant::now();
    let r = rt.block_on(async {
        let f = b.acquire_async(&k1, LockType::SR, T, wait);
        tokio::time::timeout(guard, f).await
    });
    assert!(
        r.is_err() || start.elapsed() >= guard,
        "the wait timed out on its own"
    );
}

#[test]
fn async_waiters_that_close_a_cycle_lose_one_victim() {
    let (m, k1, k2) = manager(Clock::manual());
    let mut a = m.context();
    let mut b = m.context();
    assert_eq!(
        a.acquire_outcome(&k1, LockType::X, T, F),
        Ok(Outcome::Granted)
    );
    assert_eq!(
        b.acquire_outcome(&k2, LockType::X, T, F),
        Ok(Outcome::Granted)
    );
    let mut fa = Box::pin(a.acquire_outcome_async(&k2, LockType::X, T, F));
    assert!(poll_once(&mut fa).is_pending());
    // b's request closes the cycle; b (the requester, same weight) is chosen.
    let mut fb = Box::pin(b.acquire_outcome_async(&k1, LockType::X, T, F));
    let ob = poll_once(&mut fb);
    assert_eq!(ob, Poll::Ready(Ok(Outcome::Deadlock)));
    drop(fb);
    drop(fa);
    m.check_invariants().unwrap();
}

#[test]
fn upgrade_async_waits_and_a_dropped_upgrade_keeps_the_old_type() {
    let (m, k1, _) = manager(Clock::manual());
    let mut a = m.context();
    let mut b = m.context();
    assert_eq!(
        a.acquire_outcome(&k1, LockType::SU, T, F),
        Ok(Outcome::Granted)
    );
    assert_eq!(
        b.acquire_outcome(&k1, LockType::SR, T, F),
        Ok(Outcome::Granted)
    );
    // Dropped while waiting: a still holds SU.
    let mut f = Box::pin(a.upgrade_outcome_async(&k1, LockType::X, F));
    assert!(poll_once(&mut f).is_pending());
    drop(f);
    assert_eq!(a.held()[0].ty, LockType::SU);
    // Granted while not polled, then dropped: back to SU.
    let mut f = Box::pin(a.upgrade_outcome_async(&k1, LockType::X, F));
    assert!(poll_once(&mut f).is_pending());
    b.commit();
    drop(f);
    assert_eq!(a.held()[0].ty, LockType::SU);
    assert_eq!(owners_on(&m), vec![(0, LockType::SU, true)]);
    // Awaited: X.
    assert_eq!(
        block_on(a.upgrade_outcome_async(&k1, LockType::X, F)),
        Ok(Outcome::Granted)
    );
    assert_eq!(owners_on(&m), vec![(0, LockType::X, true)]);
}

#[test]
fn a_dropped_bulk_request_gives_back_what_it_took() {
    let (m, k1, k2) = manager(Clock::manual());
    let mut a = m.context();
    assert_eq!(
        a.acquire_outcome(&k2, LockType::X, T, F),
        Ok(Outcome::Granted)
    );
    let mut b = m.context();
    let reqs = [
        BulkReq {
            key: k1.clone(),
            ty: LockType::X,
        },
        BulkReq {
            key: k2.clone(),
            ty: LockType::X,
        },
    ];
    let mut f = Box::pin(b.acquire_all_outcome_async(&reqs, T, F));
    assert!(poll_once(&mut f).is_pending()); // holds t1, waits for t2
    assert_eq!(owners_on(&m).len(), 3);
    drop(f);
    assert!(b.held().is_empty());
    assert_eq!(owners_on(&m), vec![(0, LockType::X, true)]);
    a.commit();
    assert_eq!(
        block_on(b.acquire_all_outcome_async(&reqs, T, F)),
        Ok(Outcome::Granted)
    );
    assert_eq!(b.held().len(), 2);
}
