//! The SQL model: SQL statements of several sessions played on our deterministic lock
//! table ([`LockTable`], the mapping's dialect), with no server. `mdl conform` checks it
//! against MariaDB step by step; it is a library so that other tools can drive it step
//! by step too (one mapping, used by all).
//!
//! ```text
//! let mut m = SqlModel::new(Mapping::load()?);
//! let a = m.add_session();
//! let b = m.add_session();
//! m.step(a, "LOCK TABLES t1 WRITE")?;           // Ok(Outcome::Ok)
//! m.step(b, "SELECT * FROM t1")?;              // Ok(Outcome::Waiting)
//! m.step(a, "UNLOCK TABLES")?;                 // Ok(Outcome::Ok)
//! m.take_events();                             // [(b, Outcome::Ok)]
//! ```
//!
//! What it keeps:
//! - the lock table and a [`Catalog`] of what exists (the fixture, `setup` SQL, the effects
//!   of statements that succeeded);
//! - per session ([`SqlSession`]): default schema, autocommit, whether a transaction is
//!   open and wrote, its LOCK TABLES (tables, modes, tickets), FTWRL, BACKUP STAGE,
//!   HANDLERs, user locks with their counts, `lock_wait_timeout`, the last error;
//! - a clock (milliseconds, moved only by [`SqlModel::advance`]) for timeouts.
//!
//! A statement of the learned table ([`crate::classify::Plan`]) runs as:
//! 1. `mysql_ha_flush` (`sql/sql_handler.cc`, called by `open_tables`): the session's
//!    HANDLERs on which another session waits with a conflicting request are closed;
//! 2. the session rules (learned `rule` rows, [`crate::learn`]): in its own LOCK TABLES,
//!    FTWRL, BACKUP STAGE or with a HANDLER open, the statement may fail with the
//!    server's error, close the HANDLERs on its tables, or (under LOCK TABLES, on tables
//!    locked) use the locks it has with the learned change;
//! 3. otherwise the implicit commit of a kind that commits implicitly (LOCK TABLES also
//!    ends the earlier LOCK TABLES), then its lock requests ([`crate::compose`]) one by
//!    one; a wait leaves the rest for when it is granted;
//! 4. at the end: the catalog's error if an object is missing or already exists (the
//!    server raises it after the locks), the statement's effect, its statement locks
//!    released, and a commit in autocommit mode or for a kind that commits implicitly
//!    (a DML statement then requests what `commit_write` learned).
//!
//! A failed statement (error, timeout, kill, deadlock) gives back every lock it took. A
//! deadlock victim waiting in `open_table` with no lock from before the statement backs
//! off and opens its tables again; with earlier locks it fails and its transaction is
//! rolled back; FTWRL waits again ([`crate::compose::Ctx`]).
//!
//! Control statements follow the server (`sql/sql_parse.cc`, `sql/transaction.cc`,
//! `sql/lock.cc`, `sql/sql_handler.cc`, `sql/item_func.cc`): BEGIN commits and ends LOCK
//! TABLES; COMMIT requests BACKUP_COMMIT when the transaction wrote a transactional
//! table; UNLOCK TABLES ends LOCK TABLES (committing) and FTWRL; HANDLER ... CLOSE,
//! RELEASE_LOCK (counted: GET_LOCK of a held name adds one), RELEASE_ALL_LOCKS release
//! what they name; `SET lock_wait_timeout` and a statement's own `WAIT n` / `NOWAIT` and
//! GET_LOCK's timeout argument bound waits.

mod alter_rename;
mod canon;
mod chain;
mod dialect;
pub mod encode;
mod kill;
mod prepare_ha;
mod prepare_lt;
mod prepared;
mod quiet;
mod replication;
mod savepoint;
mod sequence;
mod temp;
mod trigger_reopen;
mod user_locks;
mod xa;

use super::catalog::{Catalog, Engine};
use super::classify::{classify, AlterCols, Effect, LtMode, Plan, SetTarget, Stmt, Tbl};
use super::compose::{compose, keys, Ctx, Step};
use super::mapping::{Mapping, OpKind};
use mdl_core::key::MdlKey;
use mdl_core::table::{Config, LockTable};
use mdl_core::{Dialect, Duration, LockType, MdlError, Outcome, OwnerId, WaitOption};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// Server error codes the model gives itself (the learned rules give the others).
pub const ER_UNKNOWN_TABLE_HANDLER: u32 = 1109;
pub const ER_NONUNIQ_TABLE: u32 = 1066;
pub const ER_BAD_DB: u32 = 1049;

/// A HANDLER OPEN under a name (alias) no HANDLER of the session has: the learned
/// `handler` rule (E1066, learned opening the same table twice under its own name) is not
/// its rule. mysql_ha_open (sql/sql_handler.cc) looks the new HANDLER's alias up in
/// `thd->handler_tables_hash`; two HANDLERs on one table under different aliases are both
/// open, each with its table's SR (measured: models/conformance/handler-two-aliases.mdl).
fn handler_open_new_alias(p: &super::classify::Part, hs: &[Handler]) -> bool {
    if !p.kind.starts_with("handler_open") {
        return false;
    }
    let Some(t) = &p.bind.t else {
        return false;
    };
    let name = p.bind.alias.as_ref().unwrap_or(&t.name);
    !hs.iter().any(|h| h.alias == *name)
}

/// One HANDLER of a session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Handler {
    pub alias: String,
    pub table: Tbl,
    /// Its table is open (it holds its lock); false after `mysql_ha_flush` closed it
    /// (the next `HANDLER ... READ` opens it again).
    pub open: bool,
}

/// A session's SQL state (see the module documentation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SqlSession {
    pub db: String,
    pub autocommit: bool,
    /// `completion_type`: 0 NO_CHAIN, 1 CHAIN, 2 RELEASE (`model::chain`).
    pub completion_type: u8,
    /// A transaction is open (BEGIN, or a statement since the last commit with
    /// autocommit off).
    pub in_txn: bool,
    /// The open transaction wrote a transactional table (its COMMIT requests
    /// BACKUP_COMMIT).
    pub wrote: bool,
    /// LOCK TABLES in force: the tables and their modes (empty: none).
    pub lock_tables: Vec<(Tbl, LtMode)>,
    /// The tickets LOCK TABLES took (explicit).
    pub lt_locks: Vec<(MdlKey, LockType)>,
    /// FTWRL's lock, when the session holds the global read lock.
    pub ftwrl: Option<(MdlKey, LockType)>,
    /// The BACKUP STAGE kind reached (`backup_start`, ...) and its lock.
    pub backup: Option<(String, MdlKey, LockType)>,
    pub handlers: Vec<Handler>,
    /// User locks and how many times each was taken.
    pub user_locks: BTreeMap<String, u32>,
    /// BACKUP LOCK's ticket (explicit), until BACKUP UNLOCK or the next BACKUP LOCK.
    pub backup_lock: Option<(MdlKey, LockType)>,
    /// `lock_wait_timeout` in seconds; `None`: the server default (waits are unbounded
    /// here).
    pub lock_wait_timeout: Option<u64>,
    /// The server error code of the last statement, when it failed with one.
    pub last_error: Option<u32>,
    /// The savepoints set in the transaction, oldest first, each with whether InnoDB held
    /// locks when it was set (`model::savepoint`).
    pub savepoints: Vec<(String, bool)>,
    /// The tickets of LOCK IN SHARE MODE reads of InnoDB tables (`model::savepoint`).
    pub locking_reads: Vec<mdl_core::lock::TicketId>,
    /// The session's temporary tables (`model::temp`).
    pub temp_tables: Vec<(Tbl, Engine)>,
    /// Those of them that are sequences (`model/sequence.rs`).
    pub temp_sequences: Vec<Tbl>,
    /// The temporary table the running CREATE TEMPORARY TABLE ... LIKE / SELECT makes
    /// when it succeeds.
    pub pending_temp: Option<(Tbl, Engine)>,
    /// The session's prepared statements: name (lower case) and text
    /// (`model::prepared`).
    pub prepared: Vec<(String, String)>,
    /// The result row of the last statement, when it was a SELECT of several user-lock
    /// functions (`model/user_locks.rs`).
    pub last_row: Option<Vec<String>>,
    /// The session's XA transaction: its xid and state (`model::xa`).
    pub xa: Option<(String, xa::XaState)>,
    /// The session named a user variable: the model no longer knows its value
    /// (`model::kill`).
    pub user_vars: bool,
}

impl SqlSession {
    fn new() -> SqlSession {
        SqlSession {
            db: "test".into(),
            autocommit: true,
            completion_type: 0,
            in_txn: false,
            wrote: false,
            lock_tables: Vec::new(),
            lt_locks: Vec::new(),
            ftwrl: None,
            backup: None,
            handlers: Vec::new(),
            user_locks: BTreeMap::new(),
            backup_lock: None,
            lock_wait_timeout: None,
            last_error: None,
            savepoints: Vec::new(),
            locking_reads: Vec::new(),
            temp_tables: Vec::new(),
            temp_sequences: Vec::new(),
            pending_temp: None,
            prepared: Vec::new(),
            user_vars: false,
            last_row: None,
            xa: None,
        }
    }

    pub fn under_lock_tables(&self) -> bool {
        !self.lock_tables.is_empty()
    }
}

/// What the running statement does on success.
#[derive(Clone, Debug)]
enum Then {
    Plan(Box<Plan>),
    /// BEGIN (after its commit).
    Begin,
    Commit,
    /// HANDLER ... READ that opened its table again.
    Reopen(usize),
    /// A statement under LOCK TABLES that is done but for its commit's BACKUP_COMMIT
    /// (ANALYZE of a transactional table: see `SqlModel::lt_apply`); the table whose
    /// commit waits.
    LtCommit(Tbl),
    /// A statement under LOCK TABLES waiting for a lock it takes before it uses the
    /// locked tables (CREATE/DROP TRIGGER's X): then `SqlModel::lt_apply`.
    LtRest(
        Box<Plan>,
        Vec<(super::mapping::RuleRow, super::classify::Bind)>,
    ),
    /// An XA statement (`model::xa`).
    Xa(xa::XaThen),
}

/// A wait in progress.
#[derive(Clone, Debug)]
struct Waiting {
    step: Step,
    /// Model time at which it times out.
    deadline: Option<u64>,
    /// Order of the wait's start (ties of deadlines).
    seq: u64,
    /// A back-off's wait: give the lock back once granted.
    release_after: bool,
    /// The session's tickets when the wait began (the grant adds the new one).
    before: Vec<mdl_core::lock::TicketId>,
}

/// The statement a session runs.
#[derive(Clone, Debug)]
struct Run {
    steps: VecDeque<Step>,
    /// The statement's own steps (after its implicit commit), for a back-off and retry.
    own: Vec<Step>,
    /// Tickets the statement made (id, key), in order; given back when it fails.
    new: Vec<(mdl_core::lock::TicketId, MdlKey)>,
    /// `new.len()` when the current bulk group began.
    group_start: usize,
    waiting: Option<Waiting>,
    /// The session held locks when its own steps began (`m_has_locks`).
    had_locks: bool,
    /// Timeouts: of metadata lock waits, and of GET_LOCK (ms; `None` unbounded).
    timeout: Option<u64>,
    implicit_commit: bool,
    /// The statement writes a transactional table.
    writes: bool,
    then: Then,
    retries: u32,
    /// The key of the step just done, when it was an `open_table` acquire (the table a
    /// protection request that follows belongs to).
    last_open: Option<MdlKey>,
    /// A failure keeps the transaction locks the statement took: an UPDATE (`mysql_update`
    /// and `mysql_multi_update_prepare` open with `open_tables`, which keeps what it took
    /// when it fails; the others use `open_and_lock_tables`: "Don't keep locks for a
    /// failed statement", `rollback_to_savepoint`). Measured: found/seed-356, seed-899,
    /// seed-1074 vs seed-560, seed-580.
    keep_on_error: bool,
    /// It stood aside once already for the others of its batch (`SqlModel::copy_phase`).
    stood_aside: bool,
}

#[derive(Clone, Debug)]
struct Sess {
    id: OwnerId,
    st: SqlSession,
    run: Option<Run>,
    /// A SELECT of several user-lock functions in progress (its GET_LOCK that waits is
    /// `run`).
    ul: Option<user_locks::UserLocksRun>,
}

/// ER_CANT_UPDATE_WITH_READLOCK, ER_BACKUP_LOCK_IS_ACTIVE: `THD::has_read_only_protection`.
const READ_ONLY_PROTECTION: &[u32] = &[1223, 4145];
/// ER_TABLE_NOT_LOCKED, ER_TABLE_NOT_LOCKED_FOR_WRITE.
const ER_TABLE_NOT_LOCKED: u32 = 1100;
const ER_TABLE_NOT_LOCKED_FOR_WRITE: u32 = 1099;

/// The statements whose read-only protection is checked inside `open_table` (DML), or
/// after the locks taken before `lock_table_names` (CREATE/DROP TRIGGER's X). The others
/// (LOCK TABLES, DDL, FTWRL, BACKUP STAGE) are refused before they lock anything.
const DEFERRED_PROTECTION: &[&str] = &[
    "insert",
    // LOAD DATA opens its table with open_and_lock_tables too (mysql_load, sql_load.cc):
    // measured, found/seed-350029 (it waits for the table under its own BACKUP STAGE),
    // found/seed-360510 (ER_NO_SUCH_TABLE first).
    "load_data",
    "update",
    "delete",
    "select_for_update",
    "create_trigger",
    "drop_trigger",
];

/// Does the statement go through open_tables (sql/sql_base.cc), whose start calls
/// `mysql_ha_flush`? Every statement the parser sends to open_and_lock_tables does, with
/// an empty table list too (SELECT, SET, DO); the transaction and HANDLER control
/// statements and USE do not (mysql_execute_command, sql/sql_parse.cc).
fn flushes_handlers(st: &Stmt) -> bool {
    // CALL of a missing procedure (ER_SP_DOES_NOT_EXIST) fails after open_and_lock_tables
    // (SQLCOM_CALL, sql/sql_parse.cc; measured: found/seed-401319).
    if matches!(st, Stmt::Fails(1305)) {
        return true;
    }
    !matches!(
        st,
        Stmt::Begin
            | Stmt::Commit
            | Stmt::Rollback
            | Stmt::UnlockTables
            | Stmt::HandlerClose(_)
            | Stmt::HandlerRead(_)
            | Stmt::BackupUnlock
            | Stmt::Use(_)
            // Refused before open_tables (a syntax error, ...).
            | Stmt::Fails(_)
            // SAVEPOINT, ROLLBACK TO, RELEASE SAVEPOINT, SET TRANSACTION open no table.
            | Stmt::Session(_)
            // XA statements open no table (sql/xa.cc).
            | Stmt::Xa(_)
    ) && !matches!(st, Stmt::Learned(p) if matches!(p.kind.as_str(), "table_backup_lock" | "flush_status"))
    // (BACKUP LOCK takes its table's MDL itself, `backup_lock` in sql/backup.cc, with no
    // open_tables: measured, found/seed-361783, the HANDLER another session's ALTER waits
    // for stays open. HANDLERs are flushed in open_tables (sql_base.cc, mysql_ha_flush):
    // the `flush_status` kinds, FLUSH STATUS / THREADS / ... and RESET QUERY CACHE, run
    // reload_acl_and_cache with no table and open none: found/seed-380298.)
}

/// A learned `handler` rule that gives back the HANDLER's SR: the statement closes the
/// session's HANDLERs on its tables (`mysql_ha_rm_tables`).
fn closes_handler(r: &super::mapping::RuleRow) -> bool {
    r.removed
        .iter()
        .any(|l| l.ns == "TABLE" && l.key == "$t" && l.ty.abbrev() == "SR")
}

/// The tables whose HANDLERs a part's statement closes: `mysql_ha_rm_tables` is given
/// every table the statement names (RENAME's targets too; measured: found/seed-1227).
fn handler_tables(p: &super::classify::Part) -> Vec<Option<Tbl>> {
    let mut v = vec![p.bind.t.clone()];
    if p.bind.t.is_some() && p.bind.n.is_some() {
        v.push(p.bind.n.clone());
    }
    v
}

fn lock_table_names(map: &Mapping, plan: &Plan) -> bool {
    plan.parts.iter().any(|p| {
        map.kind(&p.row)
            .is_some_and(|r| r.ops.iter().any(|o| o.op == OpKind::Bulk))
    })
}

/// Retries of a deadlock victim before the model gives up (the server would loop). More
/// than a DDL weight (100): a victim that waits again (FTWRL weighs 0) grows heavier by
/// one each time (MariaDB's victim overweight) until the other waiter of the cycle is the
/// lighter one (measured: found/seed-70252, GET_LOCK against FTWRL: GET_LOCK's SNW weighs
/// DDL, and after 100 retries of FTWRL it is GET_LOCK that gets ER_LOCK_DEADLOCK).
const MAX_RETRIES: u32 = 1000;

