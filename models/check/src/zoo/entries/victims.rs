//! Entries about deadlocks and their victims: a needless deadlock (MySQL bug #46272), a
//! LOCK TABLES deadlock among MyISAM-only statements, a victim chosen again and again.

use super::*;

/// 2. MySQL bug #46272.
pub(super) fn needless_deadlock() -> Entry {
    let d = Dialect::mysql80();
    let t1 = tbl(&d, "t1");
    let progs = vec![
        Program::new(
            "trx",
            vec![
                (
                    Op::Acq(t1.clone(), LockType::SR, TXN),
                    "BEGIN; SELECT * FROM t1",
                ),
                (Op::EndStmt, "end of statement"),
                (
                    Op::Acq(t1.clone(), LockType::SR, TXN),
                    "SELECT * FROM t1 (again)",
                ),
                (Op::EndStmt, "end of statement"),
                (Op::Acq(t1.clone(), LockType::SW, TXN), "UPDATE t1"),
                (Op::Commit, "COMMIT"),
            ],
        ),
        Program::new(
            "alter",
            vec![
                (
                    Op::Acq(t1.clone(), LockType::SU, TXN),
                    "ALTER TABLE t1: MDL SU",
                ),
                (Op::Upg(t1.clone(), LockType::X), "upgrade to X"),
                (Op::Commit, "done"),
            ],
        ),
    ];
    let checks = vec![
        Check::NoFalseDeadlock,
        Check::NoStuckCycle,
        Check::NoStuckState,
        Check::AllDone,
        Check::DeadlockReported,
    ];
    let mut old = Design::new(d.clone(), progs.clone());
    old.suspicion = true;
    old.checks = checks.clone();
    let mut new = Design::new(d, progs);
    new.checks = checks;
    Entry {
        id: "needless-deadlock",
        title: "A transaction aborted only because a DDL started waiting",
        bug: "MySQL bug #46272",
        link: "https://bugs.mysql.com/bug.php?id=46272",
        story: "In the first metadata locking of the 5.4/5.5 development line there was no \
deadlock detector. To avoid deadlocks a statement backed off on suspicion: a transaction \
that already held metadata locks and met a pending exclusive request from a concurrent \
`ALTER TABLE` got `ER_LOCK_DEADLOCK`, even when it only re-used a table it had already \
opened in the same transaction and no cycle existed. The fix was the MDL deadlock \
detector (MySQL 5.5), which aborts only on a real cycle in the wait-for graph.",
        old_text: "The same MDL decisions, plus the old avoidance rule in front of every \
acquire: if the session holds locks and the lock has a waiting request of DDL weight \
from another session, fail with a deadlock error.",
        fix: "No avoidance rule: the request goes to `LockTable::acquire`; only the \
detector returns `deadlock`. The property is checked by an independent oracle: at each \
deadlock error the model searches the ground-truth wait-for graph (the state before the \
step plus the new request's blockers) for a cycle through the victim. The new design \
still reports a real deadlock (the transaction's `UPDATE` against the upgrading ALTER), \
so the oracle is exercised.",
        old,
        new,
        variants: Vec::new(),
    }
}

