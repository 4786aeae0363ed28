//! Tests written to kill mutants of `book.rs` (a context's own bookkeeping) that
//! cargo-mutants found surviving (see `ci/mutants/REPORT.md`). The book is driven directly,
//! so each plan is pinned down without a lock table around it. Expected values come from
//! the reference rules (`shared/reference/README.md`: durations, savepoints, "at least as
//! strong", upgrades and downgrades) and the mysql-8.0 object matrix
//! (`mdl-core/dialects/mysql-8.0/object.granted.tsv`), worked out in the comments.
//!
//! "H covers T" (reference: "held type H covers request T when every type T conflicts
//! with, H also conflicts with"), from the rows of the object granted matrix, which is
//! symmetric (so the column test of `Strategy::covers` agrees):
//! SH {X}, SR {SNRW, X}, SW {SRO, SNW, SNRW, X}, SU {SU, SNW, SNRW, X},
//! SRO {SW, SWLP, SNRW, X}, SNW {SW, SWLP, SU, SNW, SNRW, X}, SNRW all but S and SH,
//! X everything. So X covers everything, SNW covers SU and SR, SU and SW cover SR, SR
//! covers SH, and neither of SW and SRO covers the other.

use mdl_core::book::{AcquirePlan, Held, TicketBook, UpgradePlan};
use mdl_core::{Dialect, Duration, LockType, MdlError, MdlKey, TicketId};
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

const STMT: Duration = Duration::Statement;
const TRX: Duration = Duration::Transaction;
const EXPL: Duration = Duration::Explicit;

const SH: LockType = LockType::SH;
const SR: LockType = LockType::SR;
const SW: LockType = LockType::SW;
const SU: LockType = LockType::SU;
const SRO: LockType = LockType::SRO;
const SNW: LockType = LockType::SNW;
const SNRW: LockType = LockType::SNRW;
const X: LockType = LockType::X;

fn key(d: &Dialect, k: &str) -> MdlKey {
    MdlKey::parse(d, "TABLE", k).unwrap()
}

fn id(n: u64) -> TicketId {
    TicketId(n)
}

fn ids(v: &[TicketId]) -> Vec<u64> {
    v.iter().map(|t| t.0).collect()
}

fn hash_of(b: &TicketBook) -> u64 {
    let mut h = DefaultHasher::new();
    b.hash(&mut h);
    h.finish()
}

