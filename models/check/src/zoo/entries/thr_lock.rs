//! Entries where half of a cycle was a wait in THR_LOCK, the table-level lock manager
//! (`mysys/thr_lock.c`) whose waits no deadlock detector sees: MySQL bugs #46044, #50821,
//! #11764618, #50913, #56292. In every one the THR_LOCK waits stay invisible in the fixed
//! design too, as in the servers: the fixes keep the cycle from forming.

use super::{res, tbl, Entry};
use crate::zoo::engine::*;
use mdl_core::dialect::Dialect;
use mdl_core::types::{Duration, LockType};

use Duration::{Explicit as EXPL, Statement as STMT, Transaction as TXN};

fn basic_checks() -> Vec<Check> {
    vec![
        Check::NoStuckCycle,
        Check::NoStuckState,
        Check::NoFalseDeadlock,
        Check::AllDone,
    ]
}

/// MySQL bug #46044: an INFORMATION_SCHEMA open waits under LOCK TABLES.
pub fn show_under_lock_tables() -> Entry {
    let d = Dialect::mysql80();
    let t1 = tbl(&d, "t1");
    let t2 = tbl(&d, "t2");
    let progs = vec![
        Program::new(
            "locker",
            vec![
                (
                    Op::Acq(t1.clone(), LockType::SR, EXPL),
                    "LOCK TABLES t1 READ: MDL SR",
                ),
                (
                    Op::Take(0, READ_NO_INSERT, EXPL),
                    "LOCK TABLES t1 READ: TL_READ_NO_INSERT",
                ),
                (
                    Op::ShowOpen(t2.clone()),
                    "SHOW FIELDS FROM t2: MDL SH on t2",
                ),
                (Op::EndStmt, "end of SHOW"),
                (Op::Unlock, "UNLOCK TABLES"),
            ],
        ),
        Program::new(
            "creator",
            vec![
                (
                    Op::Acq(t2.clone(), LockType::X, STMT),
                    "CREATE TABLE t2 SELECT * FROM t1 FOR UPDATE: MDL X on t2",
                ),
                (Op::Acq(t1.clone(), LockType::SW, STMT), "MDL SW on t1"),
                (Op::Take(0, WRITE, STMT), "TL_WRITE on t1"),
                (Op::EndStmt, "end of CREATE TABLE ... SELECT"),
            ],
        ),
    ];
    let mut old = Design::new(d.clone(), progs.clone());
    old.res = vec![res("t1", Kind::ThrLock, "THR_LOCK")];
    old.checks = basic_checks();
    let mut new = Design::new(d, progs);
    new.res = old.res.clone();
    new.show_no_wait = true;
    new.checks = basic_checks();
    Entry {
        id: "show-under-lock-tables",
        title: "SHOW / INFORMATION_SCHEMA waits under LOCK TABLES: half the cycle in THR_LOCK",
        bug: "MySQL bug #46044",
        link: "https://bugs.mysql.com/bug.php?id=46044",
        story: "\"MDL deadlock on LOCK TABLE + CREATE TABLE HIGH_PRIORITY FOR UPDATE\". \
Connection 1 runs `LOCK TABLES t1 READ`. Connection 2 runs `CREATE TABLE t2 SELECT * FROM \
t1 FOR UPDATE`: it holds MDL `X` on the new `t2` and waits for the table-level write \
lock on `t1` (THR_LOCK, \"Waiting for table level lock\"). Connection 1, still under LOCK \
TABLES, runs `SHOW FIELDS FROM t2` (or a query on INFORMATION_SCHEMA): the open of `t2` \
waits for MDL `SH`, which `X` blocks. Each waits for the other, but the MDL detector sees \
only connection 1's wait; the THR_LOCK half is invisible to it, so only a timeout ends it. \
The fix (MySQL 5.5, `sql_show.cc`, `try_acquire_high_prio_shared_mdl_lock`): when the \
connection holds other locks (\"By waiting for the conflicting metadata lock to go away we \
might create a deadlock which won't entirely belong to the MDL subsystem\"), the open does \
not wait: the table is skipped with a warning (`ER_WARN_I_S_SKIPPED_TABLE`); a connection \
that holds no locks still waits. Read: that function's comment in MySQL 5.5 and the test \
for this bug in `mysql-test/t/mdl_sync.test` (\"we won't deadlock if during filling of I_S \
table we encounter conflicting metadata lock which owner is in its turn waiting for our \
connection\").",
        old_text: "The real lock table, and a THR_LOCK component whose waits are not \
registered with the detector. `SHOW FIELDS` takes `SH` on `t2` for the statement and \
waits like any request.",
        fix: "The same, with the open of `SHOW` / INFORMATION_SCHEMA tried without waiting \
when the session holds locks (`Design::show_no_wait`): on a conflict the table is skipped \
with a warning. THR_LOCK waits stay invisible, as in the server; no cycle can form.",
        old,
        new,
        variants: Vec::new(),
    }
}

