//! What the differential harness found, as unit tests: regressions for the core bugs it
//! caught and fixed, and the known divergences between mdl-core and the servers that the
//! oracle (`mdl_scenario::oracle`) can show. A divergence test asserts today's behaviour;
//! when the core changes, the test fails and tells what to update.

use mdl_core::dialect::Dialect;
use mdl_core::table::{Config, LockTable};
use mdl_core::{Duration, LockType, MdlKey, Outcome, WaitOption, WeightRule};
use mdl_scenario::oracle::{run, run_with, Cmd, Op, Oracle, Program, ReleaseMode};

fn prog(mariadb: bool, ops: Vec<Op>) -> Program {
    Program {
        mariadb,
        max_write_lock_count: 0,
        sessions: 2, // 4 sessions
        keys: 0,     // 1 key: TABLE d.t1
        key_offset: 0,
        max_search_depth: 0,
        ops,
    }
}

/// Found by proptest: `TicketBook::strongest` took the *oldest* ticket of the highest rank
/// (`rev().max_by_key` returns the last maximum of the reversed list), where its contract
/// says the latest. Held SRO (statement), SW (statement), SRO (transaction, a clone): none
/// covers all; the upgrade to SNW must raise the latest SRO, the transaction one.
#[test]
fn strongest_is_the_latest_of_the_highest_rank() {
    // mariadb object types: S SH SR SW SU SRO SNW SNRW X.
    let p = prog(
        true,
        vec![
            Op::AcquireAll {
                s: 0,
                items: vec![(0, 5)],
                d: 0,
                w: 0,
            },
            Op::AcquireAll {
                s: 0,
                items: vec![(0, 3)],
                d: 0,
                w: 0,
            },
            Op::AcquireAll {
                s: 0,
                items: vec![(0, 5)],
                d: 1,
                w: 0,
            },
            Op::Upgrade {
                s: 0,
                k: 0,
                t: 6,
                w: 0,
            },
        ],
    );
    run(&p).unwrap();
    let d = Dialect::mariadb();
    let mut t = LockTable::new(std::sync::Arc::new(d.clone()), Config::default());
    let s = t.add_session();
    let k = MdlKey::parse(&d, "TABLE", "d.t1").unwrap();
    for (ty, dur) in [
        (LockType::SRO, Duration::Statement),
        (LockType::SW, Duration::Statement),
        (LockType::SRO, Duration::Transaction),
    ] {
        assert_eq!(
            t.acquire(s, &k, ty, dur, WaitOption::NoWait),
            Ok(Outcome::Granted)
        );
    }
    assert_eq!(
        t.upgrade(s, &k, LockType::SNW, WaitOption::NoWait),
        Ok(Outcome::Granted)
    );
    let snw = t
        .session(s)
        .unwrap()
        .book
        .held()
        .iter()
        .find(|h| h.ty == LockType::SNW)
        .cloned();
    assert_eq!(snw.map(|h| h.dur), Some(Duration::Transaction));
}

/// Was a divergence, fixed (issue 13): a step that gives back several tickets. MySQL's
/// and MariaDB's `release_locks_stored_before` release one ticket at a time (each list
/// from its front) and reschedule after each; mdl-core removed them all, then
/// rescheduled each lock once. S2 holds SR then SU (statement) on t1; S1 waits for SNRW,
/// then S0 for SU. At S2's commit the server frees SU first and grants S0's SU
/// (compatible with the SR still held); the batch release granted S1's SNRW.
#[test]
fn release_one_ticket_at_a_time() {
    let p = prog(
        true,
        vec![
            Op::Acquire {
                s: 2,
                k: 0,
                t: 2,
                d: 0,
                w: 0,
            },
            Op::AcquireAll {
                s: 2,
                items: vec![(0, 4)],
                d: 0,
                w: 0,
            },
            Op::Acquire {
                s: 1,
                k: 0,
                t: 7,
                d: 0,
                w: 0,
            },
            Op::AcquireAll {
                s: 0,
                items: vec![(0, 4)],
                d: 0,
                w: 3,
            },
            Op::Commit { s: 2 },
        ],
    );
    assert_eq!(run(&p), Ok(()), "mdl-core agrees with the servers' order");
    let e = run_with(&p, ReleaseMode::Batch).expect_err("the batch release differs");
    assert!(e.contains("events differ"), "{e}");
}

