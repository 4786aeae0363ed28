//! The learned statement table (`models/conformance/statements.tsv`): statement kinds, the
//! fixture they are measured on, and the file format.
//!
//! Three kinds of rows, tab-separated:
//!
//! ```text
//! kind  NAME  IMPLICIT_COMMIT(yes|no)  SQL
//! op    NAME  SEQ  acquire|bulk|backoff|upgrade|release  NAMESPACE  KEY  TYPE  DURATION  EVIDENCE
//! rule  STATE  NAME  RESULT  ADDED  REMOVED
//! ```
//!
//! An `op` row's `KEY` is a template over the objects a statement names (bound by
//! [`crate::classify`]): `-` (BACKUP), `$db` (the schema of each table the statement
//! names), `$t` / `$t2` (its first / second table), `$n` / `$n2` (a new table name: CREATE
//! TABLE's, RENAME's targets), `$v` (a view), `$tr` (a trigger), `$s` (a schema named by
//! CREATE / DROP DATABASE), `$s.*` (every table of that schema), `$lock` (a user lock), or
//! a literal `db.name`. `bulk` ops are taken together by one `acquire_locks` call in key
//! order and given back by the `backoff` op that follows them (see [`crate::compose`]).
//!
//! A `rule` row says what the server answers when a session in `STATE` (its own LOCK
//! TABLES, FTWRL, BACKUP STAGE, HANDLER) runs kind `NAME`: `ok` or `E<code>`, and which of
//! the session's locks the statement added and removed (templates, `,`-separated, `-` for
//! none). See `mdl_conform::learn` for how both are measured.
//!
//! Kind names ending in `.myisam` are the same statement on MyISAM tables (`m1`, `m2`);
//! the model uses them for tables of that engine. Kinds marked `check` in [`KINDS`] (the
//! statements with several tables) are learned to check the composition rule
//! ([`crate::compose`]) against the server, not to be played.

use super::SqlError;
use mdl_core::{Duration, LockType};

/// A learned statement kind: its name, the SQL the learner and the matrix run, SQL another
/// connection runs first on the fresh fixture (`prep`: a view or trigger to drop), and
/// statements the same session runs first (`setup`: the earlier BACKUP stages, an open
/// HANDLER).
#[derive(Clone, Copy, Debug)]
pub struct KindDef {
    pub name: &'static str,
    pub sql: &'static str,
    pub prep: &'static [&'static str],
    pub setup: &'static [&'static str],
    /// A row of the statement compatibility matrix.
    pub matrix: bool,
    /// A statement with several tables, learned to check the composition rule.
    pub check: bool,
}

const fn k(name: &'static str, sql: &'static str) -> KindDef {
    KindDef {
        name,
        sql,
        prep: &[],
        setup: &[],
        matrix: true,
        check: false,
    }
}

const fn ks(name: &'static str, sql: &'static str, setup: &'static [&'static str]) -> KindDef {
    KindDef {
        name,
        sql,
        prep: &[],
        setup,
        matrix: true,
        check: false,
    }
}

const fn kp(name: &'static str, sql: &'static str, prep: &'static [&'static str]) -> KindDef {
    KindDef {
        name,
        sql,
        prep,
        setup: &[],
        matrix: true,
        check: false,
    }
}

/// A kind learned but not in the matrix (MyISAM variants, COMMIT of a writing
/// transaction).
const fn kx(name: &'static str, sql: &'static str, setup: &'static [&'static str]) -> KindDef {
    KindDef {
        name,
        sql,
        prep: &[],
        setup,
        matrix: false,
        check: false,
    }
}

/// A statement with several tables: learned to check [`crate::compose`], and a row and
/// column of the statement matrix.
const fn kc(name: &'static str, sql: &'static str) -> KindDef {
    KindDef {
        name,
        sql,
        prep: &[],
        setup: &[],
        matrix: true,
        check: true,
    }
}

/// A kind learned with a prep, not in the matrix (the sequence kinds).
const fn kq(name: &'static str, sql: &'static str, prep: &'static [&'static str]) -> KindDef {
    KindDef {
        name,
        sql,
        prep,
        setup: &[],
        matrix: false,
        check: false,
    }
}

/// The fixture's `t1` made a sequence.
const SEQ_T1: &[&str] = &["DROP TABLE t1", "CREATE SEQUENCE t1"];

const BACKUP_TO_FLUSH: &[&str] = &["BACKUP STAGE START"];
const BACKUP_TO_BLOCK_DDL: &[&str] = &["BACKUP STAGE START", "BACKUP STAGE FLUSH"];
const BACKUP_TO_BLOCK_COMMIT: &[&str] = &[
    "BACKUP STAGE START",
    "BACKUP STAGE FLUSH",
    "BACKUP STAGE BLOCK_DDL",
];
const BACKUP_TO_END: &[&str] = &[
    "BACKUP STAGE START",
    "BACKUP STAGE FLUSH",
    "BACKUP STAGE BLOCK_DDL",
    "BACKUP STAGE BLOCK_COMMIT",
];
const FK: &[&str] = &["CREATE TABLE t3 (a INT PRIMARY KEY, b INT, \
    FOREIGN KEY (b) REFERENCES t1 (a)) ENGINE=InnoDB"];
const FK_CASCADE: &[&str] = &["CREATE TABLE t3 (a INT PRIMARY KEY, b INT, \
    FOREIGN KEY (b) REFERENCES t1 (a) ON DELETE CASCADE ON UPDATE CASCADE) ENGINE=InnoDB"];
const FK_NONE: &[&str] = &["CREATE TABLE t3 (a INT PRIMARY KEY, b INT) ENGINE=InnoDB"];
const VIEW: &[&str] = &["CREATE VIEW v1 AS SELECT * FROM t1"];
const VIEW_TEMPTABLE: &[&str] = &["CREATE ALGORITHM=TEMPTABLE VIEW v1 AS SELECT * FROM t1"];

/// A kind with a preparation, learned but not in the matrix.
const fn kv(name: &'static str, sql: &'static str, prep: &'static [&'static str]) -> KindDef {
    KindDef {
        name,
        sql,
        prep,
        setup: &[],
        matrix: false,
        check: false,
    }
}

