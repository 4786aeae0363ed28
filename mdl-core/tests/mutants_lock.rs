//! Tests written to kill mutants that cargo-mutants found surviving in `lock.rs`
//! (see `ci/mutants/REPORT.md`). Each pins one decision of the per-lock state machine —
//! grants, FIFO queue order, priorities and the hog/piglet counters — to the value that
//! the reference rules (`shared/reference/README.md`) give, worked out in the comments.

use mdl_core::dialect::{Dialect, Starvation};
use mdl_core::lock::{LockState, OwnerId, Priority, Rules, Ticket, TicketId};
use mdl_core::types::LockType;

const S: LockType = LockType::S;
const SH: LockType = LockType::SH;
const SR: LockType = LockType::SR;
const SW: LockType = LockType::SW;
const SU: LockType = LockType::SU;
const SRO: LockType = LockType::SRO;
const SNW: LockType = LockType::SNW;
const SNRW: LockType = LockType::SNRW;
const X: LockType = LockType::X;

fn t(id: u64, owner: u32, ty: LockType) -> Ticket {
    Ticket {
        id: TicketId(id),
        owner: OwnerId(owner),
        ty,
    }
}

fn rules<'a>(d: &'a Dialect, ns: &str, limit: u64) -> Rules<'a> {
    let n = d.namespace_by_name(ns).expect("namespace");
    Rules {
        strategy: d.strategy(n),
        starvation: Some(d.starvation),
        max_write_lock_count: limit,
    }
}

fn owners(v: &[Ticket]) -> Vec<u32> {
    v.iter().map(|t| t.owner.0).collect()
}

#[test]
fn accessors_report_the_state() {
    let d = Dialect::mysql80();
    let r = rules(&d, "TABLE", u64::MAX);
    let mut l = LockState::new();
    assert!(l.is_idle());
    assert!(l.granted().is_empty() && l.waiting().is_empty());
    l.grant(t(1, 1, SR));
    // Granted only: not idle (`&&`, not `||`).
    assert!(!l.is_idle());
    l.grant(t(2, 2, SR));
    l.enqueue(t(3, 3, X));
    l.enqueue(t(4, 4, SW));
    assert_eq!(l.granted(), &[t(1, 1, SR), t(2, 2, SR)]);
    assert_eq!(l.waiting(), &[t(3, 3, X), t(4, 4, SW)]);
    assert!(l.granted_types().contains(SR) && !l.granted_types().contains(X));
    assert!(l.waiting_types().contains(X) && l.waiting_types().contains(SW));
    assert!(!l.waiting_types().contains(SR));
    // SR, SW are unobtrusive; X is not.
    assert_eq!(l.obtrusive_count(r.strategy), 1);
    l.grant(t(5, 5, SU));
    assert_eq!(l.obtrusive_count(r.strategy), 2);

    assert_eq!(l.find_granted(TicketId(2)), Some(&t(2, 2, SR)));
    assert_eq!(l.find_granted(TicketId(1)), Some(&t(1, 1, SR)));
    assert_eq!(l.find_granted(TicketId(3)), None);
    assert!(l.is_waiting(TicketId(4)) && l.is_waiting(TicketId(3)));
    assert!(!l.is_waiting(TicketId(1)) && !l.is_waiting(TicketId(99)));

    assert_eq!(l.remove_granted(TicketId(2)), Some(t(2, 2, SR)));
    assert_eq!(l.remove_granted(TicketId(2)), None);
    assert_eq!(l.granted(), &[t(1, 1, SR), t(5, 5, SU)]);
    assert_eq!(l.remove_waiting(TicketId(4)), Some(t(4, 4, SW)));
    assert_eq!(l.remove_waiting(TicketId(4)), None);
    assert_eq!(l.waiting(), &[t(3, 3, X)]);

    assert!(l.set_type(TicketId(5), SNW));
    assert_eq!(l.find_granted(TicketId(5)), Some(&t(5, 5, SNW)));
    assert_eq!(l.find_granted(TicketId(1)), Some(&t(1, 1, SR)));
    assert!(!l.set_type(TicketId(42), X));

    // An upgrade ticket granted next to the old one: the old takes its type.
    l.grant(t(6, 5, X));
    assert!(l.finish_upgrade(TicketId(5), TicketId(6)));
    assert_eq!(l.find_granted(TicketId(5)), Some(&t(5, 5, X)));
    assert_eq!(l.find_granted(TicketId(6)), None);
    assert!(!l.finish_upgrade(TicketId(5), TicketId(6)));
    assert_eq!(l.granted(), &[t(1, 1, SR), t(5, 5, X)]);

    l.map_owners(|o| OwnerId(o.0 + 10));
    assert_eq!(owners(l.granted()), vec![11, 15]);
    assert_eq!(owners(l.waiting()), vec![13]);
}

