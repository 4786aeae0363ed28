//! Entries where a DDL statement met running DML: UPDATE against ALTER TABLE (MySQL bug
//! #37346), ANALYZE TABLE and "Waiting for table flush", foreign keys and the 8.0 data
//! dictionary's metadata locks on related tables.

use super::*;

/// 1. MySQL bug #37346.
pub(super) fn update_vs_alter() -> Entry {
    let d = Dialect::mysql80();
    let t = tbl(&d, "t");
    let rs = vec![
        res("t", Kind::ThrLock, "THR_LOCK"),
        res("row 1", Kind::Row, "InnoDB"),
        res("row 2", Kind::Row, "InnoDB"),
    ];
    let mut old = Design::new(
        d.clone(),
        vec![
            Program::new(
                "trx",
                vec![
                    (
                        Op::Take(0, WRITE_ALLOW_WRITE, STMT),
                        "UPDATE t WHERE id=1: table lock",
                    ),
                    (Op::Take(1, EXCL, TXN), "UPDATE t WHERE id=1: lock row 1"),
                    (Op::EndStmt, "end of statement"),
                    (
                        Op::Take(0, WRITE_ALLOW_WRITE, STMT),
                        "UPDATE t WHERE id=2: table lock",
                    ),
                    (Op::Take(2, EXCL, TXN), "UPDATE t WHERE id=2: lock row 2"),
                    (Op::Commit, "COMMIT"),
                ],
            ),
            Program::new(
                "alter",
                vec![
                    (
                        Op::Take(0, WRITE_ALLOW_READ, STMT),
                        "ALTER TABLE t: table lock",
                    ),
                    (Op::Take(1, SHARED, STMT), "copy row 1"),
                    (Op::Take(2, SHARED, STMT), "copy row 2"),
                    (Op::EndStmt, "rename the copy, done"),
                ],
            ),
        ],
    );
    old.res = rs.clone();
    let mut new = Design::new(
        d.clone(),
        vec![
            Program::new(
                "trx",
                vec![
                    (
                        Op::Acq(t.clone(), LockType::SW, TXN),
                        "UPDATE t WHERE id=1: MDL SW",
                    ),
                    (Op::Take(1, EXCL, TXN), "UPDATE t WHERE id=1: lock row 1"),
                    (Op::EndStmt, "end of statement"),
                    (
                        Op::Acq(t.clone(), LockType::SW, TXN),
                        "UPDATE t WHERE id=2: MDL SW",
                    ),
                    (Op::Take(2, EXCL, TXN), "UPDATE t WHERE id=2: lock row 2"),
                    (Op::Commit, "COMMIT"),
                ],
            ),
            Program::new(
                "alter",
                vec![
                    (
                        Op::Acq(t.clone(), LockType::SU, TXN),
                        "ALTER TABLE t: MDL SU",
                    ),
                    (
                        Op::Upg(t.clone(), LockType::SNW),
                        "upgrade to SNW for the copy",
                    ),
                    (Op::Take(1, SHARED, STMT), "copy row 1"),
                    (Op::Take(2, SHARED, STMT), "copy row 2"),
                    (Op::Upg(t.clone(), LockType::X), "upgrade to X to rename"),
                    (Op::Commit, "done"),
                ],
            ),
        ],
    );
    new.res = rs;
    new.visible = true;
    Entry {
        id: "update-vs-alter",
        title: "UPDATE vs ALTER TABLE: a deadlock split between two lock managers",
        bug: "MySQL bug #37346",
        link: "https://bugs.mysql.com/bug.php?id=37346",
        story: "A transaction updates a row of an InnoDB table `t`. `ALTER TABLE t` takes a \
table-level lock (`TL_WRITE_ALLOW_READ` in THR_LOCK) and copies rows until it blocks on the \
transaction's row lock. The transaction's next `UPDATE t` blocks on the table-level lock. \
Each lock manager sees only its own half of the cycle: InnoDB sees ALTER waiting for the \
transaction, THR_LOCK sees the transaction waiting for ALTER. Nothing detects the deadlock; \
it lasts until `innodb_lock_wait_timeout` (or `lock_wait_timeout`) expires. The metadata \
locking of MySQL 5.5 removed the cause: a transaction keeps the metadata lock on every \
table it used until it ends, and ALTER waits for it before it copies anything.",
        old_text: "Two foreign components: THR_LOCK (modes read, write-allow-write, \
write-allow-read) released at the end of each statement, and InnoDB row locks held to \
commit. No metadata locks; neither component's waits reach a deadlock detector.",
        fix: "The transaction takes MDL `SW` on `t` for the transaction. ALTER takes `SU`, \
upgrades to `SNW` before the copy (which waits for every transaction holding `SW`), and \
to `X` for the rename. The row-lock waits are registered with the MDL detector \
(`LockTable::foreign_wait`), so any cycle through both would be found; none can form.",
        old,
        new,
        variants: Vec::new(),
    }
}