/// t1 partitioned (the prep of the `part_*` kinds).
const PARTITIONED: &[&str] = &["ALTER TABLE t1 PARTITION BY HASH(a) PARTITIONS 2"];

const TRIGGER: &str = "CREATE TRIGGER tr1 BEFORE INSERT ON t1 FOR EACH ROW SET @x=1";

const PROCEDURE: &str = "CREATE PROCEDURE p1() SET @x=1";
const FUNCTION: &str = "CREATE FUNCTION f1() RETURNS INT RETURN 1";
const EVENT: &str = "CREATE EVENT e1 ON SCHEDULE EVERY 1 DAY DO SET @x=1";

/// A routine kind learned on a routine (or event) the `prep` makes; not in the matrix.
const fn kr(name: &'static str, sql: &'static str, prep: &'static [&'static str]) -> KindDef {
    KindDef {
        name,
        sql,
        prep,
        setup: &[],
        matrix: false,
        check: false,
    }
}

pub const KINDS: &[KindDef] = &[
    // DML (open_tables: one table after the other).
    k("select", "SELECT * FROM t1"),
    k("select_for_update", "SELECT * FROM t1 WHERE a=3 FOR UPDATE"),
    k(
        "select_share",
        "SELECT * FROM t1 WHERE a=3 LOCK IN SHARE MODE",
    ),
    k("insert", "INSERT INTO t1 (b) VALUES (0)"),
    k("update", "UPDATE t1 SET b=b+1 WHERE a=1"),
    k("delete", "DELETE FROM t1 WHERE a=2"),
    // LOCK TABLES.
    k("lock_read", "LOCK TABLES t1 READ"),
    k("lock_read_local", "LOCK TABLES t1 READ LOCAL"),
    k("lock_write", "LOCK TABLES t1 WRITE"),
    k("lock_write_concurrent", "LOCK TABLES t1 WRITE CONCURRENT"),
    // DDL (lock_table_names: the table locks together, then BACKUP_DDL).
    k("alter_copy", "ALTER TABLE t1 FORCE, ALGORITHM=COPY"),
    k("alter_inplace", "ALTER TABLE t1 FORCE, ALGORITHM=INPLACE"),
    k(
        "alter_instant",
        "ALTER TABLE t1 ADD COLUMN c INT, ALGORITHM=INSTANT",
    ),
    k("create_index", "CREATE INDEX ib ON t1 (b)"),
    k("truncate", "TRUNCATE TABLE t1"),
    k("rename", "RENAME TABLE t1 TO t3"),
    k("drop", "DROP TABLE t1"),
    k("create_table", "CREATE TABLE t3 (a INT)"),
    k("create_like", "CREATE TABLE t3 LIKE t1"),
    k("create_select", "CREATE TABLE t3 AS SELECT * FROM t1"),
    k("analyze", "ANALYZE TABLE t1"),
    // OPTIMIZE of an InnoDB table is recreate + analyze: learned, not played.
    kx("optimize", "OPTIMIZE TABLE t1", &[]),
    k("check_table", "CHECK TABLE t1"),
    k("repair", "REPAIR TABLE t1"),
    k("create_db", "CREATE DATABASE db1"),
    kp(
        "drop_db",
        "DROP DATABASE db1",
        &["CREATE DATABASE db1", "CREATE TABLE db1.t1 (a INT)"],
    ),
    k("create_trigger", TRIGGER),
    kp("drop_trigger", "DROP TRIGGER tr1", &[TRIGGER]),
    k("create_view", "CREATE VIEW v1 AS SELECT * FROM t1"),
    kp(
        "drop_view",
        "DROP VIEW v1",
        &["CREATE VIEW v1 AS SELECT * FROM t1"],
    ),
    // Views (MariaDB sql/sql_view.cc): a view's own MDL, then its tables'
    // (`mysql_make_view` puts them after the view in the table list and gives a mergeable
    // view's tables the view's lock type); CREATE / ALTER of a view with no table;
    // CREATE OR REPLACE and ALTER of one that exists (`mysql_create_view`). Learned, not
    // in the matrix.
    kv("create_view_const", "CREATE VIEW v1 AS SELECT 1 AS a", &[]),
    kv(
        "create_or_replace_view",
        "CREATE OR REPLACE VIEW v1 AS SELECT * FROM t1",
        VIEW,
    ),
    kv("alter_view", "ALTER VIEW v1 AS SELECT * FROM t1", VIEW),
    kv("select_view", "SELECT * FROM v1", VIEW),
    kv("insert_view", "INSERT INTO v1 (b) VALUES (0)", VIEW),
    kv("update_view", "UPDATE v1 SET b=b+1 WHERE a=1", VIEW),
    kv("delete_view", "DELETE FROM v1 WHERE a=2", VIEW),
    kv("lock_read_view", "LOCK TABLES v1 READ", VIEW),
    kv("lock_write_view", "LOCK TABLES v1 WRITE", VIEW),
    kv("select_view_temptable", "SELECT * FROM v1", VIEW_TEMPTABLE),
    kv("show_create_view", "SHOW CREATE VIEW v1", VIEW),
    // Foreign keys (MariaDB sql/sql_base.cc: `DML_prelocking_strategy::handle_table`
    // prelocks the children of a parent opened for writing, `prepare_fk_prelocking_list`:
    // SR for RESTRICT / NO ACTION, SW for CASCADE / SET NULL of the statement's
    // operation). The child is t3 (`$n`), its parent t1. Learned, not in the matrix.
    kv("fk_insert_parent", "INSERT INTO t1 (b) VALUES (0)", FK),
    kv("fk_update_parent", "UPDATE t1 SET b=b+1 WHERE a=1", FK),
    kv("fk_delete_parent", "DELETE FROM t1 WHERE a=2", FK),
    kv(
        "fk_insert_parent_cascade",
        "INSERT INTO t1 (b) VALUES (0)",
        FK_CASCADE,
    ),
    kv(
        "fk_update_parent_cascade",
        "UPDATE t1 SET b=b+1 WHERE a=1",
        FK_CASCADE,
    ),
    kv(
        "fk_delete_parent_cascade",
        "DELETE FROM t1 WHERE a=2",
        FK_CASCADE,
    ),
    kv("fk_insert_child", "INSERT INTO t3 VALUES (1, 1)", FK),
    kv("fk_update_child", "UPDATE t3 SET b=2 WHERE a=1", FK),
    kv("fk_delete_child", "DELETE FROM t3 WHERE a=1", FK),
    kv("fk_drop_parent", "DROP TABLE t1", FK),
    kv(
        "fk_add_copy",
        "ALTER TABLE t3 ADD FOREIGN KEY (b) REFERENCES t1 (a), ALGORITHM=COPY",
        FK_NONE,
    ),
    k("flush_tables", "FLUSH TABLES"),
    k("flush_table", "FLUSH TABLES t1"),
    // Global and backup locks.
    k("ftwrl", "FLUSH TABLES WITH READ LOCK"),
    k("ftwrl_table", "FLUSH TABLES t1 WITH READ LOCK"),
    k("backup_start", "BACKUP STAGE START"),
    // BACKUP LOCK t (MariaDB's per-table backup lock, `backup_lock` in sql/backup.cc):
    // learned, not in the matrix.
    kx("table_backup_lock", "BACKUP LOCK t1", &[]),
    ks("backup_flush", "BACKUP STAGE FLUSH", BACKUP_TO_FLUSH),
    ks(
        "backup_block_ddl",
        "BACKUP STAGE BLOCK_DDL",
        BACKUP_TO_BLOCK_DDL,
    ),
    ks(
        "backup_block_commit",
        "BACKUP STAGE BLOCK_COMMIT",
        BACKUP_TO_BLOCK_COMMIT,
    ),
    ks("backup_end", "BACKUP STAGE END", BACKUP_TO_END),
    // User locks and HANDLER.
    k("get_lock", "SELECT GET_LOCK('u1', 100000)"),
    ks(
        "release_all_locks",
        "SELECT RELEASE_ALL_LOCKS()",
        &["SELECT GET_LOCK('u1', 0)"],
    ),
    k("handler_open", "HANDLER t1 OPEN"),
    ks(
        "handler_read",
        "HANDLER t1 READ FIRST",
        &["HANDLER t1 OPEN"],
    ),
    // What COMMIT of a transaction that wrote requests.
    kx(
        "commit_write",
        "COMMIT",
        &["BEGIN", "INSERT INTO t1 (b) VALUES (0)"],
    ),
    // Read-only metadata (sql_show.cc): SHOW CREATE TABLE opens its table with
    // MDL_SHARED_HIGH_PRIO and gives it back at its end (`mysqld_show_create`,
    // `rollback_to_savepoint`); SHOW COLUMNS / DESCRIBE read information_schema.COLUMNS
    // (`get_all_tables` → `fill_schema_table_by_open`). Learned, not in the matrix.
    kx("show_create", "SHOW CREATE TABLE t1", &[]),
    kx("show_columns", "SHOW COLUMNS FROM t1", &[]),
    // Accounts (sql_acl.cc: `mysql_create_user`, `mysql_grant`, ... open the grant tables
    // for writing with `open_grant_tables`; CF_AUTO_COMMIT_TRANS): GRANT stands for
    // every accounts statement. Learned, not in the matrix.
    KindDef {
        name: "account",
        sql: "GRANT SELECT ON test.* TO u1",
        prep: &["CREATE USER IF NOT EXISTS u1"],
        setup: &[],
        matrix: false,
        check: false,
    },
    // INSTALL / UNINSTALL PLUGIN | SONAME (sql/sql_plugin.cc: `mysql_install_plugin`,
    // `mysql_uninstall_plugin` open mysql.plugin with `open_ltable(TL_WRITE)` before they
    // load or find the plugin): learned on forms that fail after that open (1126, 1305),
    // whose locks are those of the forms that succeed (classify/plugin.rs).
    kx(
        "install_plugin",
        "INSTALL PLUGIN example SONAME 'ha_example'",
        &[],
    ),
    kx("uninstall_plugin", "UNINSTALL PLUGIN example", &[]),
    // CREATE OR REPLACE TABLE of a table that exists (`mysql_create_table_no_lock` with
    // `lex->create_info.or_replace()`: the old table dropped under its X), ALTER DATABASE
    // (`mysql_alter_db`: BACKUP_DDL, then the schema's X). Learned, not in the matrix.
    kx(
        "create_or_replace",
        "CREATE OR REPLACE TABLE t1 (a INT)",
        &[],
    ),
    // CREATE OR REPLACE TABLE ... LIKE / SELECT of a table that exists
    // (`mysql_create_like_table`, `select_create::create_table_from_items`, sql/sql_table.cc
    // and sql/sql_insert.cc: the old table dropped under its X, then the source read).
    // ALTER TABLE ... LOCK=NONE | SHARED | EXCLUSIVE (`Alter_info::requested_lock`:
    // mysql_alter_table and mysql_inplace_alter_table, sql/sql_table.cc; COPY with
    // LOCK=NONE is ER_ALTER_OPERATION_NOT_SUPPORTED_REASON, 1846). The others were
    // measured equal to the rows without LOCK= (COPY with SHARED, INPLACE with NONE,
    // INSTANT with any): `alter_algorithm::lock_row`. Learned, not in the matrix.
    kx(
        "alter_copy_lock_none",
        "ALTER TABLE t1 FORCE, ALGORITHM=COPY, LOCK=NONE",
        &[],
    ),
    kx(
        "alter_copy_lock_exclusive",
        "ALTER TABLE t1 FORCE, ALGORITHM=COPY, LOCK=EXCLUSIVE",
        &[],
    ),
    kx(
        "alter_inplace_lock_shared",
        "ALTER TABLE t1 FORCE, ALGORITHM=INPLACE, LOCK=SHARED",
        &[],
    ),
    kx(
        "alter_inplace_lock_exclusive",
        "ALTER TABLE t1 FORCE, ALGORITHM=INPLACE, LOCK=EXCLUSIVE",
        &[],
    ),
    kx(
        "alter_copy_lock_none.myisam",
        "ALTER TABLE m1 FORCE, ALGORITHM=COPY, LOCK=NONE",
        &[],
    ),
    kx(
        "alter_copy_lock_exclusive.myisam",
        "ALTER TABLE m1 FORCE, ALGORITHM=COPY, LOCK=EXCLUSIVE",
        &[],
    ),
    // ENGINE= an engine the server does not load (ER_UNKNOWN_STORAGE_ENGINE, 1286):
    // after the implicit commit, before any lock (`classify/engines.rs`).
    kx(
        "create_unknown_engine",
        "CREATE TABLE t3 (a INT) ENGINE=ARCHIVE",
        &[],
    ),
    kx("alter_unknown_engine", "ALTER TABLE t1 ENGINE=ARCHIVE", &[]),
    // ALTER TABLE t RENAME [TO|AS] n alone: mysql_alter_table's simple rename (sql/sql_table.cc,
    // `simple_rename_or_index_change`).
    kx("alter_rename", "ALTER TABLE t1 RENAME TO t3", &[]),
    // (classify/alter_keys.rs) DISABLE / ENABLE KEYS alone: simple_rename_or_index_change;
    // RENAME TO with other operations: the algorithm's ALTER with the new name's X.
    kx("alter_keys", "ALTER TABLE t1 DISABLE KEYS", &[]),
    kx("alter_keys.myisam", "ALTER TABLE m1 ENABLE KEYS", &[]),
    kx(
        "alter_copy_rename",
        "ALTER TABLE t1 FORCE, RENAME TO t3, ALGORITHM=COPY",
        &[],
    ),
    kx(
        "alter_inplace_rename",
        "ALTER TABLE t1 FORCE, RENAME TO t3, ALGORITHM=INPLACE",
        &[],
    ),
    kx(
        "alter_instant_rename",
        "ALTER TABLE t1 ADD COLUMN c INT, RENAME TO t3, ALGORITHM=INSTANT",
        &[],
    ),
    kx(
        "create_or_replace_like",
        "CREATE OR REPLACE TABLE t1 LIKE t2",
        &[],
    ),
    kx(
        "create_or_replace_select",
        "CREATE OR REPLACE TABLE t1 AS SELECT * FROM t2",
        &[],
    ),
    KindDef {
        name: "alter_db",
        sql: "ALTER DATABASE db1 CHARACTER SET latin1",
        prep: &["CREATE DATABASE db1"],
        setup: &[],
        matrix: false,
        check: false,
    },
    // Statements of their own families (`classify/misc.rs`), learned, not in the
    // matrix: CACHE INDEX / LOAD INDEX INTO CACHE and CHECKSUM TABLE (sql/sql_admin.cc:
    // `mysql_assign_to_keycache`, `mysql_preload_keys` through `mysql_admin_table`;
    // sql/sql_table.cc: `mysql_checksum_table`), FLUSH TABLES ... FOR EXPORT
    // (sql/sql_reload.cc: `flush_tables_with_read_lock` with `lex->type &
    // REFRESH_FOR_EXPORT`), LOAD DATA (sql/sql_load.cc: `mysql_load`, DML).
    kx("cache_index", "CACHE INDEX t1 IN default", &[]),
    kx("load_index", "LOAD INDEX INTO CACHE t1", &[]),
    kx("checksum", "CHECKSUM TABLE t1", &[]),
    kx("flush_export", "FLUSH TABLES t1 FOR EXPORT", &[]),
    kx(
        "load_data",
        "LOAD DATA INFILE '/etc/passwd' INTO TABLE t1 LINES STARTING BY '#mdl#'",
        &[],
    ),
    // Checks the composition of CHECKSUM's per-table rows (not in the matrix).
    KindDef {
        name: "checksum_multi",
        sql: "CHECKSUM TABLE t1, t2",
        prep: &[],
        setup: &[],
        matrix: false,
        check: true,
    },
    // SET GLOBAL (sql_parse.cc, SQLCOM_SET_OPTION: `sql_set_variables`; the implicit
    // commit of CF_AUTO_COMMIT_TRANS is skipped unless autocommit is set,
    // `stmt_causes_implicit_commit`): the global value it writes is the default one, so
    // that learning changes nothing. FLUSH of no table (sql_reload.cc,
    // `reload_acl_and_cache`).
    kx("set_global", "SET GLOBAL concurrent_insert = DEFAULT", &[]),
    kx("flush_privileges", "FLUSH PRIVILEGES", &[]),
    kx("flush_status", "FLUSH STATUS", &[]),
    kx("flush_logs", "FLUSH LOGS", &[]),
    // Stored routines and events (`classify/routine.rs`): routine DDL takes the
    // routine's X through `lock_object_name` (sql/sp.cc, `Sp_handler::sp_create_routine`,
    // `sp_drop_routine`, `sp_update_routine`); events through `lock_object_name` too
    // (sql/events.cc, `Events::create_event`, `drop_event`). Learned, not in the matrix.
    kx("create_procedure", "CREATE PROCEDURE p1() SET @x=1", &[]),
    kr("drop_procedure", "DROP PROCEDURE p1", &[PROCEDURE]),
    kr(
        "alter_procedure",
        "ALTER PROCEDURE p1 COMMENT 'c'",
        &[PROCEDURE],
    ),
    kx(
        "create_function",
        "CREATE FUNCTION f1() RETURNS INT RETURN 1",
        &[],
    ),
    kr("drop_function", "DROP FUNCTION f1", &[FUNCTION]),
    kr(
        "alter_function",
        "ALTER FUNCTION f1 COMMENT 'c'",
        &[FUNCTION],
    ),
    kx(
        "create_event",
        "CREATE EVENT e1 ON SCHEDULE EVERY 1 DAY DO SET @x=1",
        &[],
    ),
    kr("drop_event", "DROP EVENT e1", &[EVENT]),
    kr("alter_event", "ALTER EVENT e1 COMMENT 'c'", &[EVENT]),
    kr("select_function", "SELECT f1()", &[FUNCTION]),
    // Sequences (sql/sql_sequence.cc; `t1` made a sequence by the prep). Learned, not in
    // the matrix: `classify/sequence.rs` plays them.
    kq("nextval", "SELECT NEXTVAL(t1)", SEQ_T1),
    kq("setval", "SELECT SETVAL(t1, 100)", SEQ_T1),
    kq("lastval", "SELECT LASTVAL(t1)", SEQ_T1),
    kq("lock_read_sequence", "LOCK TABLES t1 READ", SEQ_T1),
    kq("lock_write_sequence", "LOCK TABLES t1 WRITE", SEQ_T1),
    kq("create_sequence", "CREATE SEQUENCE t3", &[]),
    // CREATE TABLE with a column DEFAULT of a sequence function: the sequence opened too.
    kq(
        "create_table_nextval",
        "CREATE TABLE t3 (a INT DEFAULT NEXTVAL(t1))",
        SEQ_T1,
    ),
    kq(
        "create_table_lastval",
        "CREATE TABLE t3 (a INT DEFAULT LASTVAL(t1))",
        SEQ_T1,
    ),
    kq(
        "create_or_replace_sequence",
        "CREATE OR REPLACE SEQUENCE t1",
        SEQ_T1,
    ),
    kq(
        "create_or_replace_sequence_table",
        "CREATE OR REPLACE SEQUENCE t1",
        &[],
    ),
    kq("drop_sequence", "DROP SEQUENCE t1", SEQ_T1),
    kq("alter_sequence", "ALTER SEQUENCE t1 RESTART 5", SEQ_T1),
    // The same statements on MyISAM tables.
    kx("select.myisam", "SELECT * FROM m1", &[]),
    kx(
        "select_for_update.myisam",
        "SELECT * FROM m1 WHERE a=3 FOR UPDATE",
        &[],
    ),
    kx(
        "select_share.myisam",
        "SELECT * FROM m1 WHERE a=3 LOCK IN SHARE MODE",
        &[],
    ),
    kx("insert.myisam", "INSERT INTO m1 (b) VALUES (0)", &[]),
    kx("update.myisam", "UPDATE m1 SET b=b+1 WHERE a=1", &[]),
    kx("delete.myisam", "DELETE FROM m1 WHERE a=2", &[]),
    kx("lock_read.myisam", "LOCK TABLES m1 READ", &[]),
    kx("lock_read_local.myisam", "LOCK TABLES m1 READ LOCAL", &[]),
    kx("lock_write.myisam", "LOCK TABLES m1 WRITE", &[]),
    kx(
        "lock_write_concurrent.myisam",
        "LOCK TABLES m1 WRITE CONCURRENT",
        &[],
    ),
    kx(
        "alter_copy.myisam",
        "ALTER TABLE m1 FORCE, ALGORITHM=COPY",
        &[],
    ),
    kx("truncate.myisam", "TRUNCATE TABLE m1", &[]),
    kx("rename.myisam", "RENAME TABLE m1 TO t3", &[]),
    kx("drop.myisam", "DROP TABLE m1", &[]),
    kx("analyze.myisam", "ANALYZE TABLE m1", &[]),
    kx("optimize.myisam", "OPTIMIZE TABLE m1", &[]),
    kx("check_table.myisam", "CHECK TABLE m1", &[]),
    kx("repair.myisam", "REPAIR TABLE m1", &[]),
    kx("handler_open.myisam", "HANDLER m1 OPEN", &[]),
    kx(
        "create_trigger.myisam",
        "CREATE TRIGGER tr1 BEFORE INSERT ON m1 FOR EACH ROW SET @x=1",
        &[],
    ),
    KindDef {
        name: "drop_trigger.myisam",
        sql: "DROP TRIGGER tr1",
        prep: &["CREATE TRIGGER tr1 BEFORE INSERT ON m1 FOR EACH ROW SET @x=1"],
        setup: &[],
        matrix: false,
        check: false,
    },
    kx("cache_index.myisam", "CACHE INDEX m1 IN default", &[]),
    kx("load_index.myisam", "LOAD INDEX INTO CACHE m1", &[]),
    kx("checksum.myisam", "CHECKSUM TABLE m1", &[]),
    kx("flush_export.myisam", "FLUSH TABLES m1 FOR EXPORT", &[]),
    kx(
        "load_data.myisam",
        "LOAD DATA INFILE '/etc/passwd' INTO TABLE m1 LINES STARTING BY '#mdl#'",
        &[],
    ),
    kx(
        "commit_write.myisam",
        "COMMIT",
        &["BEGIN", "INSERT INTO m1 (b) VALUES (0)"],
    ),
    // Partition maintenance of a table that is not partitioned: each path's locks up to
    // ER_PARTITION_MGMT_ON_NONPARTITIONED (classify/partition.rs).
    kx("nopart_alter", "ALTER TABLE t1 COALESCE PARTITION 2", &[]),
    kx(
        "nopart_truncate",
        "ALTER TABLE t1 TRUNCATE PARTITION p1",
        &[],
    ),
    kx("nopart_analyze", "ALTER TABLE t1 ANALYZE PARTITION p1", &[]),
    kx("nopart_check", "ALTER TABLE t1 CHECK PARTITION p1", &[]),
    kx(
        "nopart_optimize",
        "ALTER TABLE t1 OPTIMIZE PARTITION p1",
        &[],
    ),
    kx("nopart_repair", "ALTER TABLE t1 REPAIR PARTITION p1", &[]),
    // EXCHANGE PARTITION of a table that is not partitioned: both tables' locks
    // (Sql_cmd_alter_table_exchange_partition::exchange_partition, sql_partition_admin.cc),
    // then ER_PARTITION_MGMT_ON_NONPARTITIONED.
    kx(
        "nopart_exchange",
        "ALTER TABLE t1 EXCHANGE PARTITION p0 WITH TABLE t2",
        &[],
    ),
    // Maintenance of a partitioned table (t1 by HASH, 2 partitions) that names no
    // partition: REMOVE PARTITIONING (a copy back to one table), TRUNCATE / ANALYZE /
    // CHECK PARTITION ALL (classify/partition.rs).
    kv(
        "part_remove",
        "ALTER TABLE t1 REMOVE PARTITIONING",
        PARTITIONED,
    ),
    kv(
        "part_truncate",
        "ALTER TABLE t1 TRUNCATE PARTITION ALL",
        PARTITIONED,
    ),
    kv(
        "part_analyze",
        "ALTER TABLE t1 ANALYZE PARTITION ALL",
        PARTITIONED,
    ),
    kv(
        "part_check",
        "ALTER TABLE t1 CHECK PARTITION ALL",
        PARTITIONED,
    ),
    // ALTER TABLE ... PARTITION BY: a repartitioning copy (mysql_alter_table,
    // prep_alter_part_table then copy_data_between_tables, sql_table.cc).
    kx(
        "alter_partition_by",
        "ALTER TABLE t1 PARTITION BY HASH(a) PARTITIONS 2",
        &[],
    ),
    kx(
        "nopart_alter.myisam",
        "ALTER TABLE m1 COALESCE PARTITION 2",
        &[],
    ),
    kx(
        "nopart_truncate.myisam",
        "ALTER TABLE m1 TRUNCATE PARTITION p1",
        &[],
    ),
    kx(
        "nopart_analyze.myisam",
        "ALTER TABLE m1 ANALYZE PARTITION p1",
        &[],
    ),
    kx(
        "nopart_check.myisam",
        "ALTER TABLE m1 CHECK PARTITION p1",
        &[],
    ),
    // Several tables in one statement (and the same with the tables swapped: the order
    // of the locks follows the statement or the keys).
    kc("select_join", "SELECT * FROM t1 JOIN t2 ON t1.a=t2.a"),
    kc("select_join_rev", "SELECT * FROM t2 JOIN t1 ON t1.a=t2.a"),
    kc(
        "select_subquery",
        "SELECT * FROM t1 WHERE a IN (SELECT a FROM t2)",
    ),
    kc("insert_select", "INSERT INTO t1 (b) SELECT b FROM t2"),
    kc("insert_select_rev", "INSERT INTO t2 (b) SELECT b FROM t1"),
    kc(
        "update_multi",
        "UPDATE t1, t2 SET t1.b=t2.b WHERE t1.a=t2.a",
    ),
    kc("update_subquery", "UPDATE t1 SET b=(SELECT MAX(b) FROM t2)"),
    kc(
        "delete_multi",
        "DELETE t1 FROM t1 JOIN t2 ON t1.a=t2.a WHERE t1.a=2",
    ),
    kc("drop_multi", "DROP TABLE t1, t2"),
    kc("drop_multi_rev", "DROP TABLE t2, t1"),
    kc("rename_multi", "RENAME TABLE t1 TO t3, t2 TO t4"),
    kc("rename_multi_rev", "RENAME TABLE t2 TO t4, t1 TO t3"),
    kc("lock_mixed", "LOCK TABLES t1 READ, t2 WRITE"),
    kc("lock_mixed_rev", "LOCK TABLES t2 WRITE, t1 READ"),
    kc("lock_read_multi", "LOCK TABLES t1 READ, t2 READ"),
    kc("lock_write_multi_rev", "LOCK TABLES t2 WRITE, t1 WRITE"),
    kc("analyze_multi", "ANALYZE TABLE t1, t2"),
    kc("flush_table_multi", "FLUSH TABLES t1, t2"),
    kc("flush_table_multi_rev", "FLUSH TABLES t2, t1"),
    kc(
        "create_select_join",
        "CREATE TABLE t3 AS SELECT t1.a FROM t1 JOIN t2 ON t1.a=t2.a",
    ),
];