#[derive(Clone, Debug)]
pub struct SqlModel {
    pub d: encode::Shared<Dialect>,
    pub t: LockTable,
    /// Shared: a model is cloned per state by `mdl check`'s SQL search.
    map: std::sync::Arc<Mapping>,
    pub cat: encode::Shared<Catalog>,
    sess: Vec<encode::Shared<Sess>>,
    events: Vec<(usize, Outcome)>,
    now: u64,
    seq: u64,
    /// The session whose step is being played (its woken waits run first).
    fg: Option<usize>,
    /// That session, when its step's `mysql_ha_flush` closed a HANDLER (it held locks
    /// when its statement began: `Run::had_locks`).
    flushed_by: Option<usize>,
    /// The ends of waits `pump` has still to play (the batch one release let in).
    stash: Vec<(OwnerId, Outcome)>,
    /// Sessions that stood aside for the ones their step let in, or the others of their
    /// batch (`pump` resumes them).
    yielded: VecDeque<usize>,
    /// Ends of waits a running statement's request decided that `pump` takes first, as if
    /// still in the table's queue (`retry_victims_now` looks at them before).
    held_back: Vec<(OwnerId, Outcome)>,
    /// The sessions' names in the file (`name_sessions`): `KILL QUERY NAME` names one.
    names: Vec<String>,
}

impl SqlModel {
    pub fn new(map: Mapping) -> SqlModel {
        SqlModel::with_mapping(std::sync::Arc::new(map))
    }

    /// A model over a shared mapping (clones share it).
    pub fn with_mapping(map: std::sync::Arc<Mapping>) -> SqlModel {
        // The table's dialect (`mariadb` for the learned table; `mysql-8.0` for the one
        // written from MySQL 8.0's source): see `mapping::Mapping::dialect`.
        let d = map.dialect();
        SqlModel {
            d: encode::Shared::new(d.clone()),
            t: LockTable::new(std::sync::Arc::new(d), Config::default()),
            map,
            cat: encode::Shared::new(Catalog::fixture()),
            sess: Vec::new(),
            events: Vec::new(),
            now: 0,
            seq: 0,
            fg: None,
            flushed_by: None,
            stash: Vec::new(),
            yielded: VecDeque::new(),
            held_back: Vec::new(),
            names: Vec::new(),
        }
    }

    /// Names the sessions, in order (a scenario's session names): `KILL QUERY NAME` sent
    /// as SQL names its target so (`model::prepared`).
    pub fn name_sessions(&mut self, names: &[String]) {
        self.names = names.to_vec();
    }

    pub fn mapping(&self) -> &Mapping {
        &self.map
    }

    /// The server's `max_write_lock_count` (a scenario's `server_option` or setting), for
    /// the lock table; call before the first [`SqlModel::add_session`] (it starts a new,
    /// empty table).
    pub fn set_max_write_lock_count(&mut self, n: u64) {
        let config = Config {
            max_write_lock_count: n,
        };
        self.t = LockTable::new(std::sync::Arc::new((*self.d).clone()), config);
    }

    pub fn add_session(&mut self) -> usize {
        let id = self.t.add_session();
        self.sess.push(encode::Shared::new(Sess {
            id,
            st: SqlSession::new(),
            run: None,
            ul: None,
        }));
        self.sess.len() - 1
    }

    pub fn sessions(&self) -> usize {
        self.sess.len()
    }

    /// The session's SQL state.
    pub fn session(&self, s: usize) -> &SqlSession {
        &self.sess[s].st
    }

    /// Its statement has not finished (it waits for a lock).
    pub fn is_waiting(&self, s: usize) -> bool {
        self.sess[s].run.is_some()
    }

    /// The model's clock, in milliseconds.
    pub fn now(&self) -> u64 {
        self.now
    }

    /// When session `s`'s wait times out (model time), if it waits with a timeout.
    pub fn wait_deadline(&self, s: usize) -> Option<u64> {
        self.sess[s].run.as_ref()?.waiting.as_ref()?.deadline
    }

    /// A fingerprint of everything that decides what the model does next: the lock
    /// table, the catalog, the clock and each session's state with its statement in
    /// progress (not the mapping, which never changes, nor the counter of waits).
    /// `mdl check`'s SQL search tells states apart by it.
    pub fn fingerprint(&self) -> u64 {
        encode::fingerprint(self)
    }

    /// Outcomes of other sessions' statements that the last call finished.
    pub fn take_events(&mut self) -> Vec<(usize, Outcome)> {
        std::mem::take(&mut self.events)
    }

    /// Runs a `setup: sql` statement: only its effect on the catalog (it takes no lock
    /// that outlives it and is not compared).
    pub fn setup(&mut self, sql: &str) -> Result<(), String> {
        let w: Vec<String> = sql
            .split_whitespace()
            .map(|x| x.to_ascii_lowercase())
            .collect();
        if w.first().is_some_and(|x| x == "use") {
            return Err("`USE` in a setup line: name the schema in each statement".into());
        }
        let is_ddl = matches!(
            w.first().map(String::as_str),
            Some("create" | "drop" | "rename" | "alter" | "truncate")
        );
        let inserts = matches!(w.first().map(String::as_str), Some("insert" | "replace"));
        if !is_ddl && !inserts {
            // SET, ...: data only.
            return Ok(());
        }
        let has = |r: &str| self.map.kind(r).is_some();
        match classify(sql, "test", &self.cat, &has) {
            Ok(Stmt::Learned(p)) if inserts => {
                // Data only, but the table has rows now (`note_rows`).
                self.note_rows(&p);
                Ok(())
            }
            // An INSERT the model does not classify still adds rows: its target may have
            // them (`Catalog::has_no_row` is only ever sure of none).
            _ if inserts => {
                if let Some(t) = w
                    .iter()
                    .position(|x| x == "into")
                    .and_then(|i| w.get(i + 1))
                {
                    let t = Tbl {
                        db: "test".into(),
                        name: t.trim_matches('`').to_owned(),
                    };
                    self.cat.set_no_row(&t, false);
                }
                Ok(())
            }
            Ok(Stmt::Learned(p)) => {
                if let Some(e) = self.cat.error_of(&p.effect) {
                    return Err(format!("`{sql}` fails in the model with error {e}"));
                }
                self.cat.apply(&p.effect);
                self.note_rows(&p);
                Ok(())
            }
            Ok(_) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// What a statement that succeeded did to the rows of its tables, as far as the
    /// model knows them (`Catalog::has_no_row`): TRUNCATE empties its table; INSERT adds
    /// rows (INSERT ... SELECT only from a table that may have rows); CREATE TABLE ...
    /// SELECT of a table that may have rows makes a table with rows (a new table has
    /// none: `Catalog::apply`).
    fn note_rows(&mut self, p: &Plan) {
        let tables = |kind: &str| -> Vec<Tbl> {
            p.parts
                .iter()
                .filter(|x| x.kind == kind)
                .filter_map(|x| x.bind.t.clone())
                .collect()
        };
        let sources_have_rows = || tables("select").iter().any(|t| !self.cat.has_no_row(t));
        match p.kind.as_str() {
            "truncate" => {
                for t in tables("truncate") {
                    self.cat.set_no_row(&t, true);
                }
            }
            "insert" => {
                let rows = p.parts.len() == 1 || sources_have_rows();
                if rows {
                    for t in tables("insert") {
                        self.cat.set_no_row(&t, false);
                    }
                }
            }
            "create_select" => {
                if let Effect::CreateTable { t, .. } = &p.effect {
                    let t = t.clone();
                    if sources_have_rows() {
                        self.cat.set_no_row(&t, false);
                    }
                }
            }
            _ => {}
        }
    }

    fn has_row(&self) -> impl Fn(&str) -> bool + '_ {
        |r: &str| self.map.kind(r).is_some()
    }

    /// Plays one SQL statement of session `s`: its outcome now (`Waiting` when it waits).
    /// `Err` for a statement outside the mapping (nothing changes) or a session whose
    /// previous statement still waits.
    pub fn step(&mut self, s: usize, sql: &str) -> Result<Outcome, String> {
        if self.sess[s].run.is_some() {
            return Err("the session's previous statement is still waiting".into());
        }
        let db = self.sess[s].st.db.clone();
        let st = if self.map.dialect_name() == "mariadb"
            && !cfg!(mdl_bug = "conform_no_syntax_rules")
            && super::classify::mariadb_syntax_error(sql).is_some()
        {
            // A syntax error: the server's parser refuses it before anything runs.
            Stmt::Fails(super::classify::ER_PARSE_ERROR)
        } else if let Some(code) = super::classify::mariadb_parse_error(sql, &db) {
            // Refused before any lock, the transaction kept (classify/parse_errors.rs).
            Stmt::Fails(code)
        } else {
            match self.session_classify(s, sql) {
                Some(st) => st?,
                None => {
                    let has = self.has_row();
                    classify(sql, &db, &self.cat, &has)?
                }
            }
        };
        self.sess[s].st.last_error = None;
        self.sess[s].st.last_row = None;
        if let Some(out) = self.xa_gate(s, &st)? {
            return Ok(out);
        }
        // A statement that opens tables first closes the session's HANDLERs that another
        // session waits for (mysql_ha_flush at the start of open_tables, sql/sql_base.cc;
        // a statement without tables, `SELECT 1` or `SET`, opens its empty list too).
        // Statements that open none keep them: BEGIN, COMMIT, ROLLBACK, UNLOCK TABLES,
        // HANDLER ... READ / CLOSE, BACKUP UNLOCK, USE (`flushes_handlers`), and BACKUP
        // STAGE (backup_start in sql/backup.cc calls no mysql_ha_flush; measured:
        // found/seed-51601). Under the old `mariadb --batch` harness COMMIT and BACKUP
        // STAGE seemed to flush: its end marker, a SELECT, did.
        // (CREATE/DROP TRIGGER take the trigger's X before open_tables, which flushes:
        // mysql_create_or_drop_trigger; their flush follows that lock, `trigger_flush`.
        // Measured: found/seed-71435, DROP TRIGGER waits for the trigger's X with its
        // HANDLER open, a deadlock with the CREATE TRIGGER that waits for the HANDLER.)
        // (FLUSH TABLES of a list takes its tables' locks first, lock_table_names in
        // reload_acl_and_cache: measured, found/seed-91540, a deadlock with a RENAME that
        // waits for its HANDLER.)
        // (DDL that takes its names with lock_table_names or lock_schema_name and opens no
        // table before them does not flush either: mysql_rm_table, mysql_rename_tables,
        // Sql_cmd_truncate_table::truncate_table, mysql_create_db / mysql_rm_db,
        // mysql_drop_view. Measured: found/seed-120364, DROP TABLE IF EXISTS t4 waits for
        // the BACKUP_DDL back-off behind BACKUP STAGE START with its HANDLER open, a
        // deadlock with the ALTER that waits for the HANDLER; so RENAME, TRUNCATE, DROP
        // TABLE t1 and CREATE DATABASE at the same place; ALTER and CREATE TABLE, which
        // go through open_tables, flush and go on.)
        let backup_stage = matches!(&st, Stmt::Learned(p)
            if p.kind.starts_with("backup_")
                || matches!(p.kind.as_str(), "create_trigger" | "drop_trigger" | "flush_table"
                    | "drop" | "rename" | "truncate" | "create_db" | "drop_db" | "drop_view"
                    // flush_tables_with_read_lock (sql_parse.cc): lock_table_names before
                    // open_and_lock_tables; measured: found/seed-191293, a deadlock with an
                    // in-place ALTER that waits for the session's HANDLER.
                    | "ftwrl_table"));
        let flushed = if backup_stage || !flushes_handlers(&st) {
            Vec::new()
        } else {
            self.ha_flush(s)
        };
        self.fg = Some(s);
        self.flushed_by = (!flushed.is_empty()).then_some(s);
        let out = self.statement(s, st, &flushed);
        let mut out = match out {
            Ok(o) => o,
            Err(e) => {
                self.fg = None;
                self.flushed_by = None;
                return Err(e);
            }
        };
        self.pump();
        self.fg = None;
        self.flushed_by = None;
        // A wait the same step ended (the other sessions' statements this one released
        // ran on and let it in): the statement's outcome is where it ended.
        if out == Outcome::Waiting {
            if let Some(i) = self.events.iter().position(|(x, _)| *x == s) {
                out = self.events.remove(i).1;
            }
        }
        Ok(out)
    }

    /// Makes the running statement of `s` take `ty` on `key` next, then give back its
    /// ticket of type `old`: how the model changes a ticket's type where the server's
    /// `MDL_ticket::upgrade_shared_lock` takes any type and ours only a stronger one.
    fn take_then_give_back(
        &mut self,
        s: usize,
        key: &MdlKey,
        ty: LockType,
        dur: Duration,
        old: LockType,
    ) {
        let run = self.sess[s].run.as_mut().expect("running");
        run.steps.push_front(Step::Release {
            key: key.clone(),
            ty: old,
        });
        run.steps.push_front(Step::Acquire {
            key: key.clone(),
            ty,
            dur,
            ctx: Ctx::Plain,
        });
    }

    /// `KILL QUERY` of a session: ends its lock wait (`killed`). False when it does not
    /// wait.
    pub fn kill(&mut self, s: usize) -> bool {
        let k = self.t.kill(self.sess[s].id);
        self.pump();
        k
    }

    /// Moves the clock by `ms`: waits whose timeout passes end with `timeout`, earliest
    /// deadline first (ties: the earlier wait first).
    pub fn advance(&mut self, ms: u64) {
        let end = self.now.saturating_add(ms);
        loop {
            let next = self
                .sess
                .iter()
                .enumerate()
                .filter_map(|(i, x)| {
                    let w = x.run.as_ref()?.waiting.as_ref()?;
                    Some((w.deadline?, w.seq, i))
                })
                .filter(|(dl, _, _)| *dl <= end)
                .min();
            let Some((dl, _, i)) = next else { break };
            self.now = self.now.max(dl);
            if !self.t.timeout(self.sess[i].id) {
                // Not waiting in the lock table (should not happen): end it anyway.
                if let Some(r) = self.sess[i].run.as_mut() {
                    r.waiting = None;
                }
                let o = self.finish(i, Outcome::Timeout);
                let o = self.user_locks_after(i, o);
                if o != Outcome::Waiting {
                    self.events.push((i, o));
                }
            }
            self.pump();
        }
        self.now = end;
    }

    /// Session `s`'s locks in the server tables' words: `TABLE test.t1 SR`, with
    /// ` (pending)` for the one it waits for.
    pub fn locks_of(&self, s: usize) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        let Some(x) = self.t.session(self.sess[s].id) else {
            return out;
        };
        let name = |k: &MdlKey| {
            let ns = &self.d.namespace(k.namespace()).name;
            format!("{ns} {}", super::locks::key_text(ns, k.db(), k.name()))
        };
        for h in x.book.held() {
            out.insert(format!("{} {}", name(&h.key), h.ty));
        }
        if let Some(w) = &x.wait {
            out.insert(format!("{} {} (pending)", name(&w.key), w.ticket.ty));
        }
        out
    }

    // --- statements -------------------------------------------------------------------

    fn fail(&mut self, s: usize, code: u32) -> Outcome {
        self.sess[s].st.last_error = Some(code);
        Outcome::Error
    }

