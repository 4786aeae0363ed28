//! Entries about the deadlock detector and its victims: a wait that closes two cycles
//! (MySQL bug #50998), a DDL that must not win against a running transaction (#46273),
//! a LOCK TABLES whose deadlock depends on the tables' names (#65890).

use super::{res, tbl, Entry, Variant};
use crate::zoo::engine::*;
use mdl_core::dialect::Dialect;
use mdl_core::types::{Duration, LockType};

use Duration::{Explicit as EXPL, Statement as STMT, Transaction as TXN};

/// MySQL bug #50998: one wait closes two cycles.
pub fn two_cycles() -> Entry {
    let d = Dialect::mysql80();
    let t1 = tbl(&d, "t1");
    let dml = |name| {
        Program::new(
            name,
            vec![
                (
                    Op::Acq(t1.clone(), LockType::SR, TXN),
                    "BEGIN; SELECT * FROM t1",
                ),
                (
                    Op::Acq(t1.clone(), LockType::SW, TXN),
                    "INSERT INTO t1 VALUES (1): MDL SW",
                ),
                (Op::Commit, "COMMIT"),
            ],
        )
    };
    let progs = vec![
        dml("con1"),
        dml("con2"),
        Program::new(
            "alter",
            vec![
                (
                    Op::Acq(t1.clone(), LockType::SNW, TXN),
                    "ALTER TABLE t1 ADD COLUMN j INT: MDL SNW",
                ),
                (Op::Upg(t1.clone(), LockType::X), "upgrade to X"),
                (Op::Commit, "end of ALTER"),
            ],
        ),
    ];
    let checks = vec![
        Check::NoStuckCycle,
        Check::NoStuckState,
        Check::NoFalseDeadlock,
        Check::AllDone,
        Check::DeadlockReported,
    ];
    let mut old = Design::new(d.clone(), progs.clone());
    old.one_pass = true;
    old.checks = checks.clone();
    let mut new = Design::new(d, progs);
    new.checks = checks;
    new.checks.insert(4, Check::TwoDeadlocks);
    Entry {
        id: "two-cycles-one-search",
        title: "One wait closes two cycles; the detector broke one and stopped",
        bug: "MySQL bug #50998",
        link: "https://bugs.mysql.com/bug.php?id=50998",
        story: "\"Deadlock in MDL code during test rqg_mdl_stability\". Two transactions \
(`con1`, `con2`) read `t1` (MDL `SR`, kept to the end of the transaction). `ALTER TABLE t1` \
takes `SNW`; both transactions then `INSERT INTO t1` and wait for `SW`, which `SNW` blocks. \
When ALTER upgrades to `X` it waits for both readers: its one wait closes two cycles \
(ALTER, con1) and (ALTER, con2). The detector of that time searched once from the new \
waiter, aborted the victim of the first cycle it found and stopped; the other transaction \
kept waiting for ALTER, which kept waiting for it, until a timeout. The fix repeats the \
search until no cycle through the waiter is left (`MDL_context::find_deadlock()` loops). \
Read: the test for this bug in MySQL 5.5's `mysql-test/t/mdl_sync.test` (\"the addition of \
a waiting statement adds several loops in the waiters graph and therefore several \
searches for deadlock should be performed\"; both INSERTs must get `ER_LOCK_DEADLOCK` \"and \
not wait indefinitely (as it happened before the bugfix)\") and the bug's title in the list \
of bugs fixed by the MDL work (\"Bug#989 is in. Again.\", 2010).",
        old_text: "The detector searches once. The core's detector always searches \
again, so this old design is modelled in the zoo engine's own terms \
(`Design::one_pass`): MDL requests are tried without waiting; one that cannot be granted \
waits in the engine (it is retried when it would be granted, with no place in the lock's \
queue), after one search from the new waiter with `mdl_core::deadlock::detect` over the \
ground-truth wait-for graph; the victim rolls back; no second search.",
        fix: "The real lock table: `LockTable::detect` aborts victims until no cycle \
through the waiter remains. ALTER's upgrade aborts both lighter INSERTs (DML weight 25 \
against DDL 100) and is granted.",
        old,
        new,
        variants: Vec::new(),
    }
}