/// The kinds of the statement compatibility matrix.
pub fn matrix_kinds() -> impl Iterator<Item = &'static KindDef> {
    KINDS.iter().filter(|k| k.matrix)
}

pub fn kind_def(name: &str) -> Option<&'static KindDef> {
    KINDS.iter().find(|k| k.name == name)
}

/// The tables of the fixture and their engines, in schema `test`.
pub const FIXTURE_TABLES: &[(&str, &str)] = &[
    ("t0", "InnoDB"),
    ("t1", "InnoDB"),
    ("t2", "InnoDB"),
    ("m1", "MyISAM"),
    ("m2", "MyISAM"),
];

/// The fixture every learner probe, matrix cell and SQL scenario starts from. (A
/// scenario may leave a foreign key between fixture tables, t2 a child of t1: the DROP
/// runs without foreign key checks, which are on again after it.)
pub const FIXTURE: &str = "DROP DATABASE IF EXISTS db1; DROP VIEW IF EXISTS v1, v2; \
SET FOREIGN_KEY_CHECKS=0; DROP TABLE IF EXISTS t0, t1, t2, t3, t4, m1, m2; \
SET FOREIGN_KEY_CHECKS=1; \
CREATE TABLE t0 (a INT PRIMARY KEY) ENGINE=InnoDB; \
CREATE TABLE t1 (a INT AUTO_INCREMENT PRIMARY KEY, b INT) ENGINE=InnoDB; \
INSERT INTO t1 VALUES (1,1),(2,2),(3,3),(4,4); \
CREATE TABLE t2 LIKE t1; INSERT INTO t2 SELECT * FROM t1; \
CREATE TABLE m1 (a INT AUTO_INCREMENT PRIMARY KEY, b INT) ENGINE=MyISAM; \
INSERT INTO m1 VALUES (1,1),(2,2),(3,3),(4,4); \
CREATE TABLE m2 LIKE m1; INSERT INTO m2 SELECT * FROM m1";

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OpKind {
    /// Take the lock, waiting if needed.
    Acquire,
    /// One of a group taken by one `acquire_locks` call (in key order); the `backoff` op
    /// after the group gives the group back on a conflict.
    Bulk,
    /// Take the lock without waiting; on a conflict give back the `bulk` group before it,
    /// wait for this lock alone, give it back and start the group again (MariaDB's
    /// `lock_table_names`).
    Backoff,
    /// A later type on a key the statement (or the session) holds.
    Upgrade,
    Release,
}