/// MySQL bug #50821: TL_READ_NO_INSERT not compatible with a held TL_WRITE_ALLOW_READ.
pub fn read_no_insert_vs_alter() -> Entry {
    let d = Dialect::mysql80();
    let t1 = tbl(&d, "t1");
    let t2 = tbl(&d, "t2");
    let progs = vec![
        Program::new(
            "con2",
            vec![
                (
                    Op::Acq(t1.clone(), LockType::SR, TXN),
                    "START TRANSACTION; SELECT * FROM t1",
                ),
                (
                    Op::Acq(t2.clone(), LockType::SW, TXN),
                    "INSERT INTO t2 SELECT * FROM t1: MDL SW on t2",
                ),
                (Op::Take(0, READ_NO_INSERT, STMT), "TL_READ_NO_INSERT on t1"),
                (Op::EndStmt, "end of INSERT ... SELECT"),
                (Op::Commit, "COMMIT"),
            ],
        ),
        Program::new(
            "alter",
            vec![
                (
                    Op::Acq(t1.clone(), LockType::SNW, TXN),
                    "ALTER TABLE t1 ADD COLUMN j INT: MDL SNW",
                ),
                (
                    Op::Take(0, WRITE_ALLOW_READ, STMT),
                    "TL_WRITE_ALLOW_READ on t1",
                ),
                (Op::Upg(t1.clone(), LockType::X), "upgrade to X"),
                (Op::Commit, "end of ALTER"),
            ],
        ),
    ];
    let mut old = Design::new(d.clone(), progs.clone());
    old.res = vec![res("t1", Kind::ThrLockOld, "THR_LOCK")];
    old.checks = basic_checks();
    let mut new = Design::new(d, progs);
    new.res = vec![res("t1", Kind::ThrLock, "THR_LOCK")];
    new.checks = basic_checks();
    Entry {
        id: "read-no-insert-vs-alter",
        title: "A cycle across THR_LOCK and MDL, fixed by a compatibility made symmetric",
        bug: "MySQL bug #50821",
        link: "https://bugs.mysql.com/bug.php?id=50821",
        story: "\"Deadlock between LOCK TABLES and ALTER TABLE\". A transaction reads `t1` \
(MDL `SR`). `ALTER TABLE t1` holds its upgradable metadata lock and the table-level \
`TL_WRITE_ALLOW_READ`, and waits to upgrade to `X` for the reader. The transaction's next \
statement, `INSERT INTO t2 SELECT * FROM t1` (or `LOCK TABLES t1 READ`), needs \
`TL_READ_NO_INSERT` on `t1`, which was not granted beside a `TL_WRITE_ALLOW_READ`, \
although the opposite order was allowed. The MDL half of the cycle is visible, the \
THR_LOCK half is not: a hang until a timeout. The fix lets `TL_READ_NO_INSERT` in beside \
`TL_WRITE_ALLOW_READ` (compatible both ways), so the statement finishes, the transaction \
commits and ALTER goes on; ALTER's upgradable MDL keeps readers from starving it. Read: \
the fix's commit message (Jon Olav Hauglid, commit df56339a, mirrored at \
<https://lab.nexedi.cn/nexedi/mariadb/-/commit/df56339a43ae6e4990336b363f89860550f3763a>) \
and its test in MySQL 5.5's `mysql-test/t/lock_sync.test`.",
        old_text: "THR_LOCK with the old compatibility (`Kind::ThrLockOld`: a \
`TL_READ_NO_INSERT` request waits for a granted `TL_WRITE_ALLOW_READ`); its waits are \
invisible to the MDL detector.",
        fix: "THR_LOCK with the fixed compatibility (`Kind::ThrLock`); its waits are still \
invisible, as in the server, and no cycle forms.",
        old,
        new,
        variants: Vec::new(),
    }
}