    fn statement(&mut self, s: usize, st: Stmt, flushed: &[usize]) -> Result<Outcome, String> {
        let id = self.sess[s].id;
        Ok(match st {
            Stmt::NoLocks => Outcome::Ok,
            Stmt::Fails(code) => self.fail(s, code),
            Stmt::Session(x) => self.session_stmt(s, x)?,
            Stmt::Xa(x) => self.xa_stmt(s, x)?,
            Stmt::Use(db) => {
                if !self.cat.has_schema(&db) && !super::classify::is_system_schema(&db) {
                    return Ok(self.fail(s, ER_BAD_DB));
                }
                self.sess[s].st.db = db;
                Outcome::Ok
            }
            Stmt::SetTimeout(n) => {
                self.sess[s].st.lock_wait_timeout = Some(n);
                Outcome::Ok
            }
            Stmt::SetAutocommit(on) => {
                // SET autocommit=1 commits an open transaction (sql/sys_vars.cc,
                // fix_autocommit).
                let commit = on && !self.sess[s].st.autocommit && self.sess[s].st.in_txn;
                self.sess[s].st.autocommit = on;
                if commit {
                    return self.start_commit(s, Then::Commit);
                }
                Outcome::Ok
            }
            Stmt::Begin => {
                // trans_begin: ends LOCK TABLES, commits.
                self.unlock_tables(s);
                self.start_commit(s, Then::Begin)?
            }
            Stmt::Commit => self.start_commit(s, Then::Commit)?,
            Stmt::Rollback => {
                let _ = self.t.commit(id);
                self.sess[s].st.in_txn = false;
                self.sess[s].st.wrote = false;
                Outcome::Ok
            }
            Stmt::UnlockTables => {
                // UNLOCK TABLES: ends LOCK TABLES (committing) and FTWRL
                // (sql_parse.cc, SQLCOM_UNLOCK_TABLES).
                let had = self.sess[s].st.under_lock_tables();
                self.unlock_tables(s);
                if let Some((k, t)) = self.sess[s].st.ftwrl.take() {
                    let _ = self.t.release(id, &k, Some(t));
                    self.release_ftwrl_rest(s);
                }
                if had {
                    let _ = self.t.commit(id);
                    self.sess[s].st.in_txn = false;
                    self.sess[s].st.wrote = false;
                }
                Outcome::Ok
            }
            Stmt::HandlerClose(_) | Stmt::HandlerRead(_) if self.sess[s].st.under_lock_tables() => {
                // HANDLER statements are refused in LOCK TABLES mode (sql_handler.cc).
                return Ok(self.fail(s, super::catalog::ER_LOCK_OR_ACTIVE_TRANSACTION));
            }
            Stmt::HandlerClose(name) => {
                let Some(i) = self.handler_index(s, &name) else {
                    return Ok(self.fail(s, ER_UNKNOWN_TABLE_HANDLER));
                };
                let h = self.sess[s].st.handlers.remove(i);
                if h.open {
                    self.release_handler_lock(s, &h.table);
                }
                Outcome::Ok
            }
            Stmt::HandlerRead(name) => {
                let Some(i) = self.handler_index(s, &name) else {
                    return Ok(self.fail(s, ER_UNKNOWN_TABLE_HANDLER));
                };
                let t = self.sess[s].st.handlers[i].table.clone();
                if flushed.contains(&i) {
                    // Closed by this statement's flush: the read goes on without a lock;
                    // the next one opens the table again.
                    Outcome::Ok
                } else if !self.cat.exists(&t) {
                    // The table was dropped under the HANDLER.
                    return Ok(self.fail(s, super::catalog::ER_NO_SUCH_TABLE));
                } else if self.sess[s].st.handlers[i].open {
                    Outcome::Ok
                } else {
                    // Opened again (mysql_ha_read -> mysql_ha_open with reopen).
                    let t = self.sess[s].st.handlers[i].table.clone();
                    let row = if self.cat.engine(&t) == Some(Engine::MyIsam)
                        && self.map.kind("handler_open.myisam").is_some()
                    {
                        "handler_open.myisam"
                    } else {
                        "handler_open"
                    };
                    let plan = Plan {
                        kind: "handler_open".into(),
                        parts: vec![super::classify::Part {
                            row: row.into(),
                            kind: "handler_open".into(),
                            bind: super::classify::Bind {
                                t: Some(t.clone()),
                                ..Default::default()
                            },
                            set_target: Default::default(),
                        }],
                        lock_tables: Vec::new(),
                        wait: None,
                        user_lock_timeout: None,
                        effect: Effect::NeedTables(vec![t]),
                        aliased: None,
                    };
                    let steps = compose(&self.map, &self.d, &self.cat, &plan)?;
                    self.start_run(s, steps, Vec::new(), false, false, None, Then::Reopen(i))
                }
            }
            Stmt::ReleaseLock(n) => {
                let cnt = self.sess[s].st.user_locks.get(&n).copied().unwrap_or(0);
                if cnt > 1 {
                    self.sess[s].st.user_locks.insert(n, cnt - 1);
                } else if cnt == 1 {
                    self.sess[s].st.user_locks.remove(&n);
                    self.release_user_lock(s, &n);
                }
                Outcome::Ok
            }
            Stmt::UserLocks(calls) => self.user_locks_start(s, calls),
            Stmt::ReleaseAllLocks => {
                let names: Vec<String> = self.sess[s].st.user_locks.keys().cloned().collect();
                self.sess[s].st.user_locks.clear();
                for n in names {
                    self.release_user_lock(s, &n);
                }
                Outcome::Ok
            }
            Stmt::BackupUnlock => {
                // BACKUP UNLOCK is SQLCOM_BACKUP_LOCK, which commits implicitly
                // (CF_AUTO_COMMIT_TRANS, sql_parse.cc init_update_queries; measured:
                // found/seed-180864, seed-181136); then backup_unlock (sql/backup.cc) gives
                // back the session's BACKUP LOCK. (When that commit waits for
                // BACKUP_COMMIT, ours gives the BACKUP LOCK back as the wait begins.)
                let o = self.start_commit(s, Then::Commit)?;
                self.backup_unlock(s);
                o
            }
            Stmt::Learned(plan) if plan.kind == "table_backup_lock" => {
                // backup_lock (sql/backup.cc) gives back the previous BACKUP LOCK first.
                self.backup_unlock(s);
                self.run_plan(s, plan)?
            }
            Stmt::Learned(plan) => self.run_plan(s, plan)?,
        })
    }

    /// A BACKUP STAGE that failed (killed, timeout, deadlock) leaves the session at the
    /// last stage it finished (`run_backup_stage`, sql/backup.cc: `current_backup_stage=
    /// previous_stage` for the stage that failed, after the stages before it in the same
    /// statement ran), its lock where that stage left it: a failed upgrade keeps the old
    /// type, and `backup_block_ddl` takes BACKUP_WAIT_FLUSH back down to BACKUP_FLUSH when
    /// its wait for BACKUP_WAIT_DDL fails (`downgrade_lock`: "so that this function can be
    /// called again"). Measured: found/seed-210158 (BLOCK_COMMIT from START killed while
    /// BLOCK_DDL waits: BACKUP_FLUSH, and the session at FLUSH).
    fn backup_stage_failed(&mut self, s: usize) {
        let d = self.d.clone();
        let id = self.sess[s].id;
        let held = self.t.session(id).and_then(|x| {
            x.book
                .held()
                .iter()
                .find(|h| {
                    d.namespace(h.key.namespace()).name == "BACKUP" && h.dur == Duration::Explicit
                })
                .map(|h| (h.key.clone(), h.ty))
        });
        let Some((key, mut ty)) = held else {
            return;
        };
        if ty.abbrev() == "BACKUP_WAIT_FLUSH" {
            let flush = LockType::parse("BACKUP_FLUSH").expect("a backup lock type");
            let _ = self.t.downgrade(id, &key, flush);
            ty = flush;
        }
        let stage = match ty.abbrev() {
            "BACKUP_START" => "backup_start",
            "BACKUP_FLUSH" => "backup_flush",
            "BACKUP_WAIT_DDL" => "backup_block_ddl",
            "BACKUP_WAIT_COMMIT" => "backup_block_commit",
            _ => return,
        };
        self.sess[s].st.backup = Some((stage.to_string(), key, ty));
    }

    fn backup_unlock(&mut self, s: usize) {
        if let Some((k, t)) = self.sess[s].st.backup_lock.take() {
            let _ = self.t.release(self.sess[s].id, &k, Some(t));
        }
    }

    fn handler_index(&self, s: usize, name: &str) -> Option<usize> {
        let hs = &self.sess[s].st.handlers;
        hs.iter().position(|h| h.alias == name).or_else(|| {
            hs.iter()
                .position(|h| h.table.name == name && h.alias == h.table.name)
        })
    }

    /// Closes (and forgets) the session's HANDLERs on `t`, or all of them
    /// (`mysql_ha_rm_tables`, `mysql_ha_cleanup`).
    fn close_handlers_on(&mut self, s: usize, t: Option<&Tbl>) {
        let hs: Vec<usize> = self.sess[s]
            .st
            .handlers
            .iter()
            .enumerate()
            .filter(|(_, h)| t.is_none() || Some(&h.table) == t)
            .map(|(i, _)| i)
            .collect();
        for i in hs.into_iter().rev() {
            let h = self.sess[s].st.handlers.remove(i);
            if h.open {
                self.release_handler_lock(s, &h.table);
            }
        }
    }

    /// Closes every HANDLER of the session and keeps it (`mysql_ha_cleanup_no_free`,
    /// `sql/sql_handler.cc`): the next `HANDLER ... READ` opens its table again.
    fn ha_close_no_free(&mut self, s: usize) {
        for i in 0..self.sess[s].st.handlers.len() {
            if self.sess[s].st.handlers[i].open {
                let t = self.sess[s].st.handlers[i].table.clone();
                self.sess[s].st.handlers[i].open = false;
                self.release_handler_lock(s, &t);
            }
        }
    }

    /// Closes the session's HANDLERs on `t` and keeps them (`mysql_ha_flush_tables`,
    /// `sql/sql_handler.cc`): the next `HANDLER ... READ` opens the table again.
    fn ha_close_keep_on(&mut self, s: usize, t: &Tbl) {
        for i in 0..self.sess[s].st.handlers.len() {
            if self.sess[s].st.handlers[i].open && self.sess[s].st.handlers[i].table == *t {
                self.sess[s].st.handlers[i].open = false;
                self.release_handler_lock(s, t);
            }
        }
    }

    fn handler_key(&self, t: &Tbl) -> MdlKey {
        let n = self.d.namespace_by_name("TABLE").expect("TABLE");
        MdlKey::new(n, &t.db, &t.name)
    }

    fn release_handler_lock(&mut self, s: usize, t: &Tbl) {
        let id = self.sess[s].id;
        let k = self.handler_key(t);
        let sr = LockType::parse("SR").expect("SR");
        // The HANDLER's own ticket (explicit), not the transaction's SR on the same table
        // (mysql_ha_close_table gives MDL_context::release_lock the HANDLER's ticket;
        // measured: found/seed-120193, the transaction's SR goes at its commit, the
        // HANDLER's when another session's wait closes it).
        let own = self.t.session(id).and_then(|x| {
            x.book
                .on_key(&k)
                .filter(|h| h.ty == sr && h.dur == Duration::Explicit)
                .last()
                .map(|h| h.id)
        });
        match own {
            Some(tid) => {
                let _ = self.t.release_ticket(id, tid);
            }
            None => {
                let _ = self.t.release(id, &k, Some(sr));
            }
        }
    }

    fn release_user_lock(&mut self, s: usize, n: &str) {
        let d = self.d.clone();
        let id = self.sess[s].id;
        let ns = self.user_lock_namespace(&d);
        let _ = self.t.release(id, &MdlKey::new(ns, n, ""), None);
    }

    fn unlock_tables(&mut self, s: usize) {
        let id = self.sess[s].id;
        let locks = std::mem::take(&mut self.sess[s].st.lt_locks);
        for (k, t) in locks.iter().rev() {
            if self.t.release(id, k, Some(*t)).is_err() {
                let _ = self.t.release(id, k, None);
            }
        }
        self.sess[s].st.lock_tables.clear();
    }

    /// `mysql_ha_flush`: closes the session's HANDLERs whose lock another session waits
    /// for with a conflicting request; returns the ones it closed.
    fn ha_flush(&mut self, s: usize) -> Vec<usize> {
        self.ha_flush_with(s, false)
    }

    /// A copying ALTER waiting for its X after the copy (a request that follows a slow
    /// phase).
    fn after_copy(&self, owner: OwnerId) -> bool {
        let x = LockType::parse("X").expect("X");
        self.sess.iter().find(|y| y.id == owner).is_some_and(|y| {
            y.run.as_ref().is_some_and(|r| {
                matches!(&r.then, Then::Plan(p) if p.kind == "alter_copy")
                    && r.waiting
                        .as_ref()
                        .is_some_and(|w| matches!(w.step, Step::Upgrade { ty, .. } if ty == x))
            })
        })
    }

    /// `ha_flush`; with `skip_after_copy`, a copying ALTER's X after its copy does not
    /// count (`after_copy`).
    fn ha_flush_with(&mut self, s: usize, skip_after_copy: bool) -> Vec<usize> {
        let sr = LockType::parse("SR").expect("SR");
        let mut close = Vec::new();
        if cfg!(mdl_bug = "conform_no_ha_flush") {
            return close;
        }
        for (i, h) in self.sess[s].st.handlers.iter().enumerate() {
            if !h.open {
                continue;
            }
            let k = self.handler_key(&h.table);
            let st = self.d.strategy(k.namespace());
            let conflict = self.t.lock(&k).is_some_and(|l| {
                l.waiting().iter().any(|w| {
                    w.owner != self.sess[s].id
                        && st.conflicts_granted(w.ty, sr)
                        && !(skip_after_copy && self.after_copy(w.owner))
                })
            });
            if conflict {
                close.push(i);
            }
        }
        for i in &close {
            let t = self.sess[s].st.handlers[*i].table.clone();
            self.sess[s].st.handlers[*i].open = false;
            self.release_handler_lock(s, &t);
        }
        close
    }

    /// COMMIT (or BEGIN's implicit commit): BACKUP_COMMIT first when the transaction
    /// wrote a transactional table.
    fn start_commit(&mut self, s: usize, then: Then) -> Result<Outcome, String> {
        let mut steps = Vec::new();
        if self.sess[s].st.wrote {
            steps = self.commit_steps()?;
        }
        steps.push(Step::Commit);
        Ok(self.start_run(s, steps, Vec::new(), false, false, None, then))
    }

    /// Whether the BACKUP_COMMIT of a transaction that wrote would wait (another
    /// session's FTWRL or BACKUP STAGE BLOCK_COMMIT): then a statement that commits
    /// implicitly waits there, before anything else (measured: found/seed-11852).
    fn commit_would_wait(&self, s: usize) -> Result<bool, String> {
        let me = self.sess[s].id;
        Ok(self.commit_steps()?.iter().any(|st| match st {
            Step::Acquire { key, ty, .. } => {
                let strat = self.d.strategy(key.namespace());
                self.t.lock(key).is_some_and(|l| {
                    l.granted()
                        .iter()
                        .any(|g| g.owner != me && strat.conflicts_granted(*ty, g.ty))
                })
            }
            _ => false,
        }))
    }

    /// Under LOCK TABLES in autocommit mode, a statement that writes a transactional
    /// table still ends with its own commit, which requests BACKUP_COMMIT while the
    /// statement holds its locks: LOCK TABLES begins no transaction (OPTION_BEGIN is not
    /// set), so trans_commit_stmt's ha_commit_trans is a real commit and takes
    /// MDL_BACKUP_COMMIT (sql/handler.cc). Measured: found/lock-tables-concurrent-update-
    /// behind-block-commit.mdl (from `mdl conform --random 150 --seed 20261203`), the
    /// UPDATE under LOCK TABLES ... WRITE CONCURRENT waits behind BACKUP STAGE BLOCK_COMMIT.
    fn lt_autocommit_steps(&self, s: usize, plan: &Plan) -> Result<Vec<Step>, String> {
        let st = &self.sess[s].st;
        let writes = plan.parts.iter().any(|p| {
            matches!(p.kind.as_str(), "insert" | "update" | "delete") && !p.row.ends_with(".myisam")
        });
        if writes && st.autocommit && !st.in_txn {
            self.commit_steps()
        } else {
            Ok(Vec::new())
        }
    }

    /// What COMMIT of a transaction that wrote requests (the `commit_write` kind).
    fn commit_steps(&self) -> Result<Vec<Step>, String> {
        let Some(r) = self.map.kind("commit_write") else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for o in r.ops.iter().filter(|o| o.op == OpKind::Acquire) {
            for key in keys(&self.d, &self.cat, &o.ns, &o.key, &Default::default())? {
                out.push(Step::Acquire {
                    key,
                    ty: o.ty,
                    dur: o.dur,
                    ctx: Ctx::Plain,
                });
            }
        }
        Ok(out)
    }

    /// The session rule of `part` in state `state`: the learned row of its engine
    /// variant, or of the kind.
    fn rule(&self, state: &str, row: &str, kind: &str) -> Result<&super::mapping::RuleRow, String> {
        self.map
            .rule(state, row)
            .or_else(|| self.map.rule(state, kind))
            .ok_or_else(|| {
                format!(
                    "no session rule learned for `{kind}` in state `{state}` (mdl conform --learn)"
                )
            })
    }

