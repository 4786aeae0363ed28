//! The statements `mdl conform --random` draws from: one table of forms, each with a
//! weight and how it is written from the names drawn for this statement ([`Draw`]).
//! Adding a form is one line of [`FORMS`]; a form the model refuses in a state is simply
//! not played there (the generator draws again), and `every_form_is_played`
//! (tests/conform_random.rs) checks that every form is played in some generated scenario.
//!
//! The seed -> scenario mapping: scenario seed `S` seeds a ChaCha8 generator; each step
//! draws the session, then the names (`t1`, `t2`, `n`, `lock`, `xid`), then a number in
//! `0..total weight` that picks the form by walking [`FORMS`] in order, then the form's own
//! draws. So adding, removing or reweighting a form changes what every later seed means
//! (the README's run figures name the commit they were built at).

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::cell::{Cell, RefCell};

/// The timeout a generated `SET lock_wait_timeout` uses (seconds).
pub const TIMEOUT_S: u64 = 1;

/// The names drawn for one statement, and the generator for a form's own draws.
pub struct Draw<'a> {
    r: RefCell<&'a mut ChaCha8Rng>,
    /// Two different tables of the fixture (`t1`, `t2`, the MyISAM `m1`).
    pub t1: &'static str,
    pub t2: &'static str,
    /// A new table's name (`t3`, `t4`).
    pub n: &'static str,
    /// A user lock's name and an XA transaction's id.
    pub lock: &'static str,
    pub xid: &'static str,
    /// Another session that has run a statement (`KILL QUERY` as SQL), if any.
    pub other: Option<String>,
    /// The function `f1` is in the model's catalog. (`SELECT f1()` of a function the
    /// catalog lacks is read as a SELECT of no table, where the server locks the name S
    /// and fails with ER_SP_DOES_NOT_EXIST: seeds 310001, 310020 of `--random 500 --seed
    /// 310001`.)
    pub f1: bool,
    /// The session is under LOCK TABLES.
    pub locked: bool,
    /// A counter for fresh index names (read back by the caller).
    pub serial: Cell<u32>,
}

impl Draw<'_> {
    pub fn pick(&self, v: &[&'static str]) -> &'static str {
        v[self.r.borrow_mut().random_range(0..v.len())]
    }
    pub fn num(&self, lo: u32, hi: u32) -> u32 {
        self.r.borrow_mut().random_range(lo..hi)
    }
    /// A fresh number (index names).
    pub fn fresh(&self) -> u32 {
        self.serial.set(self.serial.get() + 1);
        self.serial.get()
    }
    fn mode(&self) -> &'static str {
        self.pick(&["READ", "WRITE", "READ LOCAL", "WRITE CONCURRENT"])
    }
}

/// One form: its weight among all forms, and how it is written. (Its family is the
/// corpus's, `corpus::family` of the statement.)
pub struct Form {
    pub weight: u32,
    pub make: fn(&Draw) -> String,
}

const fn f(weight: u32, make: fn(&Draw) -> String) -> Form {
    Form { weight, make }
}

const TABLES: &[&str] = &["t1", "t2", "m1"];
const NEW: &[&str] = &["t3", "t4"];

/// Draws the names of one statement.
pub fn draw(
    r: &mut ChaCha8Rng,
    serial: u32,
    other: Option<String>,
    (f1, locked): (bool, bool),
) -> Draw<'_> {
    let t1 = TABLES[r.random_range(0..TABLES.len())];
    let mut t2 = TABLES[r.random_range(0..TABLES.len())];
    if t2 == t1 {
        t2 = if t1 == "t1" { "t2" } else { "t1" };
    }
    let n = NEW[r.random_range(0..NEW.len())];
    let lock = ["u1", "u2"][r.random_range(0..2)];
    let xid = ["'x1'", "'x2'"][r.random_range(0..2)];
    Draw {
        t1,
        t2,
        n,
        lock,
        xid,
        other,
        f1,
        locked,
        r: RefCell::new(r),
        serial: Cell::new(serial),
    }
}

/// Picks a form by weight and writes its statement.
pub fn statement(d: &Draw) -> String {
    let total: u32 = FORMS.iter().map(|x| x.weight).sum();
    let mut w = d.num(0, total);
    for form in FORMS {
        if w < form.weight {
            return (form.make)(d);
        }
        w -= form.weight;
    }
    unreachable!("the weights sum to `total`")
}