#[test]
fn acquire_reuses_a_covering_ticket_of_the_same_duration_else_clones_in_find_order() {
    let d = Dialect::mysql80();
    let (k1, k2) = (key(&d, "db.t1"), key(&d, "db.t2"));
    let mut b = TicketBook::new();
    // Explicit first, so that "the first covering ticket" is never right by accident.
    b.add(id(1), k1.clone(), SR, EXPL);
    b.add(id(2), k1.clone(), SR, TRX);
    // A covering ticket of the requested duration is reused.
    assert_eq!(
        b.plan_acquire(&d, &k1, SR, TRX),
        Ok(AcquirePlan::Reuse(id(2)))
    );
    // ... but never for an explicit request (try_acquire_lock_impl: "|| duration ==
    // MDL_EXPLICIT"): the explicit SR is found first and cloned.
    assert_eq!(
        b.plan_acquire(&d, &k1, SR, EXPL),
        Ok(AcquirePlan::CloneOf(id(1)))
    );
    // SR covers SH.
    assert_eq!(
        b.plan_acquire(&d, &k1, SH, EXPL),
        Ok(AcquirePlan::CloneOf(id(1)))
    );
    // None of duration statement: `find_in_lists` looks at statement, then transaction,
    // then explicit tickets ((dur + i) % 3): the transaction SR is cloned.
    assert_eq!(
        b.plan_acquire(&d, &k1, SR, STMT),
        Ok(AcquirePlan::CloneOf(id(2)))
    );
    assert_eq!(
        b.find_covering(&d, &k1, SR, STMT).map(|h| h.id),
        Some(id(2))
    );
    assert_eq!(b.find_covering(&d, &k1, SR, TRX).map(|h| h.id), Some(id(2)));
    // SR does not cover SW; nothing is held on t2.
    assert_eq!(b.plan_acquire(&d, &k1, SW, TRX), Ok(AcquirePlan::New));
    assert!(b.find_covering(&d, &k1, SW, TRX).is_none());
    assert_eq!(b.plan_acquire(&d, &k2, SR, TRX), Ok(AcquirePlan::New));
    // A statement X covers SW: cloned, as no ticket of the requested duration covers it.
    b.add(id(3), k1.clone(), X, STMT);
    assert_eq!(
        b.plan_acquire(&d, &k1, SW, TRX),
        Ok(AcquirePlan::CloneOf(id(3)))
    );
    assert_eq!(
        b.plan_acquire(&d, &k1, SR, EXPL),
        Ok(AcquirePlan::CloneOf(id(1)))
    );
    // From transaction the search goes on with explicit, then statement: the explicit
    // SR, not the statement X, is the source of a transaction SH's clone... once no
    // transaction ticket covers it.
    let mut c = TicketBook::new();
    c.add(id(11), k2.clone(), X, STMT);
    c.add(id(12), k2.clone(), SR, EXPL);
    assert_eq!(
        c.plan_acquire(&d, &k2, SH, TRX),
        Ok(AcquirePlan::CloneOf(id(12)))
    );
    assert_eq!(
        c.plan_acquire(&d, &k2, SH, EXPL),
        Ok(AcquirePlan::CloneOf(id(12)))
    );
    assert_eq!(
        c.plan_acquire(&d, &k2, SH, STMT),
        Ok(AcquirePlan::Reuse(id(11)))
    );
    // Within one list, the front (the latest) first.
    c.add(id(13), k2.clone(), SNW, EXPL);
    assert_eq!(
        c.plan_acquire(&d, &k2, SH, TRX),
        Ok(AcquirePlan::CloneOf(id(13)))
    );
    // TABLE is an object namespace: it has no IX (scoped only), GLOBAL no SR.
    assert!(matches!(
        b.plan_acquire(&d, &k1, LockType::IX, TRX),
        Err(MdlError::TypeNotInNamespace {
            ty: LockType::IX,
            ..
        })
    ));
    let g = MdlKey::parse(&d, "GLOBAL", "-").unwrap();
    assert!(matches!(
        TicketBook::check_type(&d, &g, SR),
        Err(MdlError::TypeNotInNamespace { ty: SR, .. })
    ));
    assert_eq!(TicketBook::check_type(&d, &g, LockType::IX), Ok(()));
}

#[test]
fn upgrade_is_a_no_op_when_covered_and_refused_towards_an_earlier_type() {
    let d = Dialect::mysql80();
    let (k1, k2, k3, k4) = (
        key(&d, "db.t1"),
        key(&d, "db.t2"),
        key(&d, "db.t3"),
        key(&d, "db.t4"),
    );
    let mut b = TicketBook::new();
    b.add(id(1), k1.clone(), SU, TRX);
    // SU -> X: X comes later in enum order and SU does not cover it: a real upgrade.
    assert_eq!(b.plan_upgrade(&d, &k1, X), Ok(UpgradePlan::Upgrade(id(1))));
    // "a no-op when already at least as strong": SU covers SR and itself.
    assert_eq!(b.plan_upgrade(&d, &k1, SR), Ok(UpgradePlan::NoOp(id(1))));
    assert_eq!(b.plan_upgrade(&d, &k1, SU), Ok(UpgradePlan::NoOp(id(1))));
    assert_eq!(b.plan_upgrade(&d, &k2, X), Err(MdlError::NotHeld));
    assert!(matches!(
        b.plan_upgrade(&d, &k1, LockType::IX),
        Err(MdlError::TypeNotInNamespace { .. })
    ));
    // SRO -> SW: SRO does not cover SW, and SW comes before SRO in enum order (S SH SR SW
    // SWLP SU SRO ...): an upgrade to a weaker type is an error (`UpgradeToWeaker`).
    b.add(id(2), k2.clone(), SRO, TRX);
    assert_eq!(
        b.plan_upgrade(&d, &k2, SW),
        Err(MdlError::UpgradeToWeaker {
            held: SRO,
            requested: SW
        })
    );
    // SW -> SRO: the other way round is an upgrade.
    b.add(id(3), k3.clone(), SW, TRX);
    assert_eq!(
        b.plan_upgrade(&d, &k3, SRO),
        Ok(UpgradePlan::Upgrade(id(3)))
    );
    // The strongest ticket: one that covers every other (SW covers SR, whatever the
    // order), else the latest of the highest rank (SW and SRO: SRO, the later type).
    b.add(id(4), k4.clone(), SW, TRX);
    b.add(id(5), k4.clone(), SR, STMT);
    assert_eq!(b.strongest(&d, &k4).map(|h| h.id), Some(id(4)));
    b.add(id(6), k3.clone(), SRO, STMT);
    assert_eq!(b.strongest(&d, &k3).map(|h| h.id), Some(id(6)));
    assert!(b.strongest(&d, &key(&d, "db.t9")).is_none());
}

