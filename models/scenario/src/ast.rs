//! The scenario language's syntax tree (`shared/spec/scenario-format.md`, version 1, plus
//! the `sql` extension of the conformance harness).

use mdl_core::key::MdlKey;
use mdl_core::{Dialect, Duration, LockType, Outcome, WaitOption};
use std::sync::Arc;

/// A position in a scenario file, 1-based.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Pos {
    pub line: usize,
    pub col: usize,
}

/// A parsed scenario.
#[derive(Clone, Debug)]
pub struct Scenario {
    /// The file name as given (for `FILE:LINE:COL` messages).
    pub file: String,
    pub settings: Settings,
    /// Every line after the settings that is not blank or a comment, in file order.
    pub lines: Vec<Line>,
    /// Session names in order of first appearance; a session's index here is its
    /// `OwnerId` in the model and the runner.
    pub sessions: Vec<String>,
    /// The dialect the file is read in (its `dialect` line, or `--dialect`), loaded once;
    /// `max_search_depth` is applied by the engines, not here.
    pub dialect: Arc<Dialect>,
    /// `setup: sql STATEMENT` lines (conformance extension): SQL run before the scenario
    /// and not compared, in file order.
    pub setup: Vec<(Pos, String)>,
    /// `server VERSION` (conformance extension): the server version the file was last
    /// checked against.
    pub server: Option<(Pos, String)>,
    /// `server_option NAME VALUE` lines (version 5): the options the throwaway server of
    /// `mdl conform` starts with, in file order, each name at most once.
    pub server_options: Vec<ServerOption>,
}

/// A server variable a scenario may set with `server_option` (version 5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ServerOptionName {
    /// `max_write_lock_count` (sys_vars.cc, `Sys_max_write_lock_count`): the hog limit;
    /// also the model's.
    MaxWriteLockCount,
    /// `lock_wait_timeout`, in seconds: every session's metadata lock wait limit; also
    /// the model's.
    LockWaitTimeout,
    /// `innodb_lock_wait_timeout`, in seconds: InnoDB's row lock wait limit (outside MDL:
    /// the model has no row locks).
    InnodbLockWaitTimeout,
}

impl ServerOptionName {
    pub const ALL: [ServerOptionName; 3] = [
        ServerOptionName::MaxWriteLockCount,
        ServerOptionName::LockWaitTimeout,
        ServerOptionName::InnodbLockWaitTimeout,
    ];

    /// The server variable's name, as `mariadbd --NAME=VALUE` and `SELECT @@NAME` take it.
    pub fn as_str(self) -> &'static str {
        match self {
            ServerOptionName::MaxWriteLockCount => "max_write_lock_count",
            ServerOptionName::LockWaitTimeout => "lock_wait_timeout",
            ServerOptionName::InnodbLockWaitTimeout => "innodb_lock_wait_timeout",
        }
    }

    pub fn from_name(s: &str) -> Option<ServerOptionName> {
        Self::ALL
            .into_iter()
            .find(|n| n.as_str().eq_ignore_ascii_case(s))
    }

    /// The smallest value the servers accept (sys_vars.cc and ha_innodb.cc ranges).
    pub fn min(self) -> u64 {
        match self {
            ServerOptionName::MaxWriteLockCount => 1,
            ServerOptionName::LockWaitTimeout => 0,
            ServerOptionName::InnodbLockWaitTimeout => 0,
        }
    }

    /// The largest value the servers accept: `max_write_lock_count` ULONG_MAX,
    /// `lock_wait_timeout` 31536000 (a year,
    /// `Sys_lock_wait_timeout`), `innodb_lock_wait_timeout` 100000000
    /// (`innodb_lock_wait_timeout`'s range).
    pub fn max(self) -> u64 {
        match self {
            ServerOptionName::MaxWriteLockCount => u64::MAX,
            ServerOptionName::LockWaitTimeout => 31_536_000,
            ServerOptionName::InnodbLockWaitTimeout => 100_000_000,
        }
    }
}

/// `server_option NAME VALUE` (version 5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ServerOption {
    /// Where NAME is written.
    pub pos: Pos,
    pub name: ServerOptionName,
    pub value: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// The dialect's name: `mysql-8.0` (default), `mariadb`, or the `name` of a dialect
    /// folder.
    pub dialect: String,
    /// A dialect folder (version 3): its absolute path; `None` for a built-in dialect.
    pub dialect_path: Option<String>,
    /// `max_write_lock_count`: `u64::MAX` when unlimited (default).
    pub max_write_lock_count: u64,
    /// `lock_wait_timeout MS`: `None` when unlimited (default).
    pub lock_wait_timeout: Option<u64>,
    /// `max_search_depth N` (version 2): the servers' deadlock-search depth cap; `None`
    /// (default): the dialect's setting, exact for the built-in dialects.
    pub max_search_depth: Option<u32>,
    /// `deadlock_resolution victim|soft_edges` (version 3 addition): `Some(true)` turns
    /// soft-edge resolution on; `None` (default): the dialect's setting, off for the
    /// built-in dialects.
    pub soft_edges: Option<bool>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            dialect: "mysql-8.0".into(),
            dialect_path: None,
            max_write_lock_count: u64::MAX,
            lock_wait_timeout: None,
            max_search_depth: None,
            soft_edges: None,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Line {
    pub pos: Pos,
    pub item: Item,
}

