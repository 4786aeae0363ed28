//! The concurrent manager with plain threads. No sleeps: the manual clock times waits,
//! and `ContextHandle::is_waiting` (polled with `yield_now`) tells when a thread parked.
#![cfg(not(any(loom, feature = "shuttle")))]

use mdl_core::deadlock::ForeignWaits;
use mdl_core::{BulkReq, Config};
use mdl_core::{
    Clock, Context, ContextHandle, Dialect, Duration, LockType, Manager, MdlError, MdlKey, Outcome,
    OwnerId, WaitOption,
};
use std::collections::HashMap;
use std::sync::Mutex as StdMutex;
use std::thread::{self, JoinHandle};

const TX: Duration = Duration::Transaction;
const NOWAIT: WaitOption = WaitOption::NoWait;
const FOREVER: WaitOption = WaitOption::Forever;

fn mysql() -> Manager {
    Manager::new(Dialect::mysql80(), Config::default(), Clock::manual())
}

fn key(m: &Manager, ns: &str, k: &str) -> MdlKey {
    MdlKey::parse(m.dialect(), ns, k).unwrap()
}

fn t(m: &Manager, name: &str) -> MdlKey {
    key(m, "TABLE", &format!("db.{name}"))
}

/// Spins (yielding) until `h` is parked in an undecided wait.
fn parked(h: &ContextHandle) {
    for _ in 0..50_000_000u64 {
        if h.is_waiting() {
            return;
        }
        thread::yield_now();
    }
    panic!("context {:?} never parked", h.id());
}

/// Runs `f` on `cx` in a new thread; returns the context's handle and the join handle.
fn spawn<R: Send + 'static>(
    mut cx: Context,
    f: impl FnOnce(&mut Context) -> R + Send + 'static,
) -> (ContextHandle, JoinHandle<(R, Context)>) {
    let h = cx.handle();
    let j = thread::spawn(move || {
        let r = f(&mut cx);
        (r, cx)
    });
    (h, j)
}

fn held_types(cx: &Context, k: &MdlKey) -> Vec<LockType> {
    cx.held()
        .iter()
        .filter(|h| &h.key == k)
        .map(|h| h.ty)
        .collect()
}

#[test]
fn grant_wait_busy_timeout0_and_grant_after_release() {
    let m = mysql();
    let k = t(&m, "t1");
    let mut s1 = m.context();
    let s2 = m.context();
    assert_eq!((s1.id(), s2.id()), (OwnerId(0), OwnerId(1)));
    assert_eq!(
        s1.acquire_outcome(&k, LockType::X, TX, NOWAIT),
        Ok(Outcome::Granted)
    );
    let mut s2 = s2;
    assert_eq!(
        s2.acquire_outcome(&k, LockType::SR, TX, NOWAIT),
        Ok(Outcome::Busy)
    );
    assert_eq!(
        s2.acquire_outcome(&k, LockType::SR, TX, WaitOption::millis(0)),
        Ok(Outcome::Timeout)
    );
    assert!(s2.held().is_empty());
    let (h2, j2) = spawn(s2, move |cx| {
        cx.acquire_outcome(&k, LockType::SR, TX, FOREVER)
    });
    parked(&h2);
    assert_eq!(m.lock_waits().len(), 1);
    s1.commit();
    let (out, s2) = j2.join().unwrap();
    assert_eq!(out, Ok(Outcome::Granted));
    assert_eq!(held_types(&s2, &t(&m, "t1")), vec![LockType::SR]);
    assert!(m.lock_waits().is_empty());
}

