//! loom models of the concurrent shell: every interleaving (up to a preemption bound) of
//! a few contexts racing on the real `mdl_core::Manager`.
//!
//! Run: `RUSTFLAGS="--cfg loom" cargo test -p mdl-proofs --release --test loom`.
//! Budget: `LOOM_MAX_PREEMPTIONS` (default per test, raised in the nightly tier).
//! A seeded bug (`MDL_BUG=NAME`, see `proofs/README.md`) makes the matching model fail;
//! a lost wakeup shows as a loom deadlock, which aborts the process, so
//! `ci/seeded-proofs.sh` runs each model in a child process and checks its exit status.
#![cfg(loom)]

use loom::thread;
use mdl_core::dialect::Dialect;
use mdl_core::Config;
use mdl_core::{Clock, Context, Duration, LockType, Manager, MdlKey, Outcome, WaitOption};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc as StdArc, Mutex};
use std::time::Instant;

const T: Duration = Duration::Transaction;
const F: WaitOption = WaitOption::Forever;

/// The dialects every model runs on: MySQL 8.0's (hog and piglet counters, symmetric
/// matrices) and MariaDB's (hogs only, the asymmetric BACKUP matrix).
const DIALECTS: [(&str, fn() -> Dialect); 2] = [
    ("mysql-8.0", Dialect::mysql80),
    ("mariadb", Dialect::mariadb),
];

/// Runs the model `f` on every dialect.
fn model(name: &'static str, default_bound: usize, f: impl Fn(Dialect) + Sync + Send + 'static) {
    model_on(name, default_bound, &DIALECTS, f)
}

/// Runs the model `f` on `dialects`, one loom search each.
fn model_on(
    name: &'static str,
    default_bound: usize,
    dialects: &[(&'static str, fn() -> Dialect)],
    f: impl Fn(Dialect) + Sync + Send + 'static,
) {
    let f = StdArc::new(f);
    // The search under way (dialect, start, interleavings so far), for the failure report.
    let now: StdArc<Mutex<(&'static str, Instant)>> =
        StdArc::new(Mutex::new((dialects[0].0, Instant::now())));
    let iters = StdArc::new(AtomicUsize::new(0));
    let mut b = loom::model::Builder::new();
    if std::env::var_os("LOOM_MAX_PREEMPTIONS").is_none() {
        b.preemption_bound = Some(default_bound);
    }
    // A failing interleaving (an assertion, or a loom deadlock, which aborts the process
    // after the panic hook ran) reports how far the search got, for proofs/README.md.
    let (now3, i3) = (now.clone(), iters.clone());
    let bound = b.preemption_bound;
    let prev = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        // generator (under loom) unwinds finished threads with a panic of its own
        // payload type: only messages (assertions, loom's deadlock report) count.
        let p = info.payload();
        let message = p.is::<&str>() || p.is::<String>();
        let mine = message
            && std::thread::current()
                .name()
                .is_some_and(|n| n.ends_with(name));
        if mine {
            let (dname, start) = *now3.lock().unwrap_or_else(|e| e.into_inner());
            eprintln!(
                "proof {name}: FAILED on {dname} at interleaving {} (preemption bound {bound:?}) \
                 after {:.2}s",
                i3.load(Ordering::Relaxed),
                start.elapsed().as_secs_f64()
            );
        }
        prev(info);
    }));
    for &(dname, dialect) in dialects {
        let start = Instant::now();
        *now.lock().unwrap() = (dname, start);
        iters.store(0, Ordering::Relaxed);
        let (f, i2) = (f.clone(), iters.clone());
        b.check(move || {
            i2.fetch_add(1, Ordering::Relaxed);
            f(dialect())
        });
        mdl_proofs::report(
            name,
            start,
            &format!(
                "{dname}: {} interleavings (preemption bound {:?})",
                iters.load(Ordering::Relaxed),
                b.preemption_bound
            ),
        );
    }
}

/// A manager for dialect `d` and its key `TABLE db.t`.
fn manager(d: Dialect) -> (Manager, MdlKey) {
    let k = MdlKey::parse(&d, "TABLE", "db.t").unwrap();
    (Manager::new(d, Config::default(), Clock::manual()), k)
}