/// MariaDB's BACKUP namespace has no rank rule for upgrades: a copying ALTER's
/// BACKUP_ALTER_COPY goes back up to BACKUP_DDL (sql/backup.cc,
/// `backup_reset_alter_copy_lock`), although DDL comes first in enum order. ALTER_COPY does
/// not cover DDL (DDL also conflicts with WAIT_DDL, WAIT_COMMIT and BLOCK_DDL), so it is a
/// real upgrade; DDL covers ALTER_COPY, so the other way is a retype
/// (`models/scenarios/backup-alter-copy.mdl` plays both).
#[test]
fn a_backup_upgrade_may_go_to_an_earlier_type() {
    let d = Dialect::mariadb();
    let k = MdlKey::parse(&d, "BACKUP", "-").unwrap();
    let ty = |n: &str| LockType::parse(n).unwrap();
    let mut b = TicketBook::default();
    b.add(id(1), k.clone(), ty("BACKUP_ALTER_COPY"), STMT);
    assert_eq!(
        b.plan_upgrade(&d, &k, ty("BACKUP_DDL")),
        Ok(UpgradePlan::Upgrade(id(1)))
    );
    let mut b = TicketBook::default();
    b.add(id(2), k.clone(), ty("BACKUP_DDL"), STMT);
    assert_eq!(
        b.plan_upgrade(&d, &k, ty("BACKUP_ALTER_COPY")),
        Ok(UpgradePlan::Retype(id(2)))
    );
}

#[test]
fn downgrade_only_from_x_or_snw_to_a_covered_type() {
    // Reference: "Downgrade (mysql-8.0): only from X or SNW" (dialect.txt
    // `downgrade_from object X SNW`). MDL_ticket::downgrade_lock: "Do nothing if already
    // downgraded" (the same type, or one the held type does not cover): no ticket.
    let d = Dialect::mysql80();
    let (k1, k2, k3) = (key(&d, "db.t1"), key(&d, "db.t2"), key(&d, "db.t3"));
    let mut b = TicketBook::new();
    b.add(id(1), k1.clone(), X, TRX);
    b.add(id(2), k2.clone(), SU, TRX);
    b.add(id(3), k3.clone(), SNW, TRX);
    assert_eq!(b.plan_downgrade(&d, &k1, SNW), Ok(Some(id(1))));
    assert_eq!(b.plan_downgrade(&d, &k1, SR), Ok(Some(id(1))));
    assert_eq!(b.plan_downgrade(&d, &k1, X), Ok(None));
    assert_eq!(
        b.plan_downgrade(&d, &k2, SR),
        Err(MdlError::DowngradeFrom { held: SU })
    );
    // The no-op test comes before the source test: SU to SU or to X does nothing.
    assert_eq!(b.plan_downgrade(&d, &k2, SU), Ok(None));
    assert_eq!(b.plan_downgrade(&d, &k2, X), Ok(None));
    assert_eq!(b.plan_downgrade(&d, &k3, SU), Ok(Some(id(3))));
    // SNW does not cover SNRW (SNRW also conflicts with SR): nothing to do.
    assert_eq!(b.plan_downgrade(&d, &k3, SNRW), Ok(None));
    assert_eq!(
        b.plan_downgrade(&d, &key(&d, "db.t4"), SR),
        Err(MdlError::NotHeld)
    );
}

