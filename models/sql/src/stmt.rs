//! The statement types: what the classifier ([`crate::classify`]) makes of a statement and
//! the model ([`crate::model`]) plays. They sit at the bottom: this file uses none of the
//! files that make or read them.

use crate::effect::Effect;
use crate::kind::Kind;
use crate::objects::{Engine, Tbl};

/// The objects a learned row's key templates name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bind {
    /// `$t`, `$t2`
    pub t: Option<Tbl>,
    pub t2: Option<Tbl>,
    /// `$n`, `$n2`: new table names.
    pub n: Option<Tbl>,
    pub n2: Option<Tbl>,
    /// `$v`: a view.
    pub v: Option<Tbl>,
    /// `$tr`: a trigger (its schema and name).
    pub tr: Option<Tbl>,
    /// `$r`: a stored routine or event (`classify/routine.rs`).
    pub r: Option<Tbl>,
    /// `$s`: a schema CREATE / DROP DATABASE names.
    pub s: Option<String>,
    /// `$lock`: a user lock.
    pub lock: Option<String>,
    /// `HANDLER t OPEN [AS] a`: the HANDLER's name, when it is not the table's (names no
    /// lock).
    pub alias: Option<String>,
}

impl Bind {
    /// The tables (and views) the binding names, in slot order.
    pub fn tables(&self) -> impl Iterator<Item = &Tbl> {
        [&self.t, &self.t2, &self.n, &self.n2, &self.v]
            .into_iter()
            .flatten()
    }
}

/// One learned row of a statement with its bindings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Part {
    /// The learned kind (with `.myisam` for a MyISAM table when the table has that row).
    pub row: String,
    /// The kind without the engine suffix (the key of the session rules).
    pub kind: Kind,
    pub bind: Bind,
    /// For a table in a multi-table UPDATE's list: whether a SET column is its.
    pub set_target: SetTarget,
}

/// Whether a table of a multi-table UPDATE's list is one whose columns it sets. Its
/// metadata lock is SW either way (the parser's `set_lock_for_tables`), but
/// `Multiupdate_prelocking_strategy::handle_end` (MariaDB `sql/sql_update.cc`) gives a
/// table it only reads a read lock type before `lock_tables` checks it against the
/// session's own LOCK TABLES (`check_lock_and_start_stmt`): locked READ is enough there
/// (measured: found/seed-10008).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SetTarget {
    /// Not a table of a multi-table UPDATE's list.
    #[default]
    NotInList,
    /// A SET column is its.
    Yes,
    /// It is only read.
    No,
    /// Not known: a SET column is not qualified with its table (the catalog does not
    /// know columns).
    Unknown,
}

/// How LOCK TABLES locks a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LtMode {
    Read,
    Write,
    /// WRITE CONCURRENT: SW, not SNRW.
    WriteConcurrent,
}

/// A statement of the learned table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The statement's kind (a base kind of the table: `select`, `drop`, ...).
    pub kind: Kind,
    pub parts: Vec<Part>,
    /// LOCK TABLES: the tables and how each is locked.
    pub lock_tables: Vec<(Tbl, LtMode)>,
    /// `WAIT n` (seconds) / `NOWAIT` (0): the statement's own lock wait timeout.
    pub wait: Option<u64>,
    /// GET_LOCK's own timeout, in milliseconds.
    pub user_lock_timeout: Option<u64>,
    pub effect: Effect,
    /// A table the statement names through an alias other than its name (`t1 AS x`):
    /// under the session's own LOCK TABLES `open_table` matches a locked table by its
    /// alias too, which the model does not follow (it refuses such a statement there).
    pub aliased: Option<String>,
}

impl Plan {
    /// A statement of `parts` with `effect`: no LOCK TABLES list, no WAIT or GET_LOCK
    /// timeout, no alias (the constructor of the plans built by hand; the classifier's
    /// own `Cx::plan` adds WAIT and the alias it reads).
    pub fn of(kind: Kind, parts: Vec<Part>, effect: Effect) -> Plan {
        Plan {
            kind,
            parts,
            lock_tables: Vec::new(),
            wait: None,
            user_lock_timeout: None,
            effect,
            aliased: None,
        }
    }

    /// A statement of one part, `kind`'s own learned row bound to `bind`.
    pub fn single(kind: Kind, bind: Bind, effect: Effect) -> Plan {
        Plan::of(kind, vec![Part::on_row(kind.as_str(), kind, bind)], effect)
    }
}

impl Part {
    /// The learned row `row` (of kind `kind`) bound to `bind`, not in a multi-table
    /// UPDATE's list.
    pub fn on_row(row: impl Into<String>, kind: Kind, bind: Bind) -> Part {
        Part {
            row: row.into(),
            kind,
            bind,
            set_target: SetTarget::NotInList,
        }
    }
}

