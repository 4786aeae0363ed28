//! shuttle harnesses over the real `mdl_core::Manager`: random schedules (and random
//! workloads, drawn from shuttle's own recorded randomness so a schedule replays the very
//! same workload) of 4-8 sessions on 2-4 keys, with [`Manager::check_invariants`] after
//! every step. Each schedule draws its dialect: MySQL 8.0 or MariaDB, whose BACKUP
//! namespace (an asymmetric matrix) joins the mix.
//!
//! Run: `cargo test -p mdl-proofs --release --features shuttle --test shuttle`.
//! Budgets (environment): `MDL_SHUTTLE_ITERS` (schedules per scheduler per test, default
//! 300), `MDL_SHUTTLE_SEED` (base seed, default 1), `MDL_PCT_DEPTH` (default 2),
//! `MDL_SHUTTLE_SHARD` / `MDL_SHUTTLE_SHARDS` (this process runs shard `k` of `n`: its
//! seeds are distinct from the other shards'). For investigations (not set by CI):
//! `MDL_SHUTTLE_MAX_WRITE_LOCK_COUNT` (the mix's `max_write_lock_count`, default
//! unlimited) and `MDL_SHUTTLE_DIALECT` (`mysql-8.0` or `mariadb`: the mix's dialect
//! instead of the drawn one).
//!
//! A failing schedule is printed by shuttle and saved under
//! `target/verify/artifacts/shuttle-TEST-N.schedule`; replay it with
//! `MDL_SHUTTLE_REPLAY=PATH_OR_STRING MDL_SHUTTLE_REPLAY_TEST=TEST cargo test ... replay -- --ignored`.
#![cfg(feature = "shuttle")]

use mdl_core::dialect::Dialect;
use mdl_core::{BulkReq, Config};
use mdl_core::{
    Clock, Context, ContextHandle, Duration, LockType, Manager, MdlKey, Outcome, WaitOption,
};
use shuttle::rand::{thread_rng, Rng};
use shuttle::scheduler::{PctScheduler, RandomScheduler};
use shuttle::thread;
use shuttle::{FailurePersistence, Runner};
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc as StdArc;
use std::task::{Context as TaskCx, Poll};
use std::time::Instant;

fn artifacts() -> PathBuf {
    // CARGO_MANIFEST_DIR is proofs/; the workspace target dir is its sibling.
    let base = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"));
    base.join("verify/artifacts")
}

fn config() -> shuttle::Config {
    let mut c = shuttle::Config::new();
    let dir = artifacts();
    if std::fs::create_dir_all(&dir).is_ok() {
        c.failure_persistence = FailurePersistence::File(Some(dir));
    }
    c.silence_warnings = true;
    c
}

/// The newest `schedule*.txt` shuttle wrote: rename it to `shuttle-NAME-N.schedule`, print it.
fn save_schedule(name: &str) {
    let dir = artifacts();
    let Ok(rd) = std::fs::read_dir(&dir) else {
        return;
    };
    let mut files: Vec<_> = rd
        .flatten()
        .filter(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.starts_with("schedule") && n.ends_with(".txt")
        })
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    files.sort();
    let Some((_, path)) = files.pop() else {
        return;
    };
    let mut i = 0;
    let dest = loop {
        let d = dir.join(format!("shuttle-{name}-{i}.schedule"));
        if !d.exists() {
            break d;
        }
        i += 1;
    };
    if std::fs::rename(&path, &dest).is_ok() {
        let s = std::fs::read_to_string(&dest).unwrap_or_default();
        eprintln!(
            "shuttle {name}: failing schedule saved to {}\nschedule: {}\nreplay: MDL_SHUTTLE_REPLAY={} \
             MDL_SHUTTLE_REPLAY_TEST={name} cargo test -p mdl-proofs --release --features shuttle \
             --test shuttle replay -- --ignored --nocapture",
            dest.display(),
            s.trim(),
            dest.display()
        );
    }
}