    fn run_plan(&mut self, s: usize, plan: Plan) -> Result<Outcome, String> {
        let d = self.d.clone();
        let id = self.sess[s].id;
        let opens_tables = plan
            .parts
            .iter()
            .any(|p| p.bind.t.is_some() || p.bind.v.is_some());
        if plan.kind == "handler_open" {
            if let Some(t) = &plan.parts[0].bind.t {
                let name = plan.parts[0].bind.alias.as_ref().unwrap_or(&t.name);
                if self.sess[s].st.handlers.iter().any(|h| h.alias == *name)
                    && !self.sess[s].st.under_lock_tables()
                {
                    // Not unique table/alias (mysql_ha_open, after it refuses LOCK TABLES:
                    // measured, found/seed-41173).
                    return Ok(self.fail(s, ER_NONUNIQ_TABLE));
                }
            }
        }
        let is_lock = plan.kind.starts_with("lock_");
        if let Some(a) = plan
            .aliased
            .as_ref()
            .filter(|_| self.sess[s].st.under_lock_tables() && !is_lock && opens_tables)
        {
            // (Checked before anything changes: a refused statement changes nothing.)
            return Err(format!(
                "a table named through an alias (`{a}`) under the session's own LOCK TABLES \
                 is not in the model (open_table matches a locked table by its alias): name \
                 the table itself"
            ));
        }
        let row0 = self
            .map
            .kind(&plan.parts[0].row)
            .ok_or_else(|| self.map.missing_kind(&plan.parts[0].row))?;
        // The implicit commit of a transaction that wrote, when its BACKUP_COMMIT would
        // wait: it is played as steps below, before the statement's own (and before the
        // error of a session rule: mysql_execute_command commits, trans_commit_implicit,
        // before it runs the statement, which raises it; measured: found/seed-51620,
        // BACKUP STAGE END with no backup waits there rather than answering
        // ER_BACKUP_WRONG_STAGE).
        let commit_deferred = row0.implicit_commit
            && self.sess[s].st.in_txn
            && !cfg!(mdl_bug = "conform_skip_implicit_commit")
            && self.sess[s].st.wrote
            && self.commit_would_wait(s)?;
        if row0.implicit_commit
            && self.sess[s].st.in_txn
            && !cfg!(mdl_bug = "conform_skip_implicit_commit")
            && !commit_deferred
        {
            // (A transaction that wrote requests BACKUP_COMMIT at this commit; taken as
            // granted here: the statement's own requests below wait if the backup blocks.)
            self.sess[s].st.wrote = false;
            // A statement that commits implicitly commits before it runs
            // (mysql_execute_command: trans_commit_implicit, then the statement), so
            // even one the session rules refuse ends the transaction. (A transaction that
            // wrote commits below, where its BACKUP_COMMIT can wait.)
            let _ = self.t.commit(id);
            self.sess[s].st.in_txn = false;
        }
        // The session rules.
        let mut close_handlers: Vec<Option<Tbl>> = Vec::new();
        let mut lt_deltas = Vec::new();
        let mut errors: Vec<u32> = Vec::new();
        {
            let st = &self.sess[s].st;
            for p in &plan.parts {
                let mut states: Vec<String> = Vec::new();
                // DROP TABLE under LOCK TABLES passes over the tables that do not exist
                // (they give ER_BAD_TABLE at the end).
                // DROP TRIGGER of no trigger answers before any session rule (measured:
                // ok under the session's own LOCK TABLES and FTWRL).
                if p.kind == "drop_trigger"
                    && p.bind
                        .tr
                        .as_ref()
                        .is_some_and(|tr| self.cat.trigger_table(tr).is_none())
                {
                    continue;
                }
                if st.under_lock_tables() {
                    let mode = match &p.bind.t {
                        Some(t) => st.lock_tables.iter().find(|(x, _)| x == t).map(|(_, m)| *m),
                        // A statement that names no table (FLUSH TABLES, FTWRL, BACKUP
                        // STAGE, GET_LOCK) is judged by the locks in force: any READ one
                        // counts (FLUSH TABLES needs every locked table WRITE,
                        // reload_acl_and_cache).
                        None if st.lock_tables.iter().any(|(_, m)| *m == LtMode::Read) => {
                            Some(LtMode::Read)
                        }
                        None if st
                            .lock_tables
                            .iter()
                            .any(|(_, m)| *m == LtMode::WriteConcurrent) =>
                        {
                            Some(LtMode::WriteConcurrent)
                        }
                        None => Some(LtMode::Write),
                    };
                    states.push(
                        match mode {
                            Some(LtMode::Read) => "lt_read",
                            Some(LtMode::Write) => "lt_write",
                            Some(LtMode::WriteConcurrent) => "lt_write_concurrent",
                            None => "lt_other",
                        }
                        .into(),
                    );
                }
                if st.ftwrl.is_some() {
                    if plan.kind == "ftwrl" && st.under_lock_tables() {
                        // reload_acl_and_cache refuses LOCK TABLES first (the rule of the
                        // LOCK TABLES state: ER_LOCK_OR_ACTIVE_TRANSACTION; measured:
                        // found/seed-11207).
                    } else if plan.kind == "ftwrl" {
                        // lock_global_read_lock: a session that has the lock does nothing.
                        return Ok(Outcome::Ok);
                    } else if p.kind.starts_with("backup_") {
                        // BACKUP STAGE looks at the global read lock before LOCK TABLES
                        // (measured: found/seed-356 of the 2000-scenario run).
                        states.insert(0, "ftwrl".into());
                    } else {
                        states.push("ftwrl".into());
                    }
                }
                if let Some((b, _, _)) = &st.backup {
                    states.push(format!("bs_{}", b.trim_start_matches("backup_")));
                } else if p.kind.starts_with("backup_") && p.kind != "backup_start" {
                    // A later stage with no backup running.
                    states.push("idle".into());
                }
                if st.backup_lock.is_some() {
                    // The session's BACKUP LOCK (thd->mdl_backup_lock): its learned rules,
                    // - after those of its BACKUP STAGE (ER_BACKUP_LOCK_IS_ACTIVE first;
                    //   measured: found/seed-181999);
                    // - for LOCK TABLES, before the global read lock's
                    //   (mysql_execute_command, SQLCOM_LOCK_TABLES: ER_LOCK_OR_ACTIVE_TRANSACTION
                    //   for thd->mdl_backup_lock before lock_tables_open_and_lock_tables
                    //   meets FTWRL; measured: found/seed-180461, seed-181401);
                    // - not for the later BACKUP stages while a stage runs: they were learned
                    //   with no backup running (E4146), so the stage's own state decides
                    //   (measured: found/seed-191959, BACKUP STAGE END).
                    let later_stage = p.kind.starts_with("backup_") && p.kind != "backup_start";
                    let ftwrl_at = states.iter().position(|x| x == "ftwrl");
                    if later_stage && st.backup.is_some() {
                        // the stage's state decides
                    } else if let (Some(i), true) = (ftwrl_at, p.kind.starts_with("lock_")) {
                        states.insert(i, "backup_lock".into());
                    } else {
                        states.push("backup_lock".into());
                    }
                }
                let on_handler = st.handlers.iter().any(|h| {
                    h.open
                        && (p.bind.t.is_none()
                            || p.bind.t.as_ref() == Some(&h.table)
                            || p.bind.n.as_ref() == Some(&h.table))
                }) && !handler_open_new_alias(p, &st.handlers);
                // (The learned `handler` rules of the later BACKUP stages are those of a
                // session with no backup running, E4146: the stage's own state decides.
                // Measured: found/seed-41480, seed-41609.)
                if on_handler && (!p.kind.starts_with("backup_") || p.kind == "backup_start") {
                    states.push("handler".into());
                }
                // A HANDLER the session closed and kept (`mysql_ha_flush`, FTWRL's
                // `mysql_ha_cleanup_no_free`) is forgotten by the statements that close an
                // open one: `mysql_ha_rm_tables` (sql/sql_handler.cc) removes the session's
                // HANDLERs on the tables by name, open or not. Measured: found/seed-200108,
                // TRUNCATE TABLE m1 after another statement's start closed m1's HANDLER
                // for a waiting RENAME; HANDLER m1 OPEN is then no duplicate (E1066).
                let on_closed = !on_handler
                    && st.handlers.iter().any(|h| {
                        !h.open
                            && (p.bind.t.as_ref() == Some(&h.table)
                                || p.bind.n.as_ref() == Some(&h.table))
                    });
                if on_closed
                    && self
                        .map
                        .rule("handler", &p.row)
                        .is_some_and(|r| r.error.is_none() && closes_handler(r))
                {
                    close_handlers.extend(handler_tables(p));
                }
                if cfg!(mdl_bug = "conform_no_session_rules") {
                    states.clear();
                }
                for stn in states {
                    // A multi-table UPDATE's table it only reads is checked as read under
                    // the session's LOCK TABLES (classify::SetTarget).
                    let (row, kind) =
                        match p.set_target {
                            SetTarget::No if stn == "lt_read" => {
                                let myisam = p.row.ends_with(".myisam");
                                (if myisam { "select.myisam" } else { "select" }, "select")
                            }
                            SetTarget::Unknown if stn == "lt_read" => {
                                return Err(format!(
                                "a multi-table UPDATE under LOCK TABLES ... READ of one of its \
                                 tables with a SET column not qualified by its table (which \
                                 tables it writes is not known without their columns): \
                                 write `{}`.column",
                                p.bind.t.as_ref().map(|t| t.name.as_str()).unwrap_or("table")
                            ))
                            }
                            _ => (p.row.as_str(), p.kind.as_str()),
                        };
                    let r = self.rule(&stn, row, kind)?;
                    if let Some(code) = r.error {
                        errors.push(code);
                        continue;
                    }
                    if stn == "handler" && closes_handler(r) {
                        close_handlers.extend(handler_tables(p));
                    }
                    if stn.starts_with("lt_") && !is_lock && opens_tables {
                        lt_deltas.push((r.clone(), p.bind.clone()));
                    }
                }
            }
        }
        close_handlers.extend(self.temp_ha_close(s, &plan));
        // A statement made of other kinds' rows (CREATE TABLE ... SELECT) has its own
        // learned rule too: the HANDLERs it closes on the tables it reads.
        if !plan.parts.iter().any(|p| p.kind == plan.kind)
            && self.sess[s].st.handlers.iter().any(|h| h.open)
        {
            if let Some(r) = self.map.rule("handler", &plan.kind) {
                if r.removed
                    .iter()
                    .any(|l| l.ns == "TABLE" && l.key == "$t" && l.ty.abbrev() == "SR")
                {
                    for p in &plan.parts {
                        if p.bind.t.is_some() {
                            close_handlers.push(p.bind.t.clone());
                        }
                    }
                }
            }
        }
        // CREATE TABLE closes the session's HANDLERs on its name, even when the table
        // exists and IF NOT EXISTS makes it do nothing (mysql_ha_rm_tables in
        // Sql_cmd_create_table_like::execute, MariaDB sql/sql_table.cc; MySQL 5.5:
        // sql_parse.cc, SQLCOM_CREATE_TABLE). Measured:
        // suite/handler-closed-by-rename-and-create.mdl.
        if let Effect::CreateTable { t, .. } = plan.effect.inner() {
            close_handlers.push(Some(t.clone()));
        }
        // HANDLERs a statement closes are closed before its own checks (mysql_ha_rm_tables
        // comes first; measured: a CREATE TRIGGER refused under LOCK TABLES still closes
        // the HANDLER on its table).
        // (FTWRL checks the session's backup stage before it closes its HANDLERs:
        // Global_read_lock::lock_global_read_lock; measured: found/seed-950.)
        // (RENAME refuses LOCK TABLES before it closes them: mysql_rename_tables;
        // measured: found/seed-10963.)
        let refused_first = matches!(plan.kind.as_str(), "ftwrl" | "flush_table")
            || (plan.kind == "rename"
                && errors.contains(&super::catalog::ER_LOCK_OR_ACTIVE_TRANSACTION));
        if errors.is_empty() || !refused_first {
            for t in std::mem::take(&mut close_handlers) {
                if plan.kind == "ftwrl" && t.is_none() {
                    // FTWRL closes the session's HANDLERs but keeps them
                    // (Global_read_lock::lock_global_read_lock, sql/lock.cc:
                    // mysql_ha_cleanup_no_free): a later HANDLER ... READ opens the table
                    // again. Measured: found/seed-51438.
                    self.ha_close_no_free(s);
                } else if let (true, Some(t)) = (plan.kind == "flush_table", t.as_ref()) {
                    // FLUSH TABLE t1 closes the session's HANDLERs of its tables and keeps
                    // them (close_cached_tables, sql/sql_base.cc: mysql_ha_flush_tables;
                    // outside LOCK TABLES mysql_ha_flush at the next statement): the
                    // next HANDLER ... READ opens the table again. Measured:
                    // suite/handler-kept-by-flush.mdl.
                    self.ha_close_keep_on(s, t);
                } else {
                    self.close_handlers_on(s, t.as_ref());
                }
            }
        }
        let mut deferred: Option<u32> = None;
        if !errors.is_empty() {
            // Under LOCK TABLES a table that is not locked is found while the tables are
            // opened (ER_TABLE_NOT_LOCKED), before one locked READ is found written
            // (ER_TABLE_NOT_LOCKED_FOR_WRITE, when they are locked): that error first.
            // (DDL under LOCK TABLES looks at its tables one by one: the first error.)
            let code = if lock_table_names(&self.map, &plan) {
                errors[0]
            } else if let Some(c) = errors
                .iter()
                .copied()
                .find(|c| plan.kind == "analyze" && READ_ONLY_PROTECTION.contains(c))
            {
                // ANALYZE TABLE checks the read-only protection before it opens anything
                // (Sql_cmd_analyze_table::execute: thd->has_read_only_protection(); measured:
                // found/seed-10719, ER_CANT_UPDATE_WITH_READLOCK before ER_TABLE_NOT_LOCKED).
                c
            } else {
                errors
                    .iter()
                    .copied()
                    .find(|c| *c == 1100)
                    .unwrap_or(errors[0])
            };
            // (LOCK TABLES checks the session's BACKUP STAGE first, in
            // mysql_execute_command; its own FTWRL only when open_table opens a table for
            // writing: measured, found/seed-1127 and seed-155.)
            // (CREATE/DROP TRIGGER take the trigger's X before they look at LOCK TABLES
            // too: mysql_create_or_drop_trigger, then find_table_for_mdl_upgrade;
            // measured: found/seed-31117, a deadlock on the trigger's X rather than
            // ER_TABLE_NOT_LOCKED.)
            let trigger_lt = matches!(plan.kind.as_str(), "create_trigger" | "drop_trigger")
                && [ER_TABLE_NOT_LOCKED, ER_TABLE_NOT_LOCKED_FOR_WRITE].contains(&code);
            if trigger_lt
                || (READ_ONLY_PROTECTION.contains(&code)
                    && (DEFERRED_PROTECTION.contains(&plan.kind.as_str())
                        || super::model::sequence::writes_sequence(&plan)
                        || (code == 1223 && is_lock)))
            {
                // open_table checks the read-only protection right before the BACKUP lock
                // of the first table it opens for writing: the tables before it are
                // locked (and may be waited for) first; lock_table_names checks it before
                // its group, after the locks taken before (CREATE/DROP TRIGGER's X).
                deferred = Some(code);
            } else if commit_deferred {
                // The implicit commit comes first and waits for BACKUP_COMMIT; the error
                // after it.
                let mut steps = self.commit_steps()?;
                steps.push(Step::Commit);
                steps.push(Step::Fail(code));
                return Ok(self.start_run(s, steps, Vec::new(), true, false, None, Then::Commit));
            } else {
                return Ok(self.fail(s, code));
            }
        }

        if matches!(
            plan.kind.as_str(),
            "backup_block_ddl" | "backup_block_commit"
        ) {
            // BACKUP STAGE BLOCK_DDL (and BLOCK_COMMIT, which passes through it) closes the
            // session's own HANDLERs, keeping them: backup_block_ddl in sql/backup.cc
            // calls mysql_ha_cleanup_no_free first (measured: found/seed-41901,
            // seed-70348; BACKUP STAGE FLUSH keeps them, seed-41480).
            self.ha_close_no_free(s);
        }
        if plan.kind == "flush_tables" && self.sess[s].st.under_lock_tables() {
            // FLUSH TABLES under LOCK TABLES, once it passed the session rules, reopens the
            // locked tables and closes the session's HANDLERs on them (measured:
            // found/seed-1433; found/seed-11266: a HANDLER on another table stays, and
            // one refused with ER_TABLE_NOT_LOCKED_FOR_WRITE closes none). It keeps them
            // (close_cached_tables, sql/sql_base.cc: mysql_ha_flush_tables; measured:
            // suite/handler-closed-by-admin-under-lock-tables.mdl, FLUSH TABLE t1).
            let locked: Vec<Tbl> = self.sess[s]
                .st
                .lock_tables
                .iter()
                .map(|(t, _)| t.clone())
                .collect();
            for t in locked {
                self.ha_close_keep_on(s, &t);
            }
            // Then X on each locked table, and every one back down to SNRW (`lt_x_waits`,
            // `lt_apply`).
            let steps = self.lt_x_waits(s, &plan)?;
            if steps.is_empty() {
                return self.lt_apply(s, &plan, &[]);
            }
            return Ok(self.start_run(
                s,
                steps,
                Vec::new(),
                false,
                false,
                plan.wait.map(|secs| secs.saturating_mul(1000)),
                Then::LtRest(Box::new(plan), Vec::new()),
            ));
        }
        // Under LOCK TABLES a statement on locked tables uses their locks: the learned
        // change, no wait. CREATE/DROP TRIGGER take the trigger's X first, which may
        // wait (mysql_create_or_drop_trigger, sql/sql_trigger.cc: the trigger's MDL before
        // the table's; measured: found/seed-50940, a deadlock with another session's
        // CREATE TRIGGER that holds it and waits for a table this session locked).
        if self.sess[s].st.under_lock_tables() && !is_lock && opens_tables && deferred.is_none() {
            let mut steps = Vec::new();
            if matches!(plan.kind.as_str(), "create_trigger" | "drop_trigger") {
                if let Some(tr) = plan.parts[0].bind.tr.clone() {
                    let n = d.namespace_by_name("TRIGGER").expect("TRIGGER");
                    steps.push(Step::Acquire {
                        key: MdlKey::new(n, &tr.db, &tr.name),
                        ty: LockType::parse("X").expect("X"),
                        dur: Duration::Statement,
                        ctx: Ctx::Plain,
                    });
                }
            }
            steps.extend(self.lt_x_waits(s, &plan)?);
            steps.extend(self.lt_autocommit_steps(s, &plan)?);
            if !steps.is_empty() {
                let timeout = plan.wait.map(|secs| secs.saturating_mul(1000));
                return Ok(self.start_run(
                    s,
                    steps,
                    Vec::new(),
                    false,
                    false,
                    timeout,
                    Then::LtRest(Box::new(plan), lt_deltas),
                ));
            }
            return self.lt_apply(s, &plan, &lt_deltas);
        }
        let row = self
            .map
            .kind(&plan.parts[0].row)
            .ok_or_else(|| self.map.missing_kind(&plan.parts[0].row))?;
        let implicit_commit = row.implicit_commit;
        let trigger_missing = matches!(&plan.effect,
            Effect::DropTrigger { tr, .. } if self.cat.trigger_table(tr).is_none());
        let own = if trigger_missing {
            // Only the trigger's X (the table is not known): see below.
            let n = d.namespace_by_name("TRIGGER").expect("TRIGGER");
            let tr = plan.parts[0].bind.tr.clone().expect("a trigger");
            vec![Step::Acquire {
                key: MdlKey::new(n, &tr.db, &tr.name),
                ty: LockType::parse("X").expect("X"),
                dur: Duration::Statement,
                ctx: Ctx::Plain,
            }]
        } else {
            compose(&self.map, &self.d, &self.cat, &plan)?
        };
        let mut pre = Vec::new();
        if implicit_commit {
            if is_lock || plan.kind == "ftwrl_table" {
                // LOCK TABLES ends the session's earlier LOCK TABLES first (the sessions
                // that lets in do not go first: measured, found/seed-1753).
                self.unlock_tables(s);
            }
            if self.sess[s].st.wrote {
                pre = self.commit_steps()?;
            }
            if !cfg!(mdl_bug = "conform_skip_implicit_commit") {
                pre.push(Step::Commit);
            }
        }
        let writes = plan.parts.iter().any(|p| {
            matches!(p.kind.as_str(), "insert" | "update" | "delete") && !p.row.ends_with(".myisam")
        });
        let timeout = if plan.kind == "get_lock" {
            plan.user_lock_timeout
                .and_then(|ms| (ms != u64::MAX).then_some(ms))
        } else {
            plan.wait
                .or(self.sess[s].st.lock_wait_timeout)
                .map(|secs| secs.saturating_mul(1000))
        };
        let mut own = own;
        if matches!(plan.kind.as_str(), "alter_inplace" | "create_index") {
            // An in-place ALTER of an InnoDB table with no row keeps its X to the end: no
            // move down to SU while the engine rebuilds (measured, 4 runs each way:
            // known-differences/truncated-table-inplace-alter.mdl, after TRUNCATE or
            // CREATE TABLE, also CREATE INDEX; a table with rows, after DELETE too, has the
            // SU phase). The engine's reason was not found in the source read.
            let empty: Vec<MdlKey> = plan
                .parts
                .iter()
                .filter_map(|p| p.bind.t.as_ref())
                .filter(|t| self.cat.has_no_row(t) && self.cat.engine(t) == Some(Engine::InnoDb))
                .map(|t| self.handler_key(t))
                .collect();
            let su = LockType::parse("SU").expect("SU");
            for k in empty {
                let at = own.iter().position(
                    |st| matches!(st, Step::Upgrade { key, ty, .. } if *key == k && *ty == su),
                );
                if let Some(at) = at {
                    // The move down to SU and the X after it.
                    own.remove(at);
                    if matches!(own.get(at), Some(Step::Upgrade { key, .. }) if *key == k) {
                        own.remove(at);
                    }
                }
            }
        }
        let st = &self.sess[s].st;
        if writes && !implicit_commit && st.autocommit && !st.in_txn {
            // The statement's own commit (autocommit) requests BACKUP_COMMIT while the
            // statement still holds its locks (ha_commit_trans before
            // release_statement_locks).
            own.extend(self.commit_steps()?);
        }
        if is_lock || plan.kind == "ftwrl_table" {
            // LOCK TABLES requests its locks for the transaction and makes them explicit
            // once every table is locked (Locked_tables_list::init_locked_tables), so a
            // lock the session already holds explicitly (a HANDLER's) is not reused.
            let tx = |d: Duration| {
                if d == Duration::Explicit {
                    Duration::Transaction
                } else {
                    d
                }
            };
            for st in own.iter_mut() {
                match st {
                    Step::Acquire { dur, .. } | Step::Upgrade { dur, .. } => *dur = tx(*dur),
                    Step::Backoff {
                        dur,
                        group,
                        between,
                        ..
                    } => {
                        *dur = tx(*dur);
                        for g in group.iter_mut() {
                            g.2 = tx(g.2);
                        }
                        for b in between.iter_mut() {
                            if let Step::Upgrade { dur, .. } = b {
                                *dur = tx(*dur);
                            }
                        }
                    }
                    Step::Bulk(group) => {
                        for g in group.iter_mut() {
                            g.2 = tx(g.2);
                        }
                    }
                    _ => {}
                }
            }
        }
        if let Some(code) = deferred {
            let at = if lock_table_names(&self.map, &plan) {
                own.iter().position(|st| matches!(st, Step::Bulk(_)))
            } else {
                // (MySQL 8.0: before the GLOBAL IX it takes first, open_table.)
                own.iter().position(|st| {
                    st.key().is_some_and(|k| {
                        matches!(
                            d.namespace(k.namespace()).name.as_str(),
                            "BACKUP" | "GLOBAL"
                        )
                    })
                })
            }
            .unwrap_or(own.len());
            own.truncate(at);
            own.push(Step::Fail(code));
        }
        if let Effect::CreateTable {
            t, if_not_exists, ..
        }
        // (CREATE SEQUENCE is a CREATE TABLE: Sql_cmd_create_table, sql_table.cc.)
        | Effect::CreateSequence {
            t,
            if_not_exists,
            replace: false,
            ..
        } = plan.effect.inner()
        {
            if self.cat.exists(t) {
                // lock_table_names, upgrade_lock_if_not_exists: the new name exists:
                // ER_TABLE_EXISTS_ERROR (IF NOT EXISTS: a note, the statement stops) once
                // the group is taken, before BACKUP_DDL and the tables it reads.
                if let Some(at) = own.iter().position(|st| matches!(st, Step::Bulk(_))) {
                    own.truncate(at + 1);
                    if !if_not_exists {
                        own.push(Step::Fail(super::catalog::ER_TABLE_EXISTS));
                    }
                }
            }
        }
        if let Effect::Alter {
            t,
            cols: AlterCols::Nothing | AlterCols::Fail(_),
            ..
        } = &plan.effect
        {
            // alter_columns.rs: nothing to do, or an error about the columns, once IX, SU
            // and BACKUP_DDL are taken (mysql_alter_table); the error comes from
            // `Catalog::error_of` at the end.
            let backoff = own.iter().position(|st| matches!(st, Step::Backoff { .. }));
            if let (true, Some(at)) = (self.cat.exists(t), backoff) {
                own.truncate(at + 1);
            }
        }
        self.alter_rename_stops(&plan, &mut own);
        if trigger_missing {
            // mysql_create_or_drop_trigger takes the trigger's X, then finds no trigger:
            // IF EXISTS is a note, otherwise ER_TRG_DOES_NOT_EXIST; nothing else.
            own.truncate(1);
        }
        if plan.kind.starts_with("backup_") && plan.kind != "backup_end" {
            own = self.backup_stages(s, &plan.kind, own);
        }
        let mut steps = pre;
        steps.extend(own.iter().cloned());
        Ok(self.start_run(
            s,
            steps,
            own,
            implicit_commit,
            writes,
            timeout,
            Then::Plan(Box::new(plan)),
        ))
    }

