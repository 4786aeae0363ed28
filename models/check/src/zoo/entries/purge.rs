//! Entries about the purge thread and temporary tables' names: MariaDB MDEV-36436 and
//! the review's objection to its fix (names, not flags).

use super::*;

/// 6. MariaDB MDEV-36436.
pub(super) fn purge_temp_name() -> Entry {
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
pub(super) fn temp_name_review() -> Entry {
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