/// What a statement is, for our side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    Learned(Plan),
    Begin,
    Commit,
    Rollback,
    UnlockTables,
    /// `HANDLER name CLOSE` (a table or its alias).
    HandlerClose(String),
    /// `HANDLER name READ ...` of an alias or a table.
    HandlerRead(String),
    ReleaseLock(String),
    ReleaseAllLocks,
    /// A SELECT of several user-lock functions, one per column, played in order
    /// (`classify/user_locks.rs`).
    UserLocks(Vec<UserLockCall>),
    /// `BACKUP UNLOCK`: gives back the session's BACKUP LOCK.
    BackupUnlock,
    /// `SET [SESSION] lock_wait_timeout = N` (seconds).
    SetTimeout(u64),
    /// `SET [SESSION] autocommit = 0|1`.
    SetAutocommit(bool),
    /// `USE db`.
    Use(String),
    /// A statement that takes no metadata lock (`SELECT 1`, other `SET`s, `DO 1`).
    NoLocks,
    /// A statement the server refuses before it opens or locks anything (its parser, or
    /// a check before `open_tables`): the server's error code.
    Fails(u32),
    /// SAVEPOINT, ROLLBACK TO SAVEPOINT, RELEASE SAVEPOINT, SET TRANSACTION
    /// (`classify/session.rs`).
    Session(SessionStmt),
    /// An XA statement (`classify/xa.rs`, played by `crate::model::xa`).
    Xa(XaStmt),
}

/// What an XA statement asks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum XaOp {
    Start,
    End,
    Prepare,
    Commit { one_phase: bool },
    Rollback,
    Recover,
}

/// One XA statement: its operation, its xid as written (`'gtrid'[,'bqual']`, compared as
/// bytes, as `XID::eq` does; the formatID left out) and whether it names an option the server refuses
/// with ER_XAER_INVAL (`JOIN`, `RESUME`, `SUSPEND [FOR MIGRATE]`: sql/xa.cc,
/// `trans_xa_start`, `trans_xa_end`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct XaStmt {
    pub op: XaOp,
    pub xid: String,
    pub option: bool,
}

/// One column of the select list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UserLockCall {
    /// GET_LOCK(name, timeout): the plan of the single GET_LOCK statement (its timeout in
    /// `user_lock_timeout`).
    Get(String, Box<Plan>),
    /// GET_LOCK with a negative or NULL timeout: NULL with a warning, no lock
    /// (`Item_func_get_lock::val_int`, MDEV-4017: main/func_misc.result).
    BadTimeout,
    Release(String),
    ReleaseAll,
    IsFree(String),
    IsUsed(String),
}

/// A session statement played by the model's session rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SessionStmt {
    /// `SAVEPOINT name` (lower case: savepoint names compare without case).
    Savepoint(String),
    /// `ROLLBACK TO SAVEPOINT name`.
    RollbackTo(String),
    /// `RELEASE SAVEPOINT name`.
    Release(String),
    /// `SET TRANSACTION ...` with no SESSION / GLOBAL: the next transaction's
    /// characteristics.
    SetNextTransaction,
    /// A statement on the session's temporary tables only (`crate::model::temp`).
    Temp(TempOp),
    /// `PREPARE name FROM 'text'` (`crate::model::prepared`).
    Prepare(String, String),
    /// `DEALLOCATE PREPARE name` / `DROP PREPARE name`.
    Deallocate(String),
    /// A statement that fails with this error and does nothing else.
    Fail(u32),
    /// `KILL [HARD | SOFT] QUERY NAME`: ends that session's statement (`sql_kill`, no
    /// lock of its own).
    KillQuery(usize),
    /// `SET completion_type = ...` (`crate::model::chain`).
    CompletionType(u8),
    /// `ROLLBACK AND CHAIN`: the rollback, then the next transaction begins.
    RollbackChain,
    /// `SET STATEMENT max_statement_time=N FOR inner` (N > 0; ms): the inner statement
    /// with a timer (`crate::model::statement_time`).
    StatementTime(u64, Box<Stmt>),
    /// `SET GLOBAL lock_wait_timeout = N | DEFAULT` (`crate::model::global_timeout`).
    GlobalLockWaitTimeout(Option<u64>),
    /// A SET whose value `set_var::check` refuses (1231 / 1232): SQLCOM_SET_OPTION has
    /// run `open_and_lock_tables` first, so the session's HANDLERs are flushed
    /// (`classify/set_session_values.rs`; measured: suite/set-session-values.mdl).
    SetFails(u32),
    /// A statement that takes no lock and never reaches `open_tables`, so the session's
    /// HANDLERs are not flushed (`SHOW ENGINE ... STATUS`: `ha_show_status`, sql/handler.cc;
    /// measured: random seed 460605, the HANDLER another session's CREATE INDEX waits for
    /// stays open).
    OpensNothing,
}

/// What a statement on temporary tables only does: no metadata lock (a temporary table
/// has none: `open_temporary_table`, sql/temporary_tables.cc), its implicit commit, its
/// change to the session's temporary tables.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TempOp {
    pub change: TempChange,
    /// It commits implicitly: ALTER, CREATE INDEX, TRUNCATE, RENAME and DROP TABLE
    /// without TEMPORARY of a temporary table (`stmt_causes_implicit_commit` skips only
    /// CREATE / DROP TEMPORARY; measured: the transaction's SR is gone after them).
    pub commit: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TempChange {
    None,
    /// DML: with autocommit off, a transactional temporary table starts the transaction.
    Dml {
        innodb: bool,
    },
    Create(Tbl, Engine),
    /// CREATE TEMPORARY SEQUENCE (`model/sequence.rs`).
    CreateSequence(Tbl, Engine),
    Drop(Vec<Tbl>),
    Rename(Vec<(Tbl, Tbl)>),
    /// The statement fails with this error (and does nothing).
    Fail(u32),
}
