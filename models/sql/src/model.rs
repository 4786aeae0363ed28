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
//! 2. the session rules (learned `rule` rows, `mdl_conform::learn`): in its own LOCK TABLES,
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
mod backup;
mod binlog;
mod bs_refused;
mod call;
mod call_flow;
mod canon;
mod chain;
mod checksum_open;
mod control;
mod ddl_phases;
mod dialect;
mod dynamic_source;
mod dynamic_sql;
pub mod encode;
mod finish;
mod fk_checks;
pub mod footprint;
mod global_timeout;
mod gtid_pos;
mod ha_flush_none;
mod handlers;
mod kill;
mod lock_tables;
mod lt_name_mode;
mod nopart_ha;
mod oracle_mode;
mod plan;
mod prepare_check;
mod prepare_ha;
mod prepare_lt;
mod prepare_open;
mod prepared;
mod quiet;
mod read_only;
mod replication;
mod ro_txn;
mod run;
mod savepoint;
mod sequence;
mod show_open;
mod stat_open;
mod statement_time;
mod temp;
mod temp_exists;
mod temp_ha_flush;
mod temp_partition;
mod temp_txn;
mod trigger_reopen;
mod trigger_used_table;
mod user_locks;
mod user_vars;
mod victims;
mod xa;

use super::catalog::{Catalog, Engine};
use super::classify::{classify, Effect, LtMode, Plan, Stmt, Tbl};
use super::compose::{Ctx, Step};
use super::mapping::Mapping;
use crate::kind::Kind;
use handlers::{closes_handler, flushes_handlers, handler_tables};
use mdl_core::key::MdlKey;
use mdl_core::table::{Config, LockTable};
use mdl_core::{Dialect, Duration, LockType, Outcome, OwnerId};
use plan::ER_TABLE_NOT_LOCKED;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// Server error codes the model gives itself (the learned rules give the others).
pub const ER_UNKNOWN_TABLE_HANDLER: u32 = 1109;
pub const ER_NONUNIQ_TABLE: u32 = 1066;
pub const ER_BAD_DB: u32 = 1049;

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
    pub backup: Option<(Kind, MdlKey, LockType)>,
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
    /// The session's sql_mode holds ORACLE (`model/oracle_mode.rs`).
    pub oracle: bool,
    /// The session set foreign_key_checks off (`model/fk_checks.rs`).
    pub fk_checks_off: bool,
    /// How that CREATE TEMPORARY TABLE fills its table (`model::temp_txn`).
    pub temp_fill: Option<temp_txn::TempFill>,
    /// In a transaction begun READ ONLY (`model::ro_txn`).
    pub tx_read_only: bool,
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
    /// The user variables' values as far as the model computes them (`model::user_vars`).
    pub vars: BTreeMap<String, crate::classify::dynamic::DynValue>,
    /// The prepare phase of the running `EXECUTE IMMEDIATE` (`model::prepare_open`): steps
    /// its statement's run takes first; empty between statements.
    pub prepare_prefix: Vec<Step>,
    /// The running statement's `max_statement_time` deadline (model time, ms;
    /// `model::statement_time`), and whether it fired.
    pub stmt_deadline: Option<u64>,
    pub stmt_time_up: bool,
    /// The session ran a statement (connected: `model::global_timeout`).
    pub connected: bool,
    /// A BINLOG statement gave the session a format description event (`model::binlog`).
    pub binlog_fd: bool,
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
            oracle: false,
            fk_checks_off: false,
            temp_fill: None,
            tx_read_only: false,
            prepared: Vec::new(),
            user_vars: false,
            vars: BTreeMap::new(),
            prepare_prefix: Vec::new(),
            last_row: None,
            xa: None,
            stmt_deadline: None,
            stmt_time_up: false,
            connected: false,
            binlog_fd: false,
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
    /// PREPARE name FROM text, once its tables were opened (`model::prepare_open`).
    Prepared(String, String),
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

/// One connection the model plays: its owner in the lock table, its session's state (the
/// transaction, LOCK TABLES, HANDLERs, ...) and what it runs now.
#[derive(Clone, Debug)]
struct Connection {
    id: OwnerId,
    session: SqlSession,
    /// The statement in progress.
    run: Option<Run>,
    /// A SELECT of several user-lock functions in progress (its GET_LOCK that waits is
    /// `run`).
    user_locks_run: Option<user_locks::UserLocksRun>,
    /// A CALL of a multi-statement procedure in progress (`model::call`).
    call: Option<call::CallRun>,
}