#[test]
fn can_grant_checks_other_owners_only() {
    let d = Dialect::mysql80();
    let r = rules(&d, "TABLE", u64::MAX);
    let mut l = LockState::new();
    l.grant(t(1, 1, SR));
    // Compatible with another owner's SR; X is not, except for the holder itself.
    assert!(l.can_grant(&r, SR, OwnerId(2), Priority::Honoured));
    assert!(!l.can_grant(&r, X, OwnerId(2), Priority::Honoured));
    assert!(l.can_grant(&r, X, OwnerId(1), Priority::Honoured));
    // A pending X holds back SR of others (not its own owner's), never SH.
    l.enqueue(t(2, 2, X));
    assert!(!l.can_grant(&r, SR, OwnerId(3), Priority::Honoured));
    assert!(l.can_grant(&r, SR, OwnerId(2), Priority::Honoured));
    assert!(l.can_grant(&r, SH, OwnerId(3), Priority::Honoured));
    // ignore_priority skips the pending matrix but not the granted one.
    assert!(l.can_grant(&r, SR, OwnerId(3), Priority::Ignored));
    assert!(!l.can_grant(&r, X, OwnerId(3), Priority::Ignored));
}

#[test]
fn reschedule_is_fifo_and_respects_try_grant() {
    let d = Dialect::mysql80();
    let r = rules(&d, "TABLE", u64::MAX);
    let mut l = LockState::new();
    l.grant(t(1, 1, X));
    for (id, ty) in [(2, SR), (4, SU), (5, SU), (3, SR)] {
        l.enqueue(t(id, id as u32, ty));
    }
    l.remove_granted(TicketId(1));
    // In queue order: SR 2, SU 4 (compatible with SR), not SU 5 (conflicts with SU 4), SR 3.
    // A refusal of try_grant keeps SR 2 queued, and the pass goes on.
    let mut asked = Vec::new();
    let g = l.reschedule(&r, |t| {
        asked.push(t.owner.0);
        t.owner.0 != 2
    });
    assert_eq!(owners(&g), vec![4, 3]);
    assert_eq!(asked, vec![2, 4, 3]);
    assert_eq!(owners(l.waiting()), vec![2, 5]);
    let g = l.reschedule(&r, |_| true);
    assert_eq!(owners(&g), vec![2]);
    assert_eq!(owners(l.granted()), vec![4, 3, 2]);
    assert_eq!(owners(l.waiting()), vec![5]);
    assert!(l.reschedule(&r, |_| true).is_empty());
    l.remove_granted(TicketId(4));
    assert_eq!(owners(&l.reschedule(&r, |_| true)), vec![5]);
    assert!(l.waiting().is_empty());
    assert!(l.check(&r).is_ok());
}