    /// A statement under the session's LOCK TABLES on tables it locked: the learned
    /// change of the session's locks (`lt_deltas`), no wait, and its effect.
    /// Under the session's LOCK TABLES, the statements that change a table's definition
    /// or files move its lock up to X first (`wait_while_table_is_used`, sql/sql_base.cc):
    /// TRUNCATE (`Sql_cmd_truncate_table::lock_table`), ALTER and CREATE INDEX
    /// (`mysql_alter_table`, `mysql_inplace_alter_table`), DROP TABLE
    /// (`mysql_rm_table_no_locks`), REPAIR and OPTIMIZE (`mysql_admin_table`), FLUSH
    /// TABLES of every locked table and FLUSH TABLE of its list (`close_cached_tables`),
    /// CREATE/DROP TRIGGER after the trigger's lock (`mysql_create_or_drop_trigger`). The
    /// learned rules show only where the locks end (SNRW again, or REPAIR's X); the move
    /// up waits for the other sessions' locks that SNRW lets in, S and SH: another
    /// session's BACKUP LOCK of the table. Measured: found/seed-210725 (FLUSH TABLES) and
    /// `lock-tables-x-behind-backup-lock.mdl` (each of the others; ANALYZE and CHECK do
    /// not wait). Each is a wait for X as a ticket of the statement's, given back at its
    /// end, as the server's upgrade ends in a downgrade or in REPAIR's own X (shown
    /// meanwhile as a pending X beside the SNRW, as the server shows it).
    fn lt_x_waits(&self, s: usize, plan: &Plan) -> Result<Vec<Step>, String> {
        const MOVE_UP: &[&str] = &[
            "truncate",
            "alter_copy",
            "alter_inplace",
            "alter_instant",
            "create_index",
            "drop",
            "repair",
            "optimize",
            "flush_tables",
            "flush_table",
            "create_trigger",
            "drop_trigger",
        ];
        if !MOVE_UP.contains(&plan.kind.as_str()) {
            return Ok(Vec::new());
        }
        let st = &self.sess[s].st;
        let tables: Vec<Tbl> = if plan.kind == "flush_tables" {
            st.lock_tables.iter().map(|(t, _)| t.clone()).collect()
        } else {
            plan.parts.iter().filter_map(|p| p.bind.t.clone()).collect()
        };
        let x = LockType::parse("X").expect("X");
        let mut keys_seen: Vec<MdlKey> = Vec::new();
        for t in tables {
            let write = st
                .lock_tables
                .iter()
                .any(|(x, m)| *x == t && *m == LtMode::Write);
            let k = self.handler_key(&t);
            // (An X the session holds already, REPAIR's or OPTIMIZE's, needs no move up.)
            if write && !keys_seen.contains(&k) && !self.holds_type(s, &k, x) {
                keys_seen.push(k);
            }
        }
        Ok(keys_seen
            .into_iter()
            .map(|key| Step::Acquire {
                key,
                ty: x,
                dur: Duration::Statement,
                ctx: Ctx::Plain,
            })
            .collect())
    }

    fn lt_apply(
        &mut self,
        s: usize,
        plan: &Plan,
        lt_deltas: &[(super::mapping::RuleRow, super::classify::Bind)],
    ) -> Result<Outcome, String> {
        let d = self.d.clone();
        let id = self.sess[s].id;
        for (r, b) in lt_deltas {
            // What the statement adds first (REPAIR's X replaces the table's SNRW: an
            // upgrade, so a waiter on the table stays behind it), then what it gives
            // back: only the part's own table locks; the scoped and BACKUP locks stay
            // while a table is locked (they go with the last one, below).
            for l in &r.added {
                for k in keys(&d, &self.cat, &l.ns, &l.key, b)? {
                    let _ = self
                        .t
                        .acquire(id, &k, l.ty, Duration::Explicit, WaitOption::NoWait);
                    self.sess[s].st.lt_locks.push((k, l.ty));
                }
            }
            for l in r.removed.iter().filter(|l| l.ns == "TABLE") {
                for k in keys(&d, &self.cat, &l.ns, &l.key, b)? {
                    let _ = self.t.release(id, &k, Some(l.ty));
                    self.sess[s]
                        .st
                        .lt_locks
                        .retain(|(x, y)| !(*x == k && *y == l.ty));
                }
            }
        }
        if matches!(plan.kind.as_str(), "flush_tables" | "flush_table") {
            // FLUSH TABLES [list] under LOCK TABLES takes every locked table's ticket
            // down to SNRW at its end (close_cached_tables, sql/sql_base.cc, after
            // reopen_tables: downgrade_lock(MDL_SHARED_NO_READ_WRITE) on each open table,
            // not only the flushed ones, which leaves shared ones as they are): the X an
            // earlier REPAIR or OPTIMIZE left (measured: found/seed-171569, FLUSH TABLES;
            // `lock-tables-x-behind-backup-lock.mdl`, FLUSH TABLE m1 after OPTIMIZE lets
            // a waiting BACKUP LOCK of m1 in).
            let x = LockType::parse("X").expect("X");
            let snrw = LockType::parse("SNRW").expect("SNRW");
            for i in 0..self.sess[s].st.lt_locks.len() {
                let (k, t) = self.sess[s].st.lt_locks[i].clone();
                if t == x {
                    let _ = self.t.downgrade(id, &k, snrw);
                    self.sess[s].st.lt_locks[i].1 = snrw;
                }
            }
        }
        if matches!(
            plan.kind.as_str(),
            "truncate" | "alter_copy" | "alter_inplace" | "alter_instant" | "create_index"
        ) {
            // TRUNCATE and ALTER under LOCK TABLES take X and go back down to SNRW at
            // their end (Sql_cmd_truncate_table::truncate_table's m_ticket_downgrade,
            // mysql_alter_table), even from the X an earlier REPAIR left (measured:
            // found/seed-11564).
            let x = LockType::parse("X").expect("X");
            let snrw = LockType::parse("SNRW").expect("SNRW");
            for p in plan.parts.iter().filter(|p| p.bind.t.is_some()) {
                for k in keys(&d, &self.cat, "TABLE", "$t", &p.bind)? {
                    let lt = &mut self.sess[s].st.lt_locks;
                    if let Some(e) = lt.iter_mut().find(|(y, ty)| *y == k && *ty == x) {
                        e.1 = snrw;
                        let _ = self.t.downgrade(id, &k, snrw);
                    }
                }
            }
        }
        if let Some(e) = self.cat.error_of(&plan.effect) {
            return Ok(self.fail(s, e));
        }
        self.cat.apply(&plan.effect);
        self.note_rows(plan);
        // (CREATE TEMPORARY TABLE ... LIKE / SELECT under LOCK TABLES: its table.)
        self.after_plan(s, &plan.kind, &[]);
        if let Effect::DropTables { ts, .. } | Effect::DropSequences { ts, .. } = &plan.effect {
            self.sess[s].st.lock_tables.retain(|(t, _)| !ts.contains(t));
            if self.sess[s].st.lock_tables.is_empty() {
                self.unlock_tables(s);
            }
        }
        // ANALYZE of a transactional table marks its transaction read-write
        // (handler::ha_analyze: mark_trx_read_write), and its end commits
        // (mysql_admin_table: trans_commit_stmt, trans_commit_implicit, which under
        // LOCK TABLES calls ha_commit_trans for the whole transaction,
        // sql/transaction.cc), so ha_commit_trans (sql/handler.cc) requests
        // BACKUP_COMMIT, which waits behind another session's FTWRL or BACKUP STAGE
        // BLOCK_COMMIT. Outside LOCK TABLES that request is the learned row's; here
        // the learned rule shows only what stays. Measured: found/seed-50018,
        // seed-51331, seed-51503.
        let commits = plan.parts.iter().find_map(|p| {
            p.bind
                .t
                .clone()
                .filter(|t| p.kind == "analyze" && self.cat.engine(t) == Some(Engine::InnoDb))
        });
        if let Some(t) = commits {
            let steps = self.commit_steps()?;
            return Ok(self.start_run(s, steps, Vec::new(), false, false, None, Then::LtCommit(t)));
        }
        Ok(Outcome::Ok)
    }

    /// BACKUP STAGE runs every stage between the session's and the one named
    /// (`run_backup_stage`, sql/backup.cc; END jumps there at once), and BLOCK_DDL first
    /// waits for the statements on non-transactional tables (`backup_block_ddl`: the
    /// backup lock up to BACKUP_WAIT_FLUSH, then BACKUP_WAIT_DDL; the learned row shows
    /// only the last). Measured: found/seed-70579 (BLOCK_DDL from START holds
    /// BACKUP_FLUSH and waits for BACKUP_WAIT_FLUSH behind a LOCK TABLES of a MyISAM
    /// table).
    fn backup_stages(&self, s: usize, kind: &str, own: Vec<Step>) -> Vec<Step> {
        const STAGES: &[&str] = &["backup_start", "backup_flush", "backup_block_ddl"];
        let Some((cur, key, _)) = self.sess[s].st.backup.clone() else {
            return own;
        };
        let (Some(from), Some(to)) = (
            STAGES.iter().position(|x| *x == cur),
            STAGES
                .iter()
                .position(|x| *x == kind)
                .or((kind == "backup_block_commit").then_some(STAGES.len())),
        ) else {
            return own;
        };
        let up = |ty: &str| Step::Upgrade {
            key: key.clone(),
            ty: LockType::parse(ty).expect("a backup lock type"),
            dur: Duration::Explicit,
            from: None,
        };
        let mut out = Vec::new();
        for stage in STAGES.iter().take(to).skip(from + 1) {
            match *stage {
                "backup_flush" => out.push(up("BACKUP_FLUSH")),
                _ => {
                    out.push(up("BACKUP_WAIT_FLUSH"));
                    out.push(up("BACKUP_WAIT_DDL"));
                }
            }
        }
        if kind == "backup_block_ddl" {
            // (Then the learned BACKUP_WAIT_DDL.)
            out.push(up("BACKUP_WAIT_FLUSH"));
        }
        out.extend(own);
        out
    }