#[test]
fn clone_copies_a_covering_ticket() {
    let d = Dialect::mysql80();
    let (k1, k2) = (key(&d, "db.t1"), key(&d, "db.t2"));
    let mut b = TicketBook::new();
    b.add(id(7), k1.clone(), SNW, TRX);
    // No type: the held type; a covered type (SNW covers SR); not a stronger one.
    assert_eq!(b.plan_clone(&d, &k1, None), Ok((id(7), SNW)));
    assert_eq!(b.plan_clone(&d, &k1, Some(SR)), Ok((id(7), SR)));
    assert_eq!(
        b.plan_clone(&d, &k1, Some(X)),
        Err(MdlError::CloneStronger {
            held: SNW,
            requested: X
        })
    );
    assert_eq!(b.plan_clone(&d, &k2, None), Err(MdlError::NotHeld));
}

#[test]
fn release_gives_back_the_latest_of_a_type_or_everything_on_the_key() {
    let d = Dialect::mysql80();
    let (k1, k2, k3) = (key(&d, "db.t1"), key(&d, "db.t2"), key(&d, "db.t3"));
    let mut b = TicketBook::new();
    b.add(id(1), k1.clone(), SR, TRX);
    b.add(id(2), k1.clone(), SW, TRX);
    b.add(id(3), k1.clone(), SR, STMT);
    b.add(id(4), k2.clone(), X, TRX);
    assert_eq!(b.plan_release(&k1, Some(SR)).map(|v| ids(&v)), Ok(vec![3]));
    assert_eq!(b.plan_release(&k1, Some(SW)).map(|v| ids(&v)), Ok(vec![2]));
    // Everything on the key: list by list (statement, transaction, explicit), each
    // from its front.
    assert_eq!(
        b.plan_release(&k1, None).map(|v| ids(&v)),
        Ok(vec![3, 2, 1])
    );
    assert_eq!(b.plan_release(&k2, None).map(|v| ids(&v)), Ok(vec![4]));
    assert_eq!(b.plan_release(&k1, Some(X)), Err(MdlError::NotHeld));
    assert_eq!(b.plan_release(&k3, None), Err(MdlError::NotHeld));
}

#[test]
fn durations_select_what_commit_and_end_of_statement_give_back() {
    // Reference: "Commit releases statement + transaction locks"; the end of a statement
    // its statement locks; explicit locks only explicitly. Latest first.
    let d = Dialect::mysql80();
    let k = key(&d, "db.t1");
    let mut b = TicketBook::new();
    assert!(b.is_empty());
    b.add(id(1), k.clone(), SR, STMT);
    assert!(!b.is_empty());
    b.add(id(2), k.clone(), SW, TRX);
    b.add(id(3), k.clone(), SR, EXPL);
    b.add(id(4), k.clone(), SH, STMT);
    // release_transactional_locks: the statement list from its front, then the
    // transaction list.
    assert_eq!(ids(&b.of_durations(&[STMT])), vec![4, 1]);
    assert_eq!(ids(&b.of_durations(&[STMT, TRX])), vec![4, 1, 2]);
    assert_eq!(ids(&b.of_durations(&[EXPL])), vec![3]);
    let mut out = vec![id(99)];
    b.of_durations_into(&[STMT, TRX], &mut out);
    assert_eq!(ids(&out), vec![99, 4, 1, 2]);
    assert_eq!(ids(&b.all()), vec![4, 1, 2, 3]);
    assert_eq!(
        b.held().iter().map(|h| (h.id.0, h.seq)).collect::<Vec<_>>(),
        vec![(1, 0), (2, 1), (3, 2), (4, 3)]
    );
    assert_eq!(
        b.get(id(2)),
        Some(&Held {
            id: id(2),
            key: k.clone(),
            ty: SW,
            dur: TRX,
            seq: 1
        })
    );
    assert_eq!(b.get(id(3)).map(|h| h.ty), Some(SR));
    assert!(b.get(id(5)).is_none());
    // One ticket moves to the front of another duration's list (set_lock_duration);
    // then every ticket (move_all_to_explicit_duration: the explicit list becomes the
    // old transaction list [3, 2], the statement list [4, 1] is pushed to its front one
    // by one: [1, 4, 3, 2]).
    b.set_duration(id(3), TRX);
    assert_eq!(ids(&b.of_durations(&[EXPL])), Vec::<u64>::new());
    assert_eq!(ids(&b.of_durations(&[TRX])), vec![3, 2]);
    assert_eq!(b.get(id(1)).map(|h| h.dur), Some(STMT));
    b.set_duration_all(EXPL);
    assert_eq!(ids(&b.of_durations(&[EXPL])), vec![1, 4, 3, 2]);
    // And back (move_explicit_to_transaction_duration): the transaction list becomes the
    // explicit one, empty old transaction list pushed: [1, 4, 3, 2].
    b.set_duration_all(TRX);
    assert_eq!(ids(&b.of_durations(&[TRX])), vec![1, 4, 3, 2]);
    // A new ticket goes to the front; all to explicit again: the old explicit list (empty)
    // stays, the transaction list [5, 1, 4, 3, 2] is swapped in.
    b.add(id(5), k.clone(), SR, TRX);
    b.set_duration_all(EXPL);
    assert_eq!(ids(&b.of_durations(&[EXPL])), vec![5, 1, 4, 3, 2]);
    b.remove(id(5));
    // set_type changes that ticket only.
    b.set_type(id(2), SNW);
    assert_eq!(b.get(id(2)).map(|h| h.ty), Some(SNW));
    assert_eq!(b.get(id(1)).map(|h| h.ty), Some(SR));
    assert_eq!(b.get(id(4)).map(|h| h.ty), Some(SH));
}

