//! Entries where a wait outside MDL closed the cycle: a server mutex held across a
//! metadata-lock wait (MySQL bugs #48940, #54360), and a backup tool's own connections
//! (MariaDB MDEV-15636).

use super::{res, Entry};
use crate::zoo::engine::*;
use mdl_core::dialect::Dialect;
use mdl_core::key::MdlKey;
use mdl_core::types::{Duration, LockType};

use Duration::{Explicit as EXPL, Statement as STMT, Transaction as TXN};

fn key(d: &Dialect, ns: &str, k: &str) -> MdlKey {
    MdlKey::parse(d, ns, k).expect("key")
}

fn lt(name: &str) -> LockType {
    LockType::parse(name).expect("lock type")
}

/// MySQL bug #48940: DROP DATABASE holds LOCK_mysql_create_db while it waits for MDL.
pub fn alter_database_commits() -> Entry {
    let d = Dialect::mysql80();
    let t1 = key(&d, "TABLE", "schema1.t1");
    let mk = |new: bool| {
        let mut trx = vec![(
            Op::Acq(t1.clone(), LockType::SW, TXN),
            "SET autocommit=0; INSERT INTO schema1.t1: MDL SW",
        )];
        if new {
            trx.push((Op::Commit, "ALTER SCHEMA: implicit commit first"));
        }
        trx.extend([
            (
                Op::Take(0, EXCL, STMT),
                "ALTER SCHEMA schema1 ...: LOCK_mysql_create_db",
            ),
            (Op::EndStmt, "end of ALTER SCHEMA"),
            (Op::Commit, "SET autocommit=1"),
        ]);
        let mut x = Design::new(
            d.clone(),
            vec![
                Program::new("trx", trx),
                Program::new(
                    "dropper",
                    vec![
                        (
                            Op::Take(0, EXCL, STMT),
                            "DROP SCHEMA schema1: LOCK_mysql_create_db",
                        ),
                        (
                            Op::Acq(t1.clone(), LockType::X, STMT),
                            "MDL X on schema1.t1",
                        ),
                        (Op::EndStmt, "end of DROP SCHEMA"),
                    ],
                ),
            ],
        );
        x.res = vec![res("LOCK_mysql_create_db", Kind::Row, "server mutex")];
        x.checks = vec![
            Check::NoStuckCycle,
            Check::NoStuckState,
            Check::NoFalseDeadlock,
            Check::AllDone,
        ];
        x
    };
    Entry {
        id: "alter-database-commits",
        title: "DROP DATABASE holds a server mutex while it waits for a metadata lock",
        bug: "MySQL bug #48940",
        link: "https://bugs.mysql.com/bug.php?id=48940",
        story: "\"MDL deadlocks against mysql_rm_db\". Connection A, with autocommit off, \
inserts into `schema1.t1` (MDL `SW`, kept to the end of the transaction). Connection B \
runs `DROP SCHEMA schema1`: it takes the mutex `LOCK_mysql_create_db` and waits for MDL \
`X` on `schema1.t1`. Connection A runs `ALTER SCHEMA schema1`, which waits for the mutex. \
The mutex wait is invisible to the MDL detector: a hang. The fix made `ALTER DATABASE` \
commit implicitly before it runs (as the other statements that take the mutex already \
did), so A's metadata lock is gone before it waits. (MySQL 5.5 later replaced the mutex by \
metadata locks on database names; see `create-database-mutex`.) Read: the fix's commit \
message (Jon Olav Hauglid, 3394cbf7, mirrored at \
<https://lab.node.vifib.com/nexedi/mariadb/-/blob/3394cbf72cc09ca4735f88c2669ccd853134dfa8/mysql-test/r/schema.result>) and \
the test for this bug in MySQL 5.5's `mysql-test/t/schema.test`.",
        old_text: "The mutex as a foreign reader/writer lock held in exclusive mode for \
the statement; its waits are invisible to the MDL detector. ALTER SCHEMA does not commit \
first.",
        fix: "ALTER SCHEMA commits the open transaction before it takes the mutex. The \
mutex waits stay invisible; no cycle forms.",
        old: mk(false),
        new: mk(true),
        variants: Vec::new(),
    }
}