    #[allow(clippy::too_many_arguments)]
    fn start_run(
        &mut self,
        s: usize,
        steps: Vec<Step>,
        own: Vec<Step>,
        implicit_commit: bool,
        writes: bool,
        timeout: Option<u64>,
        then: Then,
    ) -> Outcome {
        let timeout = timeout.or_else(|| {
            if matches!(then, Then::Plan(ref p) if p.kind == "get_lock") {
                None
            } else {
                self.sess[s]
                    .st
                    .lock_wait_timeout
                    .map(|x| x.saturating_mul(1000))
            }
        });
        // (A HANDLER the statement's own flush closed counts: open_tables makes its
        // Open_table_context, whose m_has_locks is MDL_context::has_locks(), before it
        // calls mysql_ha_flush, sql/sql_base.cc; measured: INSERT ... SELECT is the
        // deadlock victim after its flush let a LOCK TABLES in, and fails with
        // ER_LOCK_DEADLOCK rather than backing off, in the usual order of a race on the
        // server, known-differences/woken-race-130216.mdl.)
        let had_locks = self
            .t
            .session(self.sess[s].id)
            .is_some_and(|x| !x.book.is_empty())
            || self.flushed_by == Some(s);
        self.sess[s].run = Some(Run {
            steps: steps.into(),
            own,
            new: Vec::new(),
            group_start: 0,
            waiting: None,
            had_locks,
            timeout,
            implicit_commit,
            writes,
            keep_on_error: matches!(&then, Then::Plan(p) if p.kind == "update"
                || (matches!(p.effect, Effect::NotPartitioned(_))
                    && matches!(p.kind.as_str(), "load_index" | "cache_index"))),
            then,
            retries: 0,
            last_open: None,
            stood_aside: false,
        });
        self.run(s)
    }

    fn wait_option(&self, timeout: Option<u64>) -> WaitOption {
        match timeout {
            None => WaitOption::Forever,
            Some(ms) => WaitOption::millis(ms),
        }
    }

    fn ids(&self, s: usize) -> Vec<mdl_core::lock::TicketId> {
        self.t
            .session(self.sess[s].id)
            .map(|x| x.book.held().iter().map(|h| h.id).collect())
            .unwrap_or_default()
    }

    fn note_new(&mut self, s: usize, before: &[mdl_core::lock::TicketId], key: &MdlKey) {
        let now = self.ids(s);
        let run = self.sess[s].run.as_mut().expect("running");
        for i in now {
            if !before.contains(&i) && !run.new.iter().any(|(x, _)| *x == i) {
                run.new.push((i, key.clone()));
            }
        }
    }

    /// Runs session `s`'s remaining steps; the statement's outcome so far.
    fn run(&mut self, s: usize) -> Outcome {
        let d = self.d.clone();
        let id = self.sess[s].id;
        loop {
            self.lt_read_engines(s);
            let Some(step) = self.sess[s].run.as_mut().and_then(|r| r.steps.pop_front()) else {
                return self.finish(s, Outcome::Ok);
            };
            if step == Step::Commit {
                // The implicit commit before the statement's own steps. (Whether a session
                // its releases let in runs on before this one opens its tables is a race
                // on the server: known-differences/woken-session-race.mdl.)
                let _ = self.t.commit(id);
                self.sess[s].st.in_txn = false;
                self.sess[s].st.wrote = false;
                let has = self.t.session(id).is_some_and(|x| !x.book.is_empty())
                    || self.flushed_by == Some(s);
                if let Some(r) = self.sess[s].run.as_mut() {
                    r.had_locks = has;
                    r.new.clear();
                }
                continue;
            }
            if let (Step::Upgrade { .. }, Some(Then::Plan(p))) =
                (&step, self.sess[s].run.as_ref().map(|r| &r.then))
            {
                // LOCK TABLES opens every table (open_tables) before lock_tables moves
                // the READ ones to SRO: a missing table is found first (measured:
                // found/seed-11028, ER_NO_SUCH_TABLE rather than a wait for SRO). So
                // does ALTER TABLE (and CREATE INDEX, an ALTER): mysql_alter_table opens
                // the table with its SU before any move up (sql/sql_table.cc; measured:
                // found/seed-250006, no wait for SNW behind a failed UPDATE's SW).
                let opens_first = p.kind.starts_with("lock_")
                    || p.kind.starts_with("alter_")
                    || p.kind.starts_with("create_index");
                if opens_first
                    && self.cat.error_of(&p.effect) == Some(super::catalog::ER_NO_SUCH_TABLE)
                {
                    self.sess[s].st.last_error = Some(super::catalog::ER_NO_SUCH_TABLE);
                    return self.finish(s, Outcome::Error);
                }
            }
            if self.copy_phase(s, &step) && self.stash.is_empty() {
                // The sessions its own implicit commit let in (it is the session whose step
                // is played) are of the same batch: the new table is created before they
                // are done (measured: found/seed-51313, a TRUNCATE of another table let in
                // by the ALTER's commit ends, keeping the HANDLER the ALTER's X waits for,
                // before that X is asked for).
                let ev = self.table_events();
                self.stash.extend(ev);
            }
            if self.copy_phase(s, &step) && !self.stash.is_empty() {
                // A copying ALTER creates the new table (files) before it moves its lock up
                // to SNW (mysql_alter_table, sql/sql_table.cc), which takes real time: the
                // other sessions the same release let in make their requests first
                // (measured: found/seed-61590, a RENAME let in with it asks for X on the
                // table, and the ALTER's move to SNW, behind that pending X, is a deadlock).
                let run = self.sess[s].run.as_mut().expect("running");
                run.stood_aside = true;
                run.steps.push_front(step);
                self.yielded.push_back(s);
                return Outcome::Waiting;
            }
            let timeout = self.sess[s].run.as_ref().and_then(|r| r.timeout);
            let wait = self.wait_option(timeout);
            let before = self.ids(s);
            let r = match &step {
                Step::Bulk(group) => {
                    let run = self.sess[s].run.as_mut().expect("running");
                    run.group_start = run.new.len();
                    for (k, t, du) in group.iter().rev() {
                        run.steps.push_front(Step::Acquire {
                            key: k.clone(),
                            ty: *t,
                            dur: *du,
                            ctx: Ctx::Plain,
                        });
                    }
                    continue;
                }
                Step::Acquire { key, ty, dur, .. } => {
                    // (No DML weight is forced: MariaDB's MDL_context::get_deadlock_weight
                    // is the waiting ticket's weight plus m_deadlock_overweight, sql/mdl.h;
                    // MySQL's set_force_dml_deadlock_weight does not exist there. A wait
                    // for the BACKUP lock weighs DDL, MDL_ticket::get_deadlock_weight in
                    // sql/mdl.cc; measured: found/seed-1794.)
                    let ty = self.protection_type(s, key, *ty);
                    self.t.acquire(id, key, ty, *dur, wait)
                }
                Step::Backoff { key, ty, dur, .. } if cfg!(mdl_bug = "conform_skip_backoff") => {
                    self.t.acquire(id, key, *ty, *dur, wait)
                }
                Step::Backoff {
                    key,
                    ty,
                    dur,
                    group,
                    between,
                } => match self.t.acquire(id, key, *ty, *dur, WaitOption::NoWait) {
                    Ok(Outcome::Busy) if timeout != Some(0) => {
                        // lock_table_names: give back the group, wait for this lock
                        // alone, give it back, take the group again.
                        let start = self.sess[s]
                            .run
                            .as_ref()
                            .map(|r| r.group_start)
                            .unwrap_or(0);
                        self.give_back(s, start);
                        self.sess[s].run.as_mut().expect("running").group_start = start;
                        let w = self.t.acquire(id, key, *ty, *dur, wait);
                        let run = self.sess[s].run.as_mut().expect("running");
                        run.steps.push_front(step.clone());
                        for b in between.iter().rev() {
                            run.steps.push_front(b.clone());
                        }
                        run.steps.push_front(Step::Bulk(group.clone()));
                        match w {
                            Ok(Outcome::Granted) => {
                                let _ = self.t.release(id, key, Some(*ty));
                                continue;
                            }
                            Ok(Outcome::Waiting) => {
                                self.set_waiting(s, step.clone(), true);
                                return Outcome::Waiting;
                            }
                            Ok(Outcome::Deadlock) => {
                                let o = self.deadlocked(s, Ctx::Plain);
                                match o {
                                    Some(o) => return o,
                                    None => continue,
                                }
                            }
                            Ok(o) => return self.finish(s, o),
                            Err(_) => return self.finish(s, Outcome::Error),
                        }
                    }
                    Ok(Outcome::Busy) => Ok(Outcome::Timeout),
                    r => r,
                },
                Step::Upgrade { .. } if cfg!(mdl_bug = "conform_ignore_upgrades") => {
                    Ok(Outcome::Ok)
                }
                Step::Upgrade { key, ty, dur, from }
                    if from.is_some_and(|f| {
                        self.holds_type(s, key, f)
                            && self
                                .t
                                .session(id)
                                .and_then(|x| x.book.strongest(&d, key))
                                .is_some_and(|h| h.ty != f)
                    }) =>
                {
                    // The server upgrades the ticket this statement took (`from`), not
                    // the session's strongest one on the key: a ticket of the new type,
                    // then the old one given back.
                    let f = from.expect("checked");
                    self.take_then_give_back(s, key, *ty, *dur, f);
                    continue;
                }
                Step::Upgrade { key, ty, dur, .. } => {
                    // SW upgraded to SRO (LOCK TABLES t1 WRITE CONCURRENT, t1 AS t2 READ)
                    // becomes SNRW, the type that has both (MDEV-12882, mdl.test).
                    let sw = LockType::parse("SW").expect("SW");
                    let sro = LockType::parse("SRO").expect("SRO");
                    let ty = &if *ty == sro
                        && self
                            .t
                            .session(id)
                            .and_then(|x| x.book.strongest(&d, key))
                            .is_some_and(|h| h.ty == sw)
                    {
                        LockType::parse("SNRW").expect("SNRW")
                    } else {
                        *ty
                    };
                    match self.t.upgrade(id, key, *ty, wait) {
                        Ok(Outcome::Granted)
                            if !self.holds_type(s, key, *ty)
                                && (*ty != LockType::SRO
                                    || self.d.strategy(key.namespace()).upgrade_always) =>
                        {
                            // Our upgrade is a no-op when the held type covers the new one;
                            // the server changes the ticket's type (DDL -> ALTER_COPY,
                            // BLOCK_DDL -> START; an ALTER's X down to SU): that is our
                            // downgrade. Not LOCK TABLES READ's move to SRO: outside the
                            // BACKUP namespace MDL_context::upgrade_shared_lock (sql/mdl.cc)
                            // does nothing when the ticket already has a stronger type, so
                            // LOCK TABLES t1 WRITE, t1 AS x READ keeps SNRW (measured:
                            // models/conformance/lock-tables-same-table-twice.mdl).
                            let _ = self.t.downgrade(id, key, *ty);
                            Ok(Outcome::Granted)
                        }
                        Err(MdlError::NotHeld) => self.t.acquire(id, key, *ty, *dur, wait),
                        Err(MdlError::UpgradeToWeaker { held, .. }) => {
                            // The server's upgrade takes any type; ours only a stronger one:
                            // take the new type, then give the old one back.
                            self.take_then_give_back(s, key, *ty, *dur, held);
                            continue;
                        }
                        r => r,
                    }
                }
                Step::Commit => continue,
                Step::Fail(code) => {
                    self.sess[s].st.last_error = Some(*code);
                    return self.finish(s, Outcome::Error);
                }
                Step::Release { key, ty } => {
                    // The learned type is the one the learner's setup held; a session
                    // that got there another way gives back whatever it holds on the key.
                    if self.t.release(id, key, Some(*ty)).is_err() {
                        let _ = self.t.release(id, key, None);
                    }
                    Ok(Outcome::Ok)
                }
            };
            if matches!(
                step,
                Step::Acquire { .. } | Step::Upgrade { .. } | Step::Backoff { .. }
            ) {
                self.retry_victims_now(s);
            }
            match r {
                Ok(Outcome::Granted) | Ok(Outcome::Ok) => {
                    if let Some(k) = step.key() {
                        let k = k.clone();
                        self.note_new(s, &before, &k);
                    }
                    self.set_last_open(s, &step);
                    if let Some(o) = self.opened_missing(s, &step) {
                        return o;
                    }
                    self.trigger_rebind(s, &step);
                    self.trigger_parts_rebind(s, &step);
                    self.trigger_flush(s, &step);
                    if matches!(step, Step::Backoff { .. }) {
                        if let Some(o) = self.group_missing(s) {
                            return o;
                        }
                        self.lt_write_engines(s);
                    }
                    if self.rebuild_step(s, &step) {
                        // An in-place ALTER goes down to SU while the engine rebuilds the
                        // table (mysql_inplace_alter_table, sql/sql_table.cc), which takes
                        // real time: the sessions that lets in go on first, before it asks
                        // for X again (measured: found/seed-50056, LOCK TABLES t1 READ gets
                        // SRO meanwhile, and the ALTER waits behind it, no deadlock); so do
                        // the others of the batch it was let in with (found/seed-121011: a
                        // SELECT let in with it ends, and the LOCK TABLES waiting for it gets
                        // SRO on the ALTER's table before the ALTER's last X).
                        let ev = self.table_events();
                        if !ev.is_empty() || !self.stash.is_empty() {
                            self.stash.extend(ev);
                            self.yielded.push_back(s);
                            return Outcome::Waiting;
                        }
                    }
                }
                Ok(Outcome::Waiting) => {
                    self.set_waiting(s, step, false);
                    return Outcome::Waiting;
                }
                Ok(Outcome::Deadlock) => {
                    let ctx = self.ctx_of(s, &step);
                    // Put the step back: a retry takes it again.
                    self.sess[s]
                        .run
                        .as_mut()
                        .expect("running")
                        .steps
                        .push_front(step);
                    let backs_off = ctx == Ctx::OpenTable
                        && self.sess[s].run.as_ref().is_some_and(|r| !r.had_locks);
                    match self.deadlocked(s, ctx) {
                        Some(o) => return o,
                        None if backs_off => {
                            // A victim that backs off opens its tables again only after
                            // the sessions its release let in have gone on: it gives back
                            // (`close_tables_for_reopen`) and then starts `open_tables`
                            // over, while they run on at once. Measured (16 of 19 runs;
                            // a race on the server): known-differences/woken-race-201610,
                            // LOCK TABLES t2 WRITE, t1 READ, the victim, gives back its
                            // SNRW on t2; the other LOCK TABLES, let in, moves its t2 to
                            // SRO before the victim asks for SNRW on t2 again, which then
                            // waits (ours asked first and was a victim again).
                            let ev = self.table_events();
                            if ev.is_empty() && self.stash.is_empty() {
                                continue;
                            }
                            self.stash.extend(ev);
                            self.yielded.push_back(s);
                            return Outcome::Waiting;
                        }
                        None => continue,
                    }
                }
                Ok(o) => return self.finish(s, o),
                Err(_) => return self.finish(s, Outcome::Error),
            }
        }
    }

    /// LOCK TABLES ... WRITE of a MyISAM table also takes BACKUP_DML once the table is
    /// open (the learned `lock_write.myisam` row; InnoDB's `lock_write` takes none), by
    /// the engine of the table it opened: a RENAME it waited for may have put a table of
    /// the other engine under the name since the statement was classified (measured:
    /// found/seed-251009, LOCK TABLES t1 WRITE, t2 READ LOCAL after a RENAME moved MyISAM
    /// m1 to t1 holds BACKUP_DML). Called when the WRITE tables' group is granted; the
    /// protection is asked for first among the steps left (the tables are opened in
    /// statement order, so this is exact when the first table opened is the WRITE one).
    /// A statement with WRITE CONCURRENT tables, which take their own protection, is left
    /// as learned.
    fn lt_write_engines(&mut self, s: usize) {
        let Some(run) = self.sess[s].run.as_ref() else {
            return;
        };
        let Then::Plan(p) = &run.then else {
            return;
        };
        if !p.kind.starts_with("lock_")
            || p.lock_tables
                .iter()
                .any(|(_, m)| *m == LtMode::WriteConcurrent)
        {
            return;
        }
        let dml = LockType::parse("BACKUP_DML").expect("type");
        let myisam_write = p
            .lock_tables
            .iter()
            .any(|(t, m)| *m == LtMode::Write && self.cat.engine(t) == Some(Engine::MyIsam));
        let is_dml = |st: &Step| {
            matches!(st, Step::Acquire { key, ty, .. }
                if *ty == dml && self.d.namespace(key.namespace()).name == "BACKUP")
        };
        let planned = run.steps.iter().any(is_dml);
        let backup = MdlKey::parse(&self.d, "BACKUP", "-").expect("BACKUP key");
        if myisam_write && !planned && !self.holds_type(s, &backup, dml) {
            let run = self.sess[s].run.as_mut().expect("running");
            run.steps.push_front(Step::Acquire {
                key: backup,
                ty: dml,
                dur: Duration::Explicit,
                ctx: Ctx::Plain,
            });
        } else if !myisam_write && planned {
            let run = self.sess[s].run.as_mut().expect("running");
            let rest: VecDeque<Step> = run.steps.drain(..).filter(|st| !is_dml(st)).collect();
            run.steps = rest;
        }
    }

