//! Shuttle smoke tests of the concurrent manager (random schedules, 3,000 each): the
//! LOCK TABLES deadlock, fast path against X, kill and timeout racing a grant, a kill
//! that must wake those it held back, reclamation next to fast grants. Under the
//! `shuttle` feature only (shuttle backs `mdl_core::sync` there):
//! `cargo test -p mdl-core --features shuttle --release --test manager_shuttle` (run by
//! `ci/proofs.sh`). With `MDL_BUG=NAME` for a seeded bug of the concurrent shell, some of
//! these fail: which ones is the registry's (`ci/registry/src/bugs.rs`), and
//! `ci/seeded-proofs.sh` (`MDL_SEEDED_HARNESS=shuttle|both`) checks it.
#![cfg(all(feature = "shuttle", not(loom)))]

use mdl_core::Config;
use mdl_core::{Clock, Dialect, Duration, LockType, Manager, MdlKey, Outcome, WaitOption};
use shuttle::thread;

const TX: Duration = Duration::Transaction;

fn setup() -> (Manager, MdlKey, MdlKey) {
    let m = Manager::new(Dialect::mysql80(), Config::default(), Clock::manual());
    let t1 = MdlKey::parse(m.dialect(), "TABLE", "db.t1").unwrap();
    let t2 = MdlKey::parse(m.dialect(), "TABLE", "db.t2").unwrap();
    (m, t1, t2)
}

#[test]
fn lock_tables_deadlock() {
    shuttle::check_random(
        || {
            let (m, t1, t2) = setup();
            let mut s1 = m.context();
            let mut s2 = m.context();
            assert_eq!(
                s1.acquire_outcome(&t1, LockType::SW, TX, WaitOption::NoWait),
                Ok(Outcome::Granted)
            );
            assert_eq!(
                s2.acquire_outcome(&t2, LockType::SNRW, TX, WaitOption::NoWait),
                Ok(Outcome::Granted)
            );
            let (a, b) = (t2.clone(), t1.clone());
            let j1 = thread::spawn(move || {
                let o = s1.acquire_outcome(&a, LockType::SW, TX, WaitOption::Forever);
                s1.commit();
                o
            });
            let j2 = thread::spawn(move || {
                let o = s2.acquire_outcome(&b, LockType::SNRW, TX, WaitOption::Forever);
                s2.commit();
                o
            });
            assert_eq!(j1.join().unwrap(), Ok(Outcome::Deadlock));
            assert_eq!(j2.join().unwrap(), Ok(Outcome::Granted));
            assert!(m.snapshot().is_empty());
        },
        3000,
    );
}

#[test]
fn fast_path_never_overlaps_x() {
    shuttle::check_random(
        || {
            let (m, t1, _) = setup();
            let mut js = Vec::new();
            for ty in [LockType::SR, LockType::SW, LockType::X] {
                let (m, k) = (m.clone(), t1.clone());
                js.push(thread::spawn(move || {
                    let mut c = m.context();
                    for _ in 0..2 {
                        let o = c.acquire_outcome(&k, ty, TX, WaitOption::Forever).unwrap();
                        assert_eq!(o, Outcome::Granted);
                        if ty == LockType::X {
                            let others = m
                                .snapshot()
                                .into_iter()
                                .filter(|r| r.granted && r.owner != c.id())
                                .count();
                            assert_eq!(others, 0, "X overlaps another grant");
                        }
                        c.commit();
                    }
                }));
            }
            for j in js {
                j.join().unwrap();
            }
            assert!(m.snapshot().is_empty());
        },
        3000,
    );
}

#[test]
fn kill_races_grant() {
    shuttle::check_random(
        || {
            let (m, t1, _) = setup();
            let mut a = m.context();
            a.acquire_outcome(&t1, LockType::X, TX, WaitOption::NoWait)
                .unwrap();
            let b = m.context();
            let hb = b.handle();
            let k = t1.clone();
            let jb = thread::spawn(move || {
                let mut b = b;
                let o = b.acquire_outcome(&k, LockType::SR, TX, WaitOption::Forever);
                b.commit();
                o
            });
            let jk = thread::spawn(move || {
                hb.kill();
            });
            let ja = thread::spawn(move || {
                a.commit();
            });
            ja.join().unwrap();
            jk.join().unwrap();
            let o = jb.join().unwrap().unwrap();
            assert!(matches!(o, Outcome::Granted | Outcome::Killed), "{o:?}");
            assert!(
                m.snapshot().is_empty(),
                "a grant nobody gives back: {:?}",
                m.snapshot()
            );
        },
        3000,
    );
}