/// MySQL bug #11764618: LOCK TABLES READ takes SRO, so every edge is an MDL edge.
pub fn lock_tables_read_four_way() -> Entry {
    let d = Dialect::mysql80();
    let t = |n| tbl(&d, n);
    let mk = |new: bool| {
        let mut locker = vec![(
            Op::Bulk(
                vec![
                    (t("t1"), LockType::SNRW),
                    (t("t3"), if new { LockType::SRO } else { LockType::SR }),
                ],
                EXPL,
            ),
            if new {
                "LOCK TABLES t1 WRITE, t3 READ: SNRW on t1, SRO on t3"
            } else {
                "LOCK TABLES t1 WRITE, t3 READ: SNRW on t1, SR on t3"
            },
        )];
        if !new {
            locker.push((
                Op::Take(0, READ_NO_INSERT, EXPL),
                "LOCK TABLES ... t3 READ: TL_READ_NO_INSERT on t3",
            ));
        }
        // The programs end after their last lock request: a session's end gives back
        // everything (UNLOCK TABLES, COMMIT), which keeps the state space small.
        locker.push((
            Op::Upg(t("t1"), LockType::X),
            "ALTER TABLE t1 ADD COLUMN j INT: upgrade SNRW to X (then UNLOCK TABLES)",
        ));
        let mut ins = vec![
            (
                Op::Acq(t("t4"), LockType::SR, TXN),
                "BEGIN; SELECT COUNT(*) FROM t4",
            ),
            (
                Op::Acq(t("t3"), LockType::SW, TXN),
                if new {
                    "INSERT INTO t3 VALUES (1): MDL SW (then COMMIT)"
                } else {
                    "INSERT INTO t3 VALUES (1): MDL SW"
                },
            ),
        ];
        if !new {
            ins.push((
                Op::Take(0, WRITE_ALLOW_WRITE, STMT),
                "INSERT: TL_WRITE_ALLOW_WRITE on t3 (then COMMIT)",
            ));
        }
        let mut prep = Program::new(
            "prep",
            vec![
                (
                    Op::Acq(t("t1"), LockType::S, STMT),
                    "PREPARE stmt1 FROM 'SELECT * FROM t1, t2': MDL S on t1",
                ),
                (
                    Op::Acq(t("t2"), LockType::S, STMT),
                    "MDL S on t2 (end of PREPARE)",
                ),
            ],
        );
        // A statement that holds no other locks backs off and starts over after a
        // deadlock error (Open_table_context::request_backoff_action).
        prep.on_abort = OnAbort::Restart;
        prep.retries = 1;
        let mut x = Design::new(
            d.clone(),
            vec![
                Program::new("locker", locker),
                Program::new("ins", ins),
                Program::new(
                    "ren",
                    vec![(
                        Op::Bulk(
                            vec![
                                (t("t2"), LockType::X),
                                (t("t4"), LockType::X),
                                (t("t0"), LockType::X),
                            ],
                            STMT,
                        ),
                        "RENAME TABLE t2 TO t0, t4 TO t2, t0 TO t4: X on t0, t2, t4 (key order)",
                    )],
                ),
                prep,
            ],
        );
        if !new {
            x.res = vec![res("t3", Kind::ThrLock, "THR_LOCK")];
        }
        x.checks = basic_checks();
        if new {
            x.checks.push(Check::DeadlockReported);
        }
        x
    };
    Entry {
        id: "lock-tables-read-sro",
        title: "A four-session cycle through LOCK TABLES READ, one edge of it in THR_LOCK",
        bug: "MySQL bug #11764618",
        link: "",
        story: "\"DEADLOCK WHEN DDL UNDER LOCK TABLES WRITE, READ + PREPARE\". The default \
connection runs `LOCK TABLES t1 WRITE, t3 READ`. `con1`: `BEGIN; SELECT COUNT(*) FROM \
t4; INSERT INTO t3 VALUES (1)`: it holds `SR` on `t4` and its INSERT is blocked by the \
read lock on `t3`. `con2`: `RENAME TABLE t2 TO t0, t4 TO t2, t0 TO t4` takes `X` on `t2` \
and waits for `t4`. `con3`: `PREPARE stmt1 FROM 'SELECT * FROM t1, t2'` takes `S` on `t1` \
and waits for `t2`. The default connection's `ALTER TABLE t1` upgrades `SNRW` to `X` and \
waits for `con3`'s `S`. Four sessions, four waits, a cycle; but LOCK TABLES READ took MDL \
`SR`, compatible with the INSERT's `SW`, so the INSERT waited in THR_LOCK, where the \
detector cannot see it. The fix (MySQL 5.7, WL#6671) makes LOCK TABLES READ take \
`SHARED_READ_ONLY` (SRO), incompatible with `SW`: the INSERT waits in MDL, every edge is an \
MDL edge, and the detector breaks the cycle (the PREPARE, lightest and nearest, backs off \
and starts over). Read: the test for this bug in MySQL 5.7's \
`mysql-test/t/lock_multi.test` (\"Before WL#6671 waiting has happened on THR_LOCK lock \
which led to deadlock\") and `MDL_SHARED_READ_ONLY`'s comment in `sql/mdl.h` (\"Used by \
LOCK TABLES READ statement\"). The bug's own page is in Oracle's internal tracker (no \
public link).",
        old_text: "LOCK TABLES t3 READ takes MDL `SR` and THR_LOCK `TL_READ_NO_INSERT`; the \
INSERT takes `SW` and waits for `TL_WRITE_ALLOW_WRITE`; THR_LOCK's waits are invisible to \
the detector.",
        fix: "LOCK TABLES t3 READ takes `SRO`; InnoDB tables take no THR_LOCK (WL#6671). \
The PREPARE backs off and retries once after a deadlock error (a statement holding no \
other locks restarts, `Open_table_context::request_backoff_action`).",
        old: mk(false),
        new: mk(true),
        variants: Vec::new(),
    }
}