#[test]
fn unlimited_counts_hogs_but_never_switches() {
    // A pending X goes before earlier SR waiters (priority, not arrival); it is a hog
    // granted while a non-hog waits: counted, but with no limit the matrix stays 0.
    let d = Dialect::mysql80();
    let r = rules(&d, "TABLE", u64::MAX);
    let mut l = LockState::new();
    l.grant(t(1, 1, X));
    for (id, ty) in [(2, SR), (3, SR), (4, X)] {
        l.enqueue(t(id, id as u32, ty));
    }
    l.remove_granted(TicketId(1));
    assert_eq!(owners(&l.reschedule(&r, |_| true)), vec![4]);
    assert_eq!((l.hog_count(), l.pending_index()), (1, 0));
    l.remove_granted(TicketId(4));
    assert_eq!(owners(&l.reschedule(&r, |_| true)), vec![2, 3]);
    assert_eq!((l.hog_count(), l.pending_index()), (0, 0));
}

#[test]
fn mysql_hog_switch_lets_an_earlier_waiter_in_the_same_pass() {
    // max_write_lock_count 1. X released; waiting SR 2, SNW 3, SNRW 4.
    // Matrix 0: SR yields to the pending SNRW; SNW yields only to X: granted. A hog granted
    // while a non-hog (SR) waits: hog_count 1 -> matrix 2, and the pass starts over:
    // in matrix 2 SR yields to nothing and SR is compatible with the granted SNW.
    // SNRW conflicts with SNW. Afterwards only a hog (SNRW) waits: hog_count resets, and
    // the matrix goes back to 0.
    let d = Dialect::mysql80();
    let r = rules(&d, "TABLE", 1);
    let mut l = LockState::new();
    l.grant(t(1, 1, X));
    l.enqueue(t(2, 2, SR));
    l.enqueue(t(3, 3, SNW));
    l.enqueue(t(4, 4, SNRW));
    l.remove_granted(TicketId(1));
    let g = l.reschedule(&r, |_| true);
    assert_eq!(owners(&g), vec![3, 2]);
    assert_eq!(owners(l.waiting()), vec![4]);
    assert_eq!(l.hog_count(), 0);
    assert_eq!(l.pending_index(), 0);
    assert!(!l.could_grant_waiter(&r, &t(4, 4, SNRW)));
}

#[test]
fn mysql_hogs_give_way_after_the_limit_and_reset() {
    let d = Dialect::mysql80();
    let r = rules(&d, "TABLE", 1);
    let mut l = LockState::new();
    l.grant(t(1, 1, X));
    l.enqueue(t(2, 2, SR));
    l.enqueue(t(3, 3, X));
    l.remove_granted(TicketId(1));
    // SR yields to the pending X; X is granted while SR waits: hog 1, matrix 2.
    assert_eq!(owners(&l.reschedule(&r, |_| true)), vec![3]);
    assert_eq!(
        (l.hog_count(), l.piglet_count(), l.pending_index()),
        (1, 0, 2)
    );
    l.enqueue(t(4, 4, X));
    l.remove_granted(TicketId(3));
    // Matrix 2: SR no longer yields to X: granted first; X 4 conflicts with it. Only a
    // hog waits now: hog_count 0, matrix 0.
    assert_eq!(owners(&l.reschedule(&r, |_| true)), vec![2]);
    assert_eq!(
        (l.hog_count(), l.piglet_count(), l.pending_index()),
        (0, 0, 0)
    );
    assert_eq!(owners(l.waiting()), vec![4]);
}