/// No two owners hold granted locks on one key that no grant order allows (fast-path
/// grants included).
fn assert_no_conflict(m: &Manager) {
    let rows: Vec<_> = m.snapshot().into_iter().filter(|r| r.granted).collect();
    for a in &rows {
        for b in &rows {
            if a.owner != b.owner && a.key == b.key {
                let s = m.dialect().strategy(a.key.namespace());
                // The snapshot does not tell the grant order: a conflict in one order only
                // is legal on MariaDB's BACKUP matrix.
                assert!(
                    !s.conflicts_in_any_order(a.ty, b.ty),
                    "conflicting grants: {:?} {} and {:?} {}",
                    a.owner,
                    a.ty,
                    b.owner,
                    b.ty
                );
            }
        }
    }
}

/// Nothing is left on `k`: a new context takes X at once.
fn assert_lock_free(m: &Manager, k: &MdlKey) {
    let mut d = m.context();
    assert_eq!(
        d.acquire_outcome(k, LockType::X, T, WaitOption::NoWait),
        Ok(Outcome::Granted)
    );
}

/// A release racing a new waiter on the same lock: the waiter is woken (no lost wakeup).
#[test]
fn release_vs_new_waiter() {
    model("release_vs_new_waiter", 3, |d| release_vs_waiter(d, false));
}

/// The body of `release_vs_new_waiter` and `async_grant_wakes_waiter`.
fn release_vs_waiter(d: Dialect, async_: bool) {
    let (m, k) = manager(d);
    let mut a = m.context();
    assert_eq!(
        a.acquire_outcome(&k, LockType::X, T, F),
        Ok(Outcome::Granted)
    );
    let mut b = m.context();
    let k2 = k.clone();
    let h = thread::spawn(move || {
        assert_eq!(
            acquire_by(&mut b, &k2, LockType::SR, async_),
            Outcome::Granted
        );
        b.commit();
    });
    a.commit();
    h.join().unwrap();
    assert!(m.snapshot().is_empty());
}

/// An acquire (transaction, no timeout) by the blocking call, or by the async one driven
/// by `loom::future::block_on`.
fn acquire_by(c: &mut Context, k: &MdlKey, ty: LockType, async_: bool) -> Outcome {
    let o = if async_ {
        loom::future::block_on(c.acquire_outcome_async(k, ty, T, F))
    } else {
        c.acquire_outcome(k, ty, T, F)
    };
    o.unwrap()
}

/// Two releasers, one waiter: it is granted exactly once.
#[test]
fn two_releasers_one_waiter() {
    model("two_releasers_one_waiter", 2, |d| {
        let (m, k) = manager(d);
        let mut a = m.context();
        let mut b = m.context();
        assert_eq!(
            a.acquire_outcome(&k, LockType::SR, T, F),
            Ok(Outcome::Granted)
        );
        assert_eq!(
            b.acquire_outcome(&k, LockType::SR, T, F),
            Ok(Outcome::Granted)
        );
        let mut c = m.context();
        let (m2, k2) = (m.clone(), k.clone());
        let hc = thread::spawn(move || {
            assert_eq!(
                c.acquire_outcome(&k2, LockType::X, T, F),
                Ok(Outcome::Granted)
            );
            let mine = m2
                .snapshot()
                .into_iter()
                .filter(|r| r.owner == c.id())
                .count();
            assert_eq!(mine, 1, "granted once");
            assert_no_conflict(&m2);
            c.commit();
        });
        let ha = thread::spawn(move || a.commit());
        b.commit();
        ha.join().unwrap();
        hc.join().unwrap();
        assert!(m.snapshot().is_empty());
    });
}

/// A fast-path acquire racing an obtrusive request: the obtrusive one sees the fast-path
/// grant (materialised into a ticket) and never holds X beside it.
#[test]
fn fast_path_vs_obtrusive() {
    model("fast_path_vs_obtrusive", 3, |d| {
        let (m, k) = manager(d);
        let mut a = m.context();
        let mut b = m.context();
        let a_holds = StdArc::new(AtomicBool::new(false));
        let (m2, k2, f2) = (m.clone(), k.clone(), a_holds.clone());
        let hb = thread::spawn(move || {
            let o = b
                .acquire_outcome(&k2, LockType::X, T, WaitOption::millis(0))
                .unwrap();
            if o == Outcome::Granted {
                assert!(
                    !f2.load(Ordering::SeqCst),
                    "X granted beside a fast-path SR"
                );
                assert_no_conflict(&m2);
                b.commit();
            } else {
                assert_eq!(o, Outcome::Timeout);
            }
        });
        assert_eq!(
            a.acquire_outcome(&k, LockType::SR, T, F),
            Ok(Outcome::Granted)
        );
        a_holds.store(true, Ordering::SeqCst);
        assert_no_conflict(&m);
        a_holds.store(false, Ordering::SeqCst);
        a.commit();
        hb.join().unwrap();
        assert!(m.snapshot().is_empty());
        // Every grant left its pin: the lock's count of fast-path grants is back to zero.
        m.check_invariants().unwrap();
    });
}