    /// LOCK TABLES, once every table is open, moves its READ tables to SRO by the engine of
    /// the table it opened (InnoDB: SR to SRO; MyISAM keeps SR, its THR_LOCK does the
    /// rest; the learned `lock_read` and `lock_read.myisam` rows): a RENAME it waited for
    /// may have put a table of another engine under the name since the statement was
    /// classified (measured: found/seed-141174, LOCK TABLES m1 READ after a RENAME moved
    /// InnoDB t2 to m1 holds SRO on m1; found/seed-20484 (once a known limit of the model)
    /// the same with READ LOCAL). Changes the pending upgrades only when an engine changed.
    fn lt_read_engines(&mut self, s: usize) {
        let Some(run) = self.sess[s].run.as_ref() else {
            return;
        };
        let Then::Plan(p) = &run.then else {
            return;
        };
        let opening = run.steps.iter().any(|st| {
            matches!(
                st,
                Step::Acquire { .. } | Step::Bulk(_) | Step::Backoff { .. } | Step::Commit
            )
        });
        if !p.kind.starts_with("lock_") || opening {
            return;
        }
        let sro = LockType::SRO;
        let changed = p.parts.iter().any(|part| {
            part.kind.starts_with("lock_read")
                && part.bind.t.as_ref().is_some_and(|t| {
                    let was_myisam = part.row.ends_with(".myisam");
                    match self.cat.engine(t) {
                        Some(Engine::InnoDb) => was_myisam,
                        Some(_) => !was_myisam,
                        None => false,
                    }
                })
        });
        if !changed {
            return;
        }
        let wanted: Vec<MdlKey> = p
            .lock_tables
            .iter()
            .filter(|(t, m)| *m == LtMode::Read && self.cat.engine(t) == Some(Engine::InnoDb))
            .map(|(t, _)| self.handler_key(t))
            .filter(|k| !self.holds_type(s, k, sro))
            .collect();
        let is_sro = |st: &Step| {
            matches!(st, Step::Upgrade { key, ty, .. }
                if *ty == sro && self.d.namespace(key.namespace()).name == "TABLE")
        };
        let run = self.sess[s].run.as_mut().expect("running");
        let mut rest: VecDeque<Step> = run.steps.drain(..).filter(|st| !is_sro(st)).collect();
        for k in wanted.into_iter().rev() {
            rest.push_front(Step::Upgrade {
                key: k,
                ty: sro,
                dur: Duration::Transaction,
                from: None,
            });
        }
        run.steps = rest;
    }

    /// open_table's protection request is BACKUP_TRANS_DML for a transactional table and
    /// BACKUP_DML otherwise (`table->file->has_transactions()`), decided when the table is
    /// open: its engine now, not when the statement was classified (a RENAME may have
    /// put another table under the name meanwhile; measured: found/seed-1602).
    fn protection_type(&self, s: usize, key: &MdlKey, ty: LockType) -> LockType {
        let (dml, trans) = (
            LockType::parse("BACKUP_DML").expect("type"),
            LockType::parse("BACKUP_TRANS_DML").expect("type"),
        );
        if self.d.namespace(key.namespace()).name != "BACKUP" || (ty != dml && ty != trans) {
            return ty;
        }
        // Whose protection it is: the `$t` of a part whose learned row takes it (LOCK
        // TABLES t2 READ, m1 WRITE: m1's, though t2 is opened after m1's group; measured:
        // found/seed-35-2.mdl); of several, the one opened right before it (DML: the
        // table's lock, then its protection).
        let Some(run) = self.sess[s].run.as_ref() else {
            return ty;
        };
        let Then::Plan(plan) = &run.then else {
            return ty;
        };
        let owners: Vec<&Tbl> = plan
            .parts
            .iter()
            .filter(|p| {
                self.map.kind(&p.row).is_some_and(|r| {
                    r.ops
                        .iter()
                        .any(|o| o.ns == "BACKUP" && (o.ty == dml || o.ty == trans))
                })
            })
            .filter_map(|p| p.bind.t.as_ref())
            .collect();
        let last = run.last_open.as_ref().map(|k| Tbl {
            db: k.db().to_owned(),
            name: k.name().to_owned(),
        });
        let owner = match last {
            Some(l) if owners.contains(&&l) => Some(l),
            _ if owners.len() == 1 => Some(owners[0].clone()),
            _ => None,
        };
        match owner.and_then(|t| self.cat.engine(&t)) {
            Some(Engine::InnoDb) => trans,
            Some(_) => dml,
            None => ty,
        }
    }

    /// LOCK TABLES once lock_table_names took its WRITE tables: open_tables opens the
    /// tables in statement order, so a missing WRITE table that comes before the first
    /// table opened with a lock of its own (READ, WRITE CONCURRENT) ends the statement
    /// with ER_NO_SUCH_TABLE before that table's lock is asked for (measured:
    /// found/seed-80028, LOCK TABLES t1 WRITE, m1 READ with t1 renamed away does not
    /// wait for m1).
    fn group_missing(&mut self, s: usize) -> Option<Outcome> {
        let run = self.sess[s].run.as_ref()?;
        let Then::Plan(p) = &run.then else {
            return None;
        };
        if !p.kind.starts_with("lock_") {
            return None;
        }
        let missing = p
            .lock_tables
            .iter()
            .take_while(|(_, m)| *m == LtMode::Write)
            .any(|(t, _)| !self.cat.exists(t));
        if !missing {
            return None;
        }
        self.sess[s].st.last_error = Some(super::catalog::ER_NO_SUCH_TABLE);
        Some(self.finish(s, Outcome::Error))
    }

    /// DROP TRIGGER once the trigger's X is granted: it looks for the trigger's table only
    /// now (mysql_create_or_drop_trigger, sql/sql_trigger.cc: the trigger's MDL first,
    /// then `add_table_for_trigger`), so a trigger another session created or dropped
    /// while this one waited for its X decides which table it locks, if any. The steps
    /// left are composed again for the table of now (measured: DROP TRIGGER IF EXISTS of
    /// a trigger a waiting CREATE TRIGGER then made asks for SNW on its table, behind a
    /// LOCK TABLES ... WRITE CONCURRENT, in 9 of 10 runs of
    /// known-differences/woken-race-251249.mdl; a race on the server).
    fn trigger_rebind(&mut self, s: usize, step: &Step) {
        let Step::Acquire { key, .. } = step else {
            return;
        };
        if self.d.namespace(key.namespace()).name != "TRIGGER" {
            return;
        }
        let Some(run) = self.sess[s].run.as_ref() else {
            return;
        };
        let Then::Plan(p) = &run.then else {
            return;
        };
        if p.kind != "drop_trigger" || p.parts.len() != 1 {
            return;
        }
        let Some(tr) = p.parts[0].bind.tr.clone() else {
            return;
        };
        let now = self.cat.trigger_table(&tr);
        if now == p.parts[0].bind.t {
            return;
        }
        let mut plan = p.clone();
        plan.parts[0].bind.t = now.clone();
        plan.parts[0].row = match &now {
            Some(t)
                if self.cat.engine(t) == Some(Engine::MyIsam)
                    && self.map.kind("drop_trigger.myisam").is_some() =>
            {
                "drop_trigger.myisam".to_owned()
            }
            _ => "drop_trigger".to_owned(),
        };
        let Ok(steps) = compose(&self.map, &self.d, &self.cat, &plan) else {
            return;
        };
        // The trigger's X is held: the steps after it.
        let Some(at) = steps.iter().position(|x| {
            matches!(x, Step::Acquire { key: k, .. }
                if self.d.namespace(k.namespace()).name == "TRIGGER")
        }) else {
            return;
        };
        let rest: VecDeque<Step> = steps.into_iter().skip(at + 1).collect();
        let run = self.sess[s].run.as_mut().expect("running");
        run.steps = rest;
        run.then = Then::Plan(plan);
    }

    /// CREATE/DROP TRIGGER once the trigger's X is granted: open_tables' mysql_ha_flush
    /// (the HANDLERs another session waits for are closed).
    fn trigger_flush(&mut self, s: usize, step: &Step) {
        let Step::Acquire { key, .. } = step else {
            return;
        };
        let trigger = self.d.namespace(key.namespace()).name == "TRIGGER"
            && self.sess[s].run.as_ref().is_some_and(|r| {
                matches!(&r.then, Then::Plan(p)
                    if matches!(p.kind.as_str(), "create_trigger" | "drop_trigger"))
            });
        if trigger {
            self.ha_flush(s);
        }
    }

    /// The step is a copying ALTER's move up to SNW (after it created the new table), or
    /// an in-place ALTER's first move up to X (after mysql_alter_table prepared the new
    /// definition and asked the engine what it can do, sql/sql_table.cc, before
    /// mysql_inplace_alter_table; measured: found/seed-120340, a LOCK TABLES and an INSERT
    /// let in with CREATE INDEX are done before its X), and the statement has not stood
    /// aside yet.
    fn copy_phase(&self, s: usize, step: &Step) -> bool {
        let Step::Upgrade { key, ty, .. } = step else {
            return false;
        };
        let (snw, x, su) = (
            LockType::parse("SNW").expect("SNW"),
            LockType::parse("X").expect("X"),
            LockType::parse("SU").expect("SU"),
        );
        let ns = self.d.namespace(key.namespace()).name.as_str();
        // FLUSH TABLES WITH READ LOCK closes every table between its two locks
        // (lock_global_read_lock, then close_cached_tables, which waits for the tables
        // other statements have open, sql/sql_reload.cc reload_acl_and_cache, then
        // make_global_read_lock_block_commit): the statements let in with it end, and
        // commit, before it blocks commits (measured, in 22 of 23 runs:
        // known-differences/woken-race-151733.mdl, an ANALYZE let in with it commits,
        // with BACKUP_COMMIT, before its BACKUP_FTWRL2).
        if ns == "BACKUP" {
            return ty.abbrev() == "BACKUP_FTWRL2"
                && self.sess[s].run.as_ref().is_some_and(|r| {
                    !r.stood_aside && matches!(&r.then, Then::Plan(p) if p.kind == "ftwrl")
                });
        }
        ns == "TABLE"
            && self.sess[s].run.as_ref().is_some_and(|r| {
                !r.stood_aside
                    && match &r.then {
                        Then::Plan(p) if p.kind == "alter_copy" => *ty == snw,
                        // (The first X: the move down to SU for the rebuild follows.)
                        Then::Plan(p)
                            if matches!(p.kind.as_str(), "alter_inplace" | "create_index") =>
                        {
                            *ty == x
                                && r.steps.iter().any(|st| {
                                    matches!(st, Step::Upgrade { key: k, ty: t, .. }
                                        if k == key && *t == su)
                                })
                        }
                        _ => false,
                    }
            })
    }

    /// The step is an in-place ALTER's move down to SU before the engine's rebuild (the
    /// learned `upgrade ... SU` after its first X, written from mysql_inplace_alter_table).
    fn rebuild_step(&self, s: usize, step: &Step) -> bool {
        let Step::Upgrade { key, ty, .. } = step else {
            return false;
        };
        *ty == LockType::parse("SU").expect("SU")
            && self.d.namespace(key.namespace()).name == "TABLE"
            && self.sess[s].run.as_ref().is_some_and(|r| {
                matches!(&r.then, Then::Plan(p)
                    if matches!(p.kind.as_str(), "alter_inplace" | "create_index"))
            })
    }

    fn set_last_open(&mut self, s: usize, step: &Step) {
        let k = match step {
            Step::Acquire {
                key,
                ctx: Ctx::OpenTable,
                ..
            } => Some(key.clone()),
            _ => None,
        };
        if let Some(r) = self.sess[s].run.as_mut() {
            r.last_open = k;
        }
    }

    /// `open_table`: right after its lock, a table that does not exist ends the
    /// statement with ER_NO_SUCH_TABLE (before its BACKUP lock and the read-only
    /// protection check).
    fn opened_missing(&mut self, s: usize, step: &Step) -> Option<Outcome> {
        let Step::Acquire {
            key,
            ctx: Ctx::OpenTable,
            ..
        } = step
        else {
            return None;
        };
        if self.d.namespace(key.namespace()).name != "TABLE" {
            return None;
        }
        let t = Tbl {
            db: key.db().to_owned(),
            name: key.name().to_owned(),
        };
        if self.cat.exists(&t) {
            return None;
        }
        // (A sequence's own error: `model/sequence.rs`.)
        let code = self.missing_code(s, &t)?;
        self.sess[s].st.last_error = Some(code);
        Some(self.finish(s, Outcome::Error))
    }

    fn set_waiting(&mut self, s: usize, step: Step, release_after: bool) {
        self.seq += 1;
        let seq = self.seq;
        let now = self.now;
        let before = self.ids(s);
        let run = self.sess[s].run.as_mut().expect("running");
        let deadline = run.timeout.map(|ms| now.saturating_add(ms));
        run.waiting = Some(Waiting {
            step,
            deadline,
            seq,
            release_after,
            before,
        });
    }

    /// How a deadlock that picks `s` as the victim during `step` ends.
    fn ctx_of(&self, s: usize, step: &Step) -> Ctx {
        match step {
            Step::Acquire { ctx, .. } => *ctx,
            // LOCK TABLES ... READ's move from SR to SRO is not given up when its session
            // is the victim: it waits again, heavier by the victim's overweight
            // (m_deadlock_overweight), so that the other waiter of the cycle is the victim
            // next. Measured: found/seed-328.mdl, seed-745.mdl (a DML statement waiting for
            // the BACKUP lock behind the session's FTWRL is the victim and retries), while
            // FLUSH TABLES t1 WITH READ LOCK, at the same place, is the victim itself
            // (found/seed-1794.mdl; ties go to the session that began the search:
            // Deadlock_detection_visitor::opt_change_victim_to, sql/mdl.cc).
            // A session that held no lock before the statement backs off and opens its
            // tables again instead (OT_BACKOFF_AND_RETRY, Open_table_context in
            // sql/sql_base.cc; measured: found/seed-90532, LOCK TABLES t2 READ, t1 WRITE
            // CONCURRENT gives way to the RENAME of t2 it deadlocked with, then finds no
            // t2).
            Step::Upgrade { ty, .. }
                if *ty == LockType::SRO
                    && self.sess[s].run.as_ref().is_some_and(
                        |r| matches!(&r.then, Then::Plan(p) if p.kind.starts_with("lock_")),
                    ) =>
            {
                if self.sess[s].run.as_ref().is_some_and(|r| r.had_locks) {
                    Ctx::Retry
                } else {
                    Ctx::OpenTable
                }
            }
            // BACKUP STAGE BLOCK_DDL's wait for the running DDL (`backup_block_ddl`).
            Step::Upgrade { ty, .. }
                if *ty == LockType::parse("BACKUP_WAIT_DDL").expect("a backup lock type")
                    && self.sess[s].run.as_ref().is_some_and(
                        |r| matches!(&r.then, Then::Plan(p) if p.kind.starts_with("backup_block_")),
                    ) =>
            {
                Ctx::BlockDdl
            }
            _ => Ctx::Plain,
        }
    }

    /// The session was chosen as a deadlock victim while it ran `ctx`'s request (the
    /// request is first in its steps). `None`: it goes on (back-off and retry, or FTWRL's
    /// wait again); `Some(outcome)`: the statement ended.
    fn deadlocked(&mut self, s: usize, ctx: Ctx) -> Option<Outcome> {
        let run = self.sess[s].run.as_mut().expect("running");
        run.waiting = None;
        run.retries += 1;
        let give_up = run.retries > MAX_RETRIES;
        match ctx {
            _ if give_up => Some(self.finish(s, Outcome::Deadlock)),
            Ctx::Retry => None,
            Ctx::OpenTable if !run.had_locks => {
                // OT_BACKOFF_AND_RETRY: give back the statement's locks, open again.
                let own = run.own.clone();
                self.give_back(s, 0);
                let run = self.sess[s].run.as_mut().expect("running");
                run.steps = own.into();
                run.group_start = 0;
                None
            }
            Ctx::OpenTable => {
                let o = self.finish(s, Outcome::Deadlock);
                // request_backoff_action: the transaction is rolled back.
                let _ = self.t.commit(self.sess[s].id);
                self.sess[s].st.in_txn = false;
                self.sess[s].st.wrote = false;
                Some(o)
            }
            Ctx::BlockDdl if run.retries <= super::compose::BLOCK_DDL_RETRIES => {
                // (The server sleeps 0.1 s, 0.5 s, ... before it tries again; the model
                // tries at once: nothing the cycle's other sessions do depends on it.)
                None
            }
            // The last try failed (`backup_stage_failed` takes the lock back down).
            Ctx::BlockDdl => Some(self.finish(s, Outcome::Deadlock)),
            Ctx::Plain => Some(self.finish(s, Outcome::Deadlock)),
        }
    }

    /// The ends of waits the table decided and `pump` has not played yet, in order.
    fn table_events(&mut self) -> Vec<(OwnerId, Outcome)> {
        let mut ev = std::mem::take(&mut self.held_back);
        ev.extend(self.t.take_events());
        ev
    }

