//! Tests written to kill mutants of `table.rs` (the sequential lock table) that
//! cargo-mutants found surviving (see `ci/mutants/REPORT.md`): the victim that is not the
//! requester, foreign waits, upgrades that may not wait, sessions that may take no step,
//! durations, and the symmetry permutation. Expected outcomes are derived in the comments
//! from the reference rules (`shared/reference/README.md`) and the dialect tables
//! (`mdl-core/dialects/`).

use mdl_core::dialect::Dialect;
use mdl_core::table::{BulkReq, Config, LockTable};
use mdl_core::{Duration, LockType, MdlError, MdlKey, Outcome, OwnerId, WaitOption};

const T: Duration = Duration::Transaction;
const F: WaitOption = WaitOption::Forever;
const S: LockType = LockType::S;
const SR: LockType = LockType::SR;
const SW: LockType = LockType::SW;
const SU: LockType = LockType::SU;
const SNRW: LockType = LockType::SNRW;
const X: LockType = LockType::X;

fn key(d: &Dialect, k: &str) -> MdlKey {
    MdlKey::parse(d, "TABLE", k).unwrap()
}

fn victims(t: &LockTable, s: OwnerId) -> u32 {
    t.session(s).unwrap().victim_count
}

#[test]
fn a_lighter_victim_lets_the_requester_in() {
    // mysql-8.0. A holds S on t1. B, with force_dml_weight, waits for X (X conflicts with
    // S). A then asks for SU on t1: S does not cover SU, and SU yields to a pending X
    // (object pending matrix 0, SU row, X column `-`): A waits for B, B for A. Weights
    // (reference): A's SU is DDL (SU or stronger) = 100, B's X forced to DML = 25: the
    // victim is B, the lighter one, not the requester. B's X leaves the queue; A's SU now
    // only meets A's own S: granted. That is A's step outcome, and B's deadlock is the
    // only event.
    let d = Dialect::mysql80();
    let mut t = LockTable::new(std::sync::Arc::new(d.clone()), Config::default());
    let (a, b) = (t.add_session(), t.add_session());
    assert_eq!((a, b), (OwnerId(0), OwnerId(1)));
    let t1 = key(&d, "db.t1");
    assert_eq!(t.acquire(a, &t1, S, T, F), Ok(Outcome::Granted));
    assert_eq!(t.force_dml_weight(b, true), Ok(Outcome::Ok));
    assert_eq!(t.acquire(b, &t1, X, T, F), Ok(Outcome::Waiting));
    assert!(t.is_waiting(b));
    assert_eq!(t.wait_weight(b), 25);
    assert_eq!(t.wait_edges(), vec![(b, a)]);
    assert_eq!(t.acquire(a, &t1, SU, T, F), Ok(Outcome::Granted));
    assert_eq!(t.take_events(), vec![(b, Outcome::Deadlock)]);
    assert!(!t.is_waiting(a) && !t.is_waiting(b));
    assert!(t.owns_equal_or_stronger(a, &t1, SU));
    assert!(!t.owns_equal_or_stronger(b, &t1, S));
    assert_eq!((victims(&t, a), victims(&t, b)), (0, 1));
    assert!(t.wait_edges().is_empty());
    t.check().unwrap();
}

#[test]
fn mariadb_victims_weigh_one_more_each_time() {
    // mariadb: DML 1, DDL 100, plus 1 for each time the session was already a victim.
    // A holds SW on t1 (DML), B holds SNRW on t2 (DDL). B waits for SNRW on t1 (conflicts
    // with SW), A for SW on t2 (conflicts with SNRW): A (1) < B (100), A is the victim.
    let d = Dialect::mariadb();
    let mut t = LockTable::new(std::sync::Arc::new(d.clone()), Config::default());
    let (a, b, c) = (t.add_session(), t.add_session(), t.add_session());
    let (t1, t2, t3) = (key(&d, "db.t1"), key(&d, "db.t2"), key(&d, "db.t3"));
    assert_eq!(t.acquire(a, &t1, SW, T, F), Ok(Outcome::Granted));
    assert_eq!(t.acquire(b, &t2, SNRW, T, F), Ok(Outcome::Granted));
    assert_eq!(t.acquire(b, &t1, SNRW, T, F), Ok(Outcome::Waiting));
    assert_eq!(t.wait_weight(b), 100);
    assert_eq!(t.acquire(a, &t2, SW, T, F), Ok(Outcome::Deadlock));
    assert_eq!(victims(&t, a), 1);
    // A's next wait (SR on t3, which C holds X on) weighs DML 1 + 1.
    assert_eq!(t.acquire(c, &t3, X, T, F), Ok(Outcome::Granted));
    assert_eq!(t.acquire(a, &t3, SR, T, F), Ok(Outcome::Waiting));
    assert_eq!(t.wait_weight(a), 2);
    t.check().unwrap();
}

