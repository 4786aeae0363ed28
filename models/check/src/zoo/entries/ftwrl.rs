//! Entries about FLUSH TABLES WITH READ LOCK and the backup locks: HANDLER against
//! FTWRL (MySQL bug #57006), FTWRL starved (#54673), BACKUP_LOCK and GLOBAL taken in
//! opposite orders.

use super::*;

/// 3. MySQL bug #57006.
pub(super) fn handler_vs_ftwrl() -> Entry {
    let d = Dialect::mysql80();
    let t = tbl(&d, "t");
    let t2 = tbl(&d, "t2");
    let global = single(&d, "GLOBAL");
    let commit = single(&d, "COMMIT");
    let mut handler_old = Program::new(
        "handler",
        vec![
            (Op::Take(0, OPEN, EXPL), "HANDLER t OPEN"),
            (
                Op::Take(1, PROTECT, STMT),
                "INSERT INTO t2: global read lock?",
            ),
            (Op::EndStmt, "end of INSERT"),
            (Op::Unlock, "HANDLER t CLOSE"),
        ],
    );
    handler_old.on_abort = OnAbort::Skip(3);
    let mut old = Design::new(
        d.clone(),
        vec![
            handler_old,
            Program::new(
                "ftwrl",
                vec![
                    (
                        Op::Take(1, READ_LOCK, EXPL),
                        "FLUSH TABLES WITH READ LOCK: set the read lock",
                    ),
                    (Op::MarkOld(0), "flush: mark t old"),
                    (Op::WaitFlush(0), "wait until t is closed"),
                    (Op::Unlock, "UNLOCK TABLES"),
                ],
            ),
        ],
    );
    old.res = vec![
        res("t", Kind::Share, "table cache"),
        res("global read lock", Kind::Global, "global read lock"),
    ];
    let mut handler_new = Program::new(
        "handler",
        vec![
            (
                Op::Acq(t.clone(), LockType::SR, EXPL),
                "HANDLER t OPEN: MDL SR",
            ),
            (Op::Take(0, OPEN, EXPL), "HANDLER t OPEN: open t"),
            (
                Op::Acq(global.clone(), LockType::IX, STMT),
                "INSERT INTO t2: GLOBAL IX",
            ),
            (
                Op::Acq(t2.clone(), LockType::SW, STMT),
                "INSERT INTO t2: MDL SW",
            ),
            (Op::EndStmt, "end of INSERT"),
            (Op::Unlock, "HANDLER t CLOSE"),
        ],
    );
    handler_new.on_abort = OnAbort::Skip(5);
    let mut new = Design::new(
        d.clone(),
        vec![
            handler_new,
            Program::new(
                "ftwrl",
                vec![
                    (
                        Op::Acq(global.clone(), LockType::S, EXPL),
                        "FLUSH TABLES WITH READ LOCK: GLOBAL S",
                    ),
                    (Op::MarkOld(0), "flush: mark t old"),
                    (Op::WaitFlush(0), "wait until t is closed"),
                    (Op::Acq(commit.clone(), LockType::S, EXPL), "COMMIT S"),
                    (Op::Unlock, "UNLOCK TABLES"),
                ],
            ),
        ],
    );
    new.res = vec![res("t", Kind::Share, "table cache")];
    new.visible = true;
    new.checks = vec![
        Check::NoStuckCycle,
        Check::NoStuckState,
        Check::NoFalseDeadlock,
        Check::AllDone,
        Check::DeadlockReported,
    ];
    Entry {
        id: "handler-vs-ftwrl",
        title: "HANDLER vs FLUSH TABLES WITH READ LOCK",
        bug: "MySQL bug #57006",
        link: "https://bugs.mysql.com/bug.php?id=57006",
        story: "A connection opens a table with `HANDLER t OPEN`. `FLUSH TABLES WITH READ \
LOCK` sets the global read lock (new writes now wait) and then waits for every open table \
to be flushed, including the one the HANDLER keeps open. The HANDLER connection's next \
`INSERT` waits for the global read lock. The global read lock and the flush wait lived \
outside the metadata lock subsystem, so nothing saw the cycle: both connections hung until \
a timeout or a KILL. The fix (MySQL 5.5) made the global read lock metadata locks \
(`GLOBAL S`, then `COMMIT S`) and made waits for table flushes edges of the MDL wait-for \
graph, so the deadlock is reported at once.",
        old_text: "Two foreign components: the table definition cache (a share that \
FTWRL marks old and waits to be closed) and a server-wide read lock outside MDL (writers \
take a protection mode, FTWRL the read mode). No foreign wait is registered.",
        fix: "The global read lock is MDL (`GLOBAL S`, later `COMMIT S`; the INSERT takes \
`GLOBAL IX`). The flush wait is registered with the detector as a foreign wait of weight \
100 (DDL) on the sessions that still use the old share. The detector sees the cycle when \
its last edge appears and aborts the lighter waiter (on a tie, the one that closed it).",
        old,
        new,
        variants: Vec::new(),
    }
}