/// MySQL bug #50913: a too weak MDL type moves the conflict into THR_LOCK.
pub fn wrong_lock_type() -> Entry {
    let d = Dialect::mysql80();
    let t1 = tbl(&d, "t1");
    let mk = |ty: LockType, label: &'static str| {
        let mut x = Design::new(
            d.clone(),
            vec![
                Program::new(
                    "trx",
                    vec![
                        (
                            Op::Acq(t1.clone(), LockType::SR, TXN),
                            "BEGIN; SELECT * FROM t1",
                        ),
                        (Op::Acq(t1.clone(), ty, TXN), label),
                        (
                            Op::Take(0, WRITE_ALLOW_WRITE, STMT),
                            "DELETE: TL_WRITE_ALLOW_WRITE on t1",
                        ),
                        (Op::EndStmt, "end of DELETE"),
                        (Op::Commit, "COMMIT"),
                    ],
                ),
                Program::new(
                    "alter",
                    vec![
                        (
                            Op::Acq(t1.clone(), LockType::SNW, TXN),
                            "ALTER TABLE t1 ADD COLUMN j INT: MDL SNW",
                        ),
                        (
                            Op::Take(0, WRITE_ALLOW_READ, STMT),
                            "TL_WRITE_ALLOW_READ on t1",
                        ),
                        (Op::Upg(t1.clone(), LockType::X), "upgrade to X"),
                        (Op::Commit, "end of ALTER"),
                    ],
                ),
            ],
        );
        x.res = vec![res("t1", Kind::ThrLock, "THR_LOCK")];
        x.checks = basic_checks();
        x
    };
    let old = mk(
        LockType::SR,
        "DELETE a FROM t1 AS a WHERE i = 1: MDL SR (the wrong type)",
    );
    let mut new = mk(LockType::SW, "DELETE a FROM t1 AS a WHERE i = 1: MDL SW");
    new.checks.push(Check::DeadlockReported);
    Entry {
        id: "wrong-lock-type",
        title: "A statement asks MDL for too weak a lock and hangs in THR_LOCK instead",
        bug: "MySQL bug #50913",
        link: "https://bugs.mysql.com/bug.php?id=50913",
        story: "\"Deadlock between open_and_lock_tables_derived and MDL\". A transaction \
reads `t1` (`SR`); `ALTER TABLE t1` holds `SNW` and its table lock and waits to upgrade \
to `X`. The transaction then runs `DELETE a FROM t1 AS a WHERE i = 1` (or an INSERT \
through a view): through the alias (or the view) the statement asked MDL for `SR` instead \
of `SW`. `SR` is compatible with ALTER's `SNW`, so the statement got past MDL and waited \
for the table-level write lock, which ALTER holds: a cycle whose THR_LOCK half no detector \
sees. With the right type, `SW`, the statement waits in MDL for `SNW`, the detector sees \
the cycle and aborts the DELETE with `ER_LOCK_DEADLOCK`. Read: the test for this bug in \
MySQL 5.5's `mysql-test/t/lock_multi.test` (\"The below statement should try to acquire \
SW lock on 't1' and therefore should get ER_LOCK_DEADLOCK error. Before bug fix it \
acquired SR lock and hung on thr_lock.c lock.\") and its second part in `mdl_sync.test`.",
        old_text: "The DELETE requests MDL `SR` (held already: nothing to wait for), then \
`TL_WRITE_ALLOW_WRITE`, which waits for ALTER's `TL_WRITE_ALLOW_READ`, invisible to the \
detector.",
        fix: "The DELETE requests `SW`, which waits for ALTER's `SNW` in MDL; the \
detector aborts it (DML 25 against DDL 100). THR_LOCK's waits stay invisible.",
        old,
        new,
        variants: Vec::new(),
    }
}