impl OpKind {
    pub fn name(self) -> &'static str {
        match self {
            OpKind::Acquire => "acquire",
            OpKind::Bulk => "bulk",
            OpKind::Backoff => "backoff",
            OpKind::Upgrade => "upgrade",
            OpKind::Release => "release",
        }
    }
    fn parse(s: &str) -> Option<OpKind> {
        Some(match s {
            "acquire" => OpKind::Acquire,
            "bulk" => OpKind::Bulk,
            "backoff" => OpKind::Backoff,
            "upgrade" => OpKind::Upgrade,
            "release" => OpKind::Release,
            _ => return None,
        })
    }
}

/// One lock operation of a statement kind, with a key template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Op {
    pub op: OpKind,
    pub ns: String,
    pub key: String,
    pub ty: LockType,
    pub dur: Duration,
    pub evidence: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KindRow {
    pub name: String,
    pub implicit_commit: bool,
    pub sql: String,
    pub ops: Vec<Op>,
}

/// A lock of a session, as a template (`TABLE $t SR`), in a rule row.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct LockTemplate {
    pub ns: String,
    pub key: String,
    pub ty: LockType,
}

impl std::fmt::Display for LockTemplate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {} {}", self.ns, self.key, self.ty.abbrev())
    }
}

/// What the server answers when a session in a state runs a kind (see `mdl_conform::learn`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleRow {
    pub state: String,
    pub kind: String,
    /// `None`: the statement succeeds; `Some(code)`: it fails with that error.
    pub error: Option<u32>,
    pub added: Vec<LockTemplate>,
    pub removed: Vec<LockTemplate>,
}