/// 4. MySQL bug #54673.
pub(super) fn ftwrl_starvation() -> Entry {
    let d = Dialect::mysql80();
    let global = single(&d, "GLOBAL");
    let dml = |name| {
        let mut p = Program::new(
            name,
            vec![
                (
                    Op::Acq(global.clone(), LockType::IX, STMT),
                    "INSERT: GLOBAL IX",
                ),
                (Op::EndStmt, "end of INSERT"),
            ],
        );
        p.rounds = 3;
        p
    };
    let progs = vec![
        dml("dml1"),
        dml("dml2"),
        Program::new(
            "ftwrl",
            vec![
                (
                    Op::Acq(global.clone(), LockType::S, EXPL),
                    "FLUSH TABLES WITH READ LOCK",
                ),
                (Op::Unlock, "UNLOCK TABLES"),
            ],
        ),
    ];
    let checks = vec![
        Check::BoundedWait,
        Check::NoStuckCycle,
        Check::NoStuckState,
        Check::NoFalseDeadlock,
        Check::WatchedGranted,
        Check::AllDone,
    ];
    // The old rule: a new IX request looks only at granted locks, never at pending ones.
    let mut od = d.clone();
    let i = od
        .strategies
        .iter()
        .position(|s| s.name == "scoped")
        .expect("scoped strategy");
    for p in od.strategies[i].pending.iter_mut() {
        p[LockType::IX.0 as usize] = TypeSet::EMPTY;
    }
    let mut old = Design::new(od, progs.clone());
    old.watch = Some((2, global.clone()));
    old.checks = checks.clone();
    let mut new = Design::new(d, progs);
    new.watch = Some((2, global));
    new.checks = checks;
    Entry {
        id: "ftwrl-starvation",
        title: "FLUSH TABLES WITH READ LOCK starved by a stream of writes",
        bug: "MySQL bug #54673",
        link: "https://bugs.mysql.com/bug.php?id=54673",
        story: "On a busy server `FLUSH TABLES WITH READ LOCK` could wait indefinitely: \
it waited for running writes to finish, but new writes kept being let in while it waited, \
so with two or more connections writing in turn there was always a write in progress. \
The fix (MySQL 5.5) implemented the global read lock as the metadata lock `GLOBAL S`, \
and a pending `S` request holds back new `IX` requests (the pending matrix).",
        old_text: "The real lock table with one change of data: the `scoped` strategy's \
pending matrix row for `IX` is empty, so a new `IX` request checks only granted locks. \
Two writers run three statements each; the property counts the `GLOBAL` grants to others \
while FTWRL waits.",
        fix: "The real `mysql-8.0` pending matrix: `IX` yields to a pending `S`. While \
FTWRL waits, no write starts, so it is granted as soon as the running ones end.",
        old,
        new,
        variants: Vec::new(),
    }
}