/// Two fast-path readers counted in different stripes (owner ids 0 and 1; loom builds
/// have 2 stripes) against an obtrusive request from a third context (stripe 0 again):
/// the materialiser reads each stripe and visits only the contexts of non-zero ones,
/// and still never grants X beside a fast-path SR (mdl-core/src/manager/fast.rs,
/// "(materialisation)").
#[test]
fn two_stripes_vs_obtrusive() {
    model_on("two_stripes_vs_obtrusive", 2, &DIALECTS[..1], |d| {
        let (m, k) = manager(d);
        let mut a = m.context();
        let mut b = m.context();
        let mut c = m.context();
        let holds = StdArc::new(AtomicUsize::new(0));
        let (k2, h2) = (k.clone(), holds.clone());
        let hb = thread::spawn(move || {
            assert_eq!(
                b.acquire_outcome(&k2, LockType::SR, T, F),
                Ok(Outcome::Granted)
            );
            h2.fetch_add(1, Ordering::SeqCst);
            h2.fetch_sub(1, Ordering::SeqCst);
            b.commit();
        });
        let (m3, k3, h3) = (m.clone(), k.clone(), holds.clone());
        let hc = thread::spawn(move || {
            let o = c
                .acquire_outcome(&k3, LockType::X, T, WaitOption::millis(0))
                .unwrap();
            if o == Outcome::Granted {
                assert_eq!(
                    h3.load(Ordering::SeqCst),
                    0,
                    "X granted beside a fast-path SR"
                );
                assert_no_conflict(&m3);
                c.commit();
            }
        });
        assert_eq!(
            a.acquire_outcome(&k, LockType::SR, T, F),
            Ok(Outcome::Granted)
        );
        holds.fetch_add(1, Ordering::SeqCst);
        holds.fetch_sub(1, Ordering::SeqCst);
        a.commit();
        hb.join().unwrap();
        hc.join().unwrap();
        assert!(m.snapshot().is_empty());
        m.check_invariants().unwrap();
    });
}

/// The last release racing a new acquire while the lock object is being reclaimed.
#[test]
fn reclaim_vs_acquire() {
    model("reclaim_vs_acquire", 2, |d| {
        let (m, k) = manager(d);
        let mut a = m.context();
        let mut b = m.context();
        let a_holds = StdArc::new(AtomicBool::new(false));
        let (k2, f2) = (k.clone(), a_holds.clone());
        let hb = thread::spawn(move || {
            let o = b
                .acquire_outcome(&k2, LockType::X, T, WaitOption::millis(0))
                .unwrap();
            if o == Outcome::Granted {
                assert!(
                    !f2.load(Ordering::SeqCst),
                    "X granted on a second lock object"
                );
                b.commit();
            }
        });
        let m3 = m.clone();
        let hc = thread::spawn(move || m3.reclaim());
        assert_eq!(
            a.acquire_outcome(&k, LockType::SR, T, F),
            Ok(Outcome::Granted)
        );
        a_holds.store(true, Ordering::SeqCst);
        thread::yield_now();
        a_holds.store(false, Ordering::SeqCst);
        a.commit();
        hb.join().unwrap();
        hc.join().unwrap();
        // A live context may keep an idle lock object pinned (a cache of its lookups);
        // once the contexts are gone, nobody uses it.
        drop(a);
        m.reclaim();
        assert_eq!(
            m.lock_object_count(),
            0,
            "an unused lock object is reclaimed"
        );
    });
}