/// MySQL bug #54360: a global mutex where a lock on one database name suffices.
pub fn create_database_mutex() -> Entry {
    let d = Dialect::mysql80();
    let t1 = key(&d, "TABLE", "db1.t1");
    let db1 = key(&d, "SCHEMA", "db1");
    let db2 = key(&d, "SCHEMA", "db2");
    let mk = |new: bool| {
        let create = if new {
            (
                Op::Acq(db2.clone(), LockType::X, STMT),
                "CREATE DATABASE db2: MDL X on SCHEMA db2",
            )
        } else {
            (
                Op::Take(0, EXCL, STMT),
                "CREATE DATABASE db2: LOCK_create_db",
            )
        };
        let drop = if new {
            (
                Op::Acq(db1.clone(), LockType::X, STMT),
                "DROP DATABASE db1: MDL X on SCHEMA db1",
            )
        } else {
            (Op::Take(0, EXCL, STMT), "DROP DATABASE db1: LOCK_create_db")
        };
        let mut x = Design::new(
            d.clone(),
            vec![
                Program::new(
                    "handler",
                    vec![
                        (
                            Op::Acq(t1.clone(), LockType::SR, EXPL),
                            "HANDLER db1.t1 OPEN: MDL SR",
                        ),
                        create,
                        (Op::EndStmt, "end of CREATE DATABASE"),
                        (Op::Unlock, "HANDLER t1 CLOSE"),
                    ],
                ),
                Program::new(
                    "dropper",
                    vec![
                        drop,
                        (Op::Acq(t1.clone(), LockType::X, STMT), "MDL X on db1.t1"),
                        (Op::EndStmt, "end of DROP DATABASE"),
                    ],
                ),
            ],
        );
        if !new {
            x.res = vec![res("LOCK_create_db", Kind::Row, "server mutex")];
        }
        x.checks = vec![
            Check::NoStuckCycle,
            Check::NoStuckState,
            Check::NoFalseDeadlock,
            Check::AllDone,
        ];
        x
    };
    Entry {
        id: "create-database-mutex",
        title: "HANDLER and DROP DATABASE: a global mutex where a lock per database suffices",
        bug: "MySQL bug #54360",
        link: "https://bugs.mysql.com/bug.php?id=54360",
        story: "\"Deadlock DROP/ALTER/CREATE DATABASE with open HANDLER\". Connection 1 \
opens `HANDLER db1.t1 OPEN` (MDL `SR` held until `HANDLER CLOSE`). The default \
connection runs `DROP DATABASE db1`: it takes the server-wide mutex `LOCK_create_db` and \
waits for `X` on `db1.t1`. Connection 1 then runs `CREATE DATABASE db2` (or ALTER or \
DROP of another database), which waits for the same mutex: a cycle half outside MDL, \
about two unrelated databases. The fix removed `LOCK_create_db` and took metadata locks \
on database names instead (WL#4450: database DDL takes `X` on the schema name, table DDL \
`IX`), so `CREATE DATABASE db2` locks only `db2` and every wait left is an MDL wait. Read: \
the fix's commit message (\"Remove LOCK_create_db, database name locks, and use metadata \
locks instead. This exposes CREATE/DROP/ALTER DATABASE statements to the graph-based \
deadlock detector in MDL\", mirrored at \
<https://git.fucktheforce.de/mirror/mariadb/commits/commit/b8dde1ef402cb82cb48177718437cab019c65d04/sql/sql_view.cc>) \
and the test for this bug in MySQL 5.5's `mysql-test/t/schema.test` (\"All these \
statements before resulted in deadlock\").",
        old_text: "The mutex as a foreign lock held in exclusive mode by database DDL for \
the statement, invisible to the MDL detector.",
        fix: "`SCHEMA` metadata locks: `DROP DATABASE db1` takes `X` on `db1` and on its \
tables, `CREATE DATABASE db2` takes `X` on `db2`: every wait is an MDL wait.",
        old: mk(false),
        new: mk(true),
        variants: Vec::new(),
    }
}

