//! Differential test with waits: random programs (seeded, deterministic) whose requests
//! may block (`forever`), with kills, run on the sequential `LockTable` and on the
//! `Manager` with one thread per session. After every step the driver waits until the
//! manager is quiet (every session idle, or parked in an undecided wait, and every
//! decided outcome reported), polling with `yield_now`; then the step's outcome, the
//! outcomes of other sessions' waits decided by it (events), every idle session's
//! tickets and every lock's granted and waiting requests must agree.
//!
//! Bulk acquires take `nowait` here (the table resumes a bulk at the session's next
//! step, the manager in the same call), and finite timeouts are left to manager.rs (a
//! clock advance ends several waits at once in the manager, one at a time in the table).
#![cfg(not(any(loom, feature = "shuttle")))]

use mdl_core::book::Held;
use mdl_core::table::{BulkReq, Config, LockTable};
use mdl_core::{
    Clock, ContextHandle, Dialect, Duration, LockType, Manager, MdlError, MdlKey, Outcome, OwnerId,
    WaitOption,
};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::thread;

/// Soft-edge reorderings the table made (counted across the tests of this file).
static REORDERS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[derive(Debug, Clone)]
enum Cmd {
    Acquire(MdlKey, LockType, Duration, WaitOption),
    AcquireAll(Vec<BulkReq>, Duration),
    Upgrade(MdlKey, LockType, WaitOption),
    Downgrade(MdlKey, LockType),
    Release(MdlKey),
    EndStatement,
    Commit,
    ReleaseExplicit,
    Held,
}

type Reply = (usize, Result<Outcome, MdlError>, Option<Vec<Held>>);

fn worker(mut cx: mdl_core::Context, me: usize, rx: Receiver<Cmd>, tx: Sender<Reply>) {
    let ok = |r: Result<(), MdlError>| r.map(|()| Outcome::Ok);
    for c in rx {
        let out = match c {
            Cmd::Acquire(k, ty, dur, w) => cx.acquire_outcome(&k, ty, dur, w),
            Cmd::AcquireAll(reqs, dur) => cx.acquire_all_outcome(&reqs, dur, WaitOption::NoWait),
            Cmd::Upgrade(k, ty, w) => cx.upgrade_outcome(&k, ty, w),
            Cmd::Downgrade(k, ty) => ok(cx.downgrade(&k, ty)),
            Cmd::Release(k) => ok(cx.release(&k, None)),
            Cmd::EndStatement => {
                cx.end_statement();
                Ok(Outcome::Ok)
            }
            Cmd::Commit => {
                cx.commit();
                Ok(Outcome::Ok)
            }
            Cmd::ReleaseExplicit => {
                cx.release_explicit();
                Ok(Outcome::Ok)
            }
            Cmd::Held => {
                tx.send((me, Ok(Outcome::Ok), Some(cx.held().to_vec())))
                    .unwrap();
                continue;
            }
        };
        tx.send((me, out, None)).unwrap();
    }
}

fn locks_in_table(t: &LockTable) -> Vec<(MdlKey, OwnerId, LockType, bool)> {
    let mut v: Vec<_> = t
        .locks()
        .flat_map(|(k, l)| {
            let g = l.granted().iter().map(|x| (k.clone(), x.owner, x.ty, true));
            let w = l
                .waiting()
                .iter()
                .map(|x| (k.clone(), x.owner, x.ty, false));
            g.chain(w).collect::<Vec<_>>()
        })
        .collect();
    v.sort();
    v
}

fn locks_in_manager(m: &Manager) -> Vec<(MdlKey, OwnerId, LockType, bool)> {
    let mut v: Vec<_> = m
        .snapshot()
        .into_iter()
        .map(|r| (r.key, r.owner, r.ty, r.granted))
        .collect();
    v.sort();
    v
}

fn gen(r: &mut Rng, d: &Dialect, ks: &[MdlKey]) -> Cmd {
    let k = ks[r.below(ks.len())].clone();
    let types = &d.strategy(k.namespace()).types;
    let ty = types[r.below(types.len())];
    let durs = [
        Duration::Statement,
        Duration::Transaction,
        Duration::Explicit,
    ];
    let waits = [WaitOption::Forever, WaitOption::Forever, WaitOption::NoWait];
    match r.below(12) {
        0..=4 => Cmd::Acquire(k, ty, durs[r.below(3)], waits[r.below(3)]),
        5 => {
            let k2 = ks[r.below(ks.len())].clone();
            let t2 = d.strategy(k2.namespace()).types[0];
            Cmd::AcquireAll(
                vec![BulkReq { key: k, ty }, BulkReq { key: k2, ty: t2 }],
                durs[r.below(3)],
            )
        }
        6 => Cmd::Upgrade(k, ty, waits[r.below(3)]),
        7 => Cmd::Downgrade(k, ty),
        8 => Cmd::Release(k),
        9 => Cmd::EndStatement,
        10 => Cmd::Commit,
        _ => Cmd::ReleaseExplicit,
    }
}