#[test]
fn timeout_by_advancing_the_manual_clock() {
    let m = mysql();
    let k = t(&m, "t1");
    let mut s1 = m.context();
    s1.acquire_outcome(&k, LockType::X, TX, NOWAIT).unwrap();
    let k2 = k.clone();
    let (h2, j2) = spawn(m.context(), move |cx| {
        cx.acquire_outcome(&k2, LockType::SW, TX, WaitOption::millis(100))
    });
    parked(&h2);
    m.advance_clock(99);
    assert!(h2.is_waiting(), "not yet expired");
    m.advance_clock(1);
    let (out, s2) = j2.join().unwrap();
    assert_eq!(out, Ok(Outcome::Timeout));
    assert!(s2.held().is_empty());
    assert!(!h2.is_waiting());
    // The waiter's ticket is gone: only s1's X remains.
    let snap = m.snapshot();
    assert_eq!(snap.len(), 1);
    assert_eq!((snap[0].owner, snap[0].ty), (OwnerId(0), LockType::X));
}

#[test]
fn system_clock_timeout() {
    let m = Manager::new(Dialect::mysql80(), Config::default(), Clock::System);
    let k = t(&m, "t1");
    let mut s1 = m.context();
    s1.acquire_outcome(&k, LockType::X, TX, NOWAIT).unwrap();
    let mut s2 = m.context();
    assert_eq!(
        s2.acquire_outcome(&k, LockType::SR, TX, WaitOption::millis(2)),
        Ok(Outcome::Timeout)
    );
}

#[test]
fn kill_ends_only_a_pending_wait() {
    let m = mysql();
    let k = t(&m, "t1");
    let mut s1 = m.context();
    s1.acquire_outcome(&k, LockType::SNRW, TX, NOWAIT).unwrap();
    let s2 = m.context();
    assert!(!s2.handle().kill(), "not waiting");
    let k2 = k.clone();
    let (h2, j2) = spawn(s2, move |cx| {
        cx.acquire_outcome(&k2, LockType::SR, TX, FOREVER)
    });
    parked(&h2);
    assert!(h2.kill());
    assert!(!h2.kill(), "already decided");
    let (out, mut s2) = j2.join().unwrap();
    assert_eq!(out, Ok(Outcome::Killed));
    s1.commit();
    assert_eq!(
        s2.acquire_outcome(&k, LockType::SR, TX, NOWAIT),
        Ok(Outcome::Granted)
    );
}

#[test]
fn pending_x_holds_back_sr_and_sw_but_not_sh() {
    let m = mysql();
    let k = t(&m, "t1");
    let mut s1 = m.context();
    s1.acquire_outcome(&k, LockType::SR, TX, NOWAIT).unwrap();
    let k2 = k.clone();
    let (h2, j2) = spawn(m.context(), move |cx| {
        cx.acquire_outcome(&k2, LockType::X, TX, FOREVER)
    });
    parked(&h2);
    let mut s3 = m.context();
    assert_eq!(
        s3.acquire_outcome(&k, LockType::SR, TX, NOWAIT),
        Ok(Outcome::Busy)
    );
    assert_eq!(
        s3.acquire_outcome(&k, LockType::SW, TX, NOWAIT),
        Ok(Outcome::Busy)
    );
    assert_eq!(
        s3.acquire_outcome(&k, LockType::SH, TX, NOWAIT),
        Ok(Outcome::Granted)
    );
    // X waits for s1 (SR) and s3 (SH).
    let mut w: Vec<(OwnerId, LockType, bool)> = m
        .lock_waits()
        .iter()
        .map(|w| (w.blocker, w.blocking_type, w.blocker_granted))
        .collect();
    w.sort();
    assert_eq!(
        w,
        vec![
            (OwnerId(0), LockType::SR, true),
            (OwnerId(2), LockType::SH, true)
        ]
    );
    s1.commit();
    assert!(h2.is_waiting());
    s3.commit();
    let (out, _s2) = j2.join().unwrap();
    assert_eq!(out, Ok(Outcome::Granted));
}