#[test]
fn foreign_waits_are_edges_and_can_be_victims() {
    // mysql-8.0. A holds X on t1, B holds X on t2.
    let d = Dialect::mysql80();
    let mut t = LockTable::new(std::sync::Arc::new(d.clone()), Config::default());
    let (a, b) = (t.add_session(), t.add_session());
    let (t1, t2) = (key(&d, "db.t1"), key(&d, "db.t2"));
    t.acquire(a, &t1, X, T, F).unwrap();
    t.acquire(b, &t2, X, T, F).unwrap();
    // B waits for A in a foreign subsystem (weight 10): no cycle yet.
    assert_eq!(t.foreign_wait(b, vec![a], 10), Ok(Outcome::Waiting));
    assert!(t.is_waiting(b));
    assert_eq!(t.wait_edges(), vec![(b, a)]);
    assert_eq!(t.wait_weight(b), 10);
    // A session in a foreign wait takes no other step.
    assert_eq!(t.acquire(b, &t1, SR, T, F), Err(MdlError::Busy));
    assert_eq!(t.foreign_wait(b, vec![a], 10), Err(MdlError::Busy));
    // A waits for B's X on t2: the cycle A -> B -> A; A's X is DDL (100), B weighs 10:
    // B is the victim, its foreign wait ends; A still waits (B keeps its locks).
    assert_eq!(t.acquire(a, &t2, X, T, F), Ok(Outcome::Waiting));
    assert_eq!(t.take_events(), vec![(b, Outcome::Deadlock)]);
    assert!(!t.is_waiting(b) && t.is_waiting(a));
    assert_eq!((victims(&t, a), victims(&t, b)), (0, 1));
    // B waits for A again, heavier now (1000): the cycle closes from B's side and A
    // (100) is the victim; B goes on waiting.
    assert_eq!(t.foreign_wait(b, vec![a], 1000), Ok(Outcome::Waiting));
    assert_eq!(t.take_events(), vec![(a, Outcome::Deadlock)]);
    assert!(!t.is_waiting(a) && t.is_waiting(b));
    assert_eq!((victims(&t, a), victims(&t, b)), (1, 1));
    // The foreign subsystem lets B in: once.
    assert!(t.foreign_granted(b));
    assert!(!t.foreign_granted(b));
    assert!(!t.is_waiting(b));
    // A waits for B's X; B's light foreign wait for A closes the cycle: B, the requester
    // and the lightest, is the victim; that is its step's outcome, not an event.
    assert_eq!(t.acquire(a, &t2, X, T, F), Ok(Outcome::Waiting));
    assert_eq!(t.foreign_wait(b, vec![a], 10), Ok(Outcome::Deadlock));
    assert!(t.take_events().is_empty());
    assert!(!t.is_waiting(b) && t.is_waiting(a));
    assert_eq!((victims(&t, a), victims(&t, b)), (1, 2));
    t.check().unwrap();
}

#[test]
fn an_upgrade_that_may_not_wait_fails_and_changes_nothing() {
    // A holds SU, B holds SR on t1. X conflicts with SR: a no-wait upgrade is `Busy`, a
    // zero timeout `Timeout` ("try once, fail with a timeout error, no deadlock
    // search"); neither waits, and A keeps SU.
    let d = Dialect::mysql80();
    let mut t = LockTable::new(std::sync::Arc::new(d.clone()), Config::default());
    let (a, b) = (t.add_session(), t.add_session());
    let t1 = key(&d, "db.t1");
    t.acquire(a, &t1, SU, T, F).unwrap();
    t.acquire(b, &t1, SR, T, F).unwrap();
    let before = t.clone();
    let same = |t: &LockTable| t.lock(&t1) == before.lock(&t1) && t.session(a) == before.session(a);
    assert_eq!(t.upgrade(a, &t1, X, WaitOption::NoWait), Ok(Outcome::Busy));
    assert!(same(&t));
    assert_eq!(
        t.upgrade(a, &t1, X, WaitOption::millis(0)),
        Ok(Outcome::Timeout)
    );
    assert!(same(&t));
    assert!(!t.is_waiting(a));
    assert!(t.lock(&t1).unwrap().waiting().is_empty());
    assert!(t.take_events().is_empty());
    // With a timeout it waits.
    assert_eq!(
        t.upgrade(a, &t1, X, WaitOption::millis(10)),
        Ok(Outcome::Waiting)
    );
    assert!(t.is_waiting(a));
    assert!(t.timeout(a));
    assert_eq!(t.take_events(), vec![(a, Outcome::Timeout)]);
    assert!(same(&t));
    t.check().unwrap();
}