#[derive(Clone, Debug)]
pub enum Item {
    /// `SESSION: COMMAND`; `session` indexes `Scenario::sessions`.
    Step { session: usize, cmd: Command },
    /// `kill SESSION`.
    Kill { session: usize },
    /// `advance MS`.
    Advance { ms: u64 },
    /// `expect SESSION ...`.
    Expect { session: usize, what: Expectation },
    /// `assert never|sometimes SESSION|* OUTCOME [at line N]`,
    /// `assert eventually SESSION granted [at line N]`,
    /// `assert bounded SESSION N [at line N]` (`mdl check` only).
    Assert {
        kind: AssertKind,
        /// `None` for `*` (never/sometimes only).
        session: Option<usize>,
        /// The outcome watched (`granted` for `eventually` and `bounded`).
        outcome: Outcome,
        /// `at line N`: only the step written on line N counts (a step of `session`).
        at_line: Option<usize>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AssertKind {
    Never,
    Sometimes,
    /// Each wait of the session ends in a grant while the others keep finishing
    /// (`models/docs/scenario-format.md`, "Liveness asserts").
    Eventually,
    /// The session's request is passed over by at most this many grants to later
    /// arrivals while it waits.
    Bounded(u32),
}

#[derive(Clone, Debug)]
pub enum Expectation {
    Outcome(Outcome),
    Holds {
        key: MdlKey,
        ty: LockType,
    },
    NotHolds {
        key: MdlKey,
        ty: LockType,
    },
    /// `expect SESSION error N` (version 5): the step ended in an error with the
    /// server's error code N (SQL sessions only; `error` alone matches any code).
    ErrorCode(u32),
    /// `expect SESSION tickets [NS KEY] N` (version 2): the session holds exactly N
    /// granted tickets (on KEY, or on any key).
    Tickets {
        key: Option<MdlKey>,
        n: usize,
    },
}

/// A command of a step. Lock types are not checked against the namespace here: a type
/// the namespace does not take is a misuse with outcome `error` at run time.
#[derive(Clone, Debug)]
pub enum Command {
    Acquire {
        key: MdlKey,
        ty: LockType,
        dur: Duration,
        wait: WaitSpec,
    },
    AcquireAll {
        dur: Duration,
        wait: WaitSpec,
        reqs: Vec<(MdlKey, LockType)>,
    },
    Upgrade {
        key: MdlKey,
        ty: LockType,
        wait: WaitSpec,
    },
    Downgrade {
        key: MdlKey,
        ty: LockType,
    },
    /// Duration default `explicit`.
    Clone {
        key: MdlKey,
        ty: Option<LockType>,
        dur: Duration,
    },
    Release {
        key: MdlKey,
        ty: Option<LockType>,
    },
    EndStatement,
    Commit,
    Rollback,
    ReleaseExplicit,
    Savepoint(String),
    RollbackTo(String),
    SetDuration(Duration),
    ForceDmlWeight(bool),
    Disconnect,
    /// `SESSION: sql STATEMENT` (conformance extension): the rest of the line.
    Sql(String),
}

/// A wait option as written, or none (then the scenario's `lock_wait_timeout` applies).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitSpec {
    Default,
    Given(WaitOption),
}

impl WaitSpec {
    /// The wait option in force under `settings`.
    pub fn resolve(self, settings: &Settings) -> WaitOption {
        match self {
            WaitSpec::Given(w) => w,
            WaitSpec::Default => match settings.lock_wait_timeout {
                Some(ms) => WaitOption::millis(ms),
                None => WaitOption::Forever,
            },
        }
    }
}

impl Command {
    /// The command gives `granted`/`waiting`/... (acquire, acquire_all, upgrade) rather
    /// than `ok`.
    pub fn is_request(&self) -> bool {
        matches!(
            self,
            Command::Acquire { .. }
                | Command::AcquireAll { .. }
                | Command::Upgrade { .. }
                | Command::Sql(_)
        )
    }
}

/// A scenario that does not parse: `FILE:LINE:COL: message`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{}:{}: {msg}", pos.line, pos.col)]
pub struct ParseError {
    pub file: String,
    pub pos: Pos,
    pub msg: String,
}