#[test]
fn lock_tables_deadlock() {
    let m = mysql();
    let (t1, t2) = (t(&m, "t1"), t(&m, "t2"));
    let mut s1 = m.context();
    let mut s2 = m.context();
    assert_eq!(
        s1.acquire_outcome(&t1, LockType::SW, TX, NOWAIT),
        Ok(Outcome::Granted)
    );
    assert_eq!(
        s2.acquire_outcome(&t2, LockType::SNRW, TX, NOWAIT),
        Ok(Outcome::Granted)
    );
    let k = t2.clone();
    let (h1, j1) = spawn(s1, move |cx| {
        cx.acquire_outcome(&k, LockType::SW, TX, FOREVER)
    });
    parked(&h1);
    let k = t1.clone();
    let (h2, j2) = spawn(s2, move |cx| {
        cx.acquire_outcome(&k, LockType::SNRW, TX, FOREVER)
    });
    // s1 (DML, weight 25) is the victim; s2 (DDL, 100) goes on waiting for s1's SW.
    let (out1, mut s1) = j1.join().unwrap();
    assert_eq!(out1, Ok(Outcome::Deadlock));
    parked(&h2);
    assert_eq!(
        held_types(&s1, &t1),
        vec![LockType::SW],
        "the victim keeps its locks"
    );
    assert_eq!(m.wait_edges(), vec![(OwnerId(1), OwnerId(0))]);
    assert!(m.wait_for_graph_dot().contains("s1 -> s0"));
    s1.commit();
    let (out2, s2) = j2.join().unwrap();
    assert_eq!(out2, Ok(Outcome::Granted));
    assert_eq!(held_types(&s2, &t1), vec![LockType::SNRW]);
}

/// Soft-edge resolution on the manager (issue 19, MySQL #82204): the transaction's SW,
/// held back only by the pending SNRW that waits for its own SR, is moved ahead of it
/// instead of being the victim; the SNRW is granted at the commit.
#[test]
fn soft_edges_let_the_reader_write_ahead_of_a_pending_lock_tables() {
    let mut d = Dialect::mysql80();
    d.soft_edges = true;
    let m = Manager::new(d, Config::default(), Clock::manual());
    let t1 = t(&m, "t1");
    let mut s1 = m.context();
    let s2 = m.context();
    assert_eq!(
        s1.acquire_outcome(&t1, LockType::SR, TX, NOWAIT),
        Ok(Outcome::Granted)
    );
    let k = t1.clone();
    let (h2, j2) = spawn(s2, move |cx| {
        cx.acquire_outcome(&k, LockType::SNRW, TX, FOREVER)
    });
    parked(&h2);
    assert_eq!(
        s1.acquire_outcome(&t1, LockType::SW, TX, FOREVER),
        Ok(Outcome::Granted),
        "no victim: the SW goes ahead of the pending SNRW"
    );
    assert_eq!(held_types(&s1, &t1), vec![LockType::SR, LockType::SW]);
    assert_eq!(m.wait_edges(), vec![(OwnerId(1), OwnerId(0))]);
    s1.commit();
    let (out2, s2) = j2.join().unwrap();
    assert_eq!(out2, Ok(Outcome::Granted));
    assert_eq!(held_types(&s2, &t1), vec![LockType::SNRW]);
}

#[test]
fn ring_of_200_has_exactly_one_victim() {
    let m = mysql();
    let n = 200usize;
    let keys: Vec<MdlKey> = (0..n).map(|i| t(&m, &format!("r{i}"))).collect();
    let mut cxs: Vec<Context> = (0..n).map(|_| m.context()).collect();
    for (cx, k) in cxs.iter_mut().zip(&keys) {
        assert_eq!(
            cx.acquire_outcome(k, LockType::X, TX, NOWAIT),
            Ok(Outcome::Granted)
        );
    }
    let mut joins = Vec::new();
    for (i, cx) in cxs.into_iter().enumerate() {
        let k = keys[(i + 1) % n].clone();
        joins.push(spawn(cx, move |cx| {
            let out = cx.acquire_outcome(&k, LockType::X, TX, FOREVER);
            cx.commit();
            out
        }));
    }
    let outs: Vec<Outcome> = joins
        .into_iter()
        .map(|(_, j)| j.join().unwrap().0.unwrap())
        .collect();
    assert_eq!(outs.iter().filter(|o| **o == Outcome::Deadlock).count(), 1);
    assert_eq!(
        outs.iter().filter(|o| **o == Outcome::Granted).count(),
        n - 1
    );
}