/// 5. ANALYZE TABLE and "Waiting for table flush".
pub(super) fn analyze_pileup() -> Entry {
    let d = Dialect::mysql80();
    let t = tbl(&d, "t");
    let mk = |new: bool| {
        let mark = if new {
            (
                Op::Note,
                "new statistics: mark open tables' statistics stale",
            )
        } else {
            (Op::MarkOld(0), "new statistics: mark the share old")
        };
        let mut x = Design::new(
            d.clone(),
            vec![
                Program::new(
                    "long",
                    vec![
                        (
                            Op::Acq(t.clone(), LockType::SR, STMT),
                            "SELECT ... FROM t (long)",
                        ),
                        (Op::Take(0, OPEN, STMT), "open t"),
                        (Op::Note, "... scanning ..."),
                        (Op::EndStmt, "end of SELECT"),
                    ],
                ),
                Program::new(
                    "analyze",
                    vec![
                        (Op::Acq(t.clone(), LockType::SR, STMT), "ANALYZE TABLE t"),
                        (Op::Take(0, OPEN, STMT), "open t"),
                        mark,
                        (Op::EndStmt, "end of ANALYZE"),
                    ],
                ),
                Program::new(
                    "reader",
                    vec![
                        (
                            Op::Acq(t.clone(), LockType::SR, STMT),
                            "SELECT ... FROM t (new)",
                        ),
                        (Op::Take(0, OPEN, STMT), "open t"),
                        (Op::EndStmt, "end of SELECT"),
                    ],
                ),
            ],
        );
        x.res = vec![res("t", Kind::Share, "table cache")];
        x.share_keys = vec![(0, t.clone())];
        x.visible = new;
        x.checks = vec![
            Check::NoFlushPileUp,
            Check::NoStuckCycle,
            Check::NoStuckState,
            Check::NoFalseDeadlock,
            Check::AllDone,
        ];
        x
    };
    Entry {
        id: "analyze-pileup",
        title: "ANALYZE TABLE piles queries up behind a long SELECT",
        bug: "\"Waiting for table flush\" after ANALYZE TABLE (MySQL up to 8.0.23)",
        link: "https://www.percona.com/blog/2013/02/27/mysql-optimizer-analyze-table-and-waiting-for-table-flush/",
        story: "A long `SELECT` runs on `t`; `ANALYZE TABLE t` finishes at once. From then \
on every new query on `t` shows \"Waiting for table flush\" until the long SELECT ends: \
ANALYZE marked the table share old so that the new statistics would be loaded, and a new \
query may not open an old share's table while an old version is still in use. A \
fast maintenance command could stall an application. Percona Server stopped \
invalidating the share on ANALYZE; upstream MySQL was affected up to 8.0.23.",
        old_text: "A table definition cache component: ANALYZE marks the share old; a \
new open waits until nobody uses the old version. The readers hold MDL `SR` only, and \
nobody asks for an exclusive lock.",
        fix: "ANALYZE marks the open table objects as having stale statistics (they are \
reloaded when next used) and keeps the share, so nobody waits. The property: a new \
reader never waits for an old reader while no session requests or holds MDL `X` on the \
table.",
        old: mk(false),
        new: mk(true),
        variants: Vec::new(),
    }
}