/// Runs `f` under shuttle's random scheduler and then its PCT scheduler, with the budgets
/// from the environment; on failure saves the schedule and fails the test.
fn explore(name: &'static str, f: fn()) {
    let iters = mdl_proofs::env_u64("MDL_SHUTTLE_ITERS", 300) as usize;
    let depth = mdl_proofs::env_u64("MDL_PCT_DEPTH", 2) as usize;
    let shards = mdl_proofs::env_u64("MDL_SHUTTLE_SHARDS", 1).max(1);
    let shard = mdl_proofs::env_u64("MDL_SHUTTLE_SHARD", 0) % shards;
    let base = mdl_proofs::env_u64("MDL_SHUTTLE_SEED", 1);
    let seed = base
        .wrapping_mul(shards)
        .wrapping_add(shard)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(name.len() as u64);
    let start = Instant::now();
    let runs = StdArc::new(AtomicUsize::new(0));
    let r2 = runs.clone();
    let f = move || {
        r2.fetch_add(1, Ordering::SeqCst);
        f()
    };
    let r = std::panic::catch_unwind(|| {
        let n = Runner::new(RandomScheduler::new_from_seed(seed, iters), config()).run(f.clone());
        mdl_proofs::report(
            name,
            start,
            &format!("check_random: {n} schedules (seed {seed})"),
        );
        let start = Instant::now();
        let n = Runner::new(PctScheduler::new_from_seed(seed, depth, iters), config()).run(f);
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
                runs.load(Ordering::SeqCst)
            ),
        );
        save_schedule(name);
        std::panic::resume_unwind(e);
    }
}

/// The dialect of one schedule, drawn from shuttle's randomness (so a replay draws the
/// same): MySQL 8.0's (hog and piglet counters, symmetric matrices) or MariaDB's (hogs
/// only, the asymmetric BACKUP matrix).
fn dialect(rng: &mut impl Rng) -> Dialect {
    // The draw is made whatever `MDL_SHUTTLE_DIALECT` says, so a schedule replays alike.
    let mysql = rng.gen_bool(0.5);
    let mysql = match std::env::var("MDL_SHUTTLE_DIALECT").as_deref() {
        Ok("mysql-8.0") => true,
        Ok("mariadb") => false,
        _ => mysql,
    };
    if mysql {
        Dialect::mysql80()
    } else {
        Dialect::mariadb()
    }
}

fn table_key(d: &Dialect, i: usize) -> MdlKey {
    MdlKey::parse(d, "TABLE", &format!("db.t{i}")).expect("a table key")
}

fn check(m: &Manager, what: &str) {
    if let Err(e) = m.check_invariants() {
        panic!("invariant broken after {what}: {e}");
    }
}

fn pick<T: Copy>(rng: &mut impl Rng, xs: &[T]) -> T {
    xs[rng.gen_range(0..xs.len())]
}

const DURS: [Duration; 3] = [
    Duration::Statement,
    Duration::Transaction,
    Duration::Explicit,
];

fn wait_option(rng: &mut impl Rng) -> WaitOption {
    match rng.gen_range(0..8) {
        0 => WaitOption::NoWait,
        1 => WaitOption::millis(0),
        2 | 3 => WaitOption::millis(10),
        _ => WaitOption::Forever,
    }
}

/// The types the mix uses on one key.
struct KeyTypes {
    /// To acquire (and to downgrade to).
    acquire: Vec<LockType>,
    /// To upgrade to.
    upgrade: Vec<LockType>,
    /// Downgrades are tried.
    downgrade: bool,
}

impl KeyTypes {
    /// Every type of the key's namespace but IX and S. On MariaDB's BACKUP key the
    /// servers grant some types with no decision: `MDL_context::upgrade_shared_lock`
    /// retypes a ticket that covers the new type ("upgrade must always happen"), and
    /// `clone_ticket` copies a covering ticket. From BACKUP_START or BACKUP_BLOCK_DDL,
    /// which cover the stage types, arbitrary sequences then make grants that conflict
    /// both ways (BLOCK_DDL retyped to START beside a WAIT_DDL; START cloned under
    /// BLOCK_DDL, which then goes, beside a WAIT_FLUSH), states the servers reach only
    /// by calls their SQL layer never makes. So the mix leaves those two types out on
    /// the BACKUP key, upgrades to the stage types only, and never downgrades there.
    fn of(d: &Dialect, k: &MdlKey) -> KeyTypes {
        let all: Vec<LockType> = d
            .strategy(k.namespace())
            .types
            .iter()
            .copied()
            .filter(|t| *t != LockType::IX && *t != LockType::S)
            .collect();
        if d.namespace(k.namespace()).name != "BACKUP" {
            return KeyTypes {
                upgrade: all.clone(),
                acquire: all,
                downgrade: true,
            };
        }
        let stages = [
            "BACKUP_FLUSH",
            "BACKUP_WAIT_FLUSH",
            "BACKUP_WAIT_DDL",
            "BACKUP_WAIT_COMMIT",
        ];
        let skip =
            ["BACKUP_START", "BACKUP_BLOCK_DDL"].map(|n| LockType::parse(n).expect("a type"));
        KeyTypes {
            acquire: all.into_iter().filter(|t| !skip.contains(t)).collect(),
            upgrade: stages
                .iter()
                .map(|n| LockType::parse(n).expect("a type"))
                .collect(),
            downgrade: false,
        }
    }
}