#[test]
fn fast_path_grants_are_materialised_by_an_obtrusive_request() {
    let m = mysql();
    let k = t(&m, "t1");
    let mut s1 = m.context();
    let mut s2 = m.context();
    s1.acquire_outcome(&k, LockType::SR, TX, NOWAIT).unwrap();
    s2.acquire_outcome(&k, LockType::SW, Duration::Statement, NOWAIT)
        .unwrap();
    let snap = m.snapshot();
    assert_eq!(snap.len(), 2);
    assert!(snap.iter().all(|r| r.fast_path && r.granted));
    assert_eq!(snap[1].duration, Some(Duration::Statement));
    let mut s3 = m.context();
    assert_eq!(
        s3.acquire_outcome(&k, LockType::X, TX, NOWAIT),
        Ok(Outcome::Busy)
    );
    let snap = m.snapshot();
    assert_eq!(snap.len(), 2);
    assert!(snap.iter().all(|r| !r.fast_path && r.granted), "{snap:?}");
    let k3 = k.clone();
    let (h3, j3) = spawn(s3, move |cx| {
        cx.acquire_outcome(&k3, LockType::X, TX, FOREVER)
    });
    parked(&h3);
    let mut blockers: Vec<OwnerId> = m.lock_waits().iter().map(|w| w.blocker).collect();
    blockers.sort();
    assert_eq!(blockers, vec![OwnerId(0), OwnerId(1)]);
    let snap = m.snapshot();
    assert_eq!(snap.iter().filter(|r| !r.granted).count(), 1);
    assert_eq!(snap.iter().find(|r| !r.granted).unwrap().duration, None);
    m.advance_clock(7);
    assert_eq!(m.lock_waits()[0].waited_ms, 7);
    s1.commit();
    s2.end_statement();
    let (out, mut s3) = j3.join().unwrap();
    assert_eq!(out, Ok(Outcome::Granted));
    let snap = m.snapshot();
    assert_eq!(snap.len(), 1);
    assert_eq!((snap[0].ty, snap[0].waited_ms), (LockType::X, 7));
    s3.commit();
    // Nothing obtrusive is left: the fast path is open again.
    s1.acquire_outcome(&k, LockType::SR, TX, NOWAIT).unwrap();
    assert!(m.snapshot()[0].fast_path);
}

#[test]
fn upgrade_waits_then_takes_the_new_type() {
    let m = mysql();
    let k = t(&m, "t1");
    let mut s1 = m.context();
    let mut s2 = m.context();
    s1.acquire_outcome(&k, LockType::SU, TX, NOWAIT).unwrap();
    s2.acquire_outcome(&k, LockType::SR, TX, NOWAIT).unwrap();
    assert_eq!(
        s1.upgrade_outcome(&k, LockType::SR, NOWAIT),
        Ok(Outcome::Granted),
        "covered: no-op"
    );
    assert!(matches!(
        s1.upgrade_outcome(&k, LockType::S, NOWAIT),
        Ok(Outcome::Granted) | Err(MdlError::UpgradeToWeaker { .. })
    ));
    assert_eq!(
        s1.upgrade_outcome(&k, LockType::X, NOWAIT),
        Ok(Outcome::Busy)
    );
    assert_eq!(held_types(&s1, &k), vec![LockType::SU]);
    let k1 = k.clone();
    let (h1, j1) = spawn(s1, move |cx| cx.upgrade_outcome(&k1, LockType::X, FOREVER));
    parked(&h1);
    s2.commit();
    let (out, s1) = j1.join().unwrap();
    assert_eq!(out, Ok(Outcome::Granted));
    assert_eq!(held_types(&s1, &k), vec![LockType::X]);
    let snap = m.snapshot();
    assert_eq!(
        snap.len(),
        1,
        "the upgrade ticket is folded into the old one"
    );
    assert_eq!(snap[0].ty, LockType::X);
    assert_eq!(
        s2.acquire_outcome(&k, LockType::SH, TX, NOWAIT),
        Ok(Outcome::Busy)
    );
}