/// MySQL bug #46273: a DDL commits under a running transaction.
pub fn alter_under_transaction() -> Entry {
    let d = Dialect::mysql80();
    let t1 = tbl(&d, "t1");
    let rs = vec![res("t1", Kind::ThrLock, "THR_LOCK")];
    let mut trx_old = Program::new(
        "trx",
        vec![
            (
                Op::Acq(t1.clone(), LockType::SR, TXN),
                "BEGIN; SELECT * FROM t1 WHERE c2 = 3",
            ),
            (
                Op::Acq(t1.clone(), LockType::SR, TXN),
                "UPDATE t1 ...: open t1 (shared MDL, held already)",
            ),
            (
                Op::Take(0, WRITE_ALLOW_WRITE, STMT),
                "UPDATE: TL_WRITE_ALLOW_WRITE",
            ),
            (Op::EndStmt, "end of UPDATE"),
            (Op::Commit, "COMMIT"),
        ],
    );
    trx_old.backoff_pc = Some(1);
    let alter = |first: LockType, label: &'static str| {
        Program::new(
            "alter",
            vec![
                (Op::Acq(t1.clone(), first, TXN), label),
                (
                    Op::Take(0, WRITE_ALLOW_READ, STMT),
                    "table lock TL_WRITE_ALLOW_READ",
                ),
                (Op::Upg(t1.clone(), LockType::X), "upgrade to X"),
                (Op::Note, "rename t1 to t2"),
                (Op::Commit, "end of ALTER (commits)"),
            ],
        )
    };
    let mut old = Design::new(
        d.clone(),
        vec![
            trx_old,
            alter(
                LockType::SU,
                "ALTER TABLE t1 ADD COLUMN e, RENAME TO t2: MDL SU (upgradable shared)",
            ),
        ],
    );
    old.res = rs.clone();
    old.backoff = true;
    old.tracked = vec![t1.clone()];
    old.checks = vec![
        Check::Isolation,
        Check::NoStuckCycle,
        Check::NoStuckState,
        Check::NoFalseDeadlock,
        Check::AllDone,
    ];
    let trx_new = Program::new(
        "trx",
        vec![
            (
                Op::Acq(t1.clone(), LockType::SR, TXN),
                "BEGIN; SELECT * FROM t1 WHERE c2 = 3",
            ),
            (
                Op::Acq(t1.clone(), LockType::SW, TXN),
                "UPDATE t1 ...: MDL SW",
            ),
            (
                Op::Take(0, WRITE_ALLOW_WRITE, STMT),
                "UPDATE: TL_WRITE_ALLOW_WRITE",
            ),
            (Op::EndStmt, "end of UPDATE"),
            (Op::Commit, "COMMIT"),
        ],
    );
    let mut new = Design::new(
        d,
        vec![
            trx_new,
            alter(
                LockType::SNW,
                "ALTER TABLE t1 ADD COLUMN e, RENAME TO t2: MDL SNW",
            ),
        ],
    );
    new.res = rs;
    new.tracked = vec![t1];
    new.checks = vec![
        Check::Isolation,
        Check::NoStuckCycle,
        Check::NoStuckState,
        Check::NoFalseDeadlock,
        Check::AllDone,
        Check::DeadlockReported,
    ];
    Entry {
        id: "alter-under-transaction",
        title: "ALTER TABLE commits under a running transaction (Bug #989 again)",
        bug: "MySQL bug #46273",
        link: "https://bugs.mysql.com/bug.php?id=46273",
        story: "\"MySQL 5.4.4 new MDL: Bug#989 is not fully fixed in case of ALTER\". A \
transaction reads `t1`; `ALTER TABLE t1 ADD COLUMN e INT, RENAME TO t2` takes its \
upgradable metadata lock and its table lock; the transaction's `UPDATE t1` then waits \
for the table lock. In MySQL 5.4's first MDL, a DDL that wanted to upgrade aborted the \
table-lock waits of the sessions holding the table, and an aborted statement backed off: \
it gave back its metadata locks, including those of the transaction's earlier \
statements, and started over. So ALTER renamed `t1` to `t2` and committed while the \
transaction was still running, the order Bug #989 is about (the binary log gets the DDL \
before a transaction that used the table). The fix (MySQL 5.5): ALTER takes `SNW`, which \
keeps the `UPDATE`'s `SW` out at the metadata-lock level, so the conflict is a cycle of \
MDL waits that the detector resolves by aborting the DML (`ER_LOCK_DEADLOCK`); and a \
statement of a transaction that holds locks never backs off by releasing them \
(`Open_table_context::request_backoff_action`: \"Releasing locks of completed statements \
can not be done as will lead to violation of ACID\"). Read: the test for this bug in MySQL \
5.5's `mysql-test/t/mdl_sync.test` (\"The below statement should get ER_LOCK_DEADLOCK error \
(i.e. it should not allow ALTER to proceed, and then fail due to 't1' changing its name \
to 't2')\") and that comment in `sql/sql_base.cc`. The 5.4 back-off is described from \
these; the 5.4 source itself was not read.",
        old_text: "ALTER holds `SU` and `TL_WRITE_ALLOW_READ`; the `UPDATE` reuses the \
transaction's shared metadata lock and waits for `TL_WRITE_ALLOW_WRITE`. The back-off is \
modelled in the zoo engine (`Design::backoff`): when an MDL request waits for a session \
that waits in THR_LOCK (or a session starts such a wait while a DDL waits for it), that \
session's table-lock wait is aborted, it gives back every metadata lock and starts the \
statement over. The property tracks the tables each transaction used.",
        fix: "ALTER takes `SNW`; the `UPDATE` requests `SW` and waits for it in MDL. ALTER's \
upgrade to `X` closes an MDL cycle; the detector aborts the `UPDATE` (DML 25 against DDL \
100), the transaction rolls back, and only then does ALTER get `X`. No back-off.",
        old,
        new,
        variants: Vec::new(),
    }
}