/// `n` random elements of a bulk request (keys may repeat).
fn random_bulk(rng: &mut impl Rng, keys: &[MdlKey], types: &[KeyTypes], n: usize) -> Vec<BulkReq> {
    (0..n)
        .map(|_| {
            let i = rng.gen_range(0..keys.len());
            BulkReq {
                key: keys[i].clone(),
                ty: pick(rng, &types[i].acquire),
            }
        })
        .collect()
}

/// One session's random steps.
fn session(
    m: Manager,
    mut ctx: Context,
    keys: StdArc<Vec<MdlKey>>,
    handles: StdArc<Vec<ContextHandle>>,
    types: StdArc<Vec<KeyTypes>>,
    steps: usize,
) {
    let mut rng = thread_rng();
    let me = ctx.id();
    for step in 0..steps {
        let ki = rng.gen_range(0..keys.len());
        let key = keys[ki].clone();
        let what;
        let outcome: Option<Outcome> = match rng.gen_range(0..100) {
            0..=34 => {
                let ty = pick(&mut rng, &types[ki].acquire);
                let dur = pick(&mut rng, &DURS);
                let w = wait_option(&mut rng);
                what = format!("{me:?} acquire {key:?} {ty} {dur:?} {w:?}");
                ctx.acquire_outcome(&key, ty, dur, w).ok()
            }
            35..=44 => {
                let n = rng.gen_range(1..=keys.len().min(3));
                let reqs = random_bulk(&mut rng, &keys, &types, n);
                let dur = pick(&mut rng, &DURS);
                let w = wait_option(&mut rng);
                what = format!("{me:?} acquire_all {reqs:?} {dur:?} {w:?}");
                ctx.acquire_all_outcome(&reqs, dur, w).ok()
            }
            45..=54 => {
                let held: Vec<MdlKey> = ctx.held().iter().map(|h| h.key.clone()).collect();
                let k = if held.is_empty() {
                    key
                } else {
                    held[rng.gen_range(0..held.len())].clone()
                };
                let i = keys.iter().position(|x| *x == k).unwrap_or(ki);
                let ty = pick(&mut rng, &types[i].upgrade);
                let w = wait_option(&mut rng);
                what = format!("{me:?} upgrade {k:?} {ty} {w:?}");
                ctx.upgrade_outcome(&k, ty, w).ok()
            }
            55..=59 => {
                let ty = pick(&mut rng, &types[ki].acquire);
                what = format!("{me:?} downgrade {key:?} {ty}");
                if types[ki].downgrade {
                    let _ = ctx.downgrade(&key, ty);
                }
                None
            }
            60..=67 => {
                what = format!("{me:?} release {key:?}");
                let _ = ctx.release(&key, None);
                None
            }
            68..=77 => {
                what = format!("{me:?} commit");
                ctx.commit();
                None
            }
            78..=80 => {
                what = format!("{me:?} end_statement / release_explicit");
                if rng.gen_bool(0.5) {
                    ctx.end_statement();
                } else {
                    ctx.release_explicit();
                }
                None
            }
            81..=84 => {
                let name = pick(&mut rng, &["a", "b"]);
                what = format!("{me:?} savepoint {name}");
                ctx.savepoint(name);
                None
            }
            85..=88 => {
                let name = pick(&mut rng, &["a", "b"]);
                what = format!("{me:?} rollback_to {name}");
                let _ = ctx.rollback_to(name);
                None
            }
            89..=93 => {
                let h = &handles[rng.gen_range(0..handles.len())];
                what = format!("{me:?} kill {:?}", h.id());
                if h.id() != me {
                    h.kill();
                }
                None
            }
            94..=95 => {
                what = format!("{me:?} advance_clock 10");
                m.advance_clock(10);
                None
            }
            96..=97 => {
                what = format!("{me:?} reclaim");
                m.reclaim();
                None
            }
            _ => {
                what = format!("{me:?} disconnect");
                drop(ctx);
                check(&m, &what);
                return;
            }
        };
        if outcome == Some(Outcome::Deadlock) {
            // Break the cycle for good: the victim keeps its other locks otherwise.
            ctx.commit();
        }
        check(&m, &format!("step {step}: {what} -> {outcome:?}"));
    }
    ctx.commit();
    drop(ctx);
    check(&m, &format!("{me:?} end"));
}