#[test]
fn downgrade_wakes_waiters() {
    let m = mysql();
    let k = t(&m, "t1");
    let mut s1 = m.context();
    s1.acquire_outcome(&k, LockType::X, TX, NOWAIT).unwrap();
    let k2 = k.clone();
    let (h2, j2) = spawn(m.context(), move |cx| {
        cx.acquire_outcome(&k2, LockType::SR, TX, FOREVER)
    });
    parked(&h2);
    // MDL_ticket::downgrade_lock: "Do nothing if already downgraded".
    assert_eq!(s1.downgrade(&k, LockType::X), Ok(()));
    assert!(h2.is_waiting());
    s1.downgrade(&k, LockType::SNW).unwrap();
    let (out, _s2) = j2.join().unwrap();
    assert_eq!(out, Ok(Outcome::Granted));
    assert_eq!(held_types(&s1, &k), vec![LockType::SNW]);
}

#[test]
fn savepoints_and_misuse_change_nothing() {
    let m = mysql();
    let (a, b, c) = (t(&m, "a"), t(&m, "b"), t(&m, "c"));
    let mut s = m.context();
    s.acquire_outcome(&a, LockType::SR, TX, NOWAIT).unwrap();
    s.savepoint("sp");
    s.acquire_outcome(&b, LockType::SW, TX, NOWAIT).unwrap();
    s.acquire_outcome(&c, LockType::S, Duration::Explicit, NOWAIT)
        .unwrap();
    let before = s.held().to_vec();
    assert_eq!(
        s.rollback_to("nope"),
        Err(MdlError::UnknownSavepoint("nope".into()))
    );
    assert_eq!(s.release(&t(&m, "zz"), None), Err(MdlError::NotHeld));
    let g = key(&m, "GLOBAL", "-");
    assert!(matches!(
        s.acquire_outcome(&g, LockType::SR, TX, NOWAIT),
        Err(MdlError::TypeNotInNamespace { .. })
    ));
    assert_eq!(
        s.acquire_all_outcome(&[], TX, NOWAIT),
        Err(MdlError::EmptyBulk)
    );
    assert!(matches!(
        s.acquire_all_outcome(
            &[
                BulkReq {
                    key: a.clone(),
                    ty: LockType::X
                },
                BulkReq {
                    key: g.clone(),
                    ty: LockType::SR
                }
            ],
            TX,
            NOWAIT
        ),
        Err(MdlError::TypeNotInNamespace { .. })
    ));
    assert_eq!(s.held(), &before[..]);
    s.rollback_to("sp").unwrap();
    let keys: Vec<&MdlKey> = s.held().iter().map(|h| &h.key).collect();
    assert_eq!(keys, vec![&a, &c], "b goes; explicit c stays");
    assert_eq!(m.snapshot().len(), 2);
    s.commit();
    assert_eq!(held_types(&s, &c), vec![LockType::S]);
    s.release_explicit();
    assert!(s.held().is_empty());
    assert!(m.snapshot().is_empty());
}