/// Every form, one line each (grouped by what models it).
pub const FORMS: &[Form] = &[
    // Reads and writes of the fixture tables.
    f(8, |d| format!("SELECT * FROM {}", d.t1)),
    f(3, |d| {
        format!("SELECT * FROM {0} JOIN {1} ON {0}.a={1}.a", d.t1, d.t2)
    }),
    f(2, |d| {
        format!("SELECT * FROM {} WHERE a IN (SELECT a FROM {})", d.t1, d.t2)
    }),
    f(2, |d| {
        format!("SELECT * FROM {} WHERE a={} FOR UPDATE", d.t1, d.num(1, 5))
    }),
    f(1, |d| {
        format!("SELECT * FROM {} WHERE a=3 LOCK IN SHARE MODE", d.t1)
    }),
    f(1, |d| {
        format!("SELECT * FROM {} UNION SELECT * FROM {}", d.t1, d.t2)
    }),
    // A select-list subquery: the outer FROM's first table is opened first
    // (classify/select_order.rs: found/seed-340187).
    f(1, |d| {
        format!("SELECT (SELECT COUNT(*) FROM {}) FROM {}", d.t2, d.t1)
    }),
    f(4, |d| {
        format!("INSERT INTO {} (b) VALUES ({})", d.t1, d.num(0, 9))
    }),
    f(2, |d| {
        format!("INSERT INTO {} (b) SELECT b FROM {}", d.t1, d.t2)
    }),
    f(1, |d| format!("INSERT IGNORE INTO {} (b) VALUES (1)", d.t1)),
    f(1, |d| {
        format!(
            "INSERT INTO {} (a, b) VALUES (1, 2) ON DUPLICATE KEY UPDATE b=3",
            d.t1
        )
    }),
    f(1, |d| {
        format!("REPLACE INTO {} (a, b) VALUES ({}, 2)", d.t1, d.num(1, 5))
    }),
    f(3, |d| {
        format!("UPDATE {} SET b=b+1 WHERE a={}", d.t1, d.num(1, 5))
    }),
    f(1, |d| {
        format!(
            "UPDATE {0}, {1} SET {0}.b={1}.b WHERE {0}.a={1}.a",
            d.t1, d.t2
        )
    }),
    f(1, |d| {
        format!("UPDATE {} SET b=(SELECT MAX(b) FROM {})", d.t1, d.t2)
    }),
    f(1, |d| {
        format!("UPDATE {} SET b=b+1 ORDER BY a LIMIT 1", d.t1)
    }),
    f(2, |d| {
        format!("DELETE FROM {} WHERE a={}", d.t1, d.num(5, 9))
    }),
    f(1, |d| {
        format!(
            "DELETE {0} FROM {0} JOIN {1} ON {0}.a={1}.a WHERE {0}.a=9",
            d.t1, d.t2
        )
    }),
    f(1, |d| {
        format!("DELETE FROM {} WHERE a IN (SELECT a FROM {})", d.t1, d.t2)
    }),
    // pt-online-schema-change's copy (its chunks), of the column `a` alone (a new table
    // may have no `b`: the server's 1054 is data; seed 360370).
    f(1, |d| {
        format!(
            "INSERT LOW_PRIORITY IGNORE INTO {} (a) SELECT a FROM {} FORCE INDEX(`PRIMARY`) \
             WHERE a >= 1 AND a <= 100 LOCK IN SHARE MODE",
            d.n, d.t1
        )
    }),
    // LOCK TABLES.
    f(4, |d| format!("LOCK TABLES {} {}", d.t1, d.mode())),
    f(2, |d| {
        format!("LOCK TABLES {} {}, {} {}", d.t1, d.mode(), d.t2, d.mode())
    }),
    f(1, |d| format!("LOCK TABLES {} WRITE, {} READ", d.t1, d.t2)),
    // A table twice, plainly and under an alias (classify/lock_alias.rs: found/seed-330052;
    // of m1 READ and WRITE the server holds BACKUP_DML too: found/seed-420049).
    f(1, |d| {
        format!(
            "LOCK TABLES {} {}, {} AS x {}",
            d.t1,
            d.mode(),
            d.t1,
            d.mode()
        )
    }),
    f(5, |_| "UNLOCK TABLES".into()),
    // DDL on the fixture tables and new names.
    f(2, |d| {
        format!(
            "ALTER TABLE {} FORCE, ALGORITHM={}",
            d.t1,
            d.pick(&["COPY", "INPLACE"])
        )
    }),
    f(1, |d| format!("ALTER TABLE {} FORCE, ALGORITHM=COPY", d.t1)),
    f(1, |d| {
        format!("CREATE INDEX i{} ON {} (b)", d.fresh(), d.t1)
    }),
    f(1, |d| format!("TRUNCATE TABLE {}", d.t1)),
    f(1, |d| format!("RENAME TABLE {} TO {}", d.t1, d.n)),
    f(1, |d| format!("RENAME TABLE {} TO {}", d.n, d.t1)),
    f(1, |d| {
        format!("RENAME TABLE {} TO {}, {} TO {}", d.t1, d.n, d.t2, d.t1)
    }),
    f(1, |d| format!("DROP TABLE IF EXISTS {}", d.n)),
    f(1, |d| format!("DROP TABLE {}, {}", d.t1, d.n)),
    f(1, |d| format!("CREATE TABLE {} (a INT)", d.n)),
    f(1, |d| format!("CREATE TABLE {} LIKE {}", d.n, d.t1)),
    f(1, |d| {
        format!("CREATE TABLE {} AS SELECT * FROM {}", d.n, d.t1)
    }),
    f(1, |d| format!("CREATE OR REPLACE TABLE {} (a INT)", d.n)),
    // Admin statements.
    f(1, |d| format!("ANALYZE TABLE {}", d.t1)),
    f(1, |d| format!("CHECK TABLE {}", d.t1)),
    f(1, |d| format!("REPAIR TABLE {}", d.t1)),
    // OPTIMIZE of a MyISAM table: opened with SW, then again with SNRW (found/seed-370059).
    // (Not of an InnoDB table: recreate + analyze, learned from the source.)
    f(1, |d| format!("OPTIMIZE TABLE {}", d.pick(&["m1", "m2"]))),
    // FLUSH, FTWRL, BACKUP STAGE, BACKUP LOCK (sql/backup.cc).
    f(1, |_| "FLUSH TABLES".into()),
    f(1, |d| format!("FLUSH TABLES {}", d.t1)),
    f(3, |_| "FLUSH TABLES WITH READ LOCK".into()),
    f(1, |d| format!("FLUSH TABLES {} WITH READ LOCK", d.t1)),
    f(1, |d| format!("FLUSH TABLES {} FOR EXPORT", d.t1)),
    f(2, |_| "BACKUP STAGE START".into()),
    f(1, |_| "BACKUP STAGE FLUSH".into()),
    f(1, |_| "BACKUP STAGE BLOCK_DDL".into()),
    f(1, |_| "BACKUP STAGE BLOCK_COMMIT".into()),
    f(2, |_| "BACKUP STAGE END".into()),
    f(1, |d| format!("BACKUP LOCK {}", d.t1)),
    f(1, |_| "BACKUP UNLOCK".into()),
    // User locks (sql/item_func.cc).
    f(3, |d| {
        format!(
            "SELECT GET_LOCK('{}', {})",
            d.lock,
            d.pick(&["0", "1", "100000"])
        )
    }),
    f(2, |d| format!("SELECT RELEASE_LOCK('{}')", d.lock)),
    f(1, |_| "SELECT RELEASE_ALL_LOCKS()".into()),
    f(1, |d| {
        format!(
            "SELECT {}('{}')",
            d.pick(&["IS_USED_LOCK", "IS_FREE_LOCK"]),
            d.lock
        )
    }),
    // HANDLER.
    f(2, |d| format!("HANDLER {} OPEN", d.t1)),
    f(1, |d| {
        format!("HANDLER {} READ {}", d.t1, d.pick(&["FIRST", "NEXT"]))
    }),
    f(1, |d| format!("HANDLER {} CLOSE", d.t1)),
    // Transactions.
    f(4, |_| "BEGIN".into()),
    f(1, |_| "START TRANSACTION WITH CONSISTENT SNAPSHOT".into()),
    f(4, |_| "COMMIT".into()),
    f(1, |_| "ROLLBACK".into()),
    // Chaining (model/chain.rs); RELEASE ends the session and is not drawn.
    f(1, |d| {
        format!(
            "{} AND {}CHAIN",
            d.pick(&["COMMIT", "ROLLBACK", "COMMIT WORK"]),
            d.pick(&["", "NO "])
        )
    }),
    f(1, |d| {
        format!(
            "SET completion_type = {}",
            d.pick(&["0", "1", "CHAIN", "NO_CHAIN"])
        )
    }),
    f(1, |_| format!("SET lock_wait_timeout = {TIMEOUT_S}")),
    f(1, |d| format!("SET autocommit = {}", d.pick(&["0", "1"]))),
    f(1, |d| {
        format!(
            "SET TRANSACTION ISOLATION LEVEL {}",
            d.pick(&["READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE"])
        )
    }),
    // Schemas.
    f(1, |_| "CREATE DATABASE IF NOT EXISTS db1".into()),
    f(1, |_| "DROP DATABASE IF EXISTS db1".into()),
    f(1, |d| {
        format!(
            "ALTER DATABASE {} CHARACTER SET utf8mb4",
            d.pick(&["test", "db1"])
        )
    }),
    // Triggers: a body with no table, and pt-osc's body that writes a table (CREATE TRIGGER
    // is played; statements on a table with such a trigger are refused until its
    // prelocking is modelled).
    f(1, |d| {
        format!(
            "CREATE TRIGGER tr1 BEFORE INSERT ON {} FOR EACH ROW SET @x=1",
            d.t1
        )
    }),
    f(1, |_| "DROP TRIGGER IF EXISTS tr1".into()),
    // pt-osc's trigger, on a new table only (the fixture tables stay playable).
    f(1, |d| {
        format!(
            "CREATE TRIGGER tr2 AFTER INSERT ON {} FOR EACH ROW REPLACE INTO {} (a, b) \
             VALUES (NEW.a, 1)",
            d.n, d.t1
        )
    }),
    f(1, |_| "DROP TRIGGER IF EXISTS tr2".into()),
    // Views (classify/views.rs).
    f(1, |d| format!("CREATE VIEW v1 AS SELECT * FROM {}", d.t1)),
    f(1, |_| "DROP VIEW IF EXISTS v1".into()),
    f(2, |_| "SELECT * FROM v1".into()),
    f(1, |d| {
        format!("INSERT INTO v1 (b) VALUES ({})", d.num(0, 9))
    }),
    f(1, |_| "UPDATE v1 SET b=b+1 WHERE a=2".into()),
    f(1, |_| "DELETE FROM v1 WHERE a=3".into()),
    f(1, |d| {
        format!("CREATE OR REPLACE VIEW v1 AS SELECT * FROM {}", d.t1)
    }),
    f(1, |d| {
        format!(
            "{} VIEW v2 AS SELECT {1}.a FROM {1}, {2}",
            d.pick(&["CREATE", "ALTER"]),
            d.t1,
            d.t2
        )
    }),
    f(1, |_| "DROP VIEW IF EXISTS v1, v2".into()),
    f(1, |_| "SHOW CREATE VIEW v1".into()),
    // Foreign keys (classify/fk.rs): a child of a fixture table, then DML on both.
    f(1, |d| {
        format!(
        "CREATE TABLE {} (a INT PRIMARY KEY, b INT, FOREIGN KEY (b) REFERENCES {} (a) {}) ENGINE=InnoDB",
        d.n, d.t1, d.pick(&["", "ON DELETE CASCADE", "ON UPDATE CASCADE"]))
    }),
    // (IGNORE and the column `a` alone: a duplicate key or a column count is data, no MDL
    // difference; seeds 340363, 340495, 340514.)
    f(1, |d| {
        format!("INSERT IGNORE INTO {} (a) VALUES ({})", d.n, d.num(1, 9))
    }),
    f(1, |d| {
        format!("UPDATE {} SET a=a+10 WHERE a={}", d.t1, d.num(1, 5))
    }),
    f(1, |d| {
        format!("SET foreign_key_checks = {}", d.pick(&["0", "1"]))
    }),
    // Savepoints (model::savepoint), SHOW / DESCRIBE / EXPLAIN / information_schema
    // (classify/session.rs).
    f(1, |_| "SAVEPOINT sp1".into()),
    f(1, |_| "ROLLBACK TO SAVEPOINT sp1".into()),
    f(1, |_| "RELEASE SAVEPOINT sp1".into()),
    f(1, |d| format!("SHOW CREATE TABLE {}", d.t1)),
    f(1, |d| format!("EXPLAIN SELECT * FROM {}", d.t1)),
    f(1, |d| {
        format!("{} {}", d.pick(&["DESCRIBE", "EXPLAIN"]), d.t1)
    }),
    f(1, |d| {
        format!("SHOW {} {}", d.pick(&["COLUMNS FROM", "INDEX FROM"]), d.t1)
    }),
    f(1, |d| {
        d.pick(&[
            "SHOW TABLES",
            "SHOW OPEN TABLES",
            "SHOW PROCESSLIST",
            "SHOW TRIGGERS",
        ])
        .into()
    }),
    f(1, |d| {
        format!(
            "SELECT * FROM information_schema.{} WHERE table_name='{}'",
            d.pick(&["tables", "columns"]),
            d.t1
        )
    }),
    f(1, |_| {
        "SELECT * FROM information_schema.metadata_lock_info".into()
    }),
    // Temporary tables (model::temp).
    f(1, |d| {
        format!("CREATE TEMPORARY TABLE {} LIKE {}", d.n, d.t1)
    }),
    f(1, |d| format!("DROP TEMPORARY TABLE IF EXISTS {}", d.n)),
    f(1, |d| {
        format!("INSERT IGNORE INTO {} (a) SELECT a FROM {}", d.n, d.t1)
    }),
    f(1, |d| {
        format!("SELECT * FROM {0} JOIN {1} ON {0}.a={1}.a", d.n, d.t1)
    }),
    f(1, |d| {
        format!("ALTER TABLE {} ADD COLUMN c{} INT", d.n, d.fresh())
    }),
    // SET STATEMENT, prepared statements (model::prepared).
    f(1, |d| {
        format!(
            "SET STATEMENT lock_wait_timeout={TIMEOUT_S} FOR SELECT * FROM {}",
            d.t1
        )
    }),
    f(1, |d| {
        format!("EXECUTE IMMEDIATE 'INSERT INTO {} (b) VALUES (7)'", d.t1)
    }),
    // PREPARE: not of ALTER (the server prepares it with no table, ours fails it with 1146
    // when the table is gone: open/seed-340015), not under LOCK TABLES (the server checks
    // the statement's tables are locked, 1100, ours does not: open/seed-340274).
    f(1, |d| {
        if d.locked {
            return "PREPARE st1 FROM 'SELECT 1'".into();
        }
        let text = match d.num(0, 2) {
            0 => format!("SELECT * FROM {}", d.t1),
            _ => format!("UPDATE {} SET b=b+1 WHERE a=1", d.t1),
        };
        format!("PREPARE st1 FROM '{text}'")
    }),
    f(1, |_| "EXECUTE st1".into()),
    f(1, |_| "DEALLOCATE PREPARE st1".into()),
    // KILL QUERY as SQL (model::prepared names the session).
    f(1, |d| match &d.other {
        Some(o) => format!("KILL QUERY {o}"),
        // (Refused by the model: drawn again.)
        None => "KILL QUERY nobody".into(),
    }),
    // ALTER TABLE as the server decides (alter_algorithm.rs), partition maintenance of a
    // table that is not partitioned (classify/partition.rs).
    f(1, |d| {
        format!(
            "ALTER TABLE {} {}",
            d.t1,
            d.pick(&[
                "COALESCE PARTITION 2",
                "TRUNCATE PARTITION p1",
                "ANALYZE PARTITION p1",
                "OPTIMIZE PARTITION p1",
                "REMOVE PARTITIONING",
                "REBUILD PARTITION p0",
                "CHECK PARTITION p1",
                "DROP PARTITION p1"
            ])
        )
    }),
    // (Not DROP COLUMN a: the fixture's later statements name `a`, and the server's 1054
    // for them is no MDL difference; seeds 290115, 290189. A new column has a fresh name:
    // the server's 1060 for a second `c` is none either; seed 350042.)
    f(1, |d| {
        let c = format!("ADD COLUMN c{} INT", d.fresh());
        let op = d.pick(&[
            "PACK_KEYS=1",
            "MAX_ROWS=100",
            "",
            "COMMENT 'x'",
            "AUTO_INCREMENT=100",
            "ALTER COLUMN b SET DEFAULT 3",
        ]);
        format!(
            "ALTER TABLE {} {}",
            d.t1,
            if op.is_empty() { &c } else { op }
        )
    }),
    f(1, |d| {
        let i = d.fresh();
        let t = d.t1;
        let algorithm = d.pick(&["", ", ALGORITHM=INPLACE", ", ALGORITHM=COPY"]);
        format!("ALTER TABLE {t} ADD INDEX ia{i} (b){algorithm}")
    }),
    f(1, |d| {
        let op = match d.num(0, 4) {
            0 => format!("ADD COLUMN c{} INT, ALGORITHM=INSTANT", d.fresh()),
            1 => "MODIFY b BIGINT, ALGORITHM=COPY".into(),
            2 => "ENGINE=InnoDB".into(),
            _ => "FORCE".into(),
        };
        format!("ALTER TABLE {} {op}", d.t1)
    }),
    // XA (model::xa).
    f(1, |d| format!("XA START {}", d.xid)),
    f(1, |d| format!("XA END {}", d.xid)),
    f(1, |d| format!("XA PREPARE {}", d.xid)),
    f(1, |d| {
        format!("XA COMMIT {}{}", d.xid, d.pick(&["", " ONE PHASE"]))
    }),
    f(1, |d| format!("XA ROLLBACK {}", d.xid)),
    f(1, |_| "XA RECOVER".into()),
    // LOAD DATA, CHECKSUM / CACHE INDEX / LOAD INDEX (classify/misc.rs).
    f(1, |d| {
        format!(
            "LOAD DATA INFILE '/etc/passwd' {}INTO TABLE {} LINES STARTING BY '#mdl#'",
            d.pick(&["", "IGNORE "]),
            d.t1
        )
    }),
    f(1, |d| match d.num(0, 3) {
        0 => format!("CHECKSUM TABLE {}", d.t1),
        1 => format!("CACHE INDEX {} IN default", d.t1),
        _ => format!("LOAD INDEX INTO CACHE {}", d.t1),
    }),
    // Accounts (accounts.rs).
    f(1, |_| "CREATE USER IF NOT EXISTS u1".into()),
    f(1, |_| "DROP USER IF EXISTS u1".into()),
    f(1, |d| {
        d.pick(&["GRANT SELECT ON test.* TO u1", "GRANT ALL ON *.* TO u1"])
            .into()
    }),
    f(1, |_| "REVOKE ALL PRIVILEGES, GRANT OPTION FROM u1".into()),
    f(1, |d| d.pick(&["FLUSH PRIVILEGES", "FLUSH STATUS"]).into()),
    // SET PASSWORD (set_password.rs: found/seed-330032).
    f(1, |_| "SET PASSWORD FOR u1 = PASSWORD('x')".into()),
    // Stored routines and events (classify/routine.rs): their DDL, CALL (no lock on its
    // procedure; of none: ER_SP_DOES_NOT_EXIST), SELECT f1() of a body with no table.
    f(1, |_| "CREATE PROCEDURE p1() SET @x = 1".into()),
    f(1, |_| "DROP PROCEDURE IF EXISTS p1".into()),
    f(1, |_| "CALL p1()".into()),
    f(1, |_| "CREATE FUNCTION f1() RETURNS INT RETURN 1".into()),
    f(1, |_| "DROP FUNCTION IF EXISTS f1".into()),
    f(1, |d| {
        if d.f1 {
            "SELECT f1()"
        } else {
            "CREATE FUNCTION f1() RETURNS INT RETURN 1"
        }
        .into()
    }),
    f(1, |d| {
        d.pick(&[
            "CREATE EVENT e1 ON SCHEDULE EVERY 1 DAY DO SET @x = 1",
            "DROP EVENT IF EXISTS e1",
            "ALTER EVENT e1 DISABLE",
        ])
        .into()
    }),
    // Sequences (classify/sequence.rs, model/sequence.rs).
    f(1, |_| "CREATE SEQUENCE IF NOT EXISTS s1".into()),
    f(1, |d| {
        d.pick(&["SELECT NEXTVAL(s1)", "SELECT NEXT VALUE FOR s1"])
            .into()
    }),
    f(1, |d| {
        d.pick(&[
            "SELECT LASTVAL(s1)",
            "SELECT SETVAL(s1, 100)",
            "SELECT * FROM s1",
            // The Sequence engine's table (classify/sequence_engine.rs).
            "SELECT NEXTVAL(s1) FROM seq_1_to_3",
        ])
        .into()
    }),
    f(1, |d| {
        format!("INSERT INTO {} (b) VALUES (NEXT VALUE FOR s1)", d.t1)
    }),
    f(1, |d| {
        d.pick(&["ALTER SEQUENCE s1 RESTART", "ALTER SEQUENCE s1 CACHE 10"])
            .into()
    }),
    f(1, |d| {
        format!("LOCK TABLES s1 {}", d.pick(&["READ", "WRITE"]))
    }),
    // A whole row written: X on the sequence (classify/sequence_write.rs).
    f(1, |_| {
        "INSERT INTO s1 VALUES (1, 1, 10000, 1, 1, 1000, 0, 0)".into()
    }),
    f(1, |_| "DROP SEQUENCE IF EXISTS s1".into()),
    f(1, |_| "CREATE TEMPORARY SEQUENCE IF NOT EXISTS s2".into()),
    // This session's merges (issue 27): ALTER TABLE by the table's columns
    // (alter_columns.rs), LOCK= and engines (classify/engines.rs), partitions
    // (classify/partition.rs), function / trigger prelocking (classify/routine_prelock.rs),
    // SHOW CREATE of routines, admin options, PARTITION selection, FLUSH / RESET.
    f(1, |d| {
        let op = d.pick(&[
            "MODIFY b BIGINT",
            "MODIFY b INT NOT NULL",
            "CHANGE b b INT COMMENT 'x'",
            "DROP COLUMN IF EXISTS zz",
            "MODIFY zz INT",
            "CONVERT TO CHARACTER SET utf8mb4",
            "ORDER BY b",
        ]);
        format!("ALTER TABLE {} {op}", d.t1)
    }),
    f(1, |d| {
        let i = d.fresh();
        format!("ALTER TABLE {} ADD COLUMN IF NOT EXISTS c{i} INT", d.t1)
    }),
    // DROP INDEX, DISABLE / ENABLE KEYS (classify/drop_index.rs, alter_keys.rs).
    f(1, |d| match d.num(0, 3) {
        0 => format!("DROP INDEX IF EXISTS ib ON {}", d.t1),
        1 => format!("ALTER TABLE {} DROP INDEX IF EXISTS ib", d.t1),
        _ => format!(
            "ALTER TABLE {} {} KEYS",
            d.t1,
            d.pick(&["DISABLE", "ENABLE"])
        ),
    }),
    f(1, |d| {
        let lock = d.pick(&["NONE", "SHARED", "EXCLUSIVE"]);
        let algorithm = d.pick(&["COPY", "INPLACE"]);
        format!(
            "ALTER TABLE {} FORCE, ALGORITHM={algorithm}, LOCK={lock}",
            d.t1
        )
    }),
    f(1, |d| match d.num(0, 3) {
        0 => format!("CREATE OR REPLACE TABLE {} LIKE {}", d.n, d.t1),
        1 => format!("CREATE TABLE {} (a INT) ENGINE=ARCHIVE", d.n),
        _ => format!("ALTER TABLE {} RENAME TO t9", d.n),
    }),
    f(1, |d| {
        let op = d.pick(&[
            "PARTITION BY HASH(a) PARTITIONS 2",
            "REMOVE PARTITIONING",
            "TRUNCATE PARTITION ALL",
        ]);
        format!("ALTER TABLE {} {op}", d.n)
    }),
    f(1, |d| {
        format!(
            "ALTER TABLE {} EXCHANGE PARTITION p0 WITH TABLE {}",
            d.t1, d.n
        )
    }),
    f(1, |d| {
        format!(
            "CREATE FUNCTION f1() RETURNS INT RETURN (SELECT COUNT(*) FROM {})",
            d.t1
        )
    }),
    f(1, |d| match d.num(0, 2) {
        0 => format!("CREATE PROCEDURE p1() INSERT INTO {} (b) VALUES (1)", d.t1),
        _ => format!(
            "CREATE TRIGGER tr1 AFTER INSERT ON {} FOR EACH ROW INSERT INTO {} (b) VALUES (1)",
            d.t1, d.t2
        ),
    }),
    f(1, |_| "DROP TRIGGER IF EXISTS tr1".into()),
    f(1, |d| {
        d.pick(&[
            "SHOW CREATE PROCEDURE p1",
            "SHOW CREATE FUNCTION f1",
            "SHOW CREATE EVENT e1",
        ])
        .into()
    }),
    f(1, |d| match d.num(0, 4) {
        0 => format!("CHECK TABLE {} EXTENDED", d.t1),
        1 => format!("ANALYZE TABLE {} PERSISTENT FOR ALL", d.t1),
        2 => format!("SELECT * FROM {} PARTITION (p0)", d.t1),
        _ => d.pick(&["FLUSH THREADS", "RESET QUERY CACHE"]).into(),
    }),
    f(1, |d| {
        format!("CREATE OR REPLACE TEMPORARY TABLE {} LIKE {}", d.n, d.t1)
    }),
    // CALL of a procedure whose body runs several statements, each its own instruction
    // with its own locks (model/call.rs): its setup (CREATE [OR REPLACE] / DROP), the
    // CALL; the GET_LOCK in the second body stops a CALL between two instructions; the
    // third has a loop and an IF, the fourth a CONTINUE handler that takes an error
    // (model/call_flow.rs).
    f(1, |d| {
        let verb = d.pick(&["CREATE", "CREATE OR REPLACE"]);
        match d.num(0, 4) {
            2 => format!(
                "{verb} PROCEDURE p2() BEGIN DECLARE i INT DEFAULT 0; WHILE i < 2 DO \
                 SET i = i + 1; IF i = 2 THEN UPDATE {} SET b = i WHERE a = 1; ELSE \
                 SELECT GET_LOCK('{}', 1) INTO @r; END IF; END WHILE; END",
                d.t2, d.lock
            ),
            3 => format!(
                "{verb} PROCEDURE p2() BEGIN DECLARE CONTINUE HANDLER FOR SQLEXCEPTION \
                 SET @e = 1; UPDATE {} SET b = b + 1 WHERE a = 1; SELECT * FROM no_such; \
                 INSERT INTO {} (b) VALUES (1); END",
                d.t1, d.t2
            ),
            0 => format!(
                "{verb} PROCEDURE p2() BEGIN SELECT b INTO @x FROM {} WHERE a = 1; \
                 UPDATE {} SET b = b + 1 WHERE a = 1; END",
                d.t1, d.t2
            ),
            _ => format!(
                "{verb} PROCEDURE p2() BEGIN DECLARE v INT DEFAULT 0; SELECT b INTO v FROM {} \
                 WHERE a = 1; SELECT GET_LOCK('{}', 1) INTO @r; BEGIN INSERT INTO {} (b) \
                 VALUES (v); END; END",
                d.t1, d.lock, d.t2
            ),
        }
    }),
    f(2, |_| "CALL p2()".into()),
    f(1, |d| {
        d.pick(&[
            "DROP PROCEDURE IF EXISTS p2",
            "ALTER PROCEDURE p2 COMMENT 'x'",
        ])
        .into()
    }),
    // The corpus families no form above wrote (issue 27: every modelled family): the
    // statements' other spellings, SHOW and DO, USE, roles, ALTER USER / FUNCTION /
    // PROCEDURE. (OPTIMIZE: of a MyISAM table with the admin statements above.)
    f(1, |d| match d.num(0, 5) {
        0 => format!("LOCK TABLE {} {}", d.t1, d.mode()),
        1 => format!("FLUSH TABLE {}", d.t1),
        2 => format!("DROP TABLES IF EXISTS {}", d.n),
        3 => format!("RENAME TABLES {} TO {}", d.n, d.t1),
        _ => format!("DESC {}", d.t1),
    }),
    f(1, |d| {
        d.pick(&[
            "SHOW STATUS LIKE 'x'",
            "SHOW GLOBAL STATUS LIKE 'x'",
            "SHOW VARIABLES LIKE 'lock_wait_timeout'",
            "SHOW GRANTS",
            "SHOW WARNINGS",
            "SHOW DATABASES",
            "SHOW TABLE STATUS",
            "SHOW FULL TABLES",
            "SHOW ENGINE INNODB STATUS",
        ])
        .into()
    }),
    f(1, |d| {
        let t = d.t1;
        let shows = [
            format!("SHOW KEYS FROM {t}"),
            format!("SHOW INDEXES FROM {t}"),
            format!("SHOW FIELDS FROM {t}"),
            format!("SHOW FULL COLUMNS FROM {t}"),
        ];
        shows[d.num(0, 4) as usize].clone()
    }),
    f(1, |d| format!("DO {}", d.pick(&["1", "SLEEP(0)"]))),
    f(1, |_| "USE test".into()),
    f(1, |d| {
        d.pick(&[
            "CREATE ROLE IF NOT EXISTS r1",
            "DROP ROLE IF EXISTS r1",
            "ALTER USER u1 ACCOUNT LOCK",
            "ALTER USER IF EXISTS u1 PASSWORD EXPIRE",
        ])
        .into()
    }),
    f(1, |d| {
        d.pick(&[
            "ALTER FUNCTION f1 COMMENT 'x'",
            "ALTER PROCEDURE p1 COMMENT 'x'",
            "CREATE SCHEMA IF NOT EXISTS db1",
            "DROP SCHEMA IF EXISTS db1",
            "DROP PREPARE st1",
            "FLUSH LOGS",
            "FLUSH SSL",
            "FLUSH RELAY LOGS",
            "SHOW SLAVE STATUS",
            "STOP SLAVE",
        ])
        .into()
    }),
    // The corpus families still not drawn at 6c24b67 (issue 27; each tried on the server
    // beside FTWRL, BACKUP STAGE, LOCK TABLES, a transaction, XA and a HANDLER another
    // session waits for): CTEs, VALUES, statements that open no table (they keep the
    // session's HANDLERs: suite/handler-kept-no-open.mdl), RENAME USER, XA BEGIN,
    // CREATE / DROP SERVER (OR REPLACE / IF EXISTS only: a server outlives the scenario),
    // ALTER SCHEMA. (Not SHOW BINARY LOGS: 1381 without a binary log, modelled, drawn
    // nowhere else; not INSTALL / UNINSTALL PLUGIN, CHANGE MASTER, SHUTDOWN: server state.)
    f(1, |d| {
        let t = d.t1;
        let forms = [
            format!("WITH x AS (SELECT * FROM {t}) SELECT * FROM x"),
            format!(
                "WITH x AS (SELECT a FROM {t}) SELECT * FROM x JOIN {0} ON x.a={0}.a",
                d.t2
            ),
            "VALUES (1), (2)".to_owned(),
        ];
        forms[d.num(0, 3) as usize].clone()
    }),
    f(1, |d| {
        d.pick(&[
            "GET DIAGNOSTICS @n = NUMBER",
            "SHOW ERRORS",
            "SHOW PRIVILEGES",
            "SHOW PROFILES",
            "HELP 'x'",
            "SHOW CREATE DATABASE test",
            "SHOW BINLOG EVENTS",
            "PURGE BINARY LOGS TO 'x'",
            "SHOW MASTER STATUS",
        ])
        .into()
    }),
    f(1, |d| {
        d.pick(&[
            "SHOW SESSION STATUS LIKE 'x'",
            "SHOW PROCEDURE STATUS",
            "SHOW FUNCTION STATUS",
            "SHOW EVENTS",
            "SHOW COLLATION LIKE 'x'",
            "SHOW CHARACTER SET LIKE 'x'",
            "SHOW SCHEMAS",
            "ALTER SCHEMA test CHARACTER SET utf8mb4",
        ])
        .into()
    }),
    f(1, |d| {
        d.pick(&[
            "RENAME USER u1 TO u2",
            "RENAME USER u2 TO u1",
            "FLUSH HOSTS",
            "FLUSH USER_RESOURCES",
            "FLUSH CLIENT_STATISTICS",
            "CREATE OR REPLACE SERVER s1 FOREIGN DATA WRAPPER mysql OPTIONS (USER 'x')",
            "DROP SERVER IF EXISTS s1",
        ])
        .into()
    }),
    f(1, |d| format!("XA BEGIN {}", d.xid)),
    f(1, |d| {
        d.pick(&[
            "SHOW PROFILE",
            "FLUSH BINARY LOGS",
            "SIGNAL SQLSTATE '45000'",
            "RESIGNAL",
        ])
        .into()
    }),
];