/// Found by the oracle: MySQL's `MDL_ticket::get_deadlock_weight` returns the
/// user-level-lock weight (50) for USER_LEVEL_LOCK *before* the DDL test; mdl-core used to
/// weigh a ULL X as DDL (100); fixed in `Dialect::weight`. S1 waits for ULL X held by S0;
/// S0 then asks for TABLE X held by S1: a cycle. S1 (50) < S0 (100): S1 is the victim.
#[test]
fn user_level_lock_weight_is_checked_first() {
    let d = Dialect::mysql80();
    let ull = MdlKey::parse(&d, "USER_LEVEL_LOCK", "u.l").unwrap();
    let tab = MdlKey::parse(&d, "TABLE", "d.t1").unwrap();
    let cmds = [
        Cmd::Acquire {
            s: 0,
            key: ull.clone(),
            ty: LockType::X,
            dur: Duration::Explicit,
            wait: WaitOption::Forever,
        },
        Cmd::Acquire {
            s: 1,
            key: tab.clone(),
            ty: LockType::X,
            dur: Duration::Transaction,
            wait: WaitOption::Forever,
        },
        Cmd::Acquire {
            s: 1,
            key: ull.clone(),
            ty: LockType::X,
            dur: Duration::Explicit,
            wait: WaitOption::Forever,
        },
        Cmd::Acquire {
            s: 0,
            key: tab.clone(),
            ty: LockType::X,
            dur: Duration::Transaction,
            wait: WaitOption::Forever,
        },
    ];
    let mut o = Oracle::new("mysql-8.0", u64::MAX, 2).unwrap();
    let mut t = LockTable::new(std::sync::Arc::new(d.clone()), Config::default());
    t.add_session();
    t.add_session();
    let mut last = None;
    for c in &cmds {
        let (to, te) = mdl_scenario::oracle::program::apply_table(&mut t, c);
        let (oo, oe) = o.step(c);
        last = Some(((to, te), (oo, oe)));
    }
    let ((to, te), (oo, oe)) = last.unwrap();
    // Both: S1, the ULL waiter, is the victim (S0 goes on waiting for S1's TABLE X).
    assert_eq!((to, te.clone()), (oo, oe));
    assert_eq!((to, te), (Outcome::Waiting, vec![(1, Outcome::Deadlock)]));
    assert_eq!(
        d.weight(ull.namespace(), LockType::X, WeightRule::ByTicket, 0),
        50
    );
    assert_eq!(o.weight_of(&ull, LockType::X, false, 0), 50);
}

/// Found while wiring the oracle: `LockState::check` called two granted tickets
/// conflicting when either request was incompatible with the other, which misfired on
/// MariaDB's asymmetric BACKUP matrix (fixed in mdl-core: `check` now reads the granted
/// list in grant order). BACKUP_BLOCK_DDL granted, then a BACKUP_FLUSH request is
/// compatible with it (row FLUSH, column BLOCK_DDL is `+`): both the table and the oracle
/// grant it, and the table's invariants hold.
#[test]
fn check_on_asymmetric_matrix() {
    let d = Dialect::mariadb();
    let k = MdlKey::parse(&d, "BACKUP", "-").unwrap();
    let mut t = LockTable::new(std::sync::Arc::new(d.clone()), Config::default());
    let a = t.add_session();
    let b = t.add_session();
    let blk = LockType::parse("BACKUP_BLOCK_DDL").unwrap();
    let flush = LockType::parse("BACKUP_FLUSH").unwrap();
    let nw = WaitOption::NoWait;
    let st = Duration::Statement;
    assert_eq!(t.acquire(b, &k, blk, st, nw), Ok(Outcome::Granted));
    assert_eq!(t.acquire(a, &k, flush, st, nw), Ok(Outcome::Granted));
    let mut o = Oracle::new("mariadb", u64::MAX, 2).unwrap();
    let acq = |s, ty| Cmd::Acquire {
        s,
        key: k.clone(),
        ty,
        dur: st,
        wait: nw,
    };
    o.step(&acq(1, blk));
    assert_eq!(o.step(&acq(0, flush)).0, Outcome::Granted);
    assert_eq!(t.check(), Ok(()));
}