#[test]
fn bulk_is_all_or_nothing() {
    let m = mysql();
    let (a, b) = (t(&m, "a"), t(&m, "b"));
    let mut s1 = m.context();
    s1.acquire_outcome(&b, LockType::SR, TX, NOWAIT).unwrap();
    let mut s2 = m.context();
    let reqs = [
        BulkReq {
            key: b.clone(),
            ty: LockType::X,
        },
        BulkReq {
            key: a.clone(),
            ty: LockType::X,
        },
    ];
    assert_eq!(s2.acquire_all_outcome(&reqs, TX, NOWAIT), Ok(Outcome::Busy));
    assert!(s2.held().is_empty(), "a was taken then given back");
    let (h2, j2) = spawn(s2, move |cx| cx.acquire_all_outcome(&reqs, TX, FOREVER));
    parked(&h2);
    s1.commit();
    let (out, s2) = j2.join().unwrap();
    assert_eq!(out, Ok(Outcome::Granted));
    assert_eq!(s2.held().len(), 2);
    assert_eq!(s2.held()[0].key, a, "key order");
}

#[test]
fn dropping_a_context_releases_and_wakes() {
    let m = mysql();
    let k = t(&m, "t1");
    let mut s1 = m.context();
    s1.acquire_outcome(&k, LockType::X, Duration::Explicit, NOWAIT)
        .unwrap();
    let k2 = k.clone();
    let (h2, j2) = spawn(m.context(), move |cx| {
        cx.acquire_outcome(&k2, LockType::X, TX, FOREVER)
    });
    parked(&h2);
    drop(s1);
    let (out, _s2) = j2.join().unwrap();
    assert_eq!(out, Ok(Outcome::Granted));
}

/// With more tickets held than the book scans, `owns_equal_or_stronger` answers by the
/// pins for a key not held and by the book for one held (its filter built on demand).
#[test]
fn owns_in_a_big_round() {
    let m = mysql();
    let keys: Vec<_> = (0..20).map(|i| t(&m, &format!("big{i}"))).collect();
    let other = t(&m, "not_taken");
    let mut s = m.context();
    for k in &keys {
        s.acquire_outcome(k, LockType::SR, TX, NOWAIT).unwrap();
    }
    assert!(s.owns_equal_or_stronger(&keys[5], LockType::SR));
    assert!(!s.owns_equal_or_stronger(&keys[5], LockType::X));
    assert!(!s.owns_equal_or_stronger(&other, LockType::SR));
    // A held key asked again is reused (no second ticket); a new one is added.
    s.acquire_outcome(&keys[5], LockType::SR, TX, NOWAIT)
        .unwrap();
    assert_eq!(s.held().len(), 20);
    s.acquire_outcome(&other, LockType::SR, TX, NOWAIT).unwrap();
    assert!(s.owns_equal_or_stronger(&other, LockType::SR));
    s.commit();
    assert!(!s.owns_equal_or_stronger(&keys[5], LockType::SR));
    assert!(s.held().is_empty());
}

#[test]
fn clone_and_durations() {
    let m = mysql();
    let k = t(&m, "t1");
    let mut s = m.context();
    s.acquire_outcome(&k, LockType::SNW, Duration::Statement, NOWAIT)
        .unwrap();
    let id = s.clone_ticket(&k, None, Duration::Explicit).unwrap();
    assert!(matches!(
        s.clone_ticket(&k, Some(LockType::X), TX),
        Err(MdlError::CloneStronger { .. })
    ));
    s.end_statement();
    assert_eq!(held_types(&s, &k), vec![LockType::SNW]);
    assert!(s.owns_equal_or_stronger(&k, LockType::SR));
    assert!(!s.owns_equal_or_stronger(&k, LockType::X));
    s.set_ticket_duration(id, TX).unwrap();
    assert_eq!(m.snapshot()[0].duration, Some(TX));
    s.commit();
    assert!(s.held().is_empty());
    assert_eq!(
        s.set_ticket_duration(id, TX),
        Err(MdlError::NotHeld),
        "released"
    );
}

