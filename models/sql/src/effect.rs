//! What a successful statement changes in the catalog ([`Effect`]): the classifier
//! writes it, the catalog applies it (`Catalog::apply`) and says the error it ends with
//! (`Catalog::error_of`).

use crate::objects::{Engine, ForeignKey, SeqNeed, Tbl, TriggerBody, ViewDef, ViewMode};
use crate::table_def::TableDef;

/// What a successful statement changes in the catalog.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Effect {
    #[default]
    None,
    /// `SET GLOBAL name.key_buffer_size = N` (N > 0): the named key cache exists from
    /// then on (`classify/misc.rs`).
    KeyCache(String),
    /// `SET GLOBAL read_only = 0 | 1`: the server's read_only from then on
    /// (`classify/read_only.rs`).
    ReadOnly(bool),
    /// The statement's own checks fail once its implicit commit and the session's rules
    /// are through, before its first lock (an event's schedule:
    /// `Event_parse_data::check_parse_data`, before `lock_object_name`): the error, no
    /// lock, no change.
    FailBeforeLocks(u32),
    CreateTable {
        t: Tbl,
        engine: Engine,
        if_not_exists: bool,
        /// The tables it reads (LIKE, SELECT): they must exist.
        src: Vec<Tbl>,
        /// Partitioned (`PARTITION BY`, or LIKE of a partitioned table).
        partitioned: bool,
        /// Its primary key's columns, when the model can tell (`alter_algorithm.rs`).
        pk: Option<Vec<String>>,
        /// No column list, no LIKE, no SELECT (`CREATE TABLE t9`): ER_TABLE_MUST_HAVE_COLUMNS
        /// once its locks are taken, unless the table exists (`catalog::Catalog::error_of`).
        no_columns: bool,
        /// Its columns and keys, when the model can tell (`classify/columns.rs`).
        cols: Option<Box<TableDef>>,
    },
    DropTables {
        ts: Vec<Tbl>,
        if_exists: bool,
    },
    Rename(Vec<(Tbl, Tbl)>),
    /// ALTER TABLE with other operations and RENAME TO `n` (`classify/alter_rename.rs`):
    /// `alter` the operations' `Effect::Alter` of `t`, their error after the new name's
    /// checks, their columns and keys then `n`'s.
    AlterRename {
        t: Tbl,
        n: Tbl,
        alter: Box<Effect>,
    },
    CreateDb {
        db: String,
        if_not_exists: bool,
    },
    DropDb {
        db: String,
        if_exists: bool,
    },
    CreateView {
        v: Tbl,
        def: ViewDef,
        mode: ViewMode,
    },
    /// DROP VIEW of one or several views.
    DropView {
        vs: Vec<Tbl>,
        if_exists: bool,
    },
    CreateTrigger {
        tr: Tbl,
        on: Tbl,
        /// Its body uses tables: its event and body statements, which a statement firing
        /// it prelocks (`classify/routine_prelock.rs`).
        prelock: Option<Box<TriggerBody>>,
    },
    DropTrigger {
        tr: Tbl,
        if_exists: bool,
    },
    /// CREATE TABLE (the effect inside) with InnoDB foreign keys (`classify/fk.rs`).
    WithFks(Box<Effect>, Vec<ForeignKey>),
    /// Routine or event DDL ([`crate::routines`]).
    Routine(crate::routines::RoutineOp),
    /// Package DDL ([`crate::packages`]).
    Package(crate::packages::PackageOp),
    /// An accounts statement: the users it needs, makes or drops.
    Accounts(Accounts),
    /// CREATE / ALTER / DROP SERVER that opened `mysql.servers` (`crate::servers`).
    Server(crate::servers::ServerOp),
    /// CREATE OR REPLACE TABLE of a table that exists: a new table, with no trigger, of
    /// this engine; of LIKE / SELECT, once `src` exist (else ER_NO_SUCH_TABLE, the old
    /// table kept: `open_tables` fails before the drop).
    Replace {
        t: Tbl,
        engine: Engine,
        partitioned: bool,
        /// The table LIKE or SELECT reads.
        src: Vec<Tbl>,
        /// No row in it (no SELECT).
        empty: bool,
    },
    /// ALTER TABLE ... ENGINE= another engine: the table (which must exist) is of that
    /// engine from then on (`classify/engines.rs`).
    AlterEngine {
        t: Tbl,
        engine: Engine,
    },
    /// ALTER DATABASE: the schema must exist (else the server cannot write its
    /// `db.opt`: error 1, ER_CANT_CREATE_FILE).
    AlterDb(String),
    /// The statement needs its tables to exist (DML, ALTER, TRUNCATE, ...).
    NeedTables(Vec<Tbl>),
    /// The statement fails with this error once its locks are taken.
    Fail(u32),
    /// SELECT ... INTO OUTFILE / DUMPFILE (`classify/into_outfile.rs`): the tables it reads
    /// must exist, then the file `path` (`schema/name` under the data directory) must not
    /// (ER_FILE_EXISTS_ERROR); it exists from then on.
    WriteFile {
        path: String,
        need: Vec<Tbl>,
    },
    /// ALTER TABLE ... ALGORITHM=INPLACE (INSTANT, NOCOPY) of a table that was MyISAM
    /// when the statement began: ER_ALTER_OPERATION_NOT_SUPPORTED if it still is once its
    /// locks are taken (the server decides it for the table it opened: a RENAME it
    /// waited for may have put an InnoDB table under the name; measured:
    /// found/seed-70735).
    InPlace(Tbl),
    /// CREATE [OR REPLACE] SEQUENCE (`classify/sequence.rs`): `replace` when it replaces
    /// a sequence that exists.
    CreateSequence {
        t: Tbl,
        engine: Engine,
        if_not_exists: bool,
        replace: bool,
        /// Its MINVALUE and MAXVALUE, when known.
        bounds: Option<(i64, i64)>,
    },
    /// CREATE OR REPLACE whose new object fails once the old one is dropped (`t`, which
    /// existed: `create_table_impl`, sql/sql_table.cc, drops it under OR REPLACE before
    /// the new definition is checked): `t` is gone and the statement ends with `code`
    /// (`classify/sequence_table.rs`).
    DropThenFail {
        t: Tbl,
        code: u32,
    },
    /// DROP SEQUENCE: drops the sequences of the list (not its tables).
    DropSequences {
        ts: Vec<Tbl>,
        if_exists: bool,
    },
    /// A statement that opens tables and sequences, in this order
    /// ([`crate::catalog::SeqNeed`]).
    NeedSequences(Vec<SeqNeed>),
    /// Partition maintenance of a table that was not partitioned when the statement
    /// began: ER_NO_SUCH_TABLE if it is gone once the locks are taken, else
    /// ER_PARTITION_MGMT_ON_NONPARTITIONED (`classify/partition.rs`).
    NotPartitioned(Tbl),
    /// EXCHANGE PARTITION of a table (the first) that was not partitioned when the
    /// statement began with a table (the second): ER_NO_SUCH_TABLE if either is missing
    /// once the locks are taken, else ER_PARTITION_MGMT_ON_NONPARTITIONED.
    ExchangeNotPartitioned(Tbl, Tbl),
    /// ALTER TABLE ... PARTITION BY of a table that must exist: partitioned afterwards.
    Repartition(Tbl),
    /// ALTER TABLE ... REMOVE PARTITIONING of a table that must exist: not partitioned
    /// afterwards.
    Unpartition(Tbl),
    /// ALTER TABLE of a table that must exist; `forget_pk`: it may change the primary key
    /// (a PRIMARY KEY clause, a column dropped, changed or renamed), which the catalog
    /// then no longer claims to know.
    Alter {
        t: Tbl,
        forget_pk: bool,
        /// What it does with the table's columns (`alter_columns.rs`).
        cols: AlterCols,
    },
}

