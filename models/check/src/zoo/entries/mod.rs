//! The entries of the zoo: for each historical design, the old one (which the checker must
//! catch) and the fixed one (whose properties must hold). The first entries are here; the
//! later ones are grouped by theme in the submodules.

mod detector;
mod findings;
mod liveness;
mod server;
mod soft;
mod thr_lock;

pub use findings::{skipped_hog_design, switch_cycle_design};
pub use liveness::snrw_stream;

use super::engine::*;
use mdl_core::dialect::Dialect;
use mdl_core::key::MdlKey;
use mdl_core::types::{Duration, LockType, TypeSet};

use Duration::{Explicit as EXPL, Statement as STMT, Transaction as TXN};

/// One entry of the zoo.
pub struct Entry {
    /// Short name (`--entry NAME`).
    pub id: &'static str,
    pub title: &'static str,
    /// The bug tracker reference.
    pub bug: &'static str,
    /// Where to read about it (empty: no single tracker entry).
    pub link: &'static str,
    /// What happened in the real server (Markdown).
    pub story: &'static str,
    /// The old design as modelled (Markdown).
    pub old_text: &'static str,
    /// The fix as modelled (Markdown).
    pub fix: &'static str,
    pub old: Design,
    pub new: Design,
    /// Further runs shown on the page (e.g. the same design with the tables' names
    /// swapped), each expected to be caught or to hold.
    pub variants: Vec<Variant>,
}

/// A design beside an entry's old and new ones.
pub struct Variant {
    pub label: &'static str,
    pub design: Design,
    pub expect_caught: bool,
}

fn single(d: &Dialect, ns: &str) -> MdlKey {
    MdlKey::singleton(d.namespace_by_name(ns).expect("namespace"))
}

fn tbl(d: &Dialect, name: &str) -> MdlKey {
    MdlKey::new(d.namespace_by_name("TABLE").expect("TABLE"), "test", name)
}

fn res(name: &'static str, kind: Kind, subsystem: &'static str) -> ResourceDef {
    ResourceDef {
        name,
        kind,
        subsystem,
    }
}

/// Every entry, in order.
pub fn all() -> Vec<Entry> {
    vec![
        update_vs_alter(),
        needless_deadlock(),
        handler_vs_ftwrl(),
        ftwrl_starvation(),
        analyze_pileup(),
        purge_temp_name(),
        temp_name_review(),
        lock_tables_deadlock(),
        victim_livelock(),
        backup_lock_order(),
        fk_metadata(),
        detector::two_cycles(),
        detector::alter_under_transaction(),
        thr_lock::show_under_lock_tables(),
        thr_lock::read_no_insert_vs_alter(),
        thr_lock::lock_tables_read_four_way(),
        liveness::snrw_starves_readers(),
        detector::lock_tables_name_order(),
        server::backup_tool_cycle(),
        thr_lock::wrong_lock_type(),
        thr_lock::merge_children(),
        server::create_database_mutex(),
        server::alter_database_commits(),
        soft::sr_then_sw(),
        findings::mariadb_skipped_hog(),
        findings::mysql_switch_cycle(),
    ]
}

