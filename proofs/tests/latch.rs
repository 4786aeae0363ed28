//! The latch-level zoo: historical failures of the servers' concurrent machinery (not of
//! the lock protocol), each as a shuttle harness over the real `mdl_core::Manager`. The
//! old design is a seeded bug of the manager (`MDL_BUG=NAME`, registered in
//! `ci/registry/src/bugs.rs`), which the harness must catch; the current design passes
//! the same harness. `mdl zoo` lists them (kind "latch level") with these commands.
//!
//! Run: `cargo test -p mdl-proofs --release --features shuttle --test latch`; one old
//! design: `MDL_BUG=detector_nested_read cargo test ... --test latch
//! search_meets_a_lock_twice_while_it_is_released` (or with
//! `RUSTFLAGS='--cfg mdl_bug="detector_nested_read"'`). Budgets: `MDL_SHUTTLE_ITERS`
//! (schedules per scheduler, default 300), `MDL_SHUTTLE_SEED` (default 1),
//! `MDL_PCT_DEPTH` (default 2). Every test passes with no seeded bug.
#![cfg(feature = "shuttle")]

use mdl_core::dialect::Dialect;
use mdl_core::{Clock, Duration, LockType, Manager, MdlKey, Outcome, WaitOption};
use shuttle::scheduler::{PctScheduler, RandomScheduler};
use shuttle::sync::mpsc::{channel, Receiver, Sender};
use shuttle::thread;
use shuttle::Runner;
use std::sync::atomic::AtomicUsize;
use std::sync::Arc as StdArc;
use std::time::Instant;

/// The manager's `tracing` events (requests, grants, waits, the ends of waits, deadlock
/// victims; with `detector_nested_read` also the latch's holds and waits) of the running
/// schedule, each with the shuttle task that emitted it: the trace printed when a
/// schedule fails. (shuttle runs every task of a schedule on one OS thread, one at a
/// time, so one buffer in schedule order is the trace.)
mod trace {
    use std::fmt::Write as _;
    use std::sync::Mutex;
    use tracing::field::{Field, Visit};
    use tracing::span::{Attributes, Id, Record};
    use tracing::{Event, Metadata, Subscriber};

    static EVENTS: Mutex<Vec<String>> = Mutex::new(Vec::new());

    struct Recorder;

    struct Fields(String);

    impl Visit for Fields {
        fn record_debug(&mut self, f: &Field, v: &dyn std::fmt::Debug) {
            if f.name() == "message" {
                let _ = write!(self.0, "{v:?}");
            } else {
                let _ = write!(self.0, " {}={v:?}", f.name());
            }
        }
    }

    impl Subscriber for Recorder {
        fn enabled(&self, m: &Metadata<'_>) -> bool {
            m.target().starts_with("mdl_core")
        }
        fn new_span(&self, _: &Attributes<'_>) -> Id {
            Id::from_u64(1)
        }
        fn record(&self, _: &Id, _: &Record<'_>) {}
        fn record_follows_from(&self, _: &Id, _: &Id) {}
        fn event(&self, e: &Event<'_>) {
            let mut f = Fields(String::new());
            e.record(&mut f);
            let who = shuttle::thread::current()
                .name()
                .unwrap_or("main")
                .to_string();
            let mut v = EVENTS.lock().unwrap_or_else(|e| e.into_inner());
            v.push(format!("{who:>8} | {}", f.0));
        }
        fn enter(&self, _: &Id) {}
        fn exit(&self, _: &Id) {}
    }

    pub fn install() {
        let _ = tracing::subscriber::set_global_default(Recorder);
    }

    /// Starts a schedule's trace.
    pub fn clear() {
        EVENTS.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }

    /// The trace of the last schedule run.
    pub fn dump() -> String {
        let v = EVENTS.lock().unwrap_or_else(|e| e.into_inner());
        v.iter().map(|l| format!("    {l}\n")).collect()
    }
}

/// Runs `f` under shuttle's random scheduler, then its PCT scheduler; prints
/// `proof NAME: ...` lines (schedules, time, or the schedule number that failed).
fn explore(name: &'static str, f: fn()) {
    let iters = mdl_proofs::env_u64("MDL_SHUTTLE_ITERS", 300) as usize;
    let depth = mdl_proofs::env_u64("MDL_PCT_DEPTH", 2) as usize;
    let seed = mdl_proofs::env_u64("MDL_SHUTTLE_SEED", 1)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(name.len() as u64);
    trace::install();
    let start = Instant::now();
    let runs = StdArc::new(AtomicUsize::new(0));
    let r2 = runs.clone();
    let f = move || {
        r2.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        trace::clear();
        f()
    };
    let mut cfg = shuttle::Config::new();
    cfg.silence_warnings = true;
    let r = std::panic::catch_unwind(|| {
        let n =
            Runner::new(RandomScheduler::new_from_seed(seed, iters), cfg.clone()).run(f.clone());
        mdl_proofs::report(
            name,
            start,
            &format!("check_random: {n} schedules (seed {seed})"),
        );
        let start = Instant::now();
        let n = Runner::new(PctScheduler::new_from_seed(seed, depth, iters), cfg).run(f);
        mdl_proofs::report(
            name,
            start,
            &format!("check_pct: {n} schedules (depth {depth}, seed {seed})"),
        );
    });
    if let Err(e) = r {
        mdl_proofs::report(
            name,
            start,
            &format!(
                "FAILED at schedule {} (random then PCT, seed {seed})",
                runs.load(std::sync::atomic::Ordering::SeqCst)
            ),
        );
        eprintln!(
            "proof {name}: the failing schedule's events (task | event):\n{}",
            trace::dump()
        );
        std::panic::resume_unwind(e);
    }
}

fn manager() -> (Manager, MdlKey) {
    let m = Manager::new(Dialect::mysql80(), Default::default(), Clock::manual());
    let t1 = MdlKey::parse(m.dialect(), "TABLE", "db.t1").expect("a table key");
    (m, t1)
}

const TX: Duration = Duration::Transaction;
const FOREVER: WaitOption = WaitOption::Forever;

/// Yields until `cond` holds (shuttle schedules the other threads meanwhile).
fn until(cond: impl Fn() -> bool) {
    while !cond() {
        thread::yield_now();
    }
}

/// A session's thread, named for the trace.
fn spawn(name: &str, f: impl FnOnce() + Send + 'static) -> thread::JoinHandle<()> {
    thread::Builder::new()
        .name(name.to_string())
        .spawn(f)
        .expect("spawn")
}

/// A go signal: the sessions that wait for it block (they do not spin, which PCT would
/// take as a hint to run them last), while a driver thread spins until the state it
/// waits for is reached.
fn go() -> (Sender<()>, Receiver<()>) {
    channel()
}

fn check(m: &Manager) {
    if let Err(e) = m.check_invariants() {
        panic!("invariant broken: {e}");
    }
    assert!(m.snapshot().is_empty(), "locks left at the end");
}

/// MySQL bug #56405, "Deadlock in the MDL deadlock detector": MySQL 5.5's
/// `MDL_lock::visit_subgraph` (sql/mdl.cc) holds the lock's `m_rwlock` for read while it
/// visits the subgraph behind it, and read-locks it again, nested, when the search meets
/// the same lock further down the path. With a latch that does not prefer readers (the
/// platform's rwlock on Windows and Solaris; the report's stack is in
/// `pthread_rwlock_rdlock`), a thread that queued for the write lock in between (a
/// release) waits for the first read, and the nested read waits behind it. The fix (5.5.8)
/// made `m_rwlock` a reader-preferring `mysql_prlock_t` (mysys/thr_rwlock.c,
/// `rw_pr_rdlock`). Our detector never holds a lock's latch across a visit (it reads each
/// lock's waiters under its mutex, then lets go, and validates a cycle under all of them
/// in address order), so no nesting exists.
///
/// Here: A holds SU on t1 and waits to upgrade to X (behind B's SR); S asks for X, and
/// its search goes S -> A (a read hold on t1's latch) -> A's wait is on t1 again (a
/// nested read hold) while B writes t1's state: three SH requests, each a clone of its SR
/// ticket added to the lock's state and released at the statement's end, then the commit
/// that ends A's wait. Old design (`detector_nested_read`): in the schedules where one of
/// B's writes queues between S's two reads, the tasks block on t1's latch, a shuttle
/// deadlock. Current design: all finish.
fn search_meets_a_lock_twice_case() {
    let (m, t1) = manager();
    let mut a = m.context();
    let mut b = m.context();
    let mut s = m.context();
    assert_eq!(
        a.acquire_outcome(&t1, LockType::SU, TX, FOREVER),
        Ok(Outcome::Granted)
    );
    assert_eq!(
        b.acquire_outcome(&t1, LockType::SR, TX, FOREVER),
        Ok(Outcome::Granted)
    );
    let ha = a.handle();
    let (go_s, s_go) = go();
    let (go_b, b_go) = go();
    let ka = t1.clone();
    let ta = spawn("A", move || {
        assert_eq!(
            a.upgrade_outcome(&ka, LockType::X, FOREVER),
            Ok(Outcome::Granted)
        );
        a.commit();
    });
    let td = spawn("driver", move || {
        until(|| ha.is_waiting());
        let _ = go_s.send(());
        let _ = go_b.send(());
    });
    let ks = t1.clone();
    let ts = spawn("S", move || {
        s_go.recv().expect("go");
        assert_eq!(
            s.acquire_outcome(&ks, LockType::X, TX, FOREVER),
            Ok(Outcome::Granted)
        );
        s.commit();
    });
    let tb = spawn("B", move || {
        b_go.recv().expect("go");
        // Writes on t1's state while A still waits (SH is covered by B's SR: a clone of
        // the ticket, no wait), then the release that ends A's wait.
        for _ in 0..3 {
            assert_eq!(
                b.acquire_outcome(&t1, LockType::SH, Duration::Statement, FOREVER),
                Ok(Outcome::Granted)
            );
            b.end_statement();
        }
        b.commit();
    });
    for t in [ta, td, ts, tb] {
        t.join().expect("a session panicked");
    }
    check(&m);
}

#[test]
fn search_meets_a_lock_twice_while_it_is_released() {
    explore(
        "search_meets_a_lock_twice_while_it_is_released",
        search_meets_a_lock_twice_case,
    );
}

/// The false deadlock that MySQL's `MDL_lock::visit_subgraph` guards against (sql/mdl.cc,
/// the comment there: "MDL_lock data already reflects the fact that the lock was granted
/// but m_waiting_for member has not been updated yet"; the check of
/// `MDL_wait::get_status()` of the waiter under the lock's latch). A reschedule grants a
/// waiter (the ticket moves to the granted list, the wait slot's status is set) before
/// the waiter wakes and clears what it waited for. A search in that window that trusts
/// the waiter's `waiting_for` sees it still waiting for its old request, whose conflicts
/// with the searcher's new request close a cycle that no longer exists.
///
/// Here, MySQL's example with LOCK TABLES: `lt` holds SNRW on t1 (LOCK TABLES WRITE, so
/// its deadlock weight is DML: `force_dml_weight`), `dml` waits for SW. `lt` unlocks
/// (granting `dml`'s SW) and asks for SNRW again: it waits for `dml`'s SW. Old design
/// (`detector_trusts_waiting_for`): if `dml` has not woken yet, its stale SW wait is
/// blocked by `lt`'s pending SNRW, a cycle of two DML-weight waits, and `lt`, the
/// requester, is aborted with a deadlock error. Current design: `dml`'s slot has a
/// status, so it has no edge; `lt` waits until `dml` commits.
fn granted_waiter_not_yet_awake_case() {
    let (m, t1) = manager();
    let mut lt = m.context();
    let mut dml = m.context();
    lt.force_dml_weight(true);
    assert_eq!(
        lt.acquire_outcome(&t1, LockType::SNRW, TX, FOREVER),
        Ok(Outcome::Granted)
    );
    let hd = dml.handle();
    let (go_lt, lt_go) = go();
    let kd = t1.clone();
    let td = spawn("dml", move || {
        assert_eq!(
            dml.acquire_outcome(&kd, LockType::SW, TX, FOREVER),
            Ok(Outcome::Granted)
        );
        dml.commit();
    });
    let tr = spawn("driver", move || {
        until(|| hd.is_waiting());
        let _ = go_lt.send(());
    });
    let tl = spawn("lt", move || {
        lt_go.recv().expect("go");
        lt.commit();
        assert_eq!(
            lt.acquire_outcome(&t1, LockType::SNRW, TX, FOREVER),
            Ok(Outcome::Granted),
            "a deadlock error without a cycle: dml was granted already"
        );
        lt.commit();
    });
    for t in [td, tr, tl] {
        t.join().expect("a session panicked");
    }
    check(&m);
}

#[test]
fn granted_waiter_not_yet_awake_is_no_edge() {
    explore(
        "granted_waiter_not_yet_awake_is_no_edge",
        granted_waiter_not_yet_awake_case,
    );
}

/// THR_LOCK's lost wakeup: a thread that holds a read lock and asks for it again must not
/// queue behind a writer that waits for it (mysys/thr_lock.c, `thr_lock`: a read request
/// passes a waiting writer when `has_old_lock` finds the thread's own read lock).
/// Without that, the writer waits for the holder and the holder waits behind the writer:
/// THR_LOCK has no deadlock detector, so both hang until a timeout. MySQL's MDL never
/// asks the lock for what the context holds already (sql/mdl.cc,
/// `MDL_context::try_acquire_lock_impl`: `find_ticket`, then `clone_ticket` for another
/// duration).
///
/// Here: `h` holds SR on t1 and asks for SR again while `w` asks for X. Old design
/// (`reentrant_request_queued`): when `w` queued first, `h`'s second SR queues behind the
/// pending X; our detector sees the cycle (THR_LOCK's did not exist) and aborts `h`, the
/// lighter: a deadlock error for a lock it already holds. Current design: granted at once.
fn held_lock_asked_again_case() {
    let (m, t1) = manager();
    let mut h = m.context();
    let mut w = m.context();
    assert_eq!(
        h.acquire_outcome(&t1, LockType::SR, TX, FOREVER),
        Ok(Outcome::Granted)
    );
    let kw = t1.clone();
    let tw = spawn("w", move || {
        assert_eq!(
            w.acquire_outcome(&kw, LockType::X, TX, FOREVER),
            Ok(Outcome::Granted)
        );
        w.commit();
    });
    let th = spawn("h", move || {
        for dur in [TX, Duration::Statement] {
            assert_eq!(
                h.acquire_outcome(&t1, LockType::SR, dur, FOREVER),
                Ok(Outcome::Granted),
                "a request for a lock the context holds ({dur:?}) was not granted at once"
            );
        }
        h.commit();
    });
    for t in [tw, th] {
        t.join().expect("a session panicked");
    }
    check(&m);
}

#[test]
fn held_lock_asked_again_behind_a_pending_writer() {
    explore(
        "held_lock_asked_again_behind_a_pending_writer",
        held_lock_asked_again_case,
    );
}