/// How often each outcome was seen (steps and events), to show the programs do wait.
type Seen = std::collections::BTreeMap<Outcome, usize>;

fn run(d: &Dialect, seed: u64, steps: usize, n: usize, config: Config, seen: &mut Seen) {
    let mut ks = vec![
        MdlKey::parse(d, "TABLE", "db.t1").unwrap(),
        MdlKey::parse(d, "TABLE", "db.t2").unwrap(),
    ];
    if d.namespace_by_name("GLOBAL").is_some() {
        ks.push(MdlKey::parse(d, "GLOBAL", "-").unwrap());
    } else {
        ks.push(MdlKey::parse(d, "BACKUP", "-").unwrap());
    }
    let mut r = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut t = LockTable::new(std::sync::Arc::new(d.clone()), config);
    let m = Manager::new(d.clone(), config.into(), Clock::manual());
    let (rtx, rrx) = channel::<Reply>();
    let mut txs = Vec::new();
    let mut handles: Vec<ContextHandle> = Vec::new();
    let mut joins = Vec::new();
    for i in 0..n {
        t.add_session();
        let cx = m.context();
        handles.push(cx.handle());
        let (tx, rx) = channel();
        txs.push(tx);
        let rtx = rtx.clone();
        joins.push(thread::spawn(move || worker(cx, i, rx, rtx)));
    }
    // Sessions with a request sent and not yet answered.
    let mut outstanding = vec![false; n];
    let mut trace: Vec<String> = Vec::new();
    let quiesce = |outstanding: &mut Vec<bool>, reports: &mut Vec<Reply>| loop {
        while let Ok(rep) = rrx.try_recv() {
            outstanding[rep.0] = false;
            reports.push(rep);
        }
        if (0..n).all(|i| !outstanding[i] || handles[i].is_waiting()) {
            // Quiet only if nothing arrived in between.
            match rrx.try_recv() {
                Ok(rep) => {
                    outstanding[rep.0] = false;
                    reports.push(rep);
                }
                Err(_) => return,
            }
        }
        thread::yield_now();
    };
    for step in 0..steps {
        let idle: Vec<usize> = (0..n)
            .filter(|i| !t.is_waiting(OwnerId(*i as u32)))
            .collect();
        let waiting: Vec<usize> = (0..n)
            .filter(|i| t.is_waiting(OwnerId(*i as u32)))
            .collect();
        let mut reports = Vec::new();
        let (s, table_out, mgr_out);
        if idle.is_empty() || (!waiting.is_empty() && r.below(8) == 0) {
            // Kill a waiter.
            s = waiting[r.below(waiting.len())];
            trace.push(format!("kill s{s}"));
            let a = t.kill(OwnerId(s as u32));
            let b = handles[s].kill();
            assert_eq!(a, b, "kill s{s}: {trace:#?}");
            table_out = Ok(Outcome::Ok);
            mgr_out = Ok(Outcome::Ok);
            quiesce(&mut outstanding, &mut reports);
        } else {
            s = idle[r.below(idle.len())];
            let c = gen(&mut r, d, &ks);
            trace.push(format!("s{s}: {c:?}"));
            table_out = match c.clone() {
                Cmd::Acquire(k, ty, dur, w) => t.acquire(OwnerId(s as u32), &k, ty, dur, w),
                Cmd::AcquireAll(reqs, dur) => {
                    t.acquire_all(OwnerId(s as u32), &reqs, dur, WaitOption::NoWait)
                }
                Cmd::Upgrade(k, ty, w) => t.upgrade(OwnerId(s as u32), &k, ty, w),
                Cmd::Downgrade(k, ty) => t.downgrade(OwnerId(s as u32), &k, ty),
                Cmd::Release(k) => t.release(OwnerId(s as u32), &k, None),
                Cmd::EndStatement => t.end_statement(OwnerId(s as u32)),
                Cmd::Commit => t.commit(OwnerId(s as u32)),
                Cmd::ReleaseExplicit => t.release_explicit(OwnerId(s as u32)),
                Cmd::Held => unreachable!(),
            };
            outstanding[s] = true;
            txs[s].send(c).unwrap();
            quiesce(&mut outstanding, &mut reports);
            mgr_out = match reports.iter().position(|x| x.0 == s) {
                Some(i) => reports.remove(i).1,
                None => Ok(Outcome::Waiting),
            };
        }
        let ctx = || format!("{} seed {seed} step {step}: {trace:#?}", d.name);
        assert_eq!(table_out, mgr_out, "step outcome; {}", ctx());
        let mgr_out = mgr_out.clone();
        REORDERS.fetch_add(
            t.take_reorders().len(),
            std::sync::atomic::Ordering::Relaxed,
        );
        let mut te: Vec<(usize, Outcome)> = t
            .take_events()
            .into_iter()
            .map(|(o, x)| (o.0 as usize, x))
            .collect();
        let mut me: Vec<(usize, Outcome)> = reports
            .into_iter()
            .map(|(o, x, _)| (o, x.expect("a wait ends with an outcome")))
            .collect();
        te.sort();
        me.sort();
        if let Ok(o) = mgr_out {
            *seen.entry(o).or_default() += 1;
        }
        for (_, o) in &me {
            *seen.entry(*o).or_default() += 1;
        }
        assert_eq!(te, me, "events; {}", ctx());
        assert_eq!(locks_in_table(&t), locks_in_manager(&m), "locks; {}", ctx());
        for i in 0..n {
            if outstanding[i] {
                continue;
            }
            txs[i].send(Cmd::Held).unwrap();
            let rep = rrx.recv().unwrap();
            assert_eq!(rep.0, i);
            assert_eq!(
                tickets(t.session(OwnerId(i as u32)).unwrap().book.held()),
                tickets(&rep.2.unwrap()),
                "session {i} tickets; {}",
                ctx()
            );
        }
    }
    // Unwind: kill every waiter, then stop the workers.
    for (i, h) in handles.iter().enumerate() {
        if outstanding[i] {
            h.kill();
        }
    }
    drop(txs);
    for j in joins {
        j.join().unwrap();
    }
}

