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
use crate::kind::{parse_row, Kind, RowVariant};
use mdl_core::{Duration, LockType};

/// A learned statement kind: its name, the SQL the learner and the matrix run, SQL another
/// connection runs first on the fresh fixture (`prep`: a view or trigger to drop), and
/// statements the same session runs first (`setup`: the earlier BACKUP stages, an open
/// HANDLER).
#[derive(Clone, Copy, Debug)]
pub struct KindDef {
    pub kind: Kind,
    /// The base row or its MyISAM variant (`select.myisam`).
    pub variant: RowVariant,
    pub sql: &'static str,
    pub prep: &'static [&'static str],
    pub setup: &'static [&'static str],
    /// A row of the statement compatibility matrix.
    pub matrix: bool,
    /// A statement with several tables, learned to check the composition rule.
    pub check: bool,
}

impl KindDef {
    /// The row's name in the table (`select`, `select.myisam`).
    pub const fn name(&self) -> &'static str {
        self.kind.row_name(self.variant)
    }
}

const fn k(kind: Kind, sql: &'static str) -> KindDef {
    KindDef {
        kind,
        variant: RowVariant::Base,
        sql,
        prep: &[],
        setup: &[],
        matrix: true,
        check: false,
    }
}

const fn ks(kind: Kind, sql: &'static str, setup: &'static [&'static str]) -> KindDef {
    KindDef {
        kind,
        variant: RowVariant::Base,
        sql,
        prep: &[],
        setup,
        matrix: true,
        check: false,
    }
}

const fn kp(kind: Kind, sql: &'static str, prep: &'static [&'static str]) -> KindDef {
    KindDef {
        kind,
        variant: RowVariant::Base,
        sql,
        prep,
        setup: &[],
        matrix: true,
        check: false,
    }
}

/// A kind learned but not in the matrix (MyISAM variants, COMMIT of a writing
/// transaction).
const fn kx(kind: Kind, sql: &'static str, setup: &'static [&'static str]) -> KindDef {
    KindDef {
        kind,
        variant: RowVariant::Base,
        sql,
        prep: &[],
        setup,
        matrix: false,
        check: false,
    }
}

/// A kind's MyISAM row (`select.myisam`), learned but not in the matrix.
const fn km(kind: Kind, sql: &'static str, setup: &'static [&'static str]) -> KindDef {
    KindDef {
        kind,
        variant: RowVariant::MyIsam,
        sql,
        prep: &[],
        setup,
        matrix: false,
        check: false,
    }
}

/// A statement with several tables: learned to check [`crate::compose`], and a row and
/// column of the statement matrix.
const fn kc(kind: Kind, sql: &'static str) -> KindDef {
    KindDef {
        kind,
        variant: RowVariant::Base,
        sql,
        prep: &[],
        setup: &[],
        matrix: true,
        check: true,
    }
}

/// A kind learned with a prep, not in the matrix (the sequence kinds).
const fn kq(kind: Kind, sql: &'static str, prep: &'static [&'static str]) -> KindDef {
    KindDef {
        kind,
        variant: RowVariant::Base,
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
const VIEW: &[&str] = &["CREATE VIEW v1 AS SELECT * FROM t1"];
const VIEW_TEMPTABLE: &[&str] = &["CREATE ALGORITHM=TEMPTABLE VIEW v1 AS SELECT * FROM t1"];

/// A kind with a preparation, learned but not in the matrix.
const fn kv(kind: Kind, sql: &'static str, prep: &'static [&'static str]) -> KindDef {
    KindDef {
        kind,
        variant: RowVariant::Base,
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
const fn kr(kind: Kind, sql: &'static str, prep: &'static [&'static str]) -> KindDef {
    KindDef {
        kind,
        variant: RowVariant::Base,
        sql,
        prep,
        setup: &[],
        matrix: false,
        check: false,
    }
}

pub const KINDS: &[KindDef] = &[
    // DML (open_tables: one table after the other).
    k(Kind::Select, "SELECT * FROM t1"),
    k(
        Kind::SelectForUpdate,
        "SELECT * FROM t1 WHERE a=3 FOR UPDATE",
    ),
    k(
        Kind::SelectShare,
        "SELECT * FROM t1 WHERE a=3 LOCK IN SHARE MODE",
    ),
    k(Kind::Insert, "INSERT INTO t1 (b) VALUES (0)"),
    k(Kind::Update, "UPDATE t1 SET b=b+1 WHERE a=1"),
    k(Kind::Delete, "DELETE FROM t1 WHERE a=2"),
    // LOCK TABLES.
    k(Kind::LockRead, "LOCK TABLES t1 READ"),
    k(Kind::LockReadLocal, "LOCK TABLES t1 READ LOCAL"),
    k(Kind::LockWrite, "LOCK TABLES t1 WRITE"),
    k(Kind::LockWriteConcurrent, "LOCK TABLES t1 WRITE CONCURRENT"),
    // DDL (lock_table_names: the table locks together, then BACKUP_DDL).
    k(Kind::AlterCopy, "ALTER TABLE t1 FORCE, ALGORITHM=COPY"),
    k(
        Kind::AlterInplace,
        "ALTER TABLE t1 FORCE, ALGORITHM=INPLACE",
    ),
    k(
        Kind::AlterInstant,
        "ALTER TABLE t1 ADD COLUMN c INT, ALGORITHM=INSTANT",
    ),
    k(Kind::CreateIndex, "CREATE INDEX ib ON t1 (b)"),
    k(Kind::Truncate, "TRUNCATE TABLE t1"),
    k(Kind::Rename, "RENAME TABLE t1 TO t3"),
    k(Kind::Drop, "DROP TABLE t1"),
    k(Kind::CreateTable, "CREATE TABLE t3 (a INT)"),
    k(Kind::CreateLike, "CREATE TABLE t3 LIKE t1"),
    k(Kind::CreateSelect, "CREATE TABLE t3 AS SELECT * FROM t1"),
    k(Kind::Analyze, "ANALYZE TABLE t1"),
    // OPTIMIZE of an InnoDB table is recreate + analyze: learned, not played.
    kx(Kind::Optimize, "OPTIMIZE TABLE t1", &[]),
    k(Kind::CheckTable, "CHECK TABLE t1"),
    k(Kind::Repair, "REPAIR TABLE t1"),
    k(Kind::CreateDb, "CREATE DATABASE db1"),
    kp(
        Kind::DropDb,
        "DROP DATABASE db1",
        &["CREATE DATABASE db1", "CREATE TABLE db1.t1 (a INT)"],
    ),
    k(Kind::CreateTrigger, TRIGGER),
    kp(Kind::DropTrigger, "DROP TRIGGER tr1", &[TRIGGER]),
    k(Kind::CreateView, "CREATE VIEW v1 AS SELECT * FROM t1"),
    kp(
        Kind::DropView,
        "DROP VIEW v1",
        &["CREATE VIEW v1 AS SELECT * FROM t1"],
    ),
    // Views (MariaDB sql/sql_view.cc): a view's own MDL, then its tables'
    // (`mysql_make_view` puts them after the view in the table list and gives a mergeable
    // view's tables the view's lock type); CREATE / ALTER of a view with no table;
    // CREATE OR REPLACE and ALTER of one that exists (`mysql_create_view`). Learned, not
    // in the matrix.
    kv(
        Kind::CreateViewConst,
        "CREATE VIEW v1 AS SELECT 1 AS a",
        &[],
    ),
    kv(
        Kind::CreateOrReplaceView,
        "CREATE OR REPLACE VIEW v1 AS SELECT * FROM t1",
        VIEW,
    ),
    kv(Kind::AlterView, "ALTER VIEW v1 AS SELECT * FROM t1", VIEW),
    kv(Kind::SelectView, "SELECT * FROM v1", VIEW),
    kv(Kind::InsertView, "INSERT INTO v1 (b) VALUES (0)", VIEW),
    kv(Kind::UpdateView, "UPDATE v1 SET b=b+1 WHERE a=1", VIEW),
    kv(Kind::DeleteView, "DELETE FROM v1 WHERE a=2", VIEW),
    kv(Kind::LockReadView, "LOCK TABLES v1 READ", VIEW),
    kv(Kind::LockWriteView, "LOCK TABLES v1 WRITE", VIEW),
    kv(
        Kind::SelectViewTemptable,
        "SELECT * FROM v1",
        VIEW_TEMPTABLE,
    ),
    kv(Kind::ShowCreateView, "SHOW CREATE VIEW v1", VIEW),
    // Foreign keys (MariaDB sql/sql_base.cc: `DML_prelocking_strategy::handle_table`
    // prelocks the children of a parent opened for writing, `prepare_fk_prelocking_list`:
    // SR for RESTRICT / NO ACTION, SW for CASCADE / SET NULL of the statement's
    // operation). The child is t3 (`$n`), its parent t1. Learned, not in the matrix.
    kv(Kind::FkInsertParent, "INSERT INTO t1 (b) VALUES (0)", FK),
    kv(Kind::FkUpdateParent, "UPDATE t1 SET b=b+1 WHERE a=1", FK),
    kv(Kind::FkDeleteParent, "DELETE FROM t1 WHERE a=2", FK),
    kv(
        Kind::FkInsertParentCascade,
        "INSERT INTO t1 (b) VALUES (0)",
        FK_CASCADE,
    ),
    kv(
        Kind::FkUpdateParentCascade,
        "UPDATE t1 SET b=b+1 WHERE a=1",
        FK_CASCADE,
    ),
    kv(
        Kind::FkDeleteParentCascade,
        "DELETE FROM t1 WHERE a=2",
        FK_CASCADE,
    ),
    kv(Kind::FkInsertChild, "INSERT INTO t3 VALUES (1, 1)", FK),
    kv(Kind::FkUpdateChild, "UPDATE t3 SET b=2 WHERE a=1", FK),
    kv(Kind::FkDeleteChild, "DELETE FROM t3 WHERE a=1", FK),
    kv(Kind::FkDropParent, "DROP TABLE t1", FK),
    // ALTER TABLE ... ADD FOREIGN KEY (InnoDB, foreign_key_checks=1: COPY, the server's
    // choice without ALGORITHM): the child t1 (`$t`) copied as ALTER ... COPY, the
    // parent t2 (`$t2`) opened SNW for the statement.
    kv(
        Kind::FkAddCopy,
        "ALTER TABLE t1 ADD FOREIGN KEY (b) REFERENCES t2 (a)",
        &[],
    ),
    k(Kind::FlushTables, "FLUSH TABLES"),
    k(Kind::FlushTable, "FLUSH TABLES t1"),
    // Global and backup locks.
    k(Kind::Ftwrl, "FLUSH TABLES WITH READ LOCK"),
    k(Kind::FtwrlTable, "FLUSH TABLES t1 WITH READ LOCK"),
    k(Kind::BackupStart, "BACKUP STAGE START"),
    // BACKUP LOCK t (MariaDB's per-table backup lock, `backup_lock` in sql/backup.cc):
    // learned, not in the matrix.
    kx(Kind::TableBackupLock, "BACKUP LOCK t1", &[]),
    ks(Kind::BackupFlush, "BACKUP STAGE FLUSH", BACKUP_TO_FLUSH),
    ks(
        Kind::BackupBlockDdl,
        "BACKUP STAGE BLOCK_DDL",
        BACKUP_TO_BLOCK_DDL,
    ),
    ks(
        Kind::BackupBlockCommit,
        "BACKUP STAGE BLOCK_COMMIT",
        BACKUP_TO_BLOCK_COMMIT,
    ),
    ks(Kind::BackupEnd, "BACKUP STAGE END", BACKUP_TO_END),
    // User locks and HANDLER.
    k(Kind::GetLock, "SELECT GET_LOCK('u1', 100000)"),
    ks(
        Kind::ReleaseAllLocks,
        "SELECT RELEASE_ALL_LOCKS()",
        &["SELECT GET_LOCK('u1', 0)"],
    ),
    k(Kind::HandlerOpen, "HANDLER t1 OPEN"),
    ks(
        Kind::HandlerRead,
        "HANDLER t1 READ FIRST",
        &["HANDLER t1 OPEN"],
    ),
    // What COMMIT of a transaction that wrote requests.
    kx(
        Kind::CommitWrite,
        "COMMIT",
        &["BEGIN", "INSERT INTO t1 (b) VALUES (0)"],
    ),
    // Read-only metadata (sql_show.cc): SHOW CREATE TABLE opens its table with
    // MDL_SHARED_HIGH_PRIO and gives it back at its end (`mysqld_show_create`,
    // `rollback_to_savepoint`); SHOW COLUMNS / DESCRIBE read information_schema.COLUMNS
    // (`get_all_tables` → `fill_schema_table_by_open`). Learned, not in the matrix.
    kx(Kind::ShowCreate, "SHOW CREATE TABLE t1", &[]),
    kx(Kind::ShowColumns, "SHOW COLUMNS FROM t1", &[]),
    // Accounts (sql_acl.cc: `mysql_create_user`, `mysql_grant`, ... open the grant tables
    // for writing with `open_grant_tables`; CF_AUTO_COMMIT_TRANS): GRANT stands for
    // every accounts statement. Learned, not in the matrix.
    KindDef {
        kind: Kind::Account,
        variant: RowVariant::Base,
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
        Kind::InstallPlugin,
        "INSTALL PLUGIN example SONAME 'ha_example'",
        &[],
    ),
    kx(Kind::UninstallPlugin, "UNINSTALL PLUGIN example", &[]),
    // CREATE OR REPLACE TABLE of a table that exists (`mysql_create_table_no_lock` with
    // `lex->create_info.or_replace()`: the old table dropped under its X), ALTER DATABASE
    // (`mysql_alter_db`: BACKUP_DDL, then the schema's X). Learned, not in the matrix.
    kx(
        Kind::CreateOrReplace,
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
        Kind::AlterCopyLockNone,
        "ALTER TABLE t1 FORCE, ALGORITHM=COPY, LOCK=NONE",
        &[],
    ),
    kx(
        Kind::AlterCopyLockExclusive,
        "ALTER TABLE t1 FORCE, ALGORITHM=COPY, LOCK=EXCLUSIVE",
        &[],
    ),
    kx(
        Kind::AlterInplaceLockShared,
        "ALTER TABLE t1 FORCE, ALGORITHM=INPLACE, LOCK=SHARED",
        &[],
    ),
    kx(
        Kind::AlterInplaceLockExclusive,
        "ALTER TABLE t1 FORCE, ALGORITHM=INPLACE, LOCK=EXCLUSIVE",
        &[],
    ),
    km(
        Kind::AlterCopyLockNone,
        "ALTER TABLE m1 FORCE, ALGORITHM=COPY, LOCK=NONE",
        &[],
    ),
    km(
        Kind::AlterCopyLockExclusive,
        "ALTER TABLE m1 FORCE, ALGORITHM=COPY, LOCK=EXCLUSIVE",
        &[],
    ),
    // ENGINE= an engine the server does not load (ER_UNKNOWN_STORAGE_ENGINE, 1286):
    // after the implicit commit, before any lock (`classify/engines.rs`).
    kx(
        Kind::CreateUnknownEngine,
        "CREATE TABLE t3 (a INT) ENGINE=ARCHIVE",
        &[],
    ),
    kx(
        Kind::AlterUnknownEngine,
        "ALTER TABLE t1 ENGINE=ARCHIVE",
        &[],
    ),
    // ALTER TABLE t RENAME [TO|AS] n alone: mysql_alter_table's simple rename (sql/sql_table.cc,
    // `simple_rename_or_index_change`).
    kx(Kind::AlterRename, "ALTER TABLE t1 RENAME TO t3", &[]),
    // (classify/alter_keys.rs) DISABLE / ENABLE KEYS alone: simple_rename_or_index_change;
    // RENAME TO with other operations: the algorithm's ALTER with the new name's X.
    kx(Kind::AlterKeys, "ALTER TABLE t1 DISABLE KEYS", &[]),
    km(Kind::AlterKeys, "ALTER TABLE m1 ENABLE KEYS", &[]),
    kx(
        Kind::AlterCopyRename,
        "ALTER TABLE t1 FORCE, RENAME TO t3, ALGORITHM=COPY",
        &[],
    ),
    kx(
        Kind::AlterInplaceRename,
        "ALTER TABLE t1 FORCE, RENAME TO t3, ALGORITHM=INPLACE",
        &[],
    ),
    kx(
        Kind::AlterInstantRename,
        "ALTER TABLE t1 ADD COLUMN c INT, RENAME TO t3, ALGORITHM=INSTANT",
        &[],
    ),
    kx(
        Kind::CreateOrReplaceLike,
        "CREATE OR REPLACE TABLE t1 LIKE t2",
        &[],
    ),
    kx(
        Kind::CreateOrReplaceSelect,
        "CREATE OR REPLACE TABLE t1 AS SELECT * FROM t2",
        &[],
    ),
    KindDef {
        kind: Kind::AlterDb,
        variant: RowVariant::Base,
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
    kx(Kind::CacheIndex, "CACHE INDEX t1 IN default", &[]),
    kx(Kind::LoadIndex, "LOAD INDEX INTO CACHE t1", &[]),
    kx(Kind::Checksum, "CHECKSUM TABLE t1", &[]),
    kx(Kind::FlushExport, "FLUSH TABLES t1 FOR EXPORT", &[]),
    kx(
        Kind::LoadData,
        "LOAD DATA INFILE '/etc/passwd' INTO TABLE t1 LINES STARTING BY '#mdl#'",
        &[],
    ),
    // Checks the composition of CHECKSUM's per-table rows (not in the matrix).
    KindDef {
        kind: Kind::ChecksumMulti,
        variant: RowVariant::Base,
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
    kx(
        Kind::SetGlobal,
        "SET GLOBAL concurrent_insert = DEFAULT",
        &[],
    ),
    kx(Kind::FlushPrivileges, "FLUSH PRIVILEGES", &[]),
    kx(Kind::FlushStatus, "FLUSH STATUS", &[]),
    kx(Kind::FlushLogs, "FLUSH LOGS", &[]),
    // Stored routines and events (`classify/routine.rs`): routine DDL takes the
    // routine's X through `lock_object_name` (sql/sp.cc, `Sp_handler::sp_create_routine`,
    // `sp_drop_routine`, `sp_update_routine`); events through `lock_object_name` too
    // (sql/events.cc, `Events::create_event`, `drop_event`). Learned, not in the matrix.
    kx(Kind::CreateProcedure, "CREATE PROCEDURE p1() SET @x=1", &[]),
    kr(Kind::DropProcedure, "DROP PROCEDURE p1", &[PROCEDURE]),
    kr(
        Kind::AlterProcedure,
        "ALTER PROCEDURE p1 COMMENT 'c'",
        &[PROCEDURE],
    ),
    kx(
        Kind::CreateFunction,
        "CREATE FUNCTION f1() RETURNS INT RETURN 1",
        &[],
    ),
    kr(Kind::DropFunction, "DROP FUNCTION f1", &[FUNCTION]),
    kr(
        Kind::AlterFunction,
        "ALTER FUNCTION f1 COMMENT 'c'",
        &[FUNCTION],
    ),
    kx(
        Kind::CreateEvent,
        "CREATE EVENT e1 ON SCHEDULE EVERY 1 DAY DO SET @x=1",
        &[],
    ),
    kr(Kind::DropEvent, "DROP EVENT e1", &[EVENT]),
    kr(Kind::AlterEvent, "ALTER EVENT e1 COMMENT 'c'", &[EVENT]),
    kr(Kind::SelectFunction, "SELECT f1()", &[FUNCTION]),
    // Sequences (sql/sql_sequence.cc; `t1` made a sequence by the prep). Learned, not in
    // the matrix: `classify/sequence.rs` plays them.
    kq(Kind::Nextval, "SELECT NEXTVAL(t1)", SEQ_T1),
    kq(Kind::Setval, "SELECT SETVAL(t1, 100)", SEQ_T1),
    kq(Kind::Lastval, "SELECT LASTVAL(t1)", SEQ_T1),
    kq(Kind::LockReadSequence, "LOCK TABLES t1 READ", SEQ_T1),
    kq(Kind::LockWriteSequence, "LOCK TABLES t1 WRITE", SEQ_T1),
    kq(Kind::CreateSequence, "CREATE SEQUENCE t3", &[]),
    // CREATE TABLE with a column DEFAULT of a sequence function: the sequence opened too.
    kq(
        Kind::CreateTableNextval,
        "CREATE TABLE t3 (a INT DEFAULT NEXTVAL(t1))",
        SEQ_T1,
    ),
    kq(
        Kind::CreateTableLastval,
        "CREATE TABLE t3 (a INT DEFAULT LASTVAL(t1))",
        SEQ_T1,
    ),
    kq(
        Kind::CreateOrReplaceSequence,
        "CREATE OR REPLACE SEQUENCE t1",
        SEQ_T1,
    ),
    kq(
        Kind::CreateOrReplaceSequenceTable,
        "CREATE OR REPLACE SEQUENCE t1",
        &[],
    ),
    kq(Kind::DropSequence, "DROP SEQUENCE t1", SEQ_T1),
    kq(Kind::AlterSequence, "ALTER SEQUENCE t1 RESTART 5", SEQ_T1),
    // A row written into a sequence by INSERT: `ha_sequence::write_row` (sql/ha_sequence.cc)
    // upgrades the statement's SW to X (not for NEXTVAL's own writes, nor of a temporary
    // sequence), so that full-row writes run in one order on master and replicas.
    kq(
        Kind::InsertSequence,
        "INSERT INTO t1 VALUES (1, 1, 10000, 1, 1, 1000, 0, 0)",
        SEQ_T1,
    ),
    // CREATE TABLE ... SEQUENCE=1: a CREATE TABLE (SU, then X: the parser's `create_table`
    // rule) whose columns `check_sequence_fields` (sql/sql_sequence.cc) checks.
    kq(
        Kind::CreateTableSequence,
        "CREATE TABLE t3 (next_not_cached_value BIGINT(21) NOT NULL, \
         minimum_value BIGINT(21) NOT NULL, maximum_value BIGINT(21) NOT NULL, \
         start_value BIGINT(21) NOT NULL, increment BIGINT(21) NOT NULL, \
         cache_size BIGINT(21) UNSIGNED NOT NULL, cycle_option TINYINT(1) UNSIGNED NOT NULL, \
         cycle_count BIGINT(21) NOT NULL) SEQUENCE=1",
        &[],
    ),
    // CREATE TABLE ... SELECT of a sequence function with no FROM: the sequence is one of
    // the SELECT's tables (`LEX::create_item_func_nextval` adds it to the table list).
    kq(
        Kind::CreateSelectNextval,
        "CREATE TABLE t3 SELECT NEXTVAL(t1) AS a",
        SEQ_T1,
    ),
    kq(
        Kind::CreateSelectLastval,
        "CREATE TABLE t3 SELECT LASTVAL(t1) AS a",
        SEQ_T1,
    ),
    // The same statements on MyISAM tables.
    km(Kind::Select, "SELECT * FROM m1", &[]),
    km(
        Kind::SelectForUpdate,
        "SELECT * FROM m1 WHERE a=3 FOR UPDATE",
        &[],
    ),
    km(
        Kind::SelectShare,
        "SELECT * FROM m1 WHERE a=3 LOCK IN SHARE MODE",
        &[],
    ),
    km(Kind::Insert, "INSERT INTO m1 (b) VALUES (0)", &[]),
    km(Kind::Update, "UPDATE m1 SET b=b+1 WHERE a=1", &[]),
    km(Kind::Delete, "DELETE FROM m1 WHERE a=2", &[]),
    km(Kind::LockRead, "LOCK TABLES m1 READ", &[]),
    km(Kind::LockReadLocal, "LOCK TABLES m1 READ LOCAL", &[]),
    km(Kind::LockWrite, "LOCK TABLES m1 WRITE", &[]),
    km(
        Kind::LockWriteConcurrent,
        "LOCK TABLES m1 WRITE CONCURRENT",
        &[],
    ),
    km(Kind::AlterCopy, "ALTER TABLE m1 FORCE, ALGORITHM=COPY", &[]),
    km(Kind::Truncate, "TRUNCATE TABLE m1", &[]),
    km(Kind::Rename, "RENAME TABLE m1 TO t3", &[]),
    km(Kind::Drop, "DROP TABLE m1", &[]),
    km(Kind::Analyze, "ANALYZE TABLE m1", &[]),
    km(Kind::Optimize, "OPTIMIZE TABLE m1", &[]),
    km(Kind::CheckTable, "CHECK TABLE m1", &[]),
    km(Kind::Repair, "REPAIR TABLE m1", &[]),
    km(Kind::HandlerOpen, "HANDLER m1 OPEN", &[]),
    km(
        Kind::CreateTrigger,
        "CREATE TRIGGER tr1 BEFORE INSERT ON m1 FOR EACH ROW SET @x=1",
        &[],
    ),
    KindDef {
        kind: Kind::DropTrigger,
        variant: RowVariant::MyIsam,
        sql: "DROP TRIGGER tr1",
        prep: &["CREATE TRIGGER tr1 BEFORE INSERT ON m1 FOR EACH ROW SET @x=1"],
        setup: &[],
        matrix: false,
        check: false,
    },
    km(Kind::CacheIndex, "CACHE INDEX m1 IN default", &[]),
    km(Kind::LoadIndex, "LOAD INDEX INTO CACHE m1", &[]),
    km(Kind::Checksum, "CHECKSUM TABLE m1", &[]),
    km(Kind::FlushExport, "FLUSH TABLES m1 FOR EXPORT", &[]),
    km(
        Kind::LoadData,
        "LOAD DATA INFILE '/etc/passwd' INTO TABLE m1 LINES STARTING BY '#mdl#'",
        &[],
    ),
    km(
        Kind::CommitWrite,
        "COMMIT",
        &["BEGIN", "INSERT INTO m1 (b) VALUES (0)"],
    ),
    // Partition maintenance of a table that is not partitioned: each path's locks up to
    // ER_PARTITION_MGMT_ON_NONPARTITIONED (classify/partition.rs).
    kx(
        Kind::NopartAlter,
        "ALTER TABLE t1 COALESCE PARTITION 2",
        &[],
    ),
    kx(
        Kind::NopartTruncate,
        "ALTER TABLE t1 TRUNCATE PARTITION p1",
        &[],
    ),
    kx(
        Kind::NopartAnalyze,
        "ALTER TABLE t1 ANALYZE PARTITION p1",
        &[],
    ),
    kx(Kind::NopartCheck, "ALTER TABLE t1 CHECK PARTITION p1", &[]),
    kx(
        Kind::NopartOptimize,
        "ALTER TABLE t1 OPTIMIZE PARTITION p1",
        &[],
    ),
    kx(
        Kind::NopartRepair,
        "ALTER TABLE t1 REPAIR PARTITION p1",
        &[],
    ),
    // EXCHANGE PARTITION of a table that is not partitioned: both tables' locks
    // (Sql_cmd_alter_table_exchange_partition::exchange_partition, sql_partition_admin.cc),
    // then ER_PARTITION_MGMT_ON_NONPARTITIONED.
    kx(
        Kind::NopartExchange,
        "ALTER TABLE t1 EXCHANGE PARTITION p0 WITH TABLE t2",
        &[],
    ),
    // Maintenance of a partitioned table (t1 by HASH, 2 partitions) that names no
    // partition: REMOVE PARTITIONING (a copy back to one table), TRUNCATE / ANALYZE /
    // CHECK PARTITION ALL (classify/partition.rs).
    kv(
        Kind::PartRemove,
        "ALTER TABLE t1 REMOVE PARTITIONING",
        PARTITIONED,
    ),
    kv(
        Kind::PartTruncate,
        "ALTER TABLE t1 TRUNCATE PARTITION ALL",
        PARTITIONED,
    ),
    kv(
        Kind::PartAnalyze,
        "ALTER TABLE t1 ANALYZE PARTITION ALL",
        PARTITIONED,
    ),
    kv(
        Kind::PartCheck,
        "ALTER TABLE t1 CHECK PARTITION ALL",
        PARTITIONED,
    ),
    // ALTER TABLE ... PARTITION BY: a repartitioning copy (mysql_alter_table,
    // prep_alter_part_table then copy_data_between_tables, sql_table.cc).
    kx(
        Kind::AlterPartitionBy,
        "ALTER TABLE t1 PARTITION BY HASH(a) PARTITIONS 2",
        &[],
    ),
    km(
        Kind::NopartAlter,
        "ALTER TABLE m1 COALESCE PARTITION 2",
        &[],
    ),
    km(
        Kind::NopartTruncate,
        "ALTER TABLE m1 TRUNCATE PARTITION p1",
        &[],
    ),
    km(
        Kind::NopartAnalyze,
        "ALTER TABLE m1 ANALYZE PARTITION p1",
        &[],
    ),
    km(Kind::NopartCheck, "ALTER TABLE m1 CHECK PARTITION p1", &[]),
    // Several tables in one statement (and the same with the tables swapped: the order
    // of the locks follows the statement or the keys).
    kc(Kind::SelectJoin, "SELECT * FROM t1 JOIN t2 ON t1.a=t2.a"),
    kc(Kind::SelectJoinRev, "SELECT * FROM t2 JOIN t1 ON t1.a=t2.a"),
    kc(
        Kind::SelectSubquery,
        "SELECT * FROM t1 WHERE a IN (SELECT a FROM t2)",
    ),
    kc(Kind::InsertSelect, "INSERT INTO t1 (b) SELECT b FROM t2"),
    kc(Kind::InsertSelectRev, "INSERT INTO t2 (b) SELECT b FROM t1"),
    kc(
        Kind::UpdateMulti,
        "UPDATE t1, t2 SET t1.b=t2.b WHERE t1.a=t2.a",
    ),
    kc(
        Kind::UpdateSubquery,
        "UPDATE t1 SET b=(SELECT MAX(b) FROM t2)",
    ),
    kc(
        Kind::DeleteMulti,
        "DELETE t1 FROM t1 JOIN t2 ON t1.a=t2.a WHERE t1.a=2",
    ),
    kc(Kind::DropMulti, "DROP TABLE t1, t2"),
    kc(Kind::DropMultiRev, "DROP TABLE t2, t1"),
    kc(Kind::RenameMulti, "RENAME TABLE t1 TO t3, t2 TO t4"),
    kc(Kind::RenameMultiRev, "RENAME TABLE t2 TO t4, t1 TO t3"),
    kc(Kind::LockMixed, "LOCK TABLES t1 READ, t2 WRITE"),
    kc(Kind::LockMixedRev, "LOCK TABLES t2 WRITE, t1 READ"),
    kc(Kind::LockReadMulti, "LOCK TABLES t1 READ, t2 READ"),
    kc(Kind::LockWriteMultiRev, "LOCK TABLES t2 WRITE, t1 WRITE"),
    kc(Kind::AnalyzeMulti, "ANALYZE TABLE t1, t2"),
    kc(Kind::FlushTableMulti, "FLUSH TABLES t1, t2"),
    kc(Kind::FlushTableMultiRev, "FLUSH TABLES t2, t1"),
    kc(
        Kind::CreateSelectJoin,
        "CREATE TABLE t3 AS SELECT t1.a FROM t1 JOIN t2 ON t1.a=t2.a",
    ),
];

/// The kinds of the statement compatibility matrix.
pub fn matrix_kinds() -> impl Iterator<Item = &'static KindDef> {
    KINDS.iter().filter(|k| k.matrix)
}

pub fn kind_def(name: &str) -> Option<&'static KindDef> {
    KINDS.iter().find(|k| k.name() == name)
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
    /// The row's name (`select`, `select.myisam`): data, the key of the rules.
    pub name: String,
    /// The row's statement kind, parsed once from its name.
    pub kind: Kind,
    /// The base row or its MyISAM variant.
    pub variant: RowVariant,
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

/// The 1-based column where field `i` (0-based, tab-separated) of `raw` starts.
fn column_of(raw: &str, i: usize) -> usize {
    raw.split('\t')
        .take(i)
        .map(|f| f.chars().count() + 1)
        .sum::<usize>()
        + 1
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
                col: 1,
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
        let err_at = |line: usize, col: usize, msg: String| SqlError::Data {
            file: file.into(),
            line,
            col,
            msg,
        };
        let err = |line: usize, msg: String| err_at(line, 1, msg);
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
                    let (kind, variant) = parse_row(name)
                        .map_err(|e| err_at(line, column_of(raw, 1), e.to_string()))?;
                    let implicit_commit = match *ic {
                        "yes" => true,
                        "no" => false,
                        x => return Err(err(line, format!("expected yes or no, not `{x}`"))),
                    };
                    m.kinds.push(KindRow {
                        name: (*name).into(),
                        kind,
                        variant,
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