/// The learned table.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Mapping {
    /// The header comment lines (server version, how to regenerate).
    pub header: Vec<String>,
    pub kinds: Vec<KindRow>,
    pub rules: Vec<RuleRow>,
}

pub const STATEMENTS_FILE: &str = "statements.tsv";

/// The MySQL 8.0 statement table, written from the server's source (not learned: no MySQL
/// server is compared); see its header.
pub const STATEMENTS_FILE_MYSQL80: &str = "statements-mysql80.tsv";

/// The header line that names a table's dialect (`# dialect mysql-8.0`); a table without
/// one is in the `mariadb` dialect (the learned table).
const DIALECT_LINE: &str = "dialect ";

/// The statement table of a built-in dialect (by its canonical name), if one is written.
pub fn statements_file(dialect: &str) -> Option<&'static str> {
    match dialect {
        "mariadb" => Some(STATEMENTS_FILE),
        "mysql-8.0" => Some(STATEMENTS_FILE_MYSQL80),
        _ => None,
    }
}

/// The dialect a table's text names in its header (see [`DIALECT_LINE`]).
fn dialect_of_text(text: &str) -> Result<(String, mdl_core::Dialect), String> {
    for l in text.lines() {
        let Some(c) = l.strip_prefix('#') else { break };
        if let Some(n) = c.trim().strip_prefix(DIALECT_LINE) {
            let n = n.trim();
            let d = mdl_core::Dialect::builtin(n)
                .ok_or_else(|| format!("unknown dialect `{n}` (a built-in dialect's name)"))?;
            return Ok((n.to_owned(), d));
        }
    }
    Ok(("mariadb".into(), mdl_core::Dialect::mariadb()))
}