    /// Another session that `s`'s request made a deadlock victim and whose statement
    /// asks again at once (`Ctx::Retry`: FTWRL, `lock_global_read_lock`'s loop; LOCK
    /// TABLES READ's move to SRO) asks now, before `s` goes on: the server wakes it at
    /// once, and its new request is queued while `s` still works (measured:
    /// found/seed-211601, FTWRL the victim of a copying ALTER's move from
    /// BACKUP_ALTER_COPY back to BACKUP_DDL; it asks for BACKUP_FTWRL1 again before the
    /// ALTER ends, so it is granted at that end, ahead of a LOCK TABLES waiting for the
    /// ALTER's table). The other ends of waits stay for `pump`, in their order.
    fn retry_victims_now(&mut self, s: usize) {
        let ev = self.t.take_events(); // (only the new ones: `held_back` keeps the rest)
        for (owner, o) in ev {
            let v = self.sess.iter().position(|x| x.id == owner);
            let retry = o == Outcome::Deadlock
                && v.is_some_and(|v| {
                    v != s
                        && self.sess[v].run.as_ref().is_some_and(|r| {
                            r.retries < MAX_RETRIES
                                && r.waiting.as_ref().is_some_and(|w| {
                                    !w.release_after && self.ctx_of(v, &w.step) == Ctx::Retry
                                })
                        })
                });
            let Some(v) = v.filter(|_| retry) else {
                self.held_back.push((owner, o));
                continue;
            };
            let run = self.sess[v].run.as_mut().expect("running");
            let w = run.waiting.take().expect("waiting");
            run.steps.push_front(w.step);
            if self.deadlocked(v, Ctx::Retry).is_none() {
                let out = self.run(v);
                let out = self.user_locks_after(v, out);
                if out != Outcome::Waiting {
                    self.events.push((v, out));
                }
            }
        }
    }

    /// A victim whose statement backs off and opens its tables again (`Ctx::OpenTable`
    /// with no lock held before it): gives back its locks now and sets its steps for the
    /// retry; `false` (nothing done) for any other victim.
    fn back_off_now(&mut self, owner: OwnerId) -> bool {
        let Some(s) = self.sess.iter().position(|x| x.id == owner) else {
            return false;
        };
        let Some(w) = self.sess[s].run.as_ref().and_then(|r| r.waiting.clone()) else {
            return false;
        };
        let run = self.sess[s].run.as_ref().expect("running");
        if w.release_after
            || self.ctx_of(s, &w.step) != Ctx::OpenTable
            || run.had_locks
            || run.retries >= MAX_RETRIES
        {
            return false;
        }
        let out = self.deadlocked(s, Ctx::OpenTable);
        debug_assert!(out.is_none(), "a back-off goes on");
        true
    }

    /// Gives back the tickets the running statement made since `new[from]`.
    fn give_back(&mut self, s: usize, from: usize) {
        let id = self.sess[s].id;
        let mine: Vec<(mdl_core::lock::TicketId, MdlKey)> = {
            let run = self.sess[s].run.as_mut().expect("running");
            let from = from.min(run.new.len());
            run.new.split_off(from)
        };
        for (tid, key) in mine.into_iter().rev() {
            let ty = self
                .t
                .session(id)
                .and_then(|x| x.book.get(tid))
                .map(|h| h.ty);
            if let Some(ty) = ty {
                let _ = self.t.release(id, &key, Some(ty));
            }
        }
    }

    fn holds_type(&self, s: usize, k: &MdlKey, t: LockType) -> bool {
        self.t
            .session(self.sess[s].id)
            .is_some_and(|x| x.book.on_key(k).any(|h| h.ty == t))
    }

    /// Ends the running statement with `out`; the outcome as the server reports it.
    fn finish(&mut self, s: usize, mut out: Outcome) -> Outcome {
        let d = self.d.clone();
        let id = self.sess[s].id;
        let Some(run) = self.sess[s].run.clone() else {
            return out;
        };
        if out == Outcome::Granted {
            out = Outcome::Ok;
        }
        if out == Outcome::Ok {
            // The catalog's errors come after the locks.
            let err = match &run.then {
                Then::Plan(p) => self.cat.error_of(&p.effect),
                Then::Reopen(i) => {
                    let t = &self.sess[s].st.handlers[*i].table;
                    (!self.cat.exists(t)).then_some(super::catalog::ER_NO_SUCH_TABLE)
                }
                _ => None,
            };
            if let Some(code) = err {
                self.sess[s].st.last_error = Some(code);
                out = Outcome::Error;
                if let Then::Plan(p) = &run.then {
                    // DROP TABLE / DROP VIEW / DROP SEQUENCE of a list drops the tables
                    // (views, sequences) that exist (mysql_rm_table_no_locks,
                    // mysql_drop_view).
                    if matches!(
                        p.effect,
                        Effect::DropTables { .. }
                            | Effect::DropView { .. }
                            | Effect::DropSequences { .. }
                    ) {
                        self.cat.apply(&p.effect);
                    }
                }
            }
        }
        if let (Outcome::Ok, Then::LtRest(plan, deltas)) = (out, &run.then) {
            // The lock taken first is granted: the statement goes on with the locks of
            // LOCK TABLES; the lock is the statement's (statement duration).
            self.sess[s].run = None;
            let o = self.lt_apply(s, plan, deltas).unwrap_or(Outcome::Error);
            if !self.is_waiting(s) {
                let _ = self.t.end_statement(id);
            }
            return o;
        }
        if let (Outcome::Killed, Then::LtCommit(t)) = (out, &run.then) {
            // A killed commit of ANALYZE under LOCK TABLES: mysql_admin_table's `err:`
            // marks the table for reopen (sql/sql_admin.cc), the reopen fails for a killed
            // thread (open_table), so Locked_tables_list::unlink_all_closed_tables
            // (sql/sql_base.cc) drops it from LOCK TABLES, keeping its lock, and ends LOCK
            // TABLES when no table is left (unlock_locked_tables). Measured:
            // found/seed-111355 (no table left: no lock left); with another table locked
            // the analyzed one is ER_TABLE_NOT_LOCKED after; a timeout keeps it.
            self.sess[s].st.lock_tables.retain(|(x, _)| x != t);
            if self.sess[s].st.lock_tables.is_empty() {
                self.unlock_tables(s);
            }
        }
        if out != Outcome::Ok {
            if self.sess[s].st.in_txn && !run.implicit_commit && run.keep_on_error {
                // In a transaction a statement that failed after open_tables keeps the
                // transaction locks it took (no rollback to the statement's savepoint);
                // the others go.
                let keep: Vec<mdl_core::lock::TicketId> = self
                    .t
                    .session(id)
                    .map(|x| {
                        x.book
                            .held()
                            .iter()
                            .filter(|h| h.dur == Duration::Transaction)
                            .map(|h| h.id)
                            .collect()
                    })
                    .unwrap_or_default();
                if let Some(r) = self.sess[s].run.as_mut() {
                    r.new.retain(|(t, _)| !keep.contains(t));
                }
            }
            self.give_back(s, 0);
            self.sess[s].run = None;
            let _ = self.t.end_statement(id);
            if matches!(&run.then, Then::Plan(p)
                if matches!(p.kind.as_str(), "backup_flush" | "backup_block_ddl" | "backup_block_commit"))
            {
                self.backup_stage_failed(s);
            }
            if matches!(run.then, Then::Commit | Then::Begin) {
                // A COMMIT whose BACKUP_COMMIT wait failed (killed, timeout) has rolled the
                // transaction back (ha_commit_trans: ha_rollback_trans) and gives back its
                // locks all the same (mysql_execute_command, SQLCOM_COMMIT:
                // release_transactional_locks whatever trans_commit returned, "COMMIT
                // failed, MDL released"); so does BEGIN's commit (trans_begin clears
                // OPTION_BEGIN). Measured: found/seed-130635 (kill), seed-130635-2
                // (timeout), seed-130635-3 (autocommit off), seed-130635-4 (BEGIN).
                self.sess[s].st.in_txn = false;
                self.sess[s].st.wrote = false;
            }
            // A commit (COMMIT, or a statement's implicit commit) whose BACKUP_COMMIT
            // wait failed rolls the transaction back (ha_commit_trans, sql/handler.cc:
            // ha_rollback_trans when the backup lock cannot be taken): the transaction is
            // over and its next commit takes no BACKUP_COMMIT. Measured:
            // suite/backup-stage-block-commit.mdl, a second DROP TABLE waits for
            // BACKUP_DDL, not BACKUP_COMMIT.
            let commit_failed = run.steps.contains(&Step::Commit);
            if !self.sess[s].st.in_txn || run.implicit_commit || commit_failed {
                let _ = self.t.commit(id);
            }
            if commit_failed {
                self.sess[s].st.in_txn = false;
                self.sess[s].st.wrote = false;
            }
            return out;
        }
        self.sess[s].run = None;
        let new_locks: Vec<(MdlKey, LockType)> = run
            .new
            .iter()
            .filter_map(|(tid, k)| {
                self.t
                    .session(id)
                    .and_then(|x| x.book.get(*tid))
                    .map(|h| (k.clone(), h.ty))
            })
            .collect();
        match &run.then {
            Then::Begin => {
                self.sess[s].st.in_txn = true;
                self.sess[s].st.wrote = false;
            }
            Then::Commit => {
                self.sess[s].st.in_txn = false;
                self.sess[s].st.wrote = false;
            }
            Then::Xa(x) => self.xa_then(s, *x),
            Then::Reopen(i) => {
                self.sess[s].st.handlers[*i].open = true;
            }
            Then::LtCommit(_) | Then::LtRest(..) => {}
            Then::Plan(p) => {
                self.cat.apply(&p.effect);
                self.note_rows(p);
                let st = &mut self.sess[s].st;
                match p.kind.as_str() {
                    k if k.starts_with("lock_") || k == "ftwrl_table" => {
                        let _ = self.t.set_duration(id, Duration::Explicit);
                        let st = &mut self.sess[s].st;
                        st.lock_tables = p.lock_tables.clone();
                        st.lt_locks = new_locks
                            .iter()
                            .filter(|(k, _)| {
                                self.t.session(id).is_some_and(|x| {
                                    x.book.on_key(k).any(|h| h.dur == Duration::Explicit)
                                })
                            })
                            .cloned()
                            .collect();
                    }
                    "ftwrl" => {
                        st.ftwrl = new_locks.last().cloned();
                    }
                    k if k.starts_with("backup_") => {
                        if k == "backup_end" {
                            st.backup = None;
                        } else {
                            let l = self.t.session(id).and_then(|x| {
                                x.book
                                    .held()
                                    .iter()
                                    .find(|h| {
                                        d.namespace(h.key.namespace()).name == "BACKUP"
                                            && h.dur == Duration::Explicit
                                    })
                                    .map(|h| (h.key.clone(), h.ty))
                            });
                            st.backup = l.map(|(k2, t)| (k.to_owned(), k2, t));
                        }
                    }
                    "table_backup_lock" => {
                        if let Some(t) = &p.parts[0].bind.t {
                            let k = self.handler_key(t);
                            let l = self.t.session(id).and_then(|x| {
                                x.book
                                    .held()
                                    .iter()
                                    .find(|h| h.key == k && h.dur == Duration::Explicit)
                                    .map(|h| (h.key.clone(), h.ty))
                            });
                            self.sess[s].st.backup_lock = l;
                        }
                    }
                    "handler_open" => {
                        if let Some(t) = p.parts[0].bind.t.clone() {
                            st.handlers.push(Handler {
                                alias: p.parts[0]
                                    .bind
                                    .alias
                                    .clone()
                                    .unwrap_or_else(|| t.name.clone()),
                                table: t,
                                open: true,
                            });
                        }
                    }
                    "get_lock" => {
                        if let Some(n) = &p.parts[0].bind.lock {
                            *st.user_locks.entry(n.clone()).or_insert(0) += 1;
                        }
                    }
                    "drop_db" => {
                        if let Effect::DropDb { db, .. } = &p.effect {
                            if st.db == *db {
                                st.db = String::new();
                            }
                        }
                    }
                    _ => {}
                }
                self.after_plan(s, &p.kind, &run.new);
                if run.writes {
                    self.sess[s].st.wrote = true;
                }
            }
        }
        let _ = self.t.end_statement(id);
        let st = &self.sess[s].st;
        // With autocommit off and no BEGIN, the transaction becomes active only when a
        // transactional engine takes part (trans_register_ha sets SERVER_STATUS_IN_TRANS);
        // until then a statement's locks go at its end, as in autocommit mode
        // (mysql_execute_command, sql/sql_parse.cc: release_transactional_locks unless
        // thd->in_active_multi_stmt_transaction()). Measured: a MyISAM INSERT or SELECT
        // with autocommit off holds nothing after it
        // (suite/handler-and-ftwrl-statements.mdl).
        let engine_less = match &run.then {
            Then::Plan(p) if !st.autocommit && !st.in_txn => !p.parts.iter().any(|part| {
                part.bind
                    .tables()
                    .any(|t| self.cat.engine(t) == Some(Engine::InnoDb))
            }),
            _ => false,
        };
        let autocommit_end = (st.autocommit || engine_less) && !st.in_txn;
        if matches!(run.then, Then::Plan(_)) && (run.implicit_commit || autocommit_end) {
            let _ = self.t.commit(id);
            self.sess[s].st.in_txn = false;
            self.sess[s].st.wrote = false;
        } else if matches!(run.then, Then::Plan(_)) && !self.sess[s].st.autocommit {
            self.sess[s].st.in_txn = true;
        }
        // (No `mysql_ha_flush` at a statement's end: only the next statement that opens
        // tables closes the HANDLERs others came to wait for meanwhile. The old harness's
        // end marker, a SELECT after every statement, did it at once; measured through
        // the protocol client, found/seed-10482 and known-differences/woken-race-110773.)
        Outcome::Ok
    }

    /// Resolves the waits that the last call ended, until none is left.
    fn pump(&mut self) {
        loop {
            if self.stash.is_empty() {
                let mut ev = self.table_events();
                if ev.is_empty() {
                    // The sessions that stood aside (an ALTER's slow phase) go on once the
                    // others are done.
                    let Some(y) = self.yielded.pop_front() else {
                        return;
                    };
                    if self.sess[y].run.is_some() {
                        let out = self.run(y);
                        let out = self.user_locks_after(y, out);
                        if out != Outcome::Waiting {
                            self.events.push((y, out));
                        }
                    }
                    continue;
                }
                // Of the sessions one release lets in, the one whose step is being played
                // goes on first: its next request follows at once, the others' after they
                // wake (measured: found/seed-1632.mdl; a race on the server, see
                // known-differences/woken-sessions-race.mdl).
                if let Some(fg) = self.fg.and_then(|f| self.sess.get(f)).map(|x| x.id) {
                    ev.sort_by_key(|(o, _)| *o != fg);
                }
                // The victims of one search that back off give back their locks before
                // any of them opens its tables again: each releases as it wakes, and the
                // reopen comes after (`open_tables`: `close_tables_for_reopen`, then
                // `Open_table_context::recover_from_failed_open`, sql/sql_base.cc).
                // Measured: found/seed-191826, two LOCK TABLES ... WRITE CONCURRENT both
                // victims of the FTWRL holder's LOCK TABLES READ LOCAL, which gets SRO
                // between their releases and their new SW requests; both then wait for SW.
                // Their retries stand aside until the sessions those releases let in have
                // gone on (known-differences/woken-race-201610, below in `run`).
                let mut rest = Vec::with_capacity(ev.len());
                for e in ev {
                    if e.1 == Outcome::Deadlock && self.back_off_now(e.0) {
                        if let Some(s) = self.sess.iter().position(|x| x.id == e.0) {
                            self.yielded.push_back(s);
                        }
                    } else {
                        rest.push(e);
                    }
                }
                if rest.is_empty() {
                    continue;
                }
                self.stash = rest;
            }
            // (The batch one release let in stays in `stash` while its sessions go on one
            // by one: a session may stand aside for the rest, `run`.)
            {
                let (owner, o) = self.stash.remove(0);
                let Some(s) = self.sess.iter().position(|x| x.id == owner) else {
                    continue;
                };
                if self.sess[s].run.is_none() {
                    continue;
                }
                let out = match o {
                    Outcome::Granted => {
                        let w = self.sess[s].run.as_mut().and_then(|r| r.waiting.take());
                        if let Some(w) = w {
                            if w.release_after {
                                // A back-off's wait: give the lock back at once.
                                if let Step::Backoff { key, ty, .. } = &w.step {
                                    let _ = self.t.release(owner, key, Some(*ty));
                                }
                            } else if let Some(k) = w.step.key() {
                                let k = k.clone();
                                self.note_new(s, &w.before, &k);
                                self.set_last_open(s, &w.step);
                                self.trigger_rebind(s, &w.step);
                                self.trigger_parts_rebind(s, &w.step);
                                self.trigger_flush(s, &w.step);
                            }
                            match self.opened_missing(s, &w.step) {
                                Some(o) => o,
                                None => self.run(s),
                            }
                        } else {
                            self.run(s)
                        }
                    }
                    Outcome::Deadlock => {
                        let w = self.sess[s].run.as_mut().and_then(|r| r.waiting.take());
                        let ctx = match w.as_ref() {
                            Some(w) => self.ctx_of(s, &w.step),
                            None => Ctx::Plain,
                        };
                        if let Some(w) = w {
                            if !w.release_after {
                                self.sess[s]
                                    .run
                                    .as_mut()
                                    .expect("running")
                                    .steps
                                    .push_front(w.step);
                            }
                        }
                        match self.deadlocked(s, ctx) {
                            Some(o) => o,
                            None => self.run(s),
                        }
                    }
                    o => {
                        if let Some(r) = self.sess[s].run.as_mut() {
                            r.waiting = None;
                        }
                        self.finish(s, o)
                    }
                };
                let out = self.user_locks_after(s, out);
                if out != Outcome::Waiting {
                    self.events.push((s, out));
                }
            }
        }
    }
}