#[test]
fn mysql_piglets_then_both_counters_then_straight_back_to_zero() {
    let d = Dialect::mysql80();
    let r = rules(&d, "TABLE", 1);
    let mut l = LockState::new();
    l.grant(t(1, 1, X));
    l.enqueue(t(2, 2, SRO));
    l.enqueue(t(3, 3, SW));
    l.enqueue(t(4, 4, SW));
    l.remove_granted(TicketId(1));
    // Matrix 0: SRO yields to the pending SW; SW 3 is granted while SRO waits: piglet 1,
    // matrix 1, start over: SRO conflicts with the granted SW, SW 4 yields to SRO now.
    assert_eq!(owners(&l.reschedule(&r, |_| true)), vec![3]);
    assert_eq!(
        (l.hog_count(), l.piglet_count(), l.pending_index()),
        (0, 1, 1)
    );
    assert_eq!(owners(l.waiting()), vec![2, 4]);
    assert!(!l.could_grant_waiter(&r, &t(2, 2, SRO)));
    assert!(!l.could_grant_waiter(&r, &t(4, 4, SW)));
    // An X arrives; SW 3 leaves. Matrix 1: SRO yields to the pending X, SW to SRO; X is
    // granted while non-hogs wait: hog 1 as well -> matrix 3.
    l.enqueue(t(5, 5, X));
    l.remove_granted(TicketId(3));
    assert_eq!(owners(&l.reschedule(&r, |_| true)), vec![5]);
    assert_eq!(
        (l.hog_count(), l.piglet_count(), l.pending_index()),
        (1, 1, 3)
    );
    // SRO stops waiting (a timeout). Only SW waits: a piglet, ignored at matrix 3, so both
    // counters reset and the matrix goes straight to 0.
    assert_eq!(l.remove_waiting(TicketId(2)), Some(t(2, 2, SRO)));
    assert!(l.reschedule(&r, |_| true).is_empty());
    assert_eq!(
        (l.hog_count(), l.piglet_count(), l.pending_index()),
        (0, 0, 0)
    );
    // SW 4 still conflicts with the granted X; then gets it.
    l.remove_granted(TicketId(5));
    assert_eq!(owners(&l.reschedule(&r, |_| true)), vec![4]);
    assert!(l.is_idle() || l.waiting().is_empty());
}

#[test]
fn mysql_matrix_3_stays_while_a_non_piglet_waits() {
    // As above up to matrix 3, then SW 4 leaves instead: SRO (not a hog, not a piglet)
    // still waits, so matrix 3 stays.
    let d = Dialect::mysql80();
    let r = rules(&d, "TABLE", 1);
    let mut l = LockState::new();
    l.grant(t(1, 1, X));
    l.enqueue(t(2, 2, SRO));
    l.enqueue(t(3, 3, SW));
    l.enqueue(t(4, 4, SW));
    l.remove_granted(TicketId(1));
    l.reschedule(&r, |_| true);
    l.enqueue(t(5, 5, X));
    l.remove_granted(TicketId(3));
    l.reschedule(&r, |_| true);
    assert_eq!(l.pending_index(), 3);
    l.remove_waiting(TicketId(4));
    assert!(l.reschedule(&r, |_| true).is_empty());
    assert_eq!(
        (l.hog_count(), l.piglet_count(), l.pending_index()),
        (1, 1, 3)
    );
    // Matrix 3: SRO does not yield to anything pending; it conflicts with the granted X.
    assert!(!l.could_grant_waiter(&r, &t(2, 2, SRO)));
    l.remove_granted(TicketId(5));
    assert_eq!(owners(&l.reschedule(&r, |_| true)), vec![2]);
    assert_eq!(
        (l.hog_count(), l.piglet_count(), l.pending_index()),
        (0, 0, 0)
    );
}

#[test]
fn mariadb_hogs_only_and_past_the_limit_ignore_priority() {
    let d = Dialect::mariadb();
    let r = rules(&d, "TABLE", 1);
    assert_eq!(r.starvation, Some(Starvation::Mariadb));
    let mut l = LockState::new();
    l.grant(t(1, 1, X));
    l.enqueue(t(2, 2, SR));
    l.enqueue(t(3, 3, X));
    l.remove_granted(TicketId(1));
    // Below the limit: SR yields to the pending X; X is granted (a hog): hog_count 1.
    assert_eq!(owners(&l.reschedule(&r, |_| true)), vec![3]);
    assert_eq!(l.hog_count(), 1);
    assert_eq!(l.pending_index(), 0);
    l.enqueue(t(4, 4, X));
    l.remove_granted(TicketId(3));
    // At the limit with a non-hog waiting: X 4 is skipped, SR is served ignoring priority.
    assert!(l.could_grant_waiter(&r, &t(2, 2, SR)));
    assert!(!l.could_grant_waiter(&r, &t(4, 4, X)));
    assert_eq!(owners(&l.reschedule(&r, |_| true)), vec![2]);
    // Only hogs wait now: the counter resets.
    assert_eq!(l.hog_count(), 0);
    assert_eq!(owners(l.waiting()), vec![4]);
    assert!(!l.could_grant_waiter(&r, &t(4, 4, X)));
    l.remove_granted(TicketId(2));
    assert!(l.could_grant_waiter(&r, &t(4, 4, X)));
    assert_eq!(owners(&l.reschedule(&r, |_| true)), vec![4]);
}