#[test]
fn sessions_that_may_take_no_step() {
    let d = Dialect::mysql80();
    let mut t = LockTable::new(std::sync::Arc::new(d.clone()), Config::default());
    let (a, b) = (t.add_session(), t.add_session());
    let (ka, kb) = (key(&d, "db.a"), key(&d, "db.b"));
    assert_eq!(
        t.acquire(OwnerId(7), &ka, SR, T, F),
        Err(MdlError::UnknownSession)
    );
    // A bulk that waits for its first element (key order: a before b) and is granted it
    // goes on only at B's next step: meanwhile no event, and no other step.
    t.acquire(a, &ka, X, T, F).unwrap();
    let reqs = [
        BulkReq {
            key: kb.clone(),
            ty: X,
        },
        BulkReq {
            key: ka.clone(),
            ty: X,
        },
    ];
    assert_eq!(t.acquire_all(b, &reqs, T, F), Ok(Outcome::Waiting));
    assert!(!t.owns_equal_or_stronger(b, &kb, X), "a first");
    t.commit(a).unwrap();
    assert!(t.take_events().is_empty(), "a partial grant is no event");
    assert!(!t.is_waiting(b));
    assert!(t.owns_equal_or_stronger(b, &ka, X));
    assert_eq!(t.acquire(b, &ka, SR, T, F), Err(MdlError::Busy));
    assert_eq!(t.resume_bulk(b), Ok(Outcome::Granted));
    assert!(t.owns_equal_or_stronger(b, &kb, X));
    assert_eq!(t.resume_bulk(b), Err(MdlError::NotHeld));
    // A waiting session may not act either; a disconnected one never again.
    assert_eq!(t.acquire(a, &ka, SR, T, F), Ok(Outcome::Waiting));
    assert_eq!(t.acquire(a, &kb, SR, T, F), Err(MdlError::Busy));
    assert!(!t.timeout(b), "b does not wait");
    assert!(!t.kill(b), "b does not wait");
    assert_eq!(t.disconnect(b), Ok(Outcome::Ok));
    assert_eq!(t.take_events(), vec![(a, Outcome::Granted)]);
    assert!(t.session(b).unwrap().book.is_empty());
    assert_eq!(t.commit(b), Err(MdlError::Disconnected));
    assert_eq!(t.acquire(b, &ka, SR, T, F), Err(MdlError::Disconnected));
    t.check().unwrap();
}

