//! The sequential lock table: the decisions every other layer shares.

use mdl_core::dialect::Dialect;
use mdl_core::table::{BulkReq, Config, LockTable};
use mdl_core::{Duration, LockType, MdlError, MdlKey, Outcome, OwnerId, WaitOption};

const T: Duration = Duration::Transaction;
const F: WaitOption = WaitOption::Forever;

fn key(d: &Dialect, ns: &str, k: &str) -> MdlKey {
    MdlKey::parse(d, ns, k).unwrap()
}

#[test]
fn lock_tables_deadlock() {
    let d = Dialect::mysql80();
    let mut t = LockTable::new(std::sync::Arc::new(d.clone()), Config::default());
    let (s1, s2) = (t.add_session(), t.add_session());
    let (t1, t2) = (key(&d, "TABLE", "db.t1"), key(&d, "TABLE", "db.t2"));
    assert_eq!(t.acquire(s1, &t1, LockType::SW, T, F), Ok(Outcome::Granted));
    assert_eq!(
        t.acquire(s2, &t2, LockType::SNRW, T, F),
        Ok(Outcome::Granted)
    );
    assert_eq!(
        t.acquire(s2, &t1, LockType::SNRW, T, F),
        Ok(Outcome::Waiting)
    );
    // s1 (DML, weight 25) closes the cycle against s2 (DDL, 100): s1 is the victim.
    assert_eq!(
        t.acquire(s1, &t2, LockType::SW, T, F),
        Ok(Outcome::Deadlock)
    );
    assert!(t.take_events().is_empty());
    assert!(
        t.owns_equal_or_stronger(s1, &t1, LockType::SW),
        "the victim keeps its locks"
    );
    t.commit(s1).unwrap();
    assert_eq!(t.take_events(), vec![(s2, Outcome::Granted)]);
    t.check().unwrap();
}

#[test]
fn requester_is_victim_on_a_tie_and_ring_of_200() {
    let d = Dialect::mysql80();
    let mut t = LockTable::new(std::sync::Arc::new(d.clone()), Config::default());
    let n = 200;
    let s: Vec<OwnerId> = (0..n).map(|_| t.add_session()).collect();
    let k: Vec<MdlKey> = (0..n)
        .map(|i| key(&d, "TABLE", &format!("db.t{i}")))
        .collect();
    for i in 0..n {
        assert_eq!(
            t.acquire(s[i], &k[i], LockType::X, T, F),
            Ok(Outcome::Granted)
        );
    }
    for i in 0..n - 1 {
        assert_eq!(
            t.acquire(s[i], &k[i + 1], LockType::X, T, F),
            Ok(Outcome::Waiting)
        );
    }
    assert_eq!(
        t.acquire(s[n - 1], &k[0], LockType::X, T, F),
        Ok(Outcome::Deadlock)
    );
    assert!(t.take_events().is_empty(), "exactly one victim");
    t.check().unwrap();
}

#[test]
fn bulk_is_all_or_nothing_and_sorted() {
    let d = Dialect::mysql80();
    let mut t = LockTable::new(std::sync::Arc::new(d.clone()), Config::default());
    let (s1, s2) = (t.add_session(), t.add_session());
    let (a, b) = (key(&d, "TABLE", "db.a"), key(&d, "TABLE", "db.b"));
    t.acquire(s2, &b, LockType::SR, T, F).unwrap();
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
    assert_eq!(
        t.acquire_all(s1, &reqs, T, WaitOption::NoWait),
        Ok(Outcome::Busy)
    );
    assert!(t.session(s1).unwrap().book.is_empty(), "a is given back");
    assert_eq!(t.acquire_all(s1, &reqs, T, F), Ok(Outcome::Waiting));
    assert!(
        t.owns_equal_or_stronger(s1, &a, LockType::X),
        "a first (key order)"
    );
    t.commit(s2).unwrap();
    assert_eq!(t.take_events(), vec![(s1, Outcome::Granted)]);
    assert!(t.owns_equal_or_stronger(s1, &b, LockType::X));
    t.check().unwrap();
}