#[test]
fn mariadb_at_the_limit_with_only_hogs_waiting_serves_them() {
    // hog_count reaches the limit while SR waits; SR then leaves without a reschedule in
    // between, so the next pass starts at the limit with only hogs waiting: nothing is
    // skipped.
    let d = Dialect::mariadb();
    let r = rules(&d, "TABLE", 1);
    let mut l = LockState::new();
    l.grant(t(1, 1, X));
    l.enqueue(t(2, 2, SR));
    l.enqueue(t(3, 3, X));
    l.remove_granted(TicketId(1));
    l.reschedule(&r, |_| true);
    assert_eq!(l.hog_count(), 1);
    l.remove_waiting(TicketId(2));
    l.enqueue(t(4, 4, X));
    l.remove_granted(TicketId(3));
    assert!(l.could_grant_waiter(&r, &t(4, 4, X)));
    assert_eq!(owners(&l.reschedule(&r, |_| true)), vec![4]);
    assert_eq!(l.hog_count(), 0);
}

#[test]
fn mariadb_unlimited_keeps_priority() {
    let d = Dialect::mariadb();
    let r = rules(&d, "TABLE", u64::MAX);
    let mut l = LockState::new();
    l.grant(t(1, 1, X));
    l.enqueue(t(2, 2, SR));
    l.enqueue(t(3, 3, X));
    l.enqueue(t(4, 4, X));
    l.remove_granted(TicketId(1));
    assert_eq!(owners(&l.reschedule(&r, |_| true)), vec![3]);
    assert!(!l.could_grant_waiter(&r, &t(2, 2, SR)));
    l.remove_granted(TicketId(3));
    // SR still yields to the pending X 4.
    assert_eq!(owners(&l.reschedule(&r, |_| true)), vec![4]);
    assert_eq!(l.hog_count(), 2);
    l.remove_granted(TicketId(4));
    assert_eq!(owners(&l.reschedule(&r, |_| true)), vec![2]);
    assert_eq!(l.hog_count(), 0);
}

#[test]
fn mysql_rules_never_use_the_mariadb_reschedule() {
    // The mysql-8.0 GLOBAL lock (scoped, no starvation rule): a pending S holds back a new
    // IX, and reschedule grants in queue order without counters.
    let d = Dialect::mysql80();
    let n = d.namespace_by_name("GLOBAL").unwrap();
    let r = Rules {
        strategy: d.strategy(n),
        starvation: None,
        max_write_lock_count: 1,
    };
    let mut l = LockState::new();
    l.grant(t(1, 1, LockType::IX));
    l.enqueue(t(2, 2, S));
    assert!(!l.can_grant(&r, LockType::IX, OwnerId(3), Priority::Honoured));
    l.enqueue(t(3, 3, LockType::IX));
    l.remove_granted(TicketId(1));
    assert_eq!(owners(&l.reschedule(&r, |_| true)), vec![2]);
    assert_eq!(owners(l.waiting()), vec![3]);
    assert!(!l.could_grant_waiter(&r, &t(3, 3, LockType::IX)));
    assert_eq!(l.hog_count(), 0);
}