/// MariaDB MDEV-15636: mariabackup's connections, FTWRL and an online ALTER.
pub fn backup_tool_cycle() -> Entry {
    let d = Dialect::mariadb();
    let t = key(&d, "TABLE", "test.t");
    let backup = MdlKey::singleton(d.namespace_by_name("BACKUP").expect("BACKUP"));
    // The programs end after their last step: a session's end gives back everything
    // (COMMIT, UNLOCK TABLES, BACKUP STAGE END), which keeps the state space small.
    let per_table = || {
        Program::new(
            "c1",
            vec![
                (
                    Op::Acq(t.clone(), LockType::SR, TXN),
                    "mariabackup --lock-ddl-per-table: BEGIN; SELECT * FROM t LIMIT 0",
                ),
                (
                    Op::Take(0, SHARED, STMT),
                    "keeps its locks until the tool's FLUSH is done (then lets them go)",
                ),
            ],
        )
    };
    let alter = || {
        Program::new(
            "alter",
            vec![
                (
                    Op::Acq(t.clone(), LockType::SU, STMT),
                    "ALTER TABLE t ..., LOCK=NONE: TABLE SU",
                ),
                (
                    Op::Acq(backup.clone(), lt("BACKUP_DDL"), STMT),
                    "BACKUP_DDL",
                ),
                (
                    Op::Down(backup.clone(), lt("BACKUP_ALTER_COPY")),
                    "online phase: BACKUP_DDL lowered to BACKUP_ALTER_COPY",
                ),
                (Op::Upg(t.clone(), LockType::X), "upgrade TABLE SU to X"),
                (
                    Op::Acq(backup.clone(), lt("BACKUP_DDL"), STMT),
                    "final phase: BACKUP_DDL again (then the end of ALTER)",
                ),
            ],
        )
    };
    let mk = |tool: Program| {
        let mut x = Design::new(d.clone(), vec![per_table(), alter(), tool]);
        x.res = vec![res("flush done", Kind::Row, "backup tool")];
        // The tool holds the per-table connection back until its FLUSH is done.
        x.init_holds = vec![(0, 2, EXCL, TXN)];
        x.checks = vec![
            Check::NoStuckCycle,
            Check::NoStuckState,
            Check::NoFalseDeadlock,
            Check::AllDone,
        ];
        x
    };
    let old = mk(Program::new(
        "c3",
        vec![
            (
                Op::Acq(backup.clone(), lt("BACKUP_FTWRL1"), EXPL),
                "FLUSH TABLES WITH READ LOCK: BACKUP_FTWRL1",
            ),
            (
                Op::Upg(backup.clone(), lt("BACKUP_FTWRL2")),
                "BACKUP_FTWRL2",
            ),
            (
                Op::Free(0),
                "tool: FLUSH done, c1 may go (copy, then UNLOCK TABLES)",
            ),
        ],
    ));
    let new = mk(Program::new(
        "c3",
        vec![
            (
                Op::Acq(backup.clone(), lt("BACKUP_BLOCK_DDL"), EXPL),
                "BACKUP STAGE START: BACKUP_BLOCK_DDL",
            ),
            (
                Op::Acq(backup.clone(), lt("BACKUP_START"), EXPL),
                "then BACKUP_START ...",
            ),
            (
                Op::Release(backup.clone(), lt("BACKUP_BLOCK_DDL")),
                "... and BACKUP_BLOCK_DDL given back",
            ),
            (
                Op::Upg(backup.clone(), lt("BACKUP_FLUSH")),
                "BACKUP STAGE FLUSH",
            ),
            (
                Op::Upg(backup.clone(), lt("BACKUP_WAIT_DDL")),
                "BACKUP STAGE BLOCK_DDL",
            ),
            (Op::Free(0), "tool: DDL blocked, c1 may go (copy the files)"),
            (
                Op::Upg(backup.clone(), lt("BACKUP_WAIT_COMMIT")),
                "BACKUP STAGE BLOCK_COMMIT (then BACKUP STAGE END)",
            ),
        ],
    ));
    Entry {
        id: "backup-tool-cycle",
        title: "A backup tool's own connections, FTWRL and an online ALTER",
        bug: "MariaDB MDEV-15636",
        link: "https://jira.mariadb.org/browse/MDEV-15636",
        story: "\"mariabackup --lock-ddl-per-table hangs if ALTER table is running \
concurrently\". The commit of the first fix (Vladislav Vaintroub, 27c24808) names the \
cycle: \"C1 mariabackup's connection that holds MDL locks, C2 Online ALTER TABLE that \
wants to have MDL exclusively and tries to upgrade its mdl lock, C3 another mariabackup's \
connection that does FLUSH TABLES (or FTWRL). C3 waits for C2, which waits for C1, which \
waits for C3\" (the last wait is inside the tool: \"MDL locks cannot be released until \
FLUSH succeeds\"); that fix killed the waiting ALTER. The lasting fix is BACKUP STAGE \
(MDEV-5336: \"This lock will also solve the problem with MDEV-15636 ... as the backup \
locks will not conflict with other DDL locks\"): `BACKUP STAGE BLOCK_DDL` does not wait \
for an online ALTER in its copy phase (`BACKUP_WAIT_DDL` is compatible with \
`BACKUP_ALTER_COPY`; FTWRL's `BACKUP_FTWRL1` is not). Read: that commit message \
(mirrored at \
<https://lab.nexedi.cn/nexedi/mariadb/-/blob/a5da1c64f8d96278c8e4408458f7e8d4b6dea415/extra/mariabackup/backup_copy.cc>), \
MDEV-5336's description, and the lock sequences learned from MariaDB 10.11 in \
`models/conformance/statements.tsv` (in-place ALTER: `SCHEMA IX`, `TABLE SU`, \
`BACKUP_DDL`, moved to `BACKUP_ALTER_COPY`, `TABLE X`, of which the model leaves out the \
`SCHEMA IX` that nothing here conflicts with; FTWRL: `BACKUP_FTWRL1` then \
`FTWRL2`; the backup stages). The ALTER's return to `BACKUP_DDL` for its last phase \
follows MariaDB's documentation of BACKUP STAGE BLOCK_DDL (it blocks \"the final rename \
phase of ALTER TABLE\"); it was not observed by the conformance learner.",
        old_text: "The `mariadb` dialect. `c1` holds `SR` on `t` and waits for the tool's \
signal, a foreign lock the tool (`c3`) holds from the start and gives up once its FLUSH \
is done; the wait is inside the tool, invisible to the server in every design. `c3` \
runs FTWRL.",
        fix: "`c3` runs BACKUP STAGE START, FLUSH, BLOCK_DDL, signals the tool, \
BLOCK_COMMIT, END (the types learned from MariaDB 10.11). The server changes the type of \
its one ticket; the core upgrades only to a later type, so where the server goes to an \
earlier one the model takes the new type and gives the old back, as `mdl conform`'s model \
does (START after BLOCK_DDL; the ALTER's last BACKUP_DDL after BACKUP_ALTER_COPY). The \
tool's wait is still invisible; no cycle forms.",
        old,
        new,
        variants: Vec::new(),
    }
}