/// 9. BACKUP_LOCK and GLOBAL taken in opposite orders.
pub(super) fn backup_lock_order() -> Entry {
    let d = Dialect::mysql80();
    let global = single(&d, "GLOBAL");
    let backup = single(&d, "BACKUP_LOCK");
    let t = tbl(&d, "t");
    let mut old = Design::new(
        d.clone(),
        vec![
            Program::new(
                "backup",
                vec![
                    (Op::Take(0, READ_LOCK, EXPL), "LOCK INSTANCE FOR BACKUP"),
                    (
                        Op::Acq(global.clone(), LockType::S, EXPL),
                        "FLUSH TABLES WITH READ LOCK: GLOBAL S",
                    ),
                    (Op::Unlock, "UNLOCK TABLES; UNLOCK INSTANCE"),
                ],
            ),
            Program::new(
                "ddl",
                vec![
                    (
                        Op::Acq(global.clone(), LockType::IX, STMT),
                        "CREATE TABLE t: GLOBAL IX",
                    ),
                    (
                        Op::Take(0, PROTECT, STMT),
                        "CREATE TABLE t: backup lock (shared)",
                    ),
                    (
                        Op::Acq(t.clone(), LockType::X, STMT),
                        "CREATE TABLE t: MDL X",
                    ),
                    (Op::EndStmt, "end of CREATE"),
                ],
            ),
        ],
    );
    old.res = vec![res("backup lock", Kind::Global, "backup lock")];
    old.checks = vec![
        Check::NoStuckCycle,
        Check::NoStuckState,
        Check::NoFalseDeadlock,
        Check::AllDone,
    ];
    let mut new = Design::new(
        d.clone(),
        vec![
            Program::new(
                "backup",
                vec![
                    (
                        Op::Acq(backup.clone(), LockType::S, EXPL),
                        "LOCK INSTANCE FOR BACKUP: BACKUP_LOCK S",
                    ),
                    (
                        Op::Acq(global.clone(), LockType::S, EXPL),
                        "FLUSH TABLES WITH READ LOCK: GLOBAL S",
                    ),
                    (Op::Unlock, "UNLOCK TABLES; UNLOCK INSTANCE"),
                ],
            ),
            Program::new(
                "ddl",
                vec![
                    (
                        Op::Bulk(
                            vec![
                                (global.clone(), LockType::IX),
                                (backup.clone(), LockType::IX),
                                (t.clone(), LockType::X),
                            ],
                            STMT,
                        ),
                        "CREATE TABLE t: GLOBAL IX, BACKUP_LOCK IX, TABLE X (key order)",
                    ),
                    (Op::EndStmt, "end of CREATE"),
                ],
            ),
        ],
    );
    new.checks = vec![
        Check::NoStuckCycle,
        Check::NoStuckState,
        Check::NoFalseDeadlock,
        Check::AllDone,
        Check::DeadlockReported,
    ];
    Entry {
        id: "backup-lock-order",
        title: "Backup lock and global read lock taken in opposite orders",
        bug: "MySQL 8.0 LOCK INSTANCE FOR BACKUP / MariaDB BACKUP STAGE vs FTWRL (design case)",
        link: "",
        story: "A backup tool takes the backup lock (`LOCK INSTANCE FOR BACKUP` in MySQL \
8.0; MariaDB's `BACKUP STAGE` plays the same part) and then `FLUSH TABLES WITH READ \
LOCK`. A DDL statement takes the global intention lock first and the backup lock second. \
The two orders close a cycle. Implemented as a lock of its own beside MDL (as backup \
locks first were in some forks and tools), the backup lock's waits are invisible and the \
cycle holds until a timeout. As the MDL namespace `BACKUP_LOCK` (MySQL 8.0) the cycle is \
one detector's business. This entry is a design comparison rather than one tracked bug.",
        old_text: "The backup lock as a foreign reader/writer lock; the global read lock \
is MDL. The DDL's wait on the backup lock is invisible to the MDL detector.",
        fix: "`BACKUP_LOCK` is an MDL namespace: the DDL takes `GLOBAL IX`, `BACKUP_LOCK \
IX` and `TABLE X` in one bulk request (key order), the backup tool `BACKUP_LOCK S` then \
`GLOBAL S`. The detector finds the cycle and aborts the DDL (weight 25 against the \
global read lock's 100).",
        old,
        new,
        variants: Vec::new(),
    }
}