#[test]
fn durations_through_the_table() {
    // Reference: statement locks go at the end of the statement (and at commit),
    // transaction locks at commit, explicit locks only explicitly; `set_duration` moves
    // every lock to a duration.
    let d = Dialect::mysql80();
    let mut t = LockTable::new(
        std::sync::Arc::new(d.clone()),
        Config {
            max_write_lock_count: 3,
        },
    );
    assert_eq!(t.config().max_write_lock_count, 3);
    let (a, b) = (t.add_session(), t.add_session());
    let (k1, k2, k3) = (key(&d, "db.t1"), key(&d, "db.t2"), key(&d, "db.t3"));
    t.acquire(a, &k1, SR, Duration::Statement, F).unwrap();
    t.acquire(a, &k2, SR, Duration::Explicit, F).unwrap();
    t.acquire(a, &k3, SR, T, F).unwrap();
    assert_eq!(t.locks().count(), 3);
    // B waits for X on t1 (SR held by A).
    assert_eq!(t.acquire(b, &k1, X, T, F), Ok(Outcome::Waiting));
    assert_eq!(t.end_statement(a), Ok(Outcome::Ok));
    assert_eq!(t.take_events(), vec![(b, Outcome::Granted)]);
    assert!(!t.owns_equal_or_stronger(a, &k1, SR));
    assert!(t.owns_equal_or_stronger(a, &k3, SR));
    // Explicit: not at commit; only by release_explicit.
    t.commit(b).unwrap();
    assert!(t.lock(&k1).is_none(), "an idle lock is dropped");
    assert_eq!(t.acquire(b, &k2, X, T, F), Ok(Outcome::Waiting));
    t.commit(a).unwrap();
    assert!(t.take_events().is_empty());
    assert!(!t.owns_equal_or_stronger(a, &k3, SR));
    assert_eq!(t.release_explicit(a), Ok(Outcome::Ok));
    assert_eq!(t.take_events(), vec![(b, Outcome::Granted)]);
    assert!(t.session(a).unwrap().book.is_empty());
    // set_duration(explicit): commit then keeps everything. A clone is a second ticket
    // of the same session (no wait), given back with it.
    t.acquire(a, &k3, SNRW, T, F).unwrap();
    assert_eq!(t.clone_ticket(a, &k3, Some(SR), T), Ok(Outcome::Ok));
    assert_eq!(t.session(a).unwrap().book.held().len(), 2);
    assert_eq!(t.lock(&k3).unwrap().granted().len(), 2);
    assert_eq!(t.set_duration(a, Duration::Explicit), Ok(Outcome::Ok));
    t.commit(a).unwrap();
    assert_eq!(t.session(a).unwrap().book.held().len(), 2);
    assert_eq!(t.savepoint(a, "sp"), Ok(Outcome::Ok));
    t.acquire(a, &k1, SR, T, F).unwrap();
    assert_eq!(t.rollback_to(a, "sp"), Ok(Outcome::Ok));
    assert!(!t.owns_equal_or_stronger(a, &k1, SR));
    assert_eq!(t.session(a).unwrap().book.held().len(), 2);
    t.check().unwrap();
}

#[test]
fn permuting_sessions_renames_every_owner() {
    // Session i of the result is session order[i]: with order [2, 0, 1], old 0 -> new 1,
    // old 1 -> new 2, old 2 -> new 0.
    let d = Dialect::mysql80();
    let mut t = LockTable::new(std::sync::Arc::new(d.clone()), Config::default());
    let (s0, s1, s2) = (t.add_session(), t.add_session(), t.add_session());
    let (k1, k2) = (key(&d, "db.t1"), key(&d, "db.t2"));
    t.acquire(s0, &k1, X, T, F).unwrap();
    t.acquire(s2, &k2, S, T, F).unwrap();
    assert_eq!(t.acquire(s1, &k1, SR, T, F), Ok(Outcome::Waiting));
    assert_eq!(t.foreign_wait(s2, vec![s0], 5), Ok(Outcome::Waiting));
    // A copy in which s1's wait was killed: an event not yet taken.
    let mut u = t.clone();
    assert!(u.kill(s1));
    assert_eq!(t.wait_edges(), vec![(s1, s0), (s2, s0)]);
    let p = t.permute_sessions(&[2, 0, 1]).expect("a permutation");
    let (n0, n1, n2) = (OwnerId(0), OwnerId(1), OwnerId(2));
    assert_eq!(p.wait_edges(), vec![(n0, n1), (n2, n1)]);
    let l1 = p.lock(&k1).unwrap();
    assert_eq!(l1.granted()[0].owner, n1);
    assert_eq!(l1.waiting()[0].owner, n2);
    assert_eq!(
        p.session(n2).unwrap().wait.as_ref().unwrap().ticket.owner,
        n2
    );
    assert_eq!(p.session(n0).unwrap().foreign, Some((vec![n1], 5)));
    assert_eq!(p.lock(&k2).unwrap().granted()[0].owner, n0);
    assert_eq!(p.session(n1).unwrap().book.held().len(), 1);
    p.check().unwrap();
    // Events are renamed too.
    let mut q = u.permute_sessions(&[2, 0, 1]).unwrap();
    assert_eq!(q.take_events(), vec![(n2, Outcome::Killed)]);
    assert_eq!(u.take_events(), vec![(s1, Outcome::Killed)]);
    // The identity changes nothing; anything but a permutation of 0..3 is refused.
    assert_eq!(t.permute_sessions(&[0, 1, 2]), Some(t.clone()));
    assert_eq!(t.permute_sessions(&[0, 0, 1]), None);
    assert_eq!(t.permute_sessions(&[0, 1]), None);
    assert_eq!(t.permute_sessions(&[0, 1, 3]), None);
    assert_eq!(t.permute_sessions(&[0, 1, 2, 3]), None);
    assert_eq!(t.sessions().len(), 3);
}