/// 1. MySQL bug #37346.
fn update_vs_alter() -> Entry {
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

/// 2. MySQL bug #46272.
fn needless_deadlock() -> Entry {
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

/// 3. MySQL bug #57006.
fn handler_vs_ftwrl() -> Entry {
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
fn ftwrl_starvation() -> Entry {
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

/// 5. ANALYZE TABLE and "Waiting for table flush".
fn analyze_pileup() -> Entry {
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

/// 6. MariaDB MDEV-36436.
fn purge_temp_name() -> Entry {
    let d = Dialect::mariadb();
    let names = vec!["t1", "#sql-alter-1", "#sql-alter-2", "#sql-backup-1"];
    let key = |i: usize| tbl(&d, names[i]);
    let purge = Program::new(
        "purge",
        vec![
            (Op::PurgeWait, "purge: undo records to purge"),
            (Op::PurgeResolve, "purge: read the table's name"),
            (Op::PurgeLock, "purge: MDL SR on that name"),
            (Op::PurgeRecheck, "purge: check the name again"),
            (Op::Pin, "purge: pin the table object"),
            (Op::Unpin, "purge: purge, unpin"),
            (Op::EndStmt, "purge: release MDL"),
        ],
    );
    let mk = |new: bool| {
        let mut a1 = vec![(
            Op::Acq(key(0), LockType::X, TXN),
            "ALTER IGNORE TABLE t1 (COPY): MDL X on t1",
        )];
        if new {
            a1.push((
                Op::Acq(key(1), LockType::X, TXN),
                "MDL X on the temporary name #sql-alter-1",
            ));
        }
        a1.extend([
            (Op::Create(1, 1), "create #sql-alter-1"),
            (
                Op::Publish(1),
                "copy rows, commit every N rows: undo for #sql-alter-1",
            ),
            (Op::Rename(0, 3), "rename t1 to #sql-backup-1"),
            (Op::Rename(1, 0), "rename #sql-alter-1 to t1"),
            (Op::Commit, "end of ALTER"),
        ]);
        let mut a2 = vec![(
            Op::Acq(key(0), LockType::X, TXN),
            "ALTER TABLE t1: MDL X on t1",
        )];
        if new {
            a2.push((
                Op::Acq(key(2), LockType::X, TXN),
                "MDL X on the temporary name #sql-alter-2",
            ));
        }
        a2.extend([
            (Op::Rename(0, 2), "rename t1 to #sql-alter-2"),
            (Op::Commit, "end of ALTER"),
        ]);
        let mut x = Design::new(
            d.clone(),
            vec![
                Program::new("alter1", a1),
                purge.clone(),
                Program::new("alter2", a2),
            ],
        );
        x.names = names.clone();
        x.objs = vec![
            TableObject {
                name: 0,
                exists: true,
                n_ref: 0,
                undo: false,
            },
            TableObject {
                name: 1,
                exists: false,
                n_ref: 0,
                undo: false,
            },
        ];
        x.purge = if new {
            PurgeRule::Exact
        } else {
            PurgeRule::Stale
        };
        x.checks = vec![
            Check::RefCount,
            Check::NoStuckCycle,
            Check::NoStuckState,
            Check::NoFalseDeadlock,
            Check::AllDone,
        ];
        x
    };
    Entry {
        id: "purge-temp-name",
        title: "Purge pins a table that a DDL renames (the temporary #sql-alter- name)",
        bug: "MariaDB MDEV-36436",
        link: "https://jira.mariadb.org/browse/MDEV-36436",
        story: "`ALTER IGNORE TABLE ... ALGORITHM=COPY` commits the copy every so many \
rows, so undo log records for the intermediate `#sql-alter-...` table become purgeable \
while the ALTER runs; then the ALTER renames the copy to `t1`. The purge thread looks the \
table up, takes a metadata lock on the name it found (the temporary name, which nobody \
else locks) and pins the table object (`n_ref_count`). The next ALTER holds `X` on `t1` \
and renames `t1` away while purge still holds its reference: the assertion \
`n_ref_count == 0` fails. The fix takes metadata locks on the temporary name too and \
makes purge lock the name the object has now, so purge and DDL are serialised.",
        old_text: "InnoDB table objects (name, `n_ref_count`, purgeable undo) as a \
component. ALTER holds `X` on `t1` only; purge reads the name, locks it (`SR`) and pins \
the object without checking the name again. Every rename asserts `n_ref_count == 0` (the \
shortest trace breaks it at the first ALTER's own rename; the next ALTER's rename fails \
the same way).",
        fix: "Each ALTER also holds `X` on its temporary name; purge, once its lock is \
granted, checks that the object still has the name it locked, and if not releases it and \
locks the new name. A rename needs `X` on the object's current name, which conflicts \
with purge's `SR`: no rename while pinned.",
        old: mk(false),
        new: mk(true),
        variants: Vec::new(),
    }
}

/// 6b. The review's objection to MDEV-36436's fix: names, not flags.
fn temp_name_review() -> Entry {
    let d = Dialect::mariadb();
    let names = vec!["#sql-alter-9", "t9", "t1", "#sql-alter-1"];
    let key = |i: usize| tbl(&d, names[i]);
    let purge = Program::new(
        "purge",
        vec![
            (Op::PurgeWait, "purge: undo records to purge"),
            (Op::PurgeResolve, "purge: read the table's name"),
            (Op::PurgeLock, "purge: MDL SR on that name"),
            (Op::PurgeRecheck, "purge: check the name again"),
            (Op::Pin, "purge: pin the table object"),
            (Op::Unpin, "purge: purge, unpin"),
            (Op::EndStmt, "purge: release MDL"),
        ],
    );
    let mk = |new: bool| {
        let mut progs = vec![
            Program::new(
                "user",
                vec![
                    (
                        Op::Acq(key(0), LockType::SW, TXN),
                        "UPDATE `#sql-alter-9` (a user table)",
                    ),
                    (Op::Commit, "COMMIT"),
                    (Op::Publish(0), "its undo becomes purgeable"),
                ],
            ),
            purge.clone(),
            Program::new(
                "rename",
                vec![
                    (
                        Op::Acq(key(0), LockType::X, TXN),
                        "RENAME TABLE `#sql-alter-9` TO t9: MDL X",
                    ),
                    (Op::Rename(0, 1), "rename"),
                    (Op::Commit, "end of RENAME"),
                ],
            ),
        ];
        if new {
            progs.push(Program::new(
                "alter",
                vec![
                    (
                        Op::Acq(key(2), LockType::X, TXN),
                        "ALTER TABLE t1: MDL X on t1",
                    ),
                    (
                        Op::Acq(key(3), LockType::X, TXN),
                        "MDL X on its temporary name #sql-alter-1",
                    ),
                    (Op::Create(2, 3), "create #sql-alter-1"),
                    (Op::Commit, "end of ALTER"),
                ],
            ));
        }
        let mut x = Design::new(d.clone(), progs);
        x.names = names.clone();
        x.objs = vec![
            TableObject {
                name: 0,
                exists: true,
                n_ref: 0,
                undo: false,
            },
            TableObject {
                name: 2,
                exists: true,
                n_ref: 0,
                undo: false,
            },
            TableObject {
                name: 3,
                exists: false,
                n_ref: 0,
                undo: false,
            },
        ];
        x.purge = if new {
            PurgeRule::Exact
        } else {
            PurgeRule::PrefixSkip
        };
        x.never_waits = vec![(1, 3), (3, 1), (2, 3), (3, 2)];
        x.checks = vec![
            Check::RefCount,
            Check::ExactKeys,
            Check::NoStuckCycle,
            Check::NoStuckState,
            Check::NoFalseDeadlock,
            Check::AllDone,
        ];
        x
    };
    Entry {
        id: "temp-name-review",
        title: "A user table literally named `#sql-alter-...` (the review of MDEV-36436)",
        bug: "MariaDB MDEV-36436 (review)",
        link: "https://jira.mariadb.org/browse/MDEV-36436",
        story: "A review of the fix objected that a table name is not a reliable mark of \
an internal table: a user may create a table literally named `` `#sql-alter-9` ``. A \
fix that recognises temporary tables by their name (\"`#sql-` names are protected by the \
ALTER that owns them, purge need not lock them\") lets purge pin that user table without \
a metadata lock, and a concurrent `RENAME TABLE` of it breaks `n_ref_count == 0` again. \
Conversely, a lock on a temporary name must never block or serialise work on an \
unrelated user table.",
        old_text: "The name-prefix shortcut: purge skips MDL for names starting with \
`#sql-`. A user session updates the user table `#sql-alter-9` and commits; purge pins it; \
`RENAME TABLE` takes `X` on it and renames while it is pinned.",
        fix: "Exact keys: purge locks `TABLE test.#sql-alter-9` like any other name (and \
re-checks the name). An ALTER on `t1` holding `X` on its own temporary name \
`#sql-alter-1` runs at the same time; the property checks that purge and the user's \
RENAME never wait for it and it never waits for them.",
        old: mk(false),
        new: mk(true),
        variants: Vec::new(),
    }
}

/// 7. LOCK TABLES deadlock among MyISAM-only statements.
fn lock_tables_deadlock() -> Entry {
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
fn victim_livelock() -> Entry {
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

/// 9. BACKUP_LOCK and GLOBAL taken in opposite orders.
fn backup_lock_order() -> Entry {
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

/// 10. Foreign keys and the 8.0 data dictionary: metadata locks on related tables.
fn fk_metadata() -> Entry {
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