/// MySQL bug #56292: ALTER of a MERGE table, a DELETE on a child, a SELECT on the parent.
pub fn merge_children() -> Entry {
    let d = Dialect::mysql80();
    let m1 = tbl(&d, "m1");
    let t2 = tbl(&d, "t2");
    let mk = |child: LockType, label: &'static str| {
        let mut x = Design::new(
            d.clone(),
            vec![
                Program::new(
                    "alter",
                    vec![
                        (
                            Op::Acq(m1.clone(), LockType::SNW, TXN),
                            "ALTER TABLE m1 ENGINE=MERGE UNION=(t2, t1): MDL SNW on m1",
                        ),
                        (Op::Acq(t2.clone(), child, TXN), label),
                        (
                            Op::Take(0, READ_NO_INSERT, STMT),
                            "TL_READ_NO_INSERT on the child t2",
                        ),
                        (Op::Upg(m1.clone(), LockType::X), "upgrade to X on m1"),
                        (Op::Commit, "end of ALTER"),
                    ],
                ),
                Program::new(
                    "delete",
                    vec![
                        (
                            Op::Acq(t2.clone(), LockType::SW, TXN),
                            "DELETE FROM t2 WHERE a = 3: MDL SW",
                        ),
                        (Op::Take(0, WRITE, STMT), "TL_WRITE on t2"),
                        (Op::Commit, "end of DELETE"),
                    ],
                ),
                Program::new(
                    "select",
                    vec![
                        (
                            Op::Acq(m1.clone(), LockType::SR, TXN),
                            "SELECT * FROM m1: MDL SR on m1",
                        ),
                        (Op::Acq(t2.clone(), LockType::SR, TXN), "MDL SR on t2"),
                        (Op::Take(0, READ, STMT), "TL_READ on t2"),
                        (Op::Commit, "end of SELECT"),
                    ],
                ),
            ],
        );
        x.res = vec![res("t2", Kind::ThrLock, "THR_LOCK")];
        x.checks = basic_checks();
        x
    };
    Entry {
        id: "merge-children",
        title: "ALTER of a MERGE table: a three-session cycle, two edges in THR_LOCK",
        bug: "MySQL bug #56292",
        link: "https://bugs.mysql.com/bug.php?id=56292",
        story: "\"Deadlock with ALTER TABLE and MERGE tables\". `ALTER TABLE m1` (a MERGE \
table over `t1`, `t2`) holds `SNW` on the parent and `TL_READ_NO_INSERT` on the children, \
and waits to upgrade to `X` on the parent. `DELETE FROM t2` got MDL `SW` on the child \
(the children were locked with a weaker metadata lock than the parent) and waits for \
`TL_WRITE`, blocked by ALTER's `TL_READ_NO_INSERT`. `SELECT * FROM m1` holds `SR` on the \
parent, which blocks ALTER's upgrade, and waits for `TL_READ` on the child because a \
`TL_WRITE` is ahead of it in THR_LOCK's queue. Two of the three edges are THR_LOCK waits: \
nobody detects it. The fix locks the children with the parent's metadata lock type \
(`SNW`), so the DELETE waits in MDL and never queues its `TL_WRITE`, and the SELECT is not \
held up. Read: the fix's commit message (Jon Olav Hauglid, 51a3375c, mirrored at \
<https://lab.node.vifib.com/kirr/mariadb/-/blob/51a3375c98138cee6f51eec807c9a120a84da87a/mysql-test/t/merge.test>) \
and the test for this bug in MySQL 5.5's `mysql-test/t/mdl_sync.test` (\"SELECT used to be \
blocked by a DELETE table lock request\"); the writer priority is `thr_lock()`'s (a read \
request waits when no write lock is held but a `TL_WRITE` waits).",
        old_text: "ALTER takes `SR` on the child; THR_LOCK with writer priority (a \
`TL_READ` request yields to a pending `TL_WRITE`); its waits are invisible to the \
detector. One child is modelled.",
        fix: "ALTER takes `SNW` on the child too. THR_LOCK and its invisibility unchanged.",
        old: mk(LockType::SR, "MDL SR on the child t2"),
        new: mk(LockType::SNW, "MDL SNW on the child t2 (the parent's type)"),
        variants: Vec::new(),
    }
}