#[test]
fn upgrade_downgrade_savepoints_and_misuse() {
    let d = Dialect::mysql80();
    let mut t = LockTable::new(std::sync::Arc::new(d.clone()), Config::default());
    let (s1, s2) = (t.add_session(), t.add_session());
    let a = key(&d, "TABLE", "db.a");
    let g = key(&d, "GLOBAL", "-");
    t.acquire(s1, &a, LockType::SU, T, F).unwrap();
    t.acquire(s2, &a, LockType::SR, T, F).unwrap();
    assert_eq!(t.upgrade(s1, &a, LockType::X, F), Ok(Outcome::Waiting));
    assert_eq!(
        t.acquire(s2, &a, LockType::SR, T, F),
        Ok(Outcome::Granted),
        "re-request covered"
    );
    t.commit(s2).unwrap();
    assert_eq!(t.take_events(), vec![(s1, Outcome::Granted)]);
    assert_eq!(
        t.session(s1).unwrap().book.held().len(),
        1,
        "the upgrade ticket merged"
    );
    assert_eq!(
        t.upgrade(s1, &a, LockType::SR, F),
        Ok(Outcome::Granted),
        "covered: no-op"
    );
    assert_eq!(t.upgrade(s1, &a, LockType::SU, F), Ok(Outcome::Granted));
    let snapshot = t.clone();
    // MDL_ticket::downgrade_lock: "Do nothing if already downgraded".
    assert_eq!(t.downgrade(s1, &a, LockType::X), Ok(Outcome::Ok));
    assert_eq!(t, snapshot, "a downgrade to the held type changes nothing");
    assert_eq!(
        t.downgrade(s1, &a, LockType::IX),
        Err(MdlError::TypeNotInNamespace {
            ty: LockType::IX,
            namespace: "TABLE".into()
        })
    );
    assert_eq!(t.release(s2, &a, None), Err(MdlError::NotHeld));
    assert!(matches!(
        t.acquire(s2, &g, LockType::SR, T, F),
        Err(MdlError::TypeNotInNamespace { .. })
    ));
    assert!(matches!(
        t.rollback_to(s1, "nope"),
        Err(MdlError::UnknownSavepoint(_))
    ));
    assert_eq!(t, snapshot, "misuse changes nothing");
    t.downgrade(s1, &a, LockType::SNW).unwrap();
    t.savepoint(s1, "sp").unwrap();
    let b = key(&d, "TABLE", "db.b");
    t.acquire(s1, &b, LockType::SW, T, F).unwrap();
    t.acquire(s1, &b, LockType::S, Duration::Explicit, F)
        .unwrap();
    t.rollback_to(s1, "sp").unwrap();
    assert!(!t.owns_equal_or_stronger(s1, &b, LockType::SW));
    assert!(
        t.owns_equal_or_stronger(s1, &b, LockType::S),
        "explicit locks are not part of savepoints"
    );
    assert!(t.owns_equal_or_stronger(s1, &a, LockType::SNW));
    t.check().unwrap();
}

#[test]
fn timeout_zero_and_kill() {
    let d = Dialect::mariadb();
    let mut t = LockTable::new(std::sync::Arc::new(d.clone()), Config::default());
    let (s1, s2) = (t.add_session(), t.add_session());
    let bk = key(&d, "BACKUP", "-");
    t.acquire(s1, &bk, LockType::parse("BACKUP_FTWRL1").unwrap(), T, F)
        .unwrap();
    let dml = LockType::BACKUP_DML;
    assert_eq!(
        t.acquire(s2, &bk, dml, T, WaitOption::millis(0)),
        Ok(Outcome::Timeout)
    );
    assert_eq!(
        t.acquire(s2, &bk, dml, T, WaitOption::millis(50)),
        Ok(Outcome::Waiting)
    );
    assert_eq!(t.acquire(s2, &bk, dml, T, F), Err(MdlError::Busy));
    assert!(t.timeout(s2));
    assert_eq!(t.take_events(), vec![(s2, Outcome::Timeout)]);
    assert_eq!(t.acquire(s2, &bk, dml, T, F), Ok(Outcome::Waiting));
    assert!(!t.timeout(s2), "no finite timeout");
    assert!(t.kill(s2));
    assert_eq!(t.take_events(), vec![(s2, Outcome::Killed)]);
    t.check().unwrap();
}

/// `release_ticket` gives back the ticket it is given, not the latest of its type on the
/// key (a HANDLER's explicit SR beside a transaction's SR: `MDL_context::release_lock`).
#[test]
fn release_ticket_gives_back_that_ticket() {
    let d = Dialect::mariadb();
    let mut t = LockTable::new(std::sync::Arc::new(d.clone()), Config::default());
    let s1 = t.add_session();
    let a = key(&d, "TABLE", "db.t1");
    assert_eq!(
        t.acquire(s1, &a, LockType::SR, Duration::Explicit, F),
        Ok(Outcome::Granted)
    );
    assert_eq!(t.acquire(s1, &a, LockType::SR, T, F), Ok(Outcome::Granted));
    let held = |t: &LockTable| -> Vec<(mdl_core::lock::TicketId, Duration)> {
        t.session(s1)
            .unwrap()
            .book
            .on_key(&a)
            .map(|h| (h.id, h.dur))
            .collect()
    };
    let explicit = held(&t)
        .into_iter()
        .find(|(_, du)| *du == Duration::Explicit)
        .expect("the explicit ticket")
        .0;
    assert_eq!(held(&t).len(), 2, "two tickets: {:?}", held(&t));
    assert_eq!(t.release_ticket(s1, explicit), Ok(Outcome::Ok));
    assert_eq!(held(&t).iter().map(|x| x.1).collect::<Vec<_>>(), vec![T]);
    let snapshot = t.clone();
    assert_eq!(t.release_ticket(s1, explicit), Err(MdlError::NotHeld));
    assert_eq!(t, snapshot, "a refused release changes nothing");
    t.commit(s1).unwrap();
    assert!(held(&t).is_empty());
}