/// The random mix of commands over 4-8 sessions and 2-4 keys, on either dialect; on
/// MariaDB one of the keys is the BACKUP namespace's (its asymmetric matrix).
fn random_mix() {
    let mut rng = thread_rng();
    let d = dialect(&mut rng);
    let n_keys = rng.gen_range(2..=4);
    let n_sessions = rng.gen_range(4..=8);
    let mut keys: Vec<MdlKey> = (0..n_keys).map(|i| table_key(&d, i)).collect();
    if d.namespace_by_name("BACKUP").is_some() {
        keys[n_keys - 1] = MdlKey::parse(&d, "BACKUP", "-").expect("the backup key");
    }
    let types: Vec<KeyTypes> = keys.iter().map(|k| KeyTypes::of(&d, k)).collect();
    let config = Config::builder()
        .max_write_lock_count(mdl_proofs::env_u64(
            "MDL_SHUTTLE_MAX_WRITE_LOCK_COUNT",
            u64::MAX,
        ))
        .build();
    let m = Manager::new(d, config, Clock::manual());
    let ctxs: Vec<Context> = (0..n_sessions).map(|_| m.context()).collect();
    let handles = StdArc::new(ctxs.iter().map(|c| c.handle()).collect::<Vec<_>>());
    let keys = StdArc::new(keys);
    let types = StdArc::new(types);
    let hs: Vec<_> = ctxs
        .into_iter()
        .map(|c| {
            let steps = rng.gen_range(3..=7);
            let (m, k, h, t) = (m.clone(), keys.clone(), handles.clone(), types.clone());
            thread::spawn(move || session(m, c, k, h, t, steps))
        })
        .collect();
    // Time moves now and then, so that waits with a timeout may end by it.
    for _ in 0..2 {
        thread::yield_now();
        m.advance_clock(10);
    }
    for h in hs {
        h.join().expect("a session panicked");
    }
    let left = m.snapshot();
    assert!(
        left.is_empty(),
        "locks left after every session ended: {left:?}"
    );
    m.reclaim();
    assert_eq!(m.lock_object_count(), 0, "lock objects left after reclaim");
    check(&m, "the end");
}

#[test]
fn random_mix_of_commands() {
    explore("random_mix", random_mix);
}

/// A ring of 2-4 sessions, each holding X on its key and requesting a random type on the
/// next one's: exactly one cycle, so exactly one `Deadlock` outcome.
fn cycle_ring() {
    let mut rng = thread_rng();
    let d = dialect(&mut rng);
    let n = rng.gen_range(2..=4);
    let keys: Vec<MdlKey> = (0..n).map(|i| table_key(&d, i)).collect();
    let m = Manager::new(d, Config::default(), Clock::manual());
    let victims = StdArc::new(AtomicUsize::new(0));
    // Every member holds its key before any requests the next one.
    let ctxs: Vec<Context> = keys
        .iter()
        .map(|k| {
            let mut c = m.context();
            assert_eq!(
                c.acquire_outcome(k, LockType::X, Duration::Transaction, WaitOption::Forever),
                Ok(Outcome::Granted)
            );
            c
        })
        .collect();
    let mut hs = Vec::new();
    for (i, mut c) in ctxs.into_iter().enumerate() {
        let next = keys[(i + 1) % n].clone();
        let ty = pick(
            &mut rng,
            &[
                LockType::SH,
                LockType::SR,
                LockType::SW,
                LockType::SU,
                LockType::X,
            ],
        );
        let (m, v) = (m.clone(), victims.clone());
        hs.push(thread::spawn(move || {
            match c.acquire_outcome(&next, ty, Duration::Transaction, WaitOption::Forever) {
                Ok(Outcome::Deadlock) => {
                    v.fetch_add(1, Ordering::SeqCst);
                }
                Ok(Outcome::Granted) => {}
                other => panic!("unexpected {other:?}"),
            }
            check(&m, "a ring member's request");
            c.commit();
        }));
    }
    for h in hs {
        h.join().expect("a ring member panicked");
    }
    assert_eq!(
        victims.load(Ordering::SeqCst),
        1,
        "one cycle, so exactly one victim"
    );
    assert!(m.snapshot().is_empty());
}