/// 10. Foreign keys and the 8.0 data dictionary: metadata locks on related tables.
pub(super) fn fk_metadata() -> Entry {
    let d = Dialect::mysql80();
    let parent = tbl(&d, "parent");
    let child = tbl(&d, "child");
    let meta = || vec![res("child FK metadata", Kind::Share, "dictionary")];
    let mut old = Design::new(
        d.clone(),
        vec![
            Program::new(
                "dml",
                vec![
                    (
                        Op::Acq(child.clone(), LockType::SW, TXN),
                        "INSERT INTO child: MDL SW",
                    ),
                    (Op::Take(0, OPEN, STMT), "read child's FK metadata"),
                    (Op::Note, "FK check on parent (inside InnoDB)"),
                    (Op::EndStmt, "end of INSERT"),
                    (Op::Commit, "COMMIT"),
                ],
            ),
            Program::new(
                "alter",
                vec![
                    (
                        Op::Acq(parent.clone(), LockType::SU, TXN),
                        "ALTER TABLE parent RENAME COLUMN: MDL SU",
                    ),
                    (Op::Upg(parent.clone(), LockType::X), "upgrade to X"),
                    (Op::WriteMeta(0), "update the child's FK metadata"),
                    (Op::Commit, "end of ALTER"),
                ],
            ),
        ],
    );
    old.res = meta();
    old.checks = vec![
        Check::NoStaleMeta,
        Check::NoStuckCycle,
        Check::NoStuckState,
        Check::NoFalseDeadlock,
        Check::AllDone,
    ];
    let dml = Program::new(
        "dml",
        vec![
            (
                Op::Acq(child.clone(), LockType::SW, TXN),
                "INSERT INTO child: MDL SW",
            ),
            (
                Op::Acq(parent.clone(), LockType::SR, TXN),
                "FK check: MDL SR on parent",
            ),
            (Op::Take(0, OPEN, STMT), "read child's FK metadata"),
            (Op::EndStmt, "end of INSERT"),
            (Op::Commit, "COMMIT"),
        ],
    );
    let mut new = Design::new(
        d.clone(),
        vec![
            dml,
            Program::new(
                "alter",
                vec![
                    (
                        Op::Acq(parent.clone(), LockType::SU, TXN),
                        "ALTER TABLE parent RENAME COLUMN: MDL SU",
                    ),
                    (Op::Upg(parent.clone(), LockType::X), "upgrade to X"),
                    (
                        Op::Acq(child.clone(), LockType::X, TXN),
                        "MDL X on the child",
                    ),
                    (Op::WriteMeta(0), "update the child's FK metadata"),
                    (Op::Commit, "end of ALTER"),
                ],
            ),
        ],
    );
    new.res = meta();
    new.checks = vec![
        Check::NoStaleMeta,
        Check::NoStuckCycle,
        Check::NoStuckState,
        Check::NoFalseDeadlock,
        Check::AllDone,
        Check::DeadlockReported,
    ];
    Entry {
        id: "fk-metadata",
        title: "Foreign keys: DDL on the parent changes metadata the child's users rely on",
        bug: "MySQL 8.0: metadata locks extended to tables related by foreign keys",
        link: "https://dev.mysql.com/doc/refman/8.0/en/create-table-foreign-keys.html",
        story: "Foreign key metadata belongs to the child table, but DDL on the parent \
(renaming a referenced column, for example) has to update it. Up to MySQL 5.7 such a DDL \
locked only the parent, so the child's metadata could change under a statement that was \
using it (the MySQL 8.0 manual's section on foreign key locking says as much: the \
child-owned metadata could not be updated safely before). MySQL 8.0, with its \
transactional data dictionary, extends metadata locks to tables related by a foreign \
key: DML on the child locks the parent for its checks, DDL on the parent locks the \
child. The price is a new kind of MDL deadlock between child DML and parent DDL, which \
the detector resolves at once.",
        old_text: "The child's FK metadata as a dictionary component that statements \
hold open while they use it. The INSERT holds `SW` on the child only (the FK check \
happens inside InnoDB without a metadata lock on the parent); the ALTER holds `X` on the \
parent only and rewrites the child's FK metadata.",
        fix: "The INSERT takes `SR` on the parent for its FK check; the ALTER takes `X` on \
the child before it rewrites the child's metadata. The metadata is never rewritten under \
a user, and the new cycle (INSERT holds the child and waits for the parent, ALTER holds \
the parent and waits for the child) is reported by the detector, whose victim is the \
lighter INSERT (DML 25 against DDL 100).",
        old,
        new,
        variants: Vec::new(),
    }
}