/// Was a divergence in an invariant check, fixed: `LockState::check` read the granted
/// list as the order of grant decisions, but a clone (or an acquire covered by a held
/// ticket of another duration) is appended without a grant decision, as in the servers.
/// S0 BLOCK_DDL, S1 FLUSH (compatible with it), S0 clones its BLOCK_DDL: the clone now
/// follows FLUSH. `check` now reports a pair only when neither order could have been
/// granted.
#[test]
fn check_after_clone() {
    let d = Dialect::mariadb();
    let k = MdlKey::parse(&d, "BACKUP", "-").unwrap();
    let mut t = LockTable::new(std::sync::Arc::new(d.clone()), Config::default());
    let a = t.add_session();
    let b = t.add_session();
    let blk = LockType::parse("BACKUP_BLOCK_DDL").unwrap();
    let flush = LockType::parse("BACKUP_FLUSH").unwrap();
    let nw = WaitOption::NoWait;
    let st = Duration::Statement;
    assert_eq!(t.acquire(a, &k, blk, st, nw), Ok(Outcome::Granted));
    assert_eq!(t.acquire(b, &k, flush, st, nw), Ok(Outcome::Granted));
    assert_eq!(t.clone_ticket(a, &k, None, st), Ok(Outcome::Ok));
    assert_eq!(t.check(), Ok(()));
    // A clone of START (which BLOCK_DDL covers): START and FLUSH exclude each other both
    // ways, as in the server (clone_ticket asks nothing); the START is covered by its
    // owner's BLOCK_DDL, so `check` does not count the pair (found by prop_sequence once
    // it asked `check` after every step).
    let start = LockType::parse("BACKUP_START").unwrap();
    assert_eq!(t.clone_ticket(a, &k, Some(start), st), Ok(Outcome::Ok));
    assert_eq!(t.check(), Ok(()));
}

/// Found by the `sequence` fuzz target (fuzz/regressions/sequence-backup-retype): on
/// MariaDB's asymmetric BACKUP matrix the servers themselves grant two tickets that
/// exclude each other both ways. S0 BLOCK_DDL, S1 WAIT_COMMIT (which a held BLOCK_DDL
/// lets in), S0 upgrades to START: BLOCK_DDL covers START (the rows), and in BACKUP
/// "upgrade must always happen", so `upgrade_shared_lock` retypes the ticket with no
/// grant decision. The table and the oracle agree; `LockTable::check` does not hold
/// there, which is why the harness asks it for mysql-8.0 only.
#[test]
fn backup_retype_excludes_both_ways() {
    let d = Dialect::mariadb();
    let k = MdlKey::parse(&d, "BACKUP", "-").unwrap();
    let ty = |n: &str| LockType::parse(n).unwrap();
    let (blk, wc, start) = (
        ty("BACKUP_BLOCK_DDL"),
        ty("BACKUP_WAIT_COMMIT"),
        ty("BACKUP_START"),
    );
    let mut t = LockTable::new(std::sync::Arc::new(d.clone()), Config::default());
    let a = t.add_session();
    let b = t.add_session();
    let (tr, f) = (Duration::Transaction, WaitOption::Forever);
    assert_eq!(t.acquire(a, &k, blk, tr, f), Ok(Outcome::Granted));
    assert_eq!(t.acquire(b, &k, wc, tr, f), Ok(Outcome::Granted));
    assert_eq!(t.upgrade(a, &k, start, f), Ok(Outcome::Granted));
    assert!(t.owns_equal_or_stronger(a, &k, start));
    assert!(t.owns_equal_or_stronger(b, &k, wc));
    assert!(
        t.check().is_err(),
        "START and WAIT_COMMIT exclude each other"
    );
    // The same program through the oracle (one key, the mariadb palette's second: BACKUP;
    // types are indices into the BACKUP strategy: START 0, WAIT_COMMIT 4, BLOCK_DDL 11).
    let p = Program {
        keys: 0,
        key_offset: 1,
        ..prog(
            true,
            vec![
                Op::Acquire {
                    s: 0,
                    k: 0,
                    t: 11,
                    d: 1,
                    w: 0,
                },
                Op::Acquire {
                    s: 1,
                    k: 0,
                    t: 4,
                    d: 1,
                    w: 0,
                },
                Op::Upgrade {
                    s: 0,
                    k: 0,
                    t: 0,
                    w: 0,
                },
            ],
        )
    };
    assert_eq!(run(&p), Ok(()));
}