/// An ALTER TABLE's outcome for the catalog's columns of its table.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum AlterCols {
    /// The model no longer claims to know them.
    #[default]
    Forget,
    /// The table's columns and keys after it.
    Set(Box<TableDef>),
    /// Nothing to do (every operation dropped by IF [NOT] EXISTS): ends after IX, SU and
    /// BACKUP_DDL.
    Nothing,
    /// The server's error after IX, SU and BACKUP_DDL.
    Fail(u32),
}

impl Effect {
    /// The effect a wrapper ([`Effect::WithFks`]) holds, or this one.
    pub fn inner(&self) -> &Effect {
        match self {
            Effect::WithFks(e, _) => e,
            e => e,
        }
    }
}

/// What an accounts statement needs or changes: users as `name@host` (host `%` when not
/// written).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Accounts {
    /// CREATE USER [IF NOT EXISTS] / CREATE OR REPLACE USER.
    Create {
        users: Vec<String>,
        if_not_exists: bool,
        or_replace: bool,
    },
    /// DROP USER [IF EXISTS].
    Drop { users: Vec<String>, if_exists: bool },
    /// ALTER USER: the users must exist, else the error.
    Need { users: Vec<String>, code: u32 },
    /// GRANT / REVOKE ... ON (`crate::grants`).
    Grant {
        users: Vec<String>,
        op: Box<crate::grants::GrantOp>,
    },
    /// REVOKE ALL PRIVILEGES, GRANT OPTION FROM users (`mysql_revoke_all`): every row of
    /// theirs goes. `bare`: the users written without a host (`Users::resolve`).
    RevokeAll {
        users: Vec<String>,
        bare: Vec<String>,
    },
    /// RENAME USER a TO b.
    Rename(Vec<(String, String)>),
    /// GRANT role TO ... / REVOKE role FROM ... (`crate::roles`).
    Role(crate::roles::RoleOp),
}
