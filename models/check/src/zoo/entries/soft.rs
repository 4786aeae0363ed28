//! Soft-edge resolution (issue 19 item 3): a deadlock that needs no victim.

use super::*;

/// The #82204 design: a transaction that read `t` (SR) updates it (SW) while
/// `LOCK TABLES t WRITE` (SNRW) waits for its SR. `soft`: the dialect's
/// `deadlock_resolution soft_edges`.
fn sr_then_sw_design(soft: bool) -> Design {
    let mut d = Dialect::mysql80();
    d.soft_edges = soft;
    let t = tbl(&d, "t");
    let trx = Program::new(
        "trx",
        vec![
            (
                Op::Acq(t.clone(), LockType::SR, TXN),
                "BEGIN; SELECT * FROM t: MDL SR",
            ),
            (
                Op::Acq(t.clone(), LockType::SW, TXN),
                "UPDATE t: MDL SW, behind the pending SNRW",
            ),
            (Op::Commit, "COMMIT"),
        ],
    );
    let locker = Program::new(
        "locker",
        vec![
            (
                Op::Acq(t, LockType::SNRW, EXPL),
                "LOCK TABLES t WRITE: MDL SNRW, waits for the SR",
            ),
            (Op::Unlock, "UNLOCK TABLES"),
        ],
    );
    let mut m = Design::new(d, vec![trx, locker]);
    m.protect = 0;
    m.checks = vec![
        Check::NoVictim,
        Check::NoStuckCycle,
        Check::NoStuckState,
        Check::NoFalseDeadlock,
        Check::AllDone,
    ];
    m
}

/// MySQL bug #82204 / WL#5470: the reader's own write is the victim.
pub fn sr_then_sw() -> Entry {
    Entry {
        id: "sr-then-sw-behind-snrw",
        title: "A reader that writes behind a pending LOCK TABLES WRITE is the victim",
        bug: "MySQL bug #82204 / WL#5470",
        link: "https://bugs.mysql.com/bug.php?id=82204",
        story: "A transaction reads `t` (MDL `SHARED_READ`). Another session runs \
`LOCK TABLES t WRITE` (or an `ALTER TABLE` that needs `SHARED_NO_READ_WRITE`) and waits for \
that read lock. The transaction now updates `t`: its `SHARED_WRITE` is compatible with \
everything *granted* (only its own `SR`), but the pending `SNRW` has priority over it (the \
pending matrix, `MDL_lock::can_grant_lock`), so it waits too, and the wait-for graph closes \
a cycle: the DML waits for the LOCK TABLES request (a *soft* edge: only the queue's order \
holds it back), which waits for the DML's granted `SR` (a *hard* edge). MySQL's detector \
(`MDL_context::find_deadlock`) aborts the lighter waiter, the DML, with `ER_LOCK_DEADLOCK`, \
and the application has to retry its transaction although letting the `SW` in ahead of the \
`SNRW` would have let both finish. The mechanism is the one issue 19 gives for the bug and \
its worklog; the texts of the bug report and of WL#5470 could not be retrieved while this \
entry was written (the search found neither), so the citation rests on the issue. The old \
design below reproduces the mechanism on the real lock table.",
        old_text: "The real lock table with the servers' victim rule (`mysql-8.0`). The \
property protects the transaction: it took one read lock and asked to write the same table, \
and no order of grants needs it to give anything back.",
        fix: "Not a server's fix: soft-edge resolution, as PostgreSQL resolves such cycles \
(`src/backend/storage/lmgr/deadlock.c`: `DeadLockCheck`, `FindLockCycle`, \
`TopoSort`, `DS_SOFT_DEADLOCK`). The same lock table with `deadlock_resolution soft_edges`: \
before it chooses a victim the detector tries each edge of the cycle; the DML's edge to the \
pending `SNRW` is soft, so the DML's `SW` is moved ahead of the `SNRW` (`step::Lock::reorder`, \
only when no new cycle can form and the `SNRW` has been passed over fewer than \
`max_write_lock_count` times). The `SW` is granted, the transaction commits, and LOCK TABLES \
gets its lock: no victim. `mdl check` proves the option on every bundled scenario \
(`models/mdl/tests/soft_edges.rs`).",
        old: sr_then_sw_design(false),
        new: sr_then_sw_design(true),
        variants: Vec::new(),
    }
}