#[derive(Clone, Debug)]
pub struct SqlModel {
    /// The learned table's dialect.
    pub dialect: encode::Shared<Dialect>,
    /// The lock table the sessions' statements are played on.
    pub table: LockTable,
    /// Shared: a model is cloned per state by `mdl check`'s SQL search.
    map: std::sync::Arc<Mapping>,
    pub catalog: encode::Shared<Catalog>,
    sessions: Vec<encode::Shared<Connection>>,
    events: Vec<(usize, Outcome)>,
    now: u64,
    seq: u64,
    /// The session whose step is being played (its woken waits run first).
    foreground: Option<usize>,
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
    /// A CALL stops between its instructions (`model::call`): `mdl check` explores the
    /// other sessions' statements there.
    stepwise_calls: bool,
    /// `SET GLOBAL lock_wait_timeout`: a new session's (`model::global_timeout`).
    global_lock_wait_timeout: Option<u64>,
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
            dialect: encode::Shared::new(d.clone()),
            table: LockTable::new(std::sync::Arc::new(d), Config::default()),
            map,
            catalog: encode::Shared::new(Catalog::fixture()),
            sessions: Vec::new(),
            events: Vec::new(),
            now: 0,
            seq: 0,
            foreground: None,
            flushed_by: None,
            stash: Vec::new(),
            yielded: VecDeque::new(),
            held_back: Vec::new(),
            names: Vec::new(),
            stepwise_calls: false,
            global_lock_wait_timeout: None,
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
        self.table = LockTable::new(std::sync::Arc::new((*self.dialect).clone()), config);
    }

    pub fn add_session(&mut self) -> usize {
        let id = self.table.add_session();
        self.sessions.push(encode::Shared::new(Connection {
            id,
            session: SqlSession::new(),
            run: None,
            user_locks_run: None,
            call: None,
        }));
        self.sessions.len() - 1
    }

    pub fn sessions(&self) -> usize {
        self.sessions.len()
    }

    /// The session's SQL state.
    pub fn session(&self, s: usize) -> &SqlSession {
        &self.sessions[s].session
    }

    /// Its statement has not finished (it waits for a lock, or its CALL stands between
    /// two instructions: `model::call`).
    pub fn is_waiting(&self, s: usize) -> bool {
        self.sessions[s].run.is_some() || self.sessions[s].call.is_some()
    }

    /// The model's clock, in milliseconds.
    pub fn now(&self) -> u64 {
        self.now
    }

    /// When session `s`'s wait times out (model time), if it waits with a timeout.
    pub fn wait_deadline(&self, s: usize) -> Option<u64> {
        self.sessions[s].run.as_ref()?.waiting.as_ref()?.deadline
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
        match classify(sql, "test", &self.catalog, &has) {
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
                    self.catalog.set_no_row(&t, false);
                }
                Ok(())
            }
            Ok(Stmt::Learned(p)) => {
                if let Some(e) = self.catalog.error_of(&p.effect) {
                    return Err(format!("`{sql}` fails in the model with error {e}"));
                }
                self.catalog.apply(&p.effect);
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
        let tables = |kind: Kind| -> Vec<Tbl> {
            p.parts
                .iter()
                .filter(|x| x.kind == kind)
                .filter_map(|x| x.bind.t.clone())
                .collect()
        };
        let sources_have_rows = || {
            tables(Kind::Select)
                .iter()
                .any(|t| !self.catalog.has_no_row(t))
        };
        match p.kind {
            Kind::Truncate => {
                for t in tables(Kind::Truncate) {
                    self.catalog.set_no_row(&t, true);
                }
            }
            Kind::Insert => {
                let rows = p.parts.len() == 1 || sources_have_rows();
                if rows {
                    for t in tables(Kind::Insert) {
                        self.catalog.set_no_row(&t, false);
                    }
                }
            }
            Kind::CreateSelect => {
                if let Effect::CreateTable { t, .. } = &p.effect {
                    let t = t.clone();
                    if sources_have_rows() {
                        self.catalog.set_no_row(&t, false);
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
        if self.is_waiting(s) {
            return Err("the session's previous statement is still waiting".into());
        }
        self.connect_session(s);
        // The code behind the statement's comments (`crate::comments`).
        // (A statement of comments only, and the parser's rules on the text with its
        // comments: `step_one`.)
        let code = crate::comments::code(sql).filter(|c| !c.trim().is_empty());
        let out = match self.call_begin(s, code.as_deref().unwrap_or(sql)) {
            Some(r) => r?,
            None => self.step_one(s, sql)?,
        };
        // (Taken by the statement's run, or not used: `model::prepare_open`.)
        self.sessions[s].session.prepare_prefix.clear();
        self.resume_calls(s, out)
    }

    /// One statement (a CALL's instruction too: `model::call`).
    fn step_one(&mut self, s: usize, sql: &str) -> Result<Outcome, String> {
        // The parser's syntax rules read the text with its comments (a `;` inside an
        // executable comment: `mariadb_syntax_error`); the rest reads the code behind
        // them (`crate::comments`).
        let text = sql;
        let code = crate::comments::code(sql);
        let sql = code.as_deref().unwrap_or(sql);
        let db = self.sessions[s].session.db.clone();
        let st = if code
            .as_deref()
            .is_some_and(|c| c.trim().trim_end_matches(';').trim().is_empty())
        {
            // Only comments: SQLCOM_EMPTY_QUERY (sql_yacc.yy, `query: END_OF_INPUT`).
            Stmt::Session(crate::stmt::SessionStmt::OpensNothing)
        } else if self.map.dialect_name() == "mariadb"
            && !cfg!(mdl_bug = "conform_no_syntax_rules")
            && super::classify::mariadb_syntax_error(text).is_some()
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
                    classify(sql, &db, &self.catalog, &has)?
                }
            }
        };
        self.sessions[s].session.last_error = None;
        self.sessions[s].session.last_row = None;
        let st = self.ro_txn_gate(s, sql, st)?;
        let st = self.arm_statement_time(s, st);
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
            if p.kind.is_backup_stage()
                || matches!(p.kind, Kind::CreateTrigger | Kind::DropTrigger | Kind::FlushTable
                    | Kind::Drop | Kind::Rename | Kind::Truncate | Kind::CreateDb | Kind::DropDb
                    | Kind::DropView
                    // flush_tables_with_read_lock (sql_parse.cc): lock_table_names before
                    // open_and_lock_tables; measured: found/seed-191293, a deadlock with an
                    // in-place ALTER that waits for the session's HANDLER.
                    | Kind::FtwrlTable));
        // (Statements on temporary tables alone: `model::temp_ha_flush`.)
        // (Refused by the session's BACKUP STAGE before any open: `model::bs_refused`.)
        let flushed = if !temp_ha_flush::opens_tables(&st)
            && (backup_stage
                || !flushes_handlers(&st)
                || self.opens_no_table(&st)
                || self.backup_stage_refuses_early(s, &st))
        {
            Vec::new()
        } else {
            self.ha_flush(s)
        };
        self.foreground = Some(s);
        self.flushed_by = (!flushed.is_empty()).then_some(s);
        let out = self.statement(s, st, &flushed);
        let mut out = match out {
            Ok(o) => o,
            Err(e) => {
                self.foreground = None;
                self.flushed_by = None;
                return Err(e);
            }
        };
        self.pump();
        self.foreground = None;
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
        let run = self.sessions[s].run.as_mut().expect("running");
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
        let k = self.table.kill(self.sessions[s].id);
        self.pump();
        // (A CALL that runs on fails closed: its session's outcome is an error.)
        let _ = self.resume_calls(s, Outcome::Ok);
        k
    }

    /// Moves the clock by `ms`: waits whose timeout passes end with `timeout`, earliest
    /// deadline first (ties: the earlier wait first).
    pub fn advance(&mut self, ms: u64) {
        let end = self.now.saturating_add(ms);
        loop {
            let next = self
                .sessions
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
            if self.fire_statement_time(i, dl) {
                continue;
            }
            if !self.table.timeout(self.sessions[i].id) {
                // Not waiting in the lock table (should not happen): end it anyway.
                if let Some(r) = self.sessions[i].run.as_mut() {
                    r.waiting = None;
                }
                let o = self.finish(i, Outcome::Timeout);
                let o = self.user_locks_after(i, o);
                if o != Outcome::Waiting {
                    self.events.push((i, o));
                }
            }
            self.pump();
            let _ = self.resume_calls(i, Outcome::Ok);
        }
        self.now = end;
    }

    /// Session `s`'s locks in the server tables' words: `TABLE test.t1 SR`, with
    /// ` (pending)` for the one it waits for.
    pub fn locks_of(&self, s: usize) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        let Some(x) = self.table.session(self.sessions[s].id) else {
            return out;
        };
        let name = |k: &MdlKey| {
            let ns = &self.dialect.namespace(k.namespace()).name;
            format!("{ns} {}", super::key_text::key_text(ns, k.db(), k.name()))
        };
        // The system schemas' locks are the server's own, which the harness does not
        // compare (`mdl_conform::locks::ignored`; `classify/system_tables.rs`).
        for h in x
            .book
            .held()
            .iter()
            .filter(|h| !crate::classify::is_system_schema(h.key.db()))
        {
            out.insert(format!("{} {}", name(&h.key), h.ty));
        }
        if let Some(w) = &x.wait {
            out.insert(format!("{} {} (pending)", name(&w.key), w.ticket.ty));
        }
        out
    }

    // --- statements -------------------------------------------------------------------

    fn fail(&mut self, s: usize, code: u32) -> Outcome {
        self.sessions[s].session.last_error = Some(code);
        Outcome::Error
    }
}