#[test]
fn cycle_has_one_victim() {
    explore("cycle_ring", cycle_ring);
}

/// A timeout or a kill ending a wait that others queue behind: they are woken.
fn queue_behind_a_waiter() {
    let mut rng = thread_rng();
    let d = dialect(&mut rng);
    let k = table_key(&d, 0);
    let m = Manager::new(d, Config::default(), Clock::manual());
    let mut a = m.context();
    assert_eq!(
        a.acquire_outcome(&k, LockType::SR, Duration::Transaction, WaitOption::Forever),
        Ok(Outcome::Granted)
    );
    let mut b = m.context();
    let bh = b.handle();
    let kb = k.clone();
    let use_kill = rng.gen_bool(0.5);
    let hb = thread::spawn(move || {
        let o = b
            .acquire_outcome(
                &kb,
                LockType::X,
                Duration::Transaction,
                WaitOption::millis(10),
            )
            .unwrap();
        b.commit();
        o
    });
    let mut cs = Vec::new();
    for _ in 0..rng.gen_range(1..=3) {
        let mut c = m.context();
        let (kc, mc) = (k.clone(), m.clone());
        let ty = pick(&mut rng, &[LockType::SR, LockType::SW, LockType::SH]);
        cs.push(thread::spawn(move || {
            assert_eq!(
                c.acquire_outcome(&kc, ty, Duration::Transaction, WaitOption::Forever),
                Ok(Outcome::Granted)
            );
            check(&mc, "a queued request's grant");
            c.commit();
        }));
    }
    // b must be parked before its wait is ended (a kill or a clock move before that would
    // not concern it, and it would wait for `a` for ever).
    while !bh.is_waiting() {
        thread::yield_now();
    }
    if use_kill {
        assert!(bh.kill(), "b was waiting");
    } else {
        m.advance_clock(20);
    }
    let ob = hb.join().unwrap();
    check(&m, "the end of b's wait");
    // The others must all be granted while `a` still holds its SR (a lost wakeup would
    // leave one parked: a shuttle deadlock, since `a` commits only after).
    for c in cs {
        c.join().unwrap();
    }
    a.commit();
    let _ = ob;
    assert!(m.snapshot().is_empty());
}

#[test]
fn timeout_or_kill_wakes_the_queue() {
    explore("queue_behind_a_waiter", queue_behind_a_waiter);
}

/// Polls the inner future; after `polls` pending polls (each one yielding to the
/// executor) it gives up and drops it: `None` (a caller that stops waiting). With
/// `polls` `None` it waits for the inner future's own wake-up.
struct GiveUp<F> {
    inner: Pin<Box<F>>,
    polls: Option<usize>,
}

impl<F: Future> Future for GiveUp<F> {
    type Output = Option<F::Output>;
    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskCx<'_>) -> Poll<Self::Output> {
        match self.inner.as_mut().poll(cx) {
            Poll::Ready(o) => Poll::Ready(Some(o)),
            Poll::Pending => match self.polls {
                None => Poll::Pending,
                Some(0) => Poll::Ready(None),
                Some(n) => {
                    self.polls = Some(n - 1);
                    cx.waker().wake_by_ref();
                    Poll::Pending
                }
            },
        }
    }
}

/// Waits for `f`, or gives it up after a random number of polls (half of the waits
/// never give up).
async fn maybe_give_up<F: Future>(rng: &mut impl Rng, f: F) -> Option<F::Output> {
    let polls = if rng.gen_bool(0.5) {
        None
    } else {
        Some(rng.gen_range(0..3))
    };
    GiveUp {
        inner: Box::pin(f),
        polls,
    }
    .await
}