/// A timeout racing a grant: exactly one outcome, and a grant that loses is given back.
#[test]
fn timeout_vs_grant() {
    model("timeout_vs_grant", 2, |d| {
        let (m, k) = manager(d);
        let mut a = m.context();
        assert_eq!(
            a.acquire_outcome(&k, LockType::X, T, F),
            Ok(Outcome::Granted)
        );
        let mut b = m.context();
        let k2 = k.clone();
        let hb = thread::spawn(move || {
            let o = b
                .acquire_outcome(&k2, LockType::SR, T, WaitOption::millis(10))
                .unwrap();
            let holds = b.owns_equal_or_stronger(&k2, LockType::SR);
            assert_eq!(
                o == Outcome::Granted,
                holds,
                "outcome {o} and holding disagree"
            );
            assert!(matches!(o, Outcome::Granted | Outcome::Timeout), "{o}");
            b.commit();
        });
        let m2 = m.clone();
        let hc = thread::spawn(move || m2.advance_clock(20));
        a.commit();
        hb.join().unwrap();
        hc.join().unwrap();
        // Whatever happened, nothing is left behind.
        assert_lock_free(&m, &k);
    });
}

/// A kill racing a grant: exactly one outcome, nothing leaked.
#[test]
fn kill_vs_grant() {
    model("kill_vs_grant", 2, |d| {
        let (m, k) = manager(d);
        let mut a = m.context();
        assert_eq!(
            a.acquire_outcome(&k, LockType::X, T, F),
            Ok(Outcome::Granted)
        );
        let mut b = m.context();
        let hb_handle = b.handle();
        let k2 = k.clone();
        let hb = thread::spawn(move || {
            let o = b.acquire_outcome(&k2, LockType::SR, T, F).unwrap();
            let holds = b.owns_equal_or_stronger(&k2, LockType::SR);
            assert_eq!(
                o == Outcome::Granted,
                holds,
                "outcome {o} and holding disagree"
            );
            b.commit();
        });
        let hc = thread::spawn(move || {
            hb_handle.kill();
        });
        a.commit();
        hc.join().unwrap();
        // The kill may come before b parks (then it does nothing): end b's wait anyway.
        hb.join().unwrap();
        assert_lock_free(&m, &k);
    });
}

/// An upgrade racing a shared acquire: never X beside SR; both finish.
#[test]
fn upgrade_vs_shared() {
    model("upgrade_vs_shared", 2, |d| {
        let (m, k) = manager(d);
        let mut a = m.context();
        assert_eq!(
            a.acquire_outcome(&k, LockType::SU, T, F),
            Ok(Outcome::Granted)
        );
        let mut b = m.context();
        let (m2, k2) = (m.clone(), k.clone());
        let hb = thread::spawn(move || {
            assert_eq!(
                b.acquire_outcome(&k2, LockType::SR, T, F),
                Ok(Outcome::Granted)
            );
            assert_no_conflict(&m2);
            b.commit();
        });
        assert_eq!(a.upgrade_outcome(&k, LockType::X, F), Ok(Outcome::Granted));
        assert_no_conflict(&m);
        a.commit();
        hb.join().unwrap();
        assert!(m.snapshot().is_empty());
    });
}

/// Two waiters closing a cycle at the same time: exactly one victim, the other proceeds.
/// The waits weigh differently (b's SR is DML, a's X is DDL), so the victim is always b,
/// also when a's wait is the one that closes the cycle.
#[test]
fn two_waiters_close_a_cycle() {
    model("two_waiters_close_a_cycle", 2, |d| close_a_cycle(d, false));
}

/// The body of `two_waiters_close_a_cycle` and `async_deadlock_victim`.
fn close_a_cycle(d: Dialect, async_: bool) {
    let k1 = MdlKey::parse(&d, "TABLE", "db.t1").unwrap();
    let k2 = MdlKey::parse(&d, "TABLE", "db.t2").unwrap();
    let m = Manager::new(d, Config::default(), Clock::manual());
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
    let victims = StdArc::new(AtomicUsize::new(0));
    let (v2, k1b) = (victims.clone(), k1.clone());
    let hb = thread::spawn(move || {
        match acquire_by(&mut b, &k1b, LockType::SR, async_) {
            Outcome::Deadlock => {
                v2.fetch_add(1, Ordering::SeqCst);
            }
            o => assert_eq!(o, Outcome::Granted),
        }
        b.commit();
    });
    match acquire_by(&mut a, &k2, LockType::X, async_) {
        Outcome::Deadlock => {
            victims.fetch_add(1, Ordering::SeqCst);
        }
        o => assert_eq!(o, Outcome::Granted),
    }
    a.commit();
    hb.join().unwrap();
    assert_eq!(victims.load(Ordering::SeqCst), 1, "exactly one victim");
    m.check_invariants().unwrap();
}

