//! The statement kinds the learner measures ([`KINDS`]): each kind's SQL, what runs before
//! it, and whether it is a row of the compatibility matrix or a check of the composition
//! rule.

use crate::kind::{Kind, RowVariant};

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
const VIEW_CONST: &[&str] = &["CREATE VIEW v1 AS SELECT 1 AS a"];
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

/// The package `pkg1`, spec and body, made by the prep in Oracle mode.
const PACKAGE: &[&str] = &[
    "SET sql_mode=ORACLE",
    "CREATE PACKAGE pkg1 AS PROCEDURE p1; END",
    "CREATE PACKAGE BODY pkg1 AS PROCEDURE p1 AS BEGIN NULL; END; END",
    "SET sql_mode=DEFAULT",
];

/// A package kind: its session sets sql_mode=ORACLE inside its transaction (the probes'
/// BEGIN comes first: in Oracle mode `BEGIN` starts an anonymous block); not in the
/// matrix.
const fn ko(kind: Kind, sql: &'static str, prep: &'static [&'static str]) -> KindDef {
    KindDef {
        kind,
        variant: RowVariant::Base,
        sql,
        prep,
        setup: &["BEGIN", "SET sql_mode=ORACLE"],
        matrix: false,
        check: false,
    }
}

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
    // CHECK VIEW / REPAIR VIEW (sql/sql_admin.cc `mysql_admin_table`: the view's MDL is
    // SHARED_READ for CHECK and SHARED_NO_READ_WRITE for REPAIR, `open_only_one_table`
    // opens it with `required_type= FRMTYPE_VIEW`, then `view_check` / `view_repair`).
    // Learned, not in the matrix.
    kv(Kind::CheckView, "CHECK VIEW v1", VIEW),
    kv(Kind::RepairView, "REPAIR VIEW v1", VIEW),
    kv(Kind::CheckViewConst, "CHECK VIEW v1", VIEW_CONST),
    kv(Kind::RepairViewConst, "REPAIR VIEW v1", VIEW_CONST),
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
    // GRANT with a column list (sql_acl.cc `mysql_table_grant`: the table is opened
    // with `open_normal_and_derived_tables` to check the columns, before the grant
    // tables). Learned, not in the matrix.
    KindDef {
        kind: Kind::AccountColumn,
        variant: RowVariant::Base,
        sql: "GRANT SELECT (a) ON test.t1 TO u1",
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
    // CREATE / ALTER / DROP SERVER (sql/sql_servers.cc: `create_server`, `alter_server`,
    // `drop_server` open mysql.servers with `open_ltable(TL_WRITE)` once the server's
    // name is found or not: classify/servers.rs). Learned, not in the matrix.
    KindDef {
        kind: Kind::Server,
        variant: RowVariant::Base,
        sql: "CREATE SERVER s1 FOREIGN DATA WRAPPER mysql OPTIONS (HOST 'localhost')",
        prep: &["DROP SERVER IF EXISTS s1"],
        setup: &[],
        matrix: false,
        check: false,
    },
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
    // SET GLOBAL read_only = 1 (sql/sys_vars.cc, `fix_read_only`): the global read lock
    // as FTWRL takes it (`lock_global_read_lock`, `close_cached_tables`,
    // `make_global_read_lock_block_commit`), given back at once
    // (`unlock_global_read_lock`). The harness sets read_only back to 0 before each
    // scenario (`learn/settle.rs`, `fresh`).
    kx(Kind::SetGlobalReadOnly, "SET GLOBAL read_only = 1", &[]),
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
    // Packages (`classify/package.rs`): their grammar is sql_mode=ORACLE's in MariaDB
    // 10.11 (`CREATE PACKAGE` is a syntax error otherwise, measured), so the session sets
    // it after its BEGIN (`BEGIN` alone is an Oracle anonymous block) and the prep sets
    // it around its own CREATE PACKAGE. Spec and body share one MDL key,
    // `MDL_key::PACKAGE_BODY` (`Sp_handler_package_spec::get_mdl_type`, sql/sp.h), taken
    // by `lock_object_name` (`sp_create_routine`, `sp_drop_routine`, sql/sp.cc). Learned,
    // not in the matrix; their session rules are the routine kinds' (`Kind::rules_of`).
    ko(
        Kind::CreatePackage,
        "CREATE PACKAGE pkg1 AS PROCEDURE p1; END",
        &[],
    ),
    // Learned as OR REPLACE of a body that exists (the same `lock_object_name`): a
    // CREATE PACKAGE BODY reads its spec from mysql.proc while it is parsed, so the
    // `hold_package` blocker (LOCK TABLES mysql.proc WRITE) stops it before its locks;
    // `hold_package_s` (a CALL's S on the package) shows its X pending.
    ko(
        Kind::CreatePackageBody,
        "CREATE OR REPLACE PACKAGE BODY pkg1 AS PROCEDURE p1 AS BEGIN NULL; END; END",
        PACKAGE,
    ),
    ko(Kind::DropPackage, "DROP PACKAGE pkg1", PACKAGE),
    ko(Kind::DropPackageBody, "DROP PACKAGE BODY pkg1", PACKAGE),
    ko(Kind::CallPackage, "CALL pkg1.p1", PACKAGE),
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
    // ANALYZE ... PERSISTENT FOR ALL also writes the engine-independent statistics
    // (mysql.table_stats, column_stats, index_stats): their open for write is
    // BACKUP_SYS_DML (classify/analyze_persistent.rs).
    kx(
        Kind::AnalyzePersistent,
        "ANALYZE TABLE t1 PERSISTENT FOR ALL",
        &[],
    ),
    km(
        Kind::AnalyzePersistent,
        "ANALYZE TABLE m1 PERSISTENT FOR ALL",
        &[],
    ),
];

/// The kinds of the statement compatibility matrix.
pub fn matrix_kinds() -> impl Iterator<Item = &'static KindDef> {
    KINDS.iter().filter(|k| k.matrix)
}

pub fn kind_def(name: &str) -> Option<&'static KindDef> {
    KINDS.iter().find(|k| k.name() == name)
}