#[test]
fn blockers_are_other_owners_conflicting_tickets() {
    let d = Dialect::mysql80();
    let r = rules(&d, "TABLE", u64::MAX);
    let mut l = LockState::new();
    l.grant(t(1, 1, S));
    l.grant(t(2, 2, SR));
    l.grant(t(3, 3, SR)); // owner 3 also waits for X (an upgrade)
    l.enqueue(t(4, 3, X));
    l.enqueue(t(5, 5, SW));
    let x = t(4, 3, X);
    let sw = t(5, 5, SW);
    // X conflicts with every granted type; its own owner's SR is no edge.
    assert_eq!(
        l.blockers(&r, &x).map(|o| o.0).collect::<Vec<_>>(),
        vec![1, 2]
    );
    // SW is compatible with S and SR; it yields to the pending X (matrix 0).
    assert_eq!(
        l.blockers(&r, &sw).map(|o| o.0).collect::<Vec<_>>(),
        vec![3]
    );
    let bt: Vec<(u64, bool)> = l
        .blocking_tickets(&r, &x)
        .map(|(t, g)| (t.id.0, g))
        .collect();
    assert_eq!(bt, vec![(1, true), (2, true)]);
    let bt: Vec<(u64, bool)> = l
        .blocking_tickets(&r, &sw)
        .map(|(t, g)| (t.id.0, g))
        .collect();
    assert_eq!(bt, vec![(4, false)]);
}

#[test]
fn check_finds_broken_invariants() {
    let d = Dialect::mysql80();
    let r = rules(&d, "TABLE", u64::MAX);
    let mut l = LockState::new();
    l.grant(t(1, 1, SR));
    l.grant(t(2, 1, SNRW)); // one owner never conflicts with itself
    l.grant(t(3, 2, SH));
    l.enqueue(t(4, 3, X));
    l.enqueue(t(5, 4, X));
    assert!(l.check(&r).is_ok());
    l.enqueue(t(6, 3, SR));
    assert!(l.check(&r).unwrap_err().contains("waits twice"));
    let mut l = LockState::new();
    l.grant(t(1, 1, SR));
    l.grant(t(2, 2, X));
    assert!(l.check(&r).unwrap_err().contains("conflicting"));
    // An asymmetric matrix (MariaDB BACKUP): a pair that one order allows is no
    // conflict, whatever the list order (a clone or a downgrade goes to the back of the
    // granted list without a grant decision, as in the servers); a pair that neither
    // order allows (two BACKUP_START) is one.
    let d = Dialect::mariadb();
    let r = rules(&d, "BACKUP", u64::MAX);
    let s = r.strategy;
    let (a, b) = s
        .types
        .iter()
        .flat_map(|&a| s.types.iter().map(move |&b| (a, b)))
        .find(|&(a, b)| s.conflicts_granted(a, b) && !s.conflicts_granted(b, a))
        .expect("the backup matrix is not symmetric");
    let mut l = LockState::new();
    l.grant(t(1, 1, b));
    l.grant(t(2, 2, a));
    assert!(l.check(&r).is_ok(), "{b} could have been granted after {a}");
    let mut l = LockState::new();
    l.grant(t(1, 1, a));
    l.grant(t(2, 2, b));
    assert!(l.check(&r).is_ok(), "{b} requested while {a} is held");
    let start = LockType::BACKUP_START;
    assert!(s.conflicts_granted(start, start));
    let mut l = LockState::new();
    l.grant(t(1, 1, start));
    l.grant(t(2, 2, start));
    assert!(l.check(&r).unwrap_err().contains("conflicting"));
    // A clone (no grant decision, MDL_context::clone_ticket) of START under BLOCK_DDL,
    // after a FLUSH that BLOCK_DDL let in: START and FLUSH exclude each other both ways,
    // but the START is covered by its owner's stronger BLOCK_DDL: no broken invariant.
    let ty = |n: &str| LockType::parse(n).unwrap();
    let (blk, flush) = (ty("BACKUP_BLOCK_DDL"), ty("BACKUP_FLUSH"));
    assert!(s.covers(blk, start) && !s.covers(start, blk));
    let mut l = LockState::new();
    l.grant(t(1, 1, blk));
    l.grant(t(2, 2, flush));
    l.grant(t(3, 1, start));
    assert!(l.check(&r).is_ok());
    // Two equal tickets of one owner do not excuse each other: the older is checked.
    let mut l = LockState::new();
    l.grant(t(1, 1, start));
    l.grant(t(2, 2, start));
    l.grant(t(3, 1, start));
    assert!(l.check(&r).unwrap_err().contains("conflicting"));
}