/// A foreign subsystem whose waits are set by the test.
#[derive(Default)]
struct Foreign {
    waits: StdMutex<HashMap<OwnerId, (Vec<OwnerId>, u32)>>,
    aborted: StdMutex<Vec<OwnerId>>,
}

impl ForeignWaits for Foreign {
    fn waits_for(&self, waiter: OwnerId, out: &mut Vec<OwnerId>) {
        if let Some((v, _)) = self.waits.lock().unwrap().get(&waiter) {
            out.extend(v.iter().copied());
        }
    }
    fn weight(&self, waiter: OwnerId) -> Option<u32> {
        self.waits.lock().unwrap().get(&waiter).map(|x| x.1)
    }
    fn abort_wait(&self, waiter: OwnerId) -> bool {
        self.aborted.lock().unwrap().push(waiter);
        self.waits.lock().unwrap().remove(&waiter).is_some()
    }
}

#[test]
fn foreign_waits_join_the_graph() {
    for (foreign_weight, foreign_is_victim) in [(10, true), (1000, false)] {
        let m = mysql();
        let f = std::sync::Arc::new(Foreign::default());
        m.set_foreign_waits(f.clone());
        let (t1, t2) = (t(&m, "t1"), t(&m, "t2"));
        let mut s0 = m.context();
        let mut s1 = m.context();
        s0.acquire_outcome(&t1, LockType::X, TX, NOWAIT).unwrap();
        s1.acquire_outcome(&t2, LockType::X, TX, NOWAIT).unwrap();
        let k = t2.clone();
        let (h0, j0) = spawn(s0, move |cx| {
            cx.acquire_outcome(&k, LockType::X, TX, FOREVER)
        });
        parked(&h0);
        // s1 starts to wait for s0 in the foreign subsystem: a cycle through both.
        f.waits
            .lock()
            .unwrap()
            .insert(OwnerId(1), (vec![OwnerId(0)], foreign_weight));
        assert_eq!(
            m.wait_edges(),
            vec![(OwnerId(0), OwnerId(1)), (OwnerId(1), OwnerId(0))]
        );
        assert_eq!(m.detect_from(OwnerId(1)), foreign_is_victim);
        if foreign_is_victim {
            assert!(h0.is_waiting());
            assert!(
                f.aborted.lock().unwrap().is_empty(),
                "the requester is told by the result"
            );
            f.waits.lock().unwrap().remove(&OwnerId(1));
            s1.commit();
            assert_eq!(j0.join().unwrap().0, Ok(Outcome::Granted));
        } else {
            assert_eq!(j0.join().unwrap().0, Ok(Outcome::Deadlock));
            assert!(f.aborted.lock().unwrap().is_empty());
        }
    }
}

/// Locks and releases `n` distinct keys; the map stays small.
fn churn(n: usize) {
    let m = mysql();
    let mut s = m.context();
    let mut max = 0;
    for i in 0..n {
        let k = t(&m, &format!("k{i}"));
        let ty = if i % 2 == 0 {
            LockType::SR
        } else {
            LockType::X
        };
        assert_eq!(s.acquire_outcome(&k, ty, TX, NOWAIT), Ok(Outcome::Granted));
        s.commit();
        if i % 1024 == 0 {
            max = max.max(m.lock_object_count());
        }
    }
    max = max.max(m.lock_object_count());
    // At most 64 shards x (64 + 1) entries between sweeps.
    assert!(max <= 64 * 65, "{max} lock objects kept");
}

#[test]
fn reclamation_keeps_memory_flat_100k() {
    churn(100_000);
}

/// About 10 s in a debug build; run with `--ignored` (or in release).
#[test]
#[ignore]
fn reclamation_keeps_memory_flat_1m() {
    churn(1_000_000);
}