/// Which of the #65890 designs.
#[derive(Clone, Copy)]
struct NameOrder {
    /// The transaction uses A first (the old design's uses B first).
    swap: bool,
    /// LOCK TABLES takes all its locks or none (the fix).
    all_or_nothing: bool,
}

/// The #65890 designs.
fn name_order_design(order: NameOrder) -> Design {
    let NameOrder {
        swap,
        all_or_nothing,
    } = order;
    let d = Dialect::mysql80();
    let a = tbl(&d, "A");
    let b = tbl(&d, "B");
    let (first, second, l1, l2) = if swap {
        (
            a.clone(),
            b.clone(),
            "START TRANSACTION; SELECT * FROM A WHERE F=1 FOR UPDATE: MDL SW on A",
            "SELECT * FROM B WHERE F=1: MDL SR on B",
        )
    } else {
        (
            b.clone(),
            a.clone(),
            "START TRANSACTION; SELECT * FROM B WHERE F=1 FOR UPDATE: MDL SW on B",
            "SELECT * FROM A WHERE F=1: MDL SR on A",
        )
    };
    let trx = Program::new(
        "trx",
        vec![
            (Op::Acq(first, LockType::SW, TXN), l1),
            (Op::Acq(second, LockType::SR, TXN), l2),
            (Op::Commit, "COMMIT"),
        ],
    );
    let reqs = vec![(a, LockType::SNRW), (b, LockType::SNRW)];
    let lock = if all_or_nothing {
        (
            Op::BulkRetry(reqs, EXPL),
            "LOCK TABLES A WRITE, B WRITE: all at once, waits holding none",
        )
    } else {
        (
            Op::Bulk(reqs, EXPL),
            "LOCK TABLES A WRITE, B WRITE: SNRW on A, then B (name order)",
        )
    };
    let mut m = Design::new(
        d,
        vec![
            trx,
            Program::new("locker", vec![lock, (Op::Unlock, "UNLOCK TABLES")]),
        ],
    );
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

/// MySQL bug #65890: the deadlock depends on the tables' names.
pub fn lock_tables_name_order() -> Entry {
    Entry {
        id: "lock-tables-name-order",
        title: "LOCK TABLES takes its tables in name order: a deadlock that depends on names",
        bug: "MySQL bug #65890",
        link: "https://bugs.mysql.com/bug.php?id=65890",
        story: "\"Deadlock that is not a deadlock with transaction and lock tables\" \
(MySQL 5.5). Session 1: `START TRANSACTION; SELECT * FROM B WHERE F=1 FOR UPDATE`. \
Session 2: `LOCK TABLES A WRITE, B WRITE` waits. Session 1: `SELECT * FROM A WHERE F=1` \
gets `ER_LOCK_DEADLOCK`. The reporter: \"Session 2 must wait completion of transaction of \
session 1 before lock acquiring\", and \"Deadlock depends on alphabetical order of table \
names. If we swap B and A tables in SELECT queries of session 1 then deadlock error is not \
thrown.\" The cause is in MDL: LOCK TABLES requests all its locks in one bulk request, \
sorted by key (`MDL_context::acquire_locks`), and keeps `SNRW` on `A` while it waits for \
`B`, which the transaction holds; the transaction's read of `A` closes the cycle and, \
being the lighter waiter, is the victim. The report was closed as a documentation bug: \
the behaviour stayed and was documented. Read: the bug report.",
        old_text: "The real lock table: the transaction takes `SW` on `B` then `SR` on \
`A`; LOCK TABLES is one bulk request (`acquire_all`, key order). The property protects \
the transaction, which only reads and locks each table once, from being chosen as a \
victim.",
        fix: "Not MySQL's (which documented the behaviour) but the design the reporter \
expected, and the one MariaDB uses for its backup lock since MDEV-17772 (\"If this attempt \
fails, TABLE/SCHEMA locks gets released and we start waiting ... and we attempt to acquire \
all locks once again\"): LOCK TABLES tries all its locks without waiting and, on a \
conflict, gives back what it took and waits holding none (the zoo engine's \
`Op::BulkRetry`), so it can never be on a cycle and the transaction is never its victim, \
whatever the names. (It waits without a place in the locks' queues, so it could be \
starved; this model has one transaction and does not check that.) The variants below run \
both designs with the transaction's tables the other way round: the old design then \
holds, which is the name dependence the reporter saw.",
        old: name_order_design(NameOrder {
            swap: false,
            all_or_nothing: false,
        }),
        new: name_order_design(NameOrder {
            swap: false,
            all_or_nothing: true,
        }),
        variants: vec![
            Variant {
                label: "old design, the transaction uses A first (names swapped)",
                design: name_order_design(NameOrder {
                    swap: true,
                    all_or_nothing: false,
                }),
                expect_caught: false,
            },
            Variant {
                label: "fixed design, the transaction uses A first (names swapped)",
                design: name_order_design(NameOrder {
                    swap: true,
                    all_or_nothing: true,
                }),
                expect_caught: false,
            },
        ],
    }
}