/// 7. LOCK TABLES deadlock among MyISAM-only statements.
pub(super) fn lock_tables_deadlock() -> Entry {
    let d = Dialect::mysql80();
    let t1 = tbl(&d, "t1");
    let t2 = tbl(&d, "t2");
    let mut old = Design::new(
        d.clone(),
        vec![
            Program::new(
                "s1",
                vec![
                    (Op::Take(1, WRITE, TXN), "BEGIN; UPDATE t2"),
                    (Op::Take(0, WRITE, TXN), "UPDATE t1"),
                    (Op::Commit, "COMMIT"),
                ],
            ),
            Program::new(
                "s2",
                vec![
                    (
                        Op::Take(0, WRITE, EXPL),
                        "LOCK TABLES t1 WRITE, t2 WRITE: t1",
                    ),
                    (Op::Take(1, WRITE, EXPL), "LOCK TABLES ...: t2"),
                    (Op::Unlock, "UNLOCK TABLES"),
                ],
            ),
        ],
    );
    old.res = vec![
        res("t1", Kind::ThrLock, "THR_LOCK"),
        res("t2", Kind::ThrLock, "THR_LOCK"),
    ];
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
                "s1",
                vec![
                    (
                        Op::Acq(t2.clone(), LockType::SW, TXN),
                        "BEGIN; UPDATE t2: MDL SW",
                    ),
                    (Op::Acq(t1.clone(), LockType::SW, TXN), "UPDATE t1: MDL SW"),
                    (Op::Commit, "COMMIT"),
                ],
            ),
            Program::new(
                "s2",
                vec![
                    (
                        Op::Bulk(
                            vec![(t1.clone(), LockType::SNRW), (t2.clone(), LockType::SNRW)],
                            EXPL,
                        ),
                        "LOCK TABLES t1 WRITE, t2 WRITE: MDL SNRW, in key order",
                    ),
                    (Op::Unlock, "UNLOCK TABLES"),
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
        id: "lock-tables-deadlock",
        title: "LOCK TABLES deadlock among MyISAM-only statements",
        bug: "MySQL: ER_LOCK_DEADLOCK for LOCK TABLES with MDL (5.5 behaviour change)",
        link: "",
        story: "Session 1 runs `BEGIN; UPDATE t2` (MyISAM tables, no row locks anywhere). \
Session 2 runs `LOCK TABLES t1 WRITE, t2 WRITE`, gets `t1` and waits for `t2`. Session 1 \
then runs `UPDATE t1`. With table-level locks only, both wait until a timeout. With \
metadata locks (MySQL 5.5 and later) the transaction keeps `SW` on `t2`, LOCK TABLES \
takes `SNRW` on both tables in one bulk request, and the detector reports \
`ER_LOCK_DEADLOCK` to session 1 at once (its DML weight is lower than the `SNRW` \
request's DDL weight). Users saw a deadlock error among statements on MyISAM tables, \
which looked like a bug and is the intended result.",
        old_text: "A THR_LOCK-like component with table write locks held to the end of \
the transaction and by LOCK TABLES, taken one table at a time; no detector sees the \
waits. (The bulk request sorts keys, so the tables are named to make session 2 take \
`t1` first.)",
        fix: "MDL `SW` for the transaction's tables; `LOCK TABLES ... WRITE` as a bulk \
`SNRW` request with explicit duration. The detector runs when session 1's `UPDATE t1` \
starts to wait and chooses it as the victim.",
        old,
        new,
        variants: Vec::new(),
    }
}

/// 8. A deadlock victim chosen again and again.
pub(super) fn victim_livelock() -> Entry {
    let d = Dialect::mariadb();
    let ns = d.namespace_by_name("USER_LOCK").expect("USER_LOCK");
    let x = MdlKey::new(ns, "", "x");
    let y = MdlKey::new(ns, "", "y");
    let prog = |name, a: &MdlKey, b: &MdlKey, la, lb| {
        let mut p = Program::new(
            name,
            vec![
                (Op::Acq(a.clone(), LockType::X, EXPL), la),
                (Op::Acq(b.clone(), LockType::X, EXPL), lb),
                (Op::Unlock, "RELEASE_ALL_LOCKS()"),
            ],
        );
        p.rounds = 2;
        p.on_abort = OnAbort::Restart;
        p.retries = 2;
        p
    };
    let progs = vec![
        prog("a", &x, &y, "GET_LOCK('x')", "GET_LOCK('y')"),
        prog("b", &y, &x, "GET_LOCK('y')", "GET_LOCK('x')"),
    ];
    let checks = vec![
        Check::FairVictims,
        Check::NoStuckCycle,
        Check::NoStuckState,
        Check::NoFalseDeadlock,
        Check::AllDone,
    ];
    let mut od = d.clone();
    od.weights.victim_overweight = 0;
    let mut old = Design::new(od, progs.clone());
    old.checks = checks.clone();
    let mut new = Design::new(d, progs);
    new.checks = checks;
    Entry {
        id: "victim-livelock",
        title: "The same deadlock victim chosen again and again",
        bug: "MariaDB: MDL_context deadlock overweight",
        link: "",
        story: "The detector aborts the waiter of lowest weight and, on a tie, the one \
that closed the cycle. Two clients that take the same locks in opposite orders and retry \
after `ER_LOCK_DEADLOCK` can be scheduled so that the same one closes the cycle every \
time: it is aborted on every attempt while the other makes progress, a livelock for that \
client. MariaDB adds an overweight to a context each time it is chosen as a victim \
(`victim_overweight 1` in the `mariadb` dialect), so a repeated victim becomes heavier \
and the next victim is the other one.",
        old_text: "The real `mariadb` lock table with `victim_overweight 0`. Two \
sessions take `GET_LOCK('x')`/`GET_LOCK('y')` in opposite orders, two rounds each, \
restarting after a deadlock error (at most twice).",
        fix: "The `mariadb` dialect as it is: each time a session is chosen as a victim \
its weight grows by one, so no session is chosen twice more often than the other.",
        old,
        new,
        variants: Vec::new(),
    }
}