#[test]
fn rollback_to_a_savepoint_gives_back_later_statement_and_transaction_tickets() {
    // Reference: "Savepoints cover statement and transaction locks, not explicit ones".
    let d = Dialect::mysql80();
    let k = key(&d, "db.t1");
    let mut b = TicketBook::new();
    b.add(id(1), k.clone(), SR, TRX);
    b.savepoint("sp1");
    b.add(id(2), k.clone(), SR, STMT);
    b.add(id(3), k.clone(), SR, EXPL);
    b.savepoint("sp2");
    b.add(id(4), k.clone(), SW, TRX);
    // Since sp1: 2 (statement) and 4 (transaction), the statement list first
    // (rollback_to_savepoint); not 3 (explicit), not 1 (taken before sp1).
    assert_eq!(b.plan_rollback_to("sp1").map(|v| ids(&v)), Ok(vec![2, 4]));
    assert_eq!(b.plan_rollback_to("sp2").map(|v| ids(&v)), Ok(vec![4]));
    assert_eq!(
        b.plan_rollback_to("sp3"),
        Err(MdlError::UnknownSavepoint("sp3".into()))
    );
    // A savepoint of the same name replaces the older one (nothing taken since); the
    // others stay.
    b.savepoint("sp1");
    assert_eq!(b.plan_rollback_to("sp1").map(|v| ids(&v)), Ok(vec![]));
    assert_eq!(b.plan_rollback_to("sp2").map(|v| ids(&v)), Ok(vec![4]));
    b.clear_savepoints();
    assert!(b.plan_rollback_to("sp1").is_err());
    assert!(b.plan_rollback_to("sp2").is_err());
}

#[test]
fn after_a_rollback_later_savepoints_are_gone_and_the_target_stays() {
    let mut b = TicketBook::new();
    b.savepoint("a");
    b.savepoint("b");
    b.savepoint("c");
    b.forget_savepoints_after("b");
    assert_eq!(b.plan_rollback_to("a"), Ok(vec![]));
    assert_eq!(b.plan_rollback_to("b"), Ok(vec![]));
    assert_eq!(
        b.plan_rollback_to("c"),
        Err(MdlError::UnknownSavepoint("c".into()))
    );
    // An unknown name changes nothing.
    b.forget_savepoints_after("zz");
    assert_eq!(b.plan_rollback_to("b"), Ok(vec![]));
}

#[test]
fn removing_tickets_keeps_the_key_lookup_exact() {
    let d = Dialect::mysql80();
    let (k1, k2) = (key(&d, "db.t1"), key(&d, "db.t2"));
    let mut b = TicketBook::new();
    b.add(id(1), k1.clone(), SR, TRX);
    b.add(id(2), k1.clone(), SW, TRX);
    b.add(id(3), k2.clone(), X, TRX);
    let on = |b: &TicketBook, k: &MdlKey| b.on_key(k).map(|h| h.id.0).collect::<Vec<_>>();
    assert_eq!(on(&b, &k1), vec![1, 2]);
    assert_eq!(on(&b, &k2), vec![3]);
    assert_eq!(b.remove(id(1)).map(|h| (h.id.0, h.ty)), Some((1, SR)));
    assert!(b.remove(id(1)).is_none());
    // One of the two tickets on t1 is gone; the other is still found.
    assert_eq!(on(&b, &k1), vec![2]);
    assert_eq!(
        b.plan_acquire(&d, &k1, SR, TRX),
        Ok(AcquirePlan::Reuse(id(2)))
    );
    assert_eq!(b.remove(id(2)).map(|h| h.id.0), Some(2));
    assert_eq!(on(&b, &k1), Vec::<u64>::new());
    assert_eq!(on(&b, &k2), vec![3]);
    assert!(!b.is_empty());
    b.remove(id(3));
    assert!(b.is_empty());
}