#[test]
fn timeout_races_grant() {
    shuttle::check_random(
        || {
            let (m, t1, _) = setup();
            let mut a = m.context();
            a.acquire_outcome(&t1, LockType::X, TX, WaitOption::NoWait)
                .unwrap();
            let b = m.context();
            let k = t1.clone();
            let jb = thread::spawn(move || {
                let mut b = b;
                let o = b.acquire_outcome(&k, LockType::SR, TX, WaitOption::millis(5));
                b.commit();
                o
            });
            let m2 = m.clone();
            let jt = thread::spawn(move || m2.advance_clock(5));
            let ja = thread::spawn(move || a.commit());
            ja.join().unwrap();
            jt.join().unwrap();
            let o = jb.join().unwrap().unwrap();
            assert!(matches!(o, Outcome::Granted | Outcome::Timeout), "{o:?}");
            assert!(m.snapshot().is_empty());
        },
        3000,
    );
}

#[test]
fn pending_waiters_are_all_woken() {
    // X held; SR and SNW wait (SNW after SR); release X: both end granted eventually.
    shuttle::check_random(
        || {
            let (m, t1, _) = setup();
            let mut a = m.context();
            a.acquire_outcome(&t1, LockType::X, TX, WaitOption::NoWait)
                .unwrap();
            let mut js = Vec::new();
            for ty in [LockType::SR, LockType::SNW, LockType::SR] {
                let (m, k) = (m.clone(), t1.clone());
                js.push(thread::spawn(move || {
                    let mut c = m.context();
                    let o = c.acquire_outcome(&k, ty, TX, WaitOption::Forever);
                    c.commit();
                    o
                }));
            }
            let ja = thread::spawn(move || a.commit());
            ja.join().unwrap();
            for j in js {
                assert_eq!(j.join().unwrap(), Ok(Outcome::Granted));
            }
        },
        3000,
    );
}

#[test]
fn kill_wakes_those_it_held_back() {
    shuttle::check_random(
        || {
            let (m, t1, _) = setup();
            let mut a = m.context();
            a.acquire_outcome(&t1, LockType::SR, TX, WaitOption::NoWait)
                .unwrap();
            let b = m.context();
            let hb = b.handle();
            let k = t1.clone();
            let jb = thread::spawn(move || {
                let mut b = b;
                b.acquire_outcome(&k, LockType::X, TX, WaitOption::Forever)
            });
            let k = t1.clone();
            let m2 = m.clone();
            let jc = thread::spawn(move || {
                let mut c = m2.context();
                c.acquire_outcome(&k, LockType::SR, TX, WaitOption::Forever)
            });
            while !hb.kill() {
                thread::yield_now();
            }
            assert_eq!(jc.join().unwrap(), Ok(Outcome::Granted));
            assert_eq!(jb.join().unwrap(), Ok(Outcome::Killed));
            a.commit();
        },
        3000,
    );
}

#[test]
fn reclamation_spares_fast_grants() {
    // s0 holds a fast-path SR on t1 while one thread churns other keys (sweeps) and
    // another takes and drops SR on t1 (last release against new acquire). Then X on t1
    // must still find s0's grant.
    shuttle::check_random(
        || {
            let (m, t1, _) = setup();
            let mut a = m.context();
            a.acquire_outcome(&t1, LockType::SR, TX, WaitOption::NoWait)
                .unwrap();
            let m2 = m.clone();
            let churn = thread::spawn(move || {
                let mut c = m2.context();
                for i in 0..8 {
                    let k = MdlKey::parse(m2.dialect(), "TABLE", &format!("db.c{i}")).unwrap();
                    c.acquire_outcome(&k, LockType::X, TX, WaitOption::NoWait)
                        .unwrap();
                    c.commit();
                }
            });
            let m3 = m.clone();
            let k = t1.clone();
            let reader = thread::spawn(move || {
                let mut c = m3.context();
                for _ in 0..3 {
                    let o = c
                        .acquire_outcome(&k, LockType::SR, TX, WaitOption::NoWait)
                        .unwrap();
                    assert_eq!(o, Outcome::Granted);
                    c.commit();
                }
            });
            churn.join().unwrap();
            reader.join().unwrap();
            let mut c = m.context();
            let o = c
                .acquire_outcome(&t1, LockType::X, TX, WaitOption::NoWait)
                .unwrap();
            assert_eq!(o, Outcome::Busy, "X granted over a held SR");
            a.commit();
            assert_eq!(
                c.acquire_outcome(&t1, LockType::X, TX, WaitOption::NoWait),
                Ok(Outcome::Granted)
            );
        },
        3000,
    );
}