#[test]
fn an_object_lock_without_the_starvation_rule_never_counts() {
    // mysql-8.0 ACL_CACHE: object strategy (with hogs), no starvation rule. A hog granted
    // while a non-hog waits moves no counter and switches no matrix, whatever the limit.
    let d = Dialect::mysql80();
    let n = d.namespace_by_name("ACL_CACHE").unwrap();
    assert!(!d.namespace(n).starvation);
    let r = Rules {
        strategy: d.strategy(n),
        starvation: None,
        max_write_lock_count: 1,
    };
    let mut l = LockState::new();
    l.grant(t(1, 1, X));
    l.enqueue(t(2, 2, SR));
    l.enqueue(t(3, 3, X));
    l.remove_granted(TicketId(1));
    assert_eq!(owners(&l.reschedule(&r, |_| true)), vec![3]);
    assert_eq!(
        (l.hog_count(), l.piglet_count(), l.pending_index()),
        (0, 0, 0)
    );
    l.enqueue(t(4, 4, X));
    l.remove_granted(TicketId(3));
    // Matrix 0 still: SR yields to the pending X again.
    assert_eq!(owners(&l.reschedule(&r, |_| true)), vec![4]);
    assert_eq!((l.hog_count(), l.pending_index()), (0, 0));
}

#[test]
fn only_a_granted_sw_counts_as_a_piglet() {
    // The piglet rule (shared/reference/README.md): "if SW was granted while SRO waits,
    // piglet_count += 1". Here SR, not SW, is granted while SRO waits: no count.
    // Owner 1 holds SW and X (one owner never conflicts with itself); SRO 2 and SR 3 wait.
    // X goes: SRO 2 still conflicts with the granted SW (granted matrix, SRO row, SW
    // column `-`); SR 3 yields to no pending type in matrix 0 (SR row: only SNRW, X) and is
    // compatible with SW (SR row, SW column `+`): granted while SRO waits. SR is neither a
    // hog nor the piglet, so both counters stay 0 and the matrix stays 0, even at limit 1.
    let d = Dialect::mysql80();
    let r = rules(&d, "TABLE", 1);
    let mut l = LockState::new();
    l.grant(t(1, 1, SW));
    l.grant(t(2, 1, X));
    l.enqueue(t(3, 2, SRO));
    l.enqueue(t(4, 3, SR));
    l.remove_granted(TicketId(2));
    assert_eq!(owners(&l.reschedule(&r, |_| true)), vec![3]);
    assert_eq!(owners(l.waiting()), vec![2]);
    assert_eq!(
        (l.hog_count(), l.piglet_count(), l.pending_index()),
        (0, 0, 0)
    );
    assert!(l.check(&r).is_ok());
}

/// mysql-8.0 with the object strategy's pending matrices cut down to one (matrix 0,
/// `object.pending.tsv`); `pending object 1` is a count the dialect format allows (1 to 4).
fn mysql_with_one_object_pending_matrix() -> Dialect {
    let read = |f: &str| -> Option<String> {
        match f {
            "dialect.txt" => Dialect::builtin_text("mysql-8.0", f)
                .map(|s| s.replace("pending object 4", "pending object 1")),
            "object.pending.tsv" => {
                Dialect::builtin_text("mysql-8.0", "object.pending0.tsv").map(str::to_owned)
            }
            _ => Dialect::builtin_text("mysql-8.0", f).map(str::to_owned),
        }
    };
    Dialect::parse(&read).expect("mysql-8.0 with one object pending matrix")
}