/// A waiter that others queue behind (a pending X that SR yields to) times out or is
/// killed: its leaving wakes them, while the lock's holder still holds it.
fn wait_ends_wakes_queue(d: Dialect, kill: bool) {
    let (m, k) = manager(d);
    let mut a = m.context();
    assert_eq!(
        a.acquire_outcome(&k, LockType::SR, T, F),
        Ok(Outcome::Granted)
    );
    let mut b = m.context();
    let bh = b.handle();
    let mut c = m.context();
    let ch = c.handle();
    let kb = k.clone();
    let hb = thread::spawn(move || {
        let o = b
            .acquire_outcome(&kb, LockType::X, T, WaitOption::millis(10))
            .unwrap();
        assert!(matches!(o, Outcome::Timeout | Outcome::Killed), "{o}");
    });
    while !bh.is_waiting() {
        thread::yield_now();
    }
    let (kc, mc) = (k.clone(), m.clone());
    let hc = thread::spawn(move || {
        assert_eq!(
            c.acquire_outcome(&kc, LockType::SR, T, F),
            Ok(Outcome::Granted)
        );
        mc.check_invariants().unwrap();
        c.commit();
    });
    while !ch.is_waiting() {
        thread::yield_now();
    }
    if kill {
        assert!(bh.kill());
    } else {
        m.advance_clock(20);
    }
    hb.join().unwrap();
    // b has left the queue: c, behind it, must have been granted (a lost wakeup leaves
    // it waiting although grantable).
    m.check_invariants().unwrap();
    hc.join().unwrap();
    a.commit();
    assert!(m.snapshot().is_empty());
}

#[test]
fn timeout_wakes_queue() {
    model("timeout_wakes_queue", 2, |d| {
        wait_ends_wakes_queue(d, false)
    });
}

#[test]
fn kill_wakes_queue() {
    model("kill_wakes_queue", 2, |d| wait_ends_wakes_queue(d, true));
}

/// The detector walking a context that is being granted: no false deadlock.
#[test]
fn detector_vs_grant() {
    model("detector_vs_grant", 2, |d| {
        let k1 = MdlKey::parse(&d, "TABLE", "db.t1").unwrap();
        let k2 = MdlKey::parse(&d, "TABLE", "db.t2").unwrap();
        let m = Manager::new(d, Config::default(), Clock::manual());
        let mut a = m.context();
        let mut b = m.context();
        let mut c = m.context();
        assert_eq!(
            a.acquire_outcome(&k1, LockType::X, T, F),
            Ok(Outcome::Granted)
        );
        assert_eq!(
            b.acquire_outcome(&k2, LockType::X, T, F),
            Ok(Outcome::Granted)
        );
        let k1b = k1.clone();
        // b waits for a; c waits for b; a releases: b is granted while c's search walks b.
        let hb = thread::spawn(move || {
            assert_eq!(
                b.acquire_outcome(&k1b, LockType::X, T, F),
                Ok(Outcome::Granted)
            );
            b.commit();
        });
        let k2c = k2.clone();
        let hc = thread::spawn(move || {
            assert_eq!(
                c.acquire_outcome(&k2c, LockType::X, T, F),
                Ok(Outcome::Granted)
            );
            c.commit();
        });
        a.commit();
        hb.join().unwrap();
        hc.join().unwrap();
    });
}