#[test]
fn equal_holdings_make_equal_books() {
    // The per-key counts are a function of what is held (book.rs): two books that took
    // and gave back one ticket each, on different keys, hold the same (nothing, next
    // sequence number 1) and are equal, with equal hashes.
    let d = Dialect::mysql80();
    let mut a = TicketBook::new();
    a.add(id(1), key(&d, "db.t1"), SR, TRX);
    a.remove(id(1));
    let mut b = TicketBook::new();
    b.add(id(1), key(&d, "db.t2"), SR, TRX);
    b.remove(id(1));
    assert_eq!(a, b);
    assert_eq!(hash_of(&a), hash_of(&b));
    // Books that hold different things hash differently (the hash covers the tickets
    // and the savepoints).
    let mut c = a.clone();
    c.add(id(2), key(&d, "db.t1"), SR, TRX);
    assert_ne!(hash_of(&a), hash_of(&c));
    let mut e = a.clone();
    e.savepoint("sp");
    assert_ne!(hash_of(&a), hash_of(&e));
    // Equality looks at each of: the tickets, the savepoints, the sequence number.
    assert_ne!(a, c);
    assert_ne!(a, e, "same tickets and sequence number, another savepoint");
    let mut f = a.clone();
    f.add(id(3), key(&d, "db.t1"), SR, TRX);
    f.remove(id(3));
    assert_ne!(a, f, "same tickets and savepoints, a later sequence number");
    assert_eq!(a.clone(), a);
}

#[test]
fn a_key_still_held_is_found_after_many_keys_were_given_back() {
    // Whatever the book caches about keys it no longer holds, a ticket it holds is found
    // (and reused: same key, type and duration). A round of 100 keys given back, then a
    // round that takes two new keys and gives one back.
    let d = Dialect::mysql80();
    let mut b = TicketBook::new();
    for i in 0..100u64 {
        b.add(id(i + 1), key(&d, &format!("db.old{i}")), SR, TRX);
    }
    for i in (0..100u64).rev() {
        assert!(b.remove(id(i + 1)).is_some());
    }
    assert!(b.is_empty());
    let (ka, kb) = (key(&d, "db.a"), key(&d, "db.b"));
    b.add(id(201), ka.clone(), SW, TRX);
    b.add(id(202), kb.clone(), SW, TRX);
    assert!(b.remove(id(202)).is_some());
    assert_eq!(
        b.on_key(&ka).map(|h| h.id).collect::<Vec<_>>(),
        vec![id(201)]
    );
    assert_eq!(
        b.plan_acquire(&d, &ka, SW, TRX),
        Ok(AcquirePlan::Reuse(id(201)))
    );
    assert_eq!(b.plan_acquire(&d, &kb, SW, TRX), Ok(AcquirePlan::New));
    assert_eq!(
        b.plan_acquire(&d, &key(&d, "db.old7"), SR, TRX),
        Ok(AcquirePlan::New)
    );
    // Given back and taken again, one key after another, the book stays exact.
    for i in 0..200u64 {
        let k = key(&d, &format!("db.r{}", i % 7));
        b.add(id(1000 + i), k.clone(), SR, STMT);
        assert_eq!(
            b.plan_acquire(&d, &k, SR, STMT),
            Ok(AcquirePlan::Reuse(id(1000 + i)))
        );
        b.remove(id(1000 + i));
        assert_eq!(b.plan_acquire(&d, &k, SR, STMT), Ok(AcquirePlan::New));
    }
    assert_eq!(
        b.plan_acquire(&d, &ka, SR, TRX),
        Ok(AcquirePlan::Reuse(id(201)))
    );
}