#[test]
fn counters_never_select_a_matrix_the_strategy_does_not_have() {
    // The counters select matrix (piglet >= limit ? 1 : 0) + (hog >= limit ? 2 : 0) of
    // mysql-8.0's four; a strategy with a single pending matrix has only matrix 0, so the
    // lock must stay on it whatever the counters say.
    let d = mysql_with_one_object_pending_matrix();
    let r = rules(&d, "TABLE", 1);
    assert_eq!(r.strategy.pending.len(), 1);
    assert_eq!(r.starvation, Some(Starvation::Mysql));
    let mut l = LockState::new();
    l.grant(t(1, 1, X));
    l.enqueue(t(2, 2, SR));
    l.enqueue(t(3, 3, X));
    l.remove_granted(TicketId(1));
    // Matrix 0: SR yields to the pending X; X is granted while SR (a non-hog) waits:
    // hog_count 1, at the limit, but there is no matrix 2: the index stays 0.
    assert_eq!(owners(&l.reschedule(&r, |_| true)), vec![3]);
    assert_eq!(
        (l.hog_count(), l.piglet_count(), l.pending_index()),
        (1, 0, 0)
    );
    // Still matrix 0: SR keeps yielding to a pending X, which is served first again.
    l.enqueue(t(4, 4, X));
    l.remove_granted(TicketId(3));
    assert!(!l.could_grant_waiter(&r, &t(2, 2, SR)));
    assert_eq!(owners(&l.reschedule(&r, |_| true)), vec![4]);
    assert_eq!(l.pending_index(), 0);
    // The piglet counter at the limit does not select a matrix 1 either: SW is granted
    // while SRO waits (SRO 6 conflicts with the granted SW 5 of another owner).
    let mut l = LockState::new();
    l.grant(t(1, 1, X));
    l.enqueue(t(5, 5, SW));
    l.enqueue(t(6, 6, SRO));
    l.remove_granted(TicketId(1));
    // Matrix 0: SW yields to SNW, SNRW, X only; SRO (arrived later) then conflicts with it.
    assert_eq!(owners(&l.reschedule(&r, |_| true)), vec![5]);
    assert_eq!(
        (l.hog_count(), l.piglet_count(), l.pending_index()),
        (0, 1, 0)
    );
}

#[test]
fn grant_in_id_order_takes_the_place_of_its_id() {
    // "before the first granted ticket with a higher id" (the place a grant in ticket
    // order would have given it): ids 2 and 6 granted, in that order.
    let mut l = LockState::new();
    l.grant(t(2, 2, SR));
    l.grant(t(6, 6, SR));
    // 4: between 2 and 6; 1: before everything; 9: no higher id, at the end.
    l.grant_in_id_order(t(4, 4, SW));
    assert_eq!(l.granted(), &[t(2, 2, SR), t(4, 4, SW), t(6, 6, SR)]);
    l.grant_in_id_order(t(1, 1, SH));
    assert_eq!(
        l.granted(),
        &[t(1, 1, SH), t(2, 2, SR), t(4, 4, SW), t(6, 6, SR)]
    );
    l.grant_in_id_order(t(9, 9, S));
    assert_eq!(owners(l.granted()), vec![1, 2, 4, 6, 9]);
    assert!(l.waiting().is_empty());
}

#[test]
fn grant_all_in_id_order_is_one_by_one_in_any_order() {
    // An unsorted granted list (grant order is not id order), then a batch in an order
    // of its own: the merge puts each where one-by-one insertion would, whatever the
    // batch's order.
    let base = [t(7, 7, SR), t(2, 2, SW), t(12, 12, SR), t(5, 5, S)];
    let batch = [
        t(9, 9, SR),
        t(1, 1, SH),
        t(6, 6, SW),
        t(14, 14, SR),
        t(3, 3, S),
    ];
    let mut one = LockState::new();
    let mut all = LockState::new();
    for g in base {
        one.grant(g);
        all.grant(g);
    }
    for x in batch {
        one.grant_in_id_order(x);
    }
    let mut rev: Vec<_> = batch.iter().rev().copied().collect();
    all.grant_all_in_id_order(&mut rev);
    assert!(rev.is_empty());
    assert_eq!(all.granted(), one.granted());
    assert_eq!(owners(all.granted()), vec![1, 3, 6, 7, 2, 9, 12, 5, 14]);
}