/// MariaDB's BACKUP matrix is not symmetric: BACKUP_FLUSH may be granted beside a granted
/// BACKUP_DML (a fast-path grant, materialised by the FLUSH), while a BACKUP_DML request
/// must wait for a granted BACKUP_FLUSH. Racing the two: whichever comes first, the state
/// is legal, and the invariant checker, which cannot know the order, accepts it (it read
/// the matrix both ways once, and reported this state).
#[test]
fn backup_dml_vs_flush() {
    model_on(
        "backup_dml_vs_flush",
        2,
        &[("mariadb", Dialect::mariadb)],
        |d| {
            let k = MdlKey::parse(&d, "BACKUP", "-").unwrap();
            let flush_ty = LockType::parse("BACKUP_FLUSH").unwrap();
            let m = Manager::new(d, Config::default(), Clock::manual());
            let mut a = m.context();
            let mut b = m.context();
            let flush = StdArc::new(AtomicBool::new(false));
            let (m2, k2, f2) = (m.clone(), k.clone(), flush.clone());
            let hb = thread::spawn(move || {
                // Nothing it conflicts with as a request: granted at once.
                assert_eq!(b.acquire_outcome(&k2, flush_ty, T, F), Ok(Outcome::Granted));
                f2.store(true, Ordering::SeqCst);
                m2.check_invariants().unwrap();
                f2.store(false, Ordering::SeqCst);
                b.commit();
            });
            let o = a
                .acquire_outcome(&k, LockType::BACKUP_DML, T, WaitOption::millis(0))
                .unwrap();
            if o == Outcome::Granted {
                assert!(
                    !flush.load(Ordering::SeqCst),
                    "BACKUP_DML granted beside a granted BACKUP_FLUSH"
                );
                m.check_invariants().unwrap();
                a.commit();
            } else {
                assert_eq!(o, Outcome::Timeout);
            }
            hb.join().unwrap();
            m.check_invariants().unwrap();
            assert!(m.snapshot().is_empty());
        },
    );
}

// Async waits (mdl-core/src/manager/wait_async.rs): the same requests, a future instead
// of a parked thread. `loom::future::block_on` parks the loom thread while the future is
// pending and runs it again when its waker is woken: a wake-up that never comes is a
// loom deadlock.

/// Polls `f` once with a waker that does nothing (a task that will not be polled again
/// unless the test does it).
fn poll_once<F: std::future::Future + Unpin>(f: &mut F) -> std::task::Poll<F::Output> {
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    std::pin::Pin::new(f).poll(&mut cx)
}

/// A release racing an async waiter's poll: the grant wakes its task (the waker is
/// registered in the same hold of the wait slot as the status check).
#[test]
fn async_grant_wakes_waiter() {
    model("async_grant_wakes_waiter", 3, |d| {
        release_vs_waiter(d, true)
    });
}

/// An async X waiter that an SR request queues behind (a pending X that SR yields to)
/// is dropped while the SR request arrives: its withdrawal (a kill) reschedules the
/// lock, so the SR request is granted, and it leaves nothing behind.
#[test]
fn async_drop_reschedules() {
    model("async_drop_reschedules", 2, |d| {
        let (m, k) = manager(d);
        let mut a = m.context();
        assert_eq!(
            a.acquire_outcome(&k, LockType::SR, T, F),
            Ok(Outcome::Granted)
        );
        let mut b = m.context();
        let (kb, m2) = (k.clone(), m.clone());
        let hb = thread::spawn(move || {
            let mut f = Box::pin(b.acquire_outcome_async(&kb, LockType::X, T, F));
            assert!(poll_once(&mut f).is_pending(), "X granted beside an SR");
            drop(f);
            assert!(b.held().is_empty());
            assert_no_conflict(&m2);
        });
        let mut c = m.context();
        assert_eq!(
            c.acquire_outcome(&k, LockType::SR, T, F),
            Ok(Outcome::Granted)
        );
        hb.join().unwrap();
        c.commit();
        a.commit();
        assert!(m.snapshot().is_empty());
        m.check_invariants().unwrap();
    });
}

/// A grant racing the drop of the future it was for: either the drop withdraws the
/// request first, or it finds the grant and releases it; nothing leaks either way.
#[test]
fn async_drop_vs_grant() {
    model("async_drop_vs_grant", 2, |d| {
        let (m, k) = manager(d);
        let mut a = m.context();
        assert_eq!(
            a.acquire_outcome(&k, LockType::X, T, F),
            Ok(Outcome::Granted)
        );
        let mut b = m.context();
        let kb = k.clone();
        let hb = thread::spawn(move || {
            let mut f = Box::pin(b.acquire_outcome_async(&kb, LockType::SR, T, F));
            let first = poll_once(&mut f);
            drop(f);
            if first.is_pending() {
                assert!(b.held().is_empty(), "a dropped request left a ticket");
            }
            b.commit();
        });
        a.commit();
        hb.join().unwrap();
        assert_lock_free(&m, &k);
    });
}

/// Two async waiters close a cycle: exactly one of them is the victim, and the other is
/// granted (its task woken by the victim's leaving).
#[test]
fn async_deadlock_victim() {
    model("async_deadlock_victim", 2, |d| close_a_cycle(d, true));
}