#[test]
fn last_release_races_new_acquire_on_one_key() {
    // Two threads take and drop the same key over and over (while a third churns other
    // keys to force sweeps); an X grant never overlaps another grant.
    use std::sync::atomic::{AtomicU32, Ordering::SeqCst};
    let m = mysql();
    let k = t(&m, "hot");
    let counts = std::sync::Arc::new((AtomicU32::new(0), AtomicU32::new(0)));
    let mut joins = Vec::new();
    for me in 0..2 {
        let (m, k, c) = (m.clone(), k.clone(), counts.clone());
        joins.push(thread::spawn(move || {
            let mut s = m.context();
            for i in 0..3000 {
                let ty = if (i + me) % 3 == 0 {
                    LockType::X
                } else {
                    LockType::SR
                };
                if s.acquire_outcome(&k, ty, TX, NOWAIT) == Ok(Outcome::Granted) {
                    let (readers, writers) = (&c.0, &c.1);
                    if ty == LockType::X {
                        assert_eq!(writers.fetch_add(1, SeqCst), 0);
                        assert_eq!(readers.load(SeqCst), 0);
                        writers.fetch_sub(1, SeqCst);
                    } else {
                        readers.fetch_add(1, SeqCst);
                        assert_eq!(writers.load(SeqCst), 0);
                        readers.fetch_sub(1, SeqCst);
                    }
                }
                s.commit();
            }
        }));
    }
    {
        let m = m.clone();
        joins.push(thread::spawn(move || {
            let mut s = m.context();
            for i in 0..20_000 {
                let k = t(&m, &format!("c{i}"));
                s.acquire_outcome(&k, LockType::X, TX, NOWAIT).unwrap();
                s.commit();
            }
        }));
    }
    for j in joins {
        j.join().unwrap();
    }
    assert!(m.snapshot().is_empty());
}

/// A context keeps the lock objects of its last round pinned (a cache of lookups: at
/// least 64, at most what its last round used); a smaller round drops the surplus, and a
/// dropped context drops them all. Pinned objects are not reclaimed; unpinned idle ones
/// are.
#[test]
fn idle_pins_follow_the_last_round_and_go_with_the_context() {
    let m = mysql();
    let mut s = m.context();
    let keys: Vec<MdlKey> = (0..200).map(|i| t(&m, &format!("p{i}"))).collect();
    for k in &keys {
        assert_eq!(
            s.acquire_outcome(k, LockType::SR, TX, NOWAIT),
            Ok(Outcome::Granted)
        );
    }
    s.commit();
    m.reclaim();
    // The first round ran with the default cap: 64 idle pins kept.
    assert_eq!(m.lock_object_count(), 64);
    for k in &keys {
        assert_eq!(
            s.acquire_outcome(k, LockType::SR, TX, NOWAIT),
            Ok(Outcome::Granted)
        );
    }
    s.commit();
    m.reclaim();
    // The first round used 200 pins: all 200 stay, ready for the same transaction.
    assert_eq!(m.lock_object_count(), 200);
    // A round of one lock: the cap falls back to 64 and the surplus goes.
    assert_eq!(
        s.acquire_outcome(&keys[0], LockType::SW, TX, NOWAIT),
        Ok(Outcome::Granted)
    );
    s.commit();
    m.reclaim();
    assert!(m.lock_object_count() <= 64, "{}", m.lock_object_count());
    // An obtrusive lock on a key another context has pinned (idle) is still decided on
    // the one object of that key.
    let mut o = m.context();
    assert_eq!(
        o.acquire_outcome(&keys[1], LockType::X, TX, NOWAIT),
        Ok(Outcome::Granted)
    );
    assert_eq!(
        s.acquire_outcome(&keys[1], LockType::SR, TX, NOWAIT),
        Ok(Outcome::Busy)
    );
    o.commit();
    assert_eq!(
        s.acquire_outcome(&keys[1], LockType::SR, TX, NOWAIT),
        Ok(Outcome::Granted)
    );
    s.commit();
    m.check_invariants().unwrap();
    drop(s);
    drop(o);
    m.reclaim();
    assert_eq!(m.lock_object_count(), 0);
}