#[test]
fn waits_agree_with_the_lock_table_mysql() {
    let d = Dialect::mysql80();
    let mut seen = Seen::new();
    for seed in 0..40 {
        run(&d, seed, 60, 3, Config::default(), &mut seen);
    }
    check_seen(&seen);
}

fn check_seen(seen: &Seen) {
    println!("outcomes seen: {seen:?}");
    for o in [
        Outcome::Waiting,
        Outcome::Deadlock,
        Outcome::Killed,
        Outcome::Granted,
        Outcome::Busy,
    ] {
        assert!(seen.get(&o).copied().unwrap_or(0) > 0, "no {o} in {seen:?}");
    }
}

#[test]
fn waits_agree_with_the_lock_table_mariadb() {
    let d = Dialect::mariadb();
    let mut seen = Seen::new();
    for seed in 0..40 {
        run(&d, seed, 60, 3, Config::default(), &mut seen);
    }
    check_seen(&seen);
}

#[test]
fn waits_agree_with_the_lock_table_max_write_lock_count_1() {
    let mut seen = Seen::new();
    for d in [Dialect::mysql80(), Dialect::mariadb()] {
        for seed in 500..530 {
            run(
                &d,
                seed,
                60,
                4,
                Config {
                    max_write_lock_count: 1,
                },
                &mut seen,
            );
        }
    }
    check_seen(&seen);
}

/// What a context holds, without the ticket ids: the table numbers tickets in one
/// sequence, the manager in blocks per context (both unique; neither is observable
/// through the commands these tests send).
fn tickets(h: &[mdl_core::book::Held]) -> Vec<(MdlKey, LockType, Duration, u32)> {
    h.iter()
        .map(|h| (h.key.clone(), h.ty, h.dur, h.seq))
        .collect()
}

/// Soft-edge resolution (`deadlock_resolution soft_edges`, issue 19): the manager's
/// reorderings, made under the validated cycle's latches, agree with the table's.
#[test]
fn waits_agree_with_the_lock_table_soft_edges() {
    let mut seen = Seen::new();
    for mut d in [Dialect::mysql80(), Dialect::mariadb()] {
        d.soft_edges = true;
        for seed in 700..740 {
            run(&d, seed, 60, 3, Config::default(), &mut seen);
        }
        for seed in 800..820 {
            run(
                &d,
                seed,
                60,
                4,
                Config {
                    max_write_lock_count: 1,
                },
                &mut seen,
            );
        }
    }
    check_seen(&seen);
    let n = REORDERS.load(std::sync::atomic::Ordering::Relaxed);
    println!("soft-edge reorderings: {n}");
    assert!(n > 0, "the random programs made no reordering");
}