/// The header line that names the server version a table was learned on.
const LEARNED_ON: &str = "Learned by `mdl conform --learn` on MariaDB ";

fn templates_text(v: &[LockTemplate]) -> String {
    if v.is_empty() {
        return "-".into();
    }
    v.iter()
        .map(|t| t.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

fn parse_templates(d: &mdl_core::Dialect, s: &str) -> Result<Vec<LockTemplate>, String> {
    if s == "-" {
        return Ok(Vec::new());
    }
    s.split(',')
        .map(|x| {
            let w: Vec<&str> = x.split(' ').collect();
            let [ns, key, ty] = w.as_slice() else {
                return Err(format!("expected `NAMESPACE KEY TYPE`, found `{x}`"));
            };
            let n = d
                .namespace_by_name(ns)
                .ok_or_else(|| format!("unknown namespace `{ns}`"))?;
            let ty = LockType::parse(ty).ok_or_else(|| format!("unknown lock type `{ty}`"))?;
            if !d.allows(n, ty) {
                return Err(format!("namespace {ns} does not take {ty}"));
            }
            Ok(LockTemplate {
                ns: (*ns).into(),
                key: (*key).into(),
                ty,
            })
        })
        .collect()
}

impl Mapping {
    pub fn kind(&self, name: &str) -> Option<&KindRow> {
        self.kinds.iter().find(|k| k.name == name)
    }

    pub fn rule(&self, state: &str, kind: &str) -> Option<&RuleRow> {
        self.rules
            .iter()
            .find(|r| r.state == state && r.kind == kind)
    }

    /// The server version the table was learned on (from its header).
    pub fn version(&self) -> Option<&str> {
        self.header
            .iter()
            .find_map(|h| h.strip_prefix(LEARNED_ON))
            .map(|v| v.trim_end_matches('.'))
    }

    /// The warning `mdl conform` gives when the running server is not the one the table
    /// was learned on (none when they match or the table names no version).
    pub fn version_warning(&self, running: &str) -> Option<String> {
        let learned = self.version()?;
        (learned != running).then(|| {
            format!(
                "the statement table was learned on MariaDB {learned}; this server is \
                 {running} (mdl conform --learn to learn it again)"
            )
        })
    }

    pub fn header_for(version: &str) -> Vec<String> {
        vec![
            format!("{LEARNED_ON}{version}."),
            "Regenerate: cargo run -p mdl --bin mdl -- conform --learn".into(),
            "Format: see models/sql/src/mapping.rs and models/conformance/README.md.".into(),
        ]
    }

    /// The dialect the table is written in (its `# dialect NAME` header line; `mariadb`
    /// when it has none).
    pub fn dialect_name(&self) -> &str {
        self.header
            .iter()
            .find_map(|h| h.strip_prefix(DIALECT_LINE))
            .map(str::trim)
            .unwrap_or("mariadb")
    }

    /// The dialect the table is written in, loaded.
    pub fn dialect(&self) -> mdl_core::Dialect {
        mdl_core::Dialect::builtin(self.dialect_name()).unwrap_or_else(mdl_core::Dialect::mariadb)
    }

    /// What the table is, for messages: `the learned MariaDB statement table` or `the MySQL
    /// 8.0 statement table (written from source)`.
    pub fn describe(&self) -> String {
        match self.dialect_name() {
            "mariadb" => "the learned MariaDB statement table (mdl conform --learn)".into(),
            "mysql-8.0" => format!(
                "the MySQL 8.0 statement table (models/conformance/{STATEMENTS_FILE_MYSQL80}, \
                 written from the server's source)"
            ),
            d => format!("the `{d}` statement table"),
        }
    }

    /// The error for a statement kind the table does not have.
    pub fn missing_kind(&self, kind: &str) -> String {
        format!("the statement kind `{kind}` is not in {}", self.describe())
    }

    /// The committed table of a built-in dialect (`mariadb`, `mysql-8.0`).
    pub fn load_for(dialect: &str) -> Result<Mapping, SqlError> {
        let f = statements_file(dialect).ok_or_else(|| {
            SqlError::Io(format!(
                "no statement table is written for dialect `{dialect}` (there are tables for \
                 `mariadb`, learned, and `mysql-8.0`, written from source)"
            ))
        })?;
        let p = super::data_dir().join(f);
        let text = std::fs::read_to_string(&p)
            .map_err(|e| SqlError::Io(format!("{}: {e}", p.display())))?;
        let m = Mapping::parse(&p.display().to_string(), &text)?;
        if m.dialect_name() != dialect {
            return Err(SqlError::Data {
                file: p.display().to_string(),
                line: 1,
                msg: format!(
                    "the table is in dialect `{}`, expected `{dialect}`",
                    m.dialect_name()
                ),
            });
        }
        Ok(m)
    }

    /// The committed table.
    pub fn load() -> Result<Mapping, SqlError> {
        let p = super::data_dir().join(STATEMENTS_FILE);
        let text = std::fs::read_to_string(&p)
            .map_err(|e| SqlError::Io(format!("{}: {e}", p.display())))?;
        Mapping::parse(&p.display().to_string(), &text)
    }

    pub fn parse(file: &str, text: &str) -> Result<Mapping, SqlError> {
        let mut m = Mapping::default();
        let err = |line: usize, msg: String| SqlError::Data {
            file: file.into(),
            line,
            msg,
        };
        let (_, d) = dialect_of_text(text).map_err(|e| err(1, e))?;
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            if let Some(c) = raw.strip_prefix('#') {
                let c2 = c.trim();
                if m.kinds.is_empty()
                    && !c2.starts_with("kind\t")
                    && !c2.starts_with("op\t")
                    && !c2.starts_with("rule\t")
                {
                    m.header.push(c.trim().to_owned());
                }
                continue;
            }
            if raw.trim().is_empty() {
                continue;
            }
            let f: Vec<&str> = raw.split('\t').collect();
            match f.as_slice() {
                ["kind", name, ic, sql] => {
                    if m.kind(name).is_some() {
                        return Err(err(line, format!("kind `{name}` twice")));
                    }
                    let implicit_commit = match *ic {
                        "yes" => true,
                        "no" => false,
                        x => return Err(err(line, format!("expected yes or no, not `{x}`"))),
                    };
                    m.kinds.push(KindRow {
                        name: (*name).into(),
                        implicit_commit,
                        sql: (*sql).into(),
                        ops: Vec::new(),
                    });
                }
                ["op", name, seq, op, ns, key, ty, dur, ev] => {
                    let k = m
                        .kinds
                        .iter_mut()
                        .find(|k| k.name == *name)
                        .ok_or_else(|| err(line, format!("op of unknown kind `{name}`")))?;
                    let seq: usize = seq
                        .parse()
                        .map_err(|_| err(line, format!("bad sequence number `{seq}`")))?;
                    if seq != k.ops.len() + 1 {
                        return Err(err(line, format!("expected op {}", k.ops.len() + 1)));
                    }
                    let op =
                        OpKind::parse(op).ok_or_else(|| err(line, format!("unknown op `{op}`")))?;
                    let n = d
                        .namespace_by_name(ns)
                        .ok_or_else(|| err(line, format!("unknown namespace `{ns}`")))?;
                    let ty = LockType::parse(ty)
                        .ok_or_else(|| err(line, format!("unknown lock type `{ty}`")))?;
                    if !d.allows(n, ty) {
                        return Err(err(line, format!("namespace {ns} does not take {ty}")));
                    }
                    let dur = Duration::parse(dur)
                        .ok_or_else(|| err(line, format!("unknown duration `{dur}`")))?;
                    k.ops.push(Op {
                        op,
                        ns: (*ns).into(),
                        key: (*key).into(),
                        ty,
                        dur,
                        evidence: (*ev).into(),
                    });
                }
                ["rule", state, kind, result, added, removed] => {
                    if m.kind(kind).is_none() {
                        return Err(err(line, format!("rule for unknown kind `{kind}`")));
                    }
                    if m.rule(state, kind).is_some() {
                        return Err(err(line, format!("rule `{state}` `{kind}` twice")));
                    }
                    let error = match *result {
                        "ok" => None,
                        r => Some(
                            r.strip_prefix('E')
                                .and_then(|c| c.parse().ok())
                                .ok_or_else(|| {
                                    err(line, format!("expected ok or E<code>, not `{r}`"))
                                })?,
                        ),
                    };
                    m.rules.push(RuleRow {
                        state: (*state).into(),
                        kind: (*kind).into(),
                        error,
                        added: parse_templates(&d, added).map_err(|e| err(line, e))?,
                        removed: parse_templates(&d, removed).map_err(|e| err(line, e))?,
                    });
                }
                _ => {
                    return Err(err(
                        line,
                        "expected a `kind`, an `op` or a `rule` row".into(),
                    ))
                }
            }
        }
        Ok(m)
    }

    pub fn to_text(&self) -> String {
        let mut s = String::new();
        for h in &self.header {
            s.push_str(&format!("# {h}\n"));
        }
        s.push_str("# kind\tNAME\tIMPLICIT_COMMIT\tSQL\n");
        s.push_str("# op\tNAME\tSEQ\tOP\tNAMESPACE\tKEY\tTYPE\tDURATION\tEVIDENCE\n");
        s.push_str("# rule\tSTATE\tNAME\tRESULT\tADDED\tREMOVED\n");
        for k in &self.kinds {
            s.push_str(&format!(
                "kind\t{}\t{}\t{}\n",
                k.name,
                if k.implicit_commit { "yes" } else { "no" },
                k.sql
            ));
            for (i, o) in k.ops.iter().enumerate() {
                s.push_str(&format!(
                    "op\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
                    k.name,
                    i + 1,
                    o.op.name(),
                    o.ns,
                    o.key,
                    o.ty.abbrev(),
                    o.dur.name(),
                    o.evidence
                ));
            }
        }
        for r in &self.rules {
            s.push_str(&format!(
                "rule\t{}\t{}\t{}\t{}\t{}\n",
                r.state,
                r.kind,
                r.error.map(|c| format!("E{c}")).unwrap_or("ok".into()),
                templates_text(&r.added),
                templates_text(&r.removed)
            ));
        }
        s
    }
}