/// One async session: random async acquires, upgrades and bulk requests, some given up
/// (the future dropped while it waits, or after its grant), and commits.
async fn async_session(m: Manager, mut ctx: Context, keys: StdArc<Vec<MdlKey>>, steps: usize) {
    let mut rng = thread_rng();
    let me = ctx.id();
    let types: Vec<KeyTypes> = keys.iter().map(|k| KeyTypes::of(m.dialect(), k)).collect();
    for _ in 0..steps {
        let ki = rng.gen_range(0..keys.len());
        let key = &keys[ki];
        let w = wait_option(&mut rng);
        let what = match rng.gen_range(0..10) {
            0..=4 => {
                let ty = pick(&mut rng, &types[ki].acquire);
                let dur = pick(&mut rng, &DURS);
                let o = maybe_give_up(&mut rng, ctx.acquire_outcome_async(key, ty, dur, w)).await;
                format!("{me:?} acquire_async {key:?} {ty} {dur:?} {w:?} -> {o:?}")
            }
            5 | 6 => {
                let ty = pick(&mut rng, &types[ki].upgrade);
                let o = maybe_give_up(&mut rng, ctx.upgrade_outcome_async(key, ty, w)).await;
                format!("{me:?} upgrade_async {key:?} {ty} {w:?} -> {o:?}")
            }
            7 => {
                let reqs = random_bulk(&mut rng, &keys, &types, 2);
                let o = maybe_give_up(
                    &mut rng,
                    ctx.acquire_all_outcome_async(&reqs, Duration::Transaction, w),
                )
                .await;
                format!("{me:?} acquire_all_async {reqs:?} {w:?} -> {o:?}")
            }
            _ => {
                ctx.commit();
                ctx.release_explicit();
                format!("{me:?} commit")
            }
        };
        check(&m, &what);
    }
}

/// Async sessions as shuttle tasks (`shuttle::future::spawn`), one blocking session, time
/// moving now and then, and a task aborted (its pending future dropped with it): no
/// conflicting grant, no lost wake-up (a task never woken is a shuttle deadlock), and
/// nothing left once every session is gone.
fn async_mix() {
    let mut rng = thread_rng();
    let d = Dialect::mysql80();
    let keys: Vec<MdlKey> = (0..2).map(|i| table_key(&d, i)).collect();
    let m = Manager::new(d, Config::default(), Clock::manual());
    let keys = StdArc::new(keys);
    let n = rng.gen_range(2..=4);
    let ctxs: Vec<Context> = (0..=n).map(|_| m.context()).collect();
    // The blocking session may kill any session's wait, async ones included.
    let handles = StdArc::new(ctxs.iter().map(|c| c.handle()).collect::<Vec<_>>());
    let mut ctxs = ctxs.into_iter();
    let c = ctxs.next().expect("n + 1 contexts");
    let tasks: Vec<_> = ctxs
        .map(|ctx| {
            let steps = rng.gen_range(2..=5);
            shuttle::future::spawn(async_session(m.clone(), ctx, keys.clone(), steps))
        })
        .collect();
    // A blocking session beside them, from the random mix.
    let (m2, k2) = (m.clone(), keys.clone());
    let ts = StdArc::new(
        k2.iter()
            .map(|k| KeyTypes::of(m.dialect(), k))
            .collect::<Vec<_>>(),
    );
    let blocking = thread::spawn(move || session(m2, c, k2, handles, ts, 3));
    thread::yield_now();
    m.advance_clock(10);
    let abort = rng.gen_range(0..n + 1);
    for (i, t) in tasks.into_iter().enumerate() {
        if i == abort {
            t.abort();
        }
        // Aborted or finished: either way its context is gone.
        let _ = shuttle::future::block_on(t);
        m.advance_clock(10);
    }
    blocking.join().expect("the blocking session panicked");
    let left = m.snapshot();
    assert!(
        left.is_empty(),
        "locks left after every session ended: {left:?}"
    );
    check(&m, "the end");
}

#[test]
fn async_tasks_mix() {
    explore("async_mix", async_mix);
}

/// Replays a saved schedule: `MDL_SHUTTLE_REPLAY` is a schedule string or a file (as
/// saved under `target/verify/artifacts/`), `MDL_SHUTTLE_REPLAY_TEST` the test's name
/// (`random_mix`, `cycle_ring`, `queue_behind_a_waiter`).
#[test]
#[ignore = "set MDL_SHUTTLE_REPLAY (and MDL_SHUTTLE_REPLAY_TEST) to replay a failing schedule"]
fn replay() {
    let Ok(s) = std::env::var("MDL_SHUTTLE_REPLAY") else {
        eprintln!("MDL_SHUTTLE_REPLAY is not set: nothing to replay");
        return;
    };
    let name = std::env::var("MDL_SHUTTLE_REPLAY_TEST").unwrap_or_else(|_| "random_mix".into());
    let f: fn() = match name.as_str() {
        "random_mix" => random_mix,
        "cycle_ring" => cycle_ring,
        "queue_behind_a_waiter" => queue_behind_a_waiter,
        other => panic!("unknown MDL_SHUTTLE_REPLAY_TEST {other}"),
    };
    if std::path::Path::new(&s).is_file() {
        shuttle::replay_from_file(f, &s);
    } else {
        shuttle::replay(f, &s);
    }
}
