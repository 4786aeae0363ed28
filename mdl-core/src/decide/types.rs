//! Lock types, durations and wait outcomes: the vocabulary shared by every layer.
//!
//! Lock types form one universe, a small table of names: first the 25 built-in types
//! (MySQL's `enum_mdl_type` followed by MariaDB's BACKUP types, indices 0 to 24, fixed),
//! then the types that dialect folders declare with `type` lines (`crate::decide::dialect`), each
//! added once per process when a dialect that declares it is loaded. Which types a
//! namespace takes, and how they conflict, is the dialect's business; a [`LockType`] is
//! only a name with an index, so every decision stays a bit test on a [`TypeSet`].

use std::fmt;
use std::sync::OnceLock;

/// A lock type. The index is its position in the universe: the servers' enum order for
/// the built-in types, then declaration order; "stronger first" in bulk requests means a
/// higher index first. `Debug` shows the abbreviation (`SR`), as `Display` does, so that
/// state dumps (the Explorer's) read in the dialect's own type names.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LockType(pub u8);

/// (abbreviation, long name without `MDL_`) for every built-in type, in enum order.
const NAMES: [(&str, &str); 25] = [
    ("IX", "INTENTION_EXCLUSIVE"),
    ("S", "SHARED"),
    ("SH", "SHARED_HIGH_PRIO"),
    ("SR", "SHARED_READ"),
    ("SW", "SHARED_WRITE"),
    ("SWLP", "SHARED_WRITE_LOW_PRIO"),
    ("SU", "SHARED_UPGRADABLE"),
    ("SRO", "SHARED_READ_ONLY"),
    ("SNW", "SHARED_NO_WRITE"),
    ("SNRW", "SHARED_NO_READ_WRITE"),
    ("X", "EXCLUSIVE"),
    ("BACKUP_START", "BACKUP_START"),
    ("BACKUP_FLUSH", "BACKUP_FLUSH"),
    ("BACKUP_WAIT_FLUSH", "BACKUP_WAIT_FLUSH"),
    ("BACKUP_WAIT_DDL", "BACKUP_WAIT_DDL"),
    ("BACKUP_WAIT_COMMIT", "BACKUP_WAIT_COMMIT"),
    ("BACKUP_FTWRL1", "BACKUP_FTWRL1"),
    ("BACKUP_FTWRL2", "BACKUP_FTWRL2"),
    ("BACKUP_DML", "BACKUP_DML"),
    ("BACKUP_TRANS_DML", "BACKUP_TRANS_DML"),
    ("BACKUP_SYS_DML", "BACKUP_SYS_DML"),
    ("BACKUP_DDL", "BACKUP_DDL"),
    ("BACKUP_BLOCK_DDL", "BACKUP_BLOCK_DDL"),
    ("BACKUP_ALTER_COPY", "BACKUP_ALTER_COPY"),
    ("BACKUP_COMMIT", "BACKUP_COMMIT"),
];

/// A type a dialect folder declared: abbreviation, long name, server name. The strings
/// are leaked once per declared type (at most [`LockType::MAX`] - [`LockType::COUNT`] of
/// them per process), so that names are `&'static str` like the built-in ones.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Declared {
    abbrev: &'static str,
    long: &'static str,
    server: &'static str,
}

/// The declared types, at indices [`LockType::COUNT`] and up: write-once slots, filled in
/// order, never emptied. A process-wide table of names, read only to print or parse a
/// name and never by a decision, so it is std's `OnceLock` rather than the `sync` facade
/// (whose loom and shuttle primitives live inside one model run, not in a static).
static DECLARED: [OnceLock<Declared>; LockType::MAX - LockType::COUNT] =
    [const { OnceLock::new() }; LockType::MAX - LockType::COUNT];

fn declared(i: usize) -> Option<Declared> {
    DECLARED.get(i)?.get().copied()
}

impl LockType {
    /// The number of built-in types (indices 0 to `COUNT - 1`).
    pub const COUNT: usize = NAMES.len();
    /// The size of the universe: built-in plus declared types, the bits of a [`TypeSet`].
    pub const MAX: usize = 64;
    /// Intention exclusive (scoped locks: GLOBAL, SCHEMA, ...).
    pub const IX: LockType = LockType(0);
    /// Shared (`MDL_SHARED`: table metadata only).
    pub const S: LockType = LockType(1);
    /// Shared high priority (`MDL_SHARED_HIGH_PRIO`: INFORMATION_SCHEMA).
    pub const SH: LockType = LockType(2);
    /// Shared read (`MDL_SHARED_READ`: SELECT).
    pub const SR: LockType = LockType(3);
    /// Shared write (`MDL_SHARED_WRITE`: INSERT, UPDATE, DELETE).
    pub const SW: LockType = LockType(4);
    /// Shared write low priority (`MDL_SHARED_WRITE_LOW_PRIO`).
    pub const SWLP: LockType = LockType(5);
    /// Shared upgradable (`MDL_SHARED_UPGRADABLE`: ALTER TABLE before its upgrade).
    pub const SU: LockType = LockType(6);
    /// Shared read only (`MDL_SHARED_READ_ONLY`: LOCK TABLES READ).
    pub const SRO: LockType = LockType(7);
    /// Shared no write (`MDL_SHARED_NO_WRITE`).
    pub const SNW: LockType = LockType(8);
    /// Shared no read write (`MDL_SHARED_NO_READ_WRITE`: LOCK TABLES WRITE).
    pub const SNRW: LockType = LockType(9);
    /// Exclusive (`MDL_EXCLUSIVE`: DROP, RENAME, the end of ALTER).
    pub const X: LockType = LockType(10);
    /// MariaDB's `MDL_BACKUP_START`.
    pub const BACKUP_START: LockType = LockType(11);
    /// MariaDB's `MDL_BACKUP_FTWRL1`.
    pub const BACKUP_FTWRL1: LockType = LockType(16);
    /// MariaDB's `MDL_BACKUP_FTWRL2`.
    pub const BACKUP_FTWRL2: LockType = LockType(17);
    /// MariaDB's `MDL_BACKUP_DML`.
    pub const BACKUP_DML: LockType = LockType(18);

    /// Every built-in type in enum order.
    pub fn all() -> impl Iterator<Item = LockType> {
        (0..Self::COUNT as u8).map(LockType)
    }

    /// A built-in type (index below [`LockType::COUNT`]).
    pub fn is_builtin(self) -> bool {
        (self.0 as usize) < Self::COUNT
    }

    /// The bit of this type in a [`TypeSet`].
    #[inline]
    pub fn bit(self) -> u64 {
        1u64 << self.0
    }

    fn names(self) -> (&'static str, &'static str, &'static str) {
        let i = self.0 as usize;
        if let Some((a, l)) = NAMES.get(i) {
            return (a, l, l);
        }
        match declared(i - Self::COUNT) {
            Some(d) => (d.abbrev, d.long, d.server),
            None => ("?", "?", "?"),
        }
    }

    /// The abbreviation (`SR`, `BACKUP_DML`).
    pub fn abbrev(self) -> &'static str {
        self.names().0
    }

    /// The long name without prefix (`SHARED_READ`).
    pub fn long_name(self) -> &'static str {
        self.names().1
    }

    /// The name the server shows: `performance_schema.metadata_locks` for the built-in
    /// types (`SHARED_READ`, `BACKUP_DML`), the third word of a `type` line otherwise.
    pub fn server_name(self) -> &'static str {
        self.names().2
    }

    /// The type named by a dialect's `type ABBREV LONG_NAME [SERVER_NAME]` line: a built-in
    /// type when all three names are a built-in type's (`type SR SHARED_READ`), else the
    /// declared type of the same three names, added to the universe the first time. The
    /// error says why not: a bad name, or the universe is full.
    pub fn declare(abbrev: &str, long: &str, server: Option<&str>) -> Result<LockType, String> {
        for (what, n) in [
            ("abbreviation", Some(abbrev)),
            ("long name", Some(long)),
            ("server name", server),
        ] {
            if let Some(n) = n {
                if !valid_type_name(n) {
                    return Err(format!(
                        "a type's {what} is letters, digits and `_`, starting with a letter, at most 40 characters, not `{n}`"
                    ));
                }
            }
        }
        let server = server.unwrap_or(long);
        if let Some(i) = NAMES
            .iter()
            .position(|(a, l)| *a == abbrev && *l == long && *l == server)
        {
            return Ok(LockType(i as u8));
        }
        // The first slot that is empty or holds these names: an empty one takes them
        // (`get_or_init`), so two threads declaring the same names get the same slot.
        let leak = |s: &str| -> &'static str { Box::leak(s.to_owned().into_boxed_str()) };
        for (i, slot) in DECLARED.iter().enumerate() {
            let d = slot.get_or_init(|| Declared {
                abbrev: leak(abbrev),
                long: leak(long),
                server: leak(server),
            });
            if d.abbrev == abbrev && d.long == long && d.server == server {
                return Ok(LockType((Self::COUNT + i) as u8));
            }
        }
        Err(format!(
            "too many lock types: one process holds at most {} besides the {} built-in ones \
             (over all the dialects it loads)",
            Self::MAX - Self::COUNT,
            Self::COUNT
        ))
    }

    /// `s` names this type: its abbreviation, long name or server name, case-insensitive,
    /// with or without `MDL_`; a built-in type also by the rules of [`LockType::parse`].
    pub fn is_named(self, s: &str) -> bool {
        if self.is_builtin() {
            return LockType::parse(s) == Some(self);
        }
        let bare = match s.get(..4) {
            Some(p) if p.eq_ignore_ascii_case("MDL_") => &s[4..],
            _ => s,
        };
        let (a, l, v) = self.names();
        [a, l, v]
            .iter()
            .any(|n| n.eq_ignore_ascii_case(s) || n.eq_ignore_ascii_case(bare))
    }

    /// Parses a built-in type's abbreviation or long name, with or without `MDL_`,
    /// case-insensitive. BACKUP types may also be written without their `BACKUP_` prefix
    /// (as in the tables). Declared types are parsed by their dialect
    /// (`Dialect::parse_type`).
    pub fn parse(s: &str) -> Option<LockType> {
        let up = s.to_ascii_uppercase();
        let up = up.strip_prefix("MDL_").unwrap_or(&up);
        for (i, (a, l)) in NAMES.iter().enumerate() {
            if up == *a || up == *l {
                return Some(LockType(i as u8));
            }
        }
        let with = format!("BACKUP_{up}");
        NAMES
            .iter()
            .position(|(a, _)| *a == with)
            .map(|i| LockType(i as u8))
    }
}

impl fmt::Debug for LockType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.abbrev())
    }
}

impl fmt::Display for LockType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.abbrev())
    }
}

/// A type name of a `type` line: `[A-Za-z][A-Za-z0-9_]*`, at most 40 characters.
fn valid_type_name(n: &str) -> bool {
    n.len() <= 40
        && n.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A set of lock types as a bitmap (MySQL's `bitmap_t`), one bit per type of the universe.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct TypeSet(pub u64);

impl TypeSet {
    pub const EMPTY: TypeSet = TypeSet(0);
    #[inline]
    pub fn contains(self, t: LockType) -> bool {
        self.0 & t.bit() != 0
    }
    #[inline]
    pub fn insert(&mut self, t: LockType) {
        self.0 |= t.bit();
    }
    #[inline]
    pub fn intersects(self, o: TypeSet) -> bool {
        self.0 & o.0 != 0
    }
    #[inline]
    pub fn is_subset(self, o: TypeSet) -> bool {
        self.0 & !o.0 == 0
    }
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// The members, lowest index first.
    pub fn iter(self) -> impl Iterator<Item = LockType> {
        let mut rest = self.0;
        std::iter::from_fn(move || {
            if rest == 0 {
                return None;
            }
            let i = rest.trailing_zeros();
            rest &= rest - 1;
            Some(LockType(i as u8))
        })
    }
}

impl FromIterator<LockType> for TypeSet {
    fn from_iter<I: IntoIterator<Item = LockType>>(it: I) -> Self {
        let mut s = TypeSet::EMPTY;
        for t in it {
            s.insert(t);
        }
        s
    }
}

/// How long a lock is held (`enum_mdl_duration`; the servers' three, a closed set).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum LockDuration {
    /// Released at the end of the statement (and at commit).
    Statement,
    /// Released at commit or rollback.
    Transaction,
    /// Released only explicitly (LOCK TABLES, HANDLER, GET_LOCK).
    Explicit,
}

impl LockDuration {
    /// Parses `statement`, `transaction` or `explicit` (any case).
    pub fn parse(s: &str) -> Option<LockDuration> {
        match s.to_ascii_lowercase().as_str() {
            "statement" => Some(LockDuration::Statement),
            "transaction" => Some(LockDuration::Transaction),
            "explicit" => Some(LockDuration::Explicit),
            _ => None,
        }
    }
    /// The lower-case name (`statement`, `transaction`, `explicit`).
    pub fn name(self) -> &'static str {
        match self {
            LockDuration::Statement => "statement",
            LockDuration::Transaction => "transaction",
            LockDuration::Explicit => "explicit",
        }
    }
    /// The name `performance_schema.metadata_locks.LOCK_DURATION` shows.
    pub fn server_name(self) -> &'static str {
        match self {
            LockDuration::Statement => "STATEMENT",
            LockDuration::Transaction => "TRANSACTION",
            LockDuration::Explicit => "EXPLICIT",
        }
    }
}

/// The former name of [`LockDuration`], kept for the workspace's own crates.
#[doc(hidden)]
pub use self::LockDuration as Duration;

impl fmt::Display for LockDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a request that could not be granted at once does.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum WaitOption {
    /// Fail at once with [`AcquireError::Busy`](crate::AcquireError::Busy).
    NoWait,
    /// Wait at most this long, read on the manager's [`Clock`](crate::Clock) (whole
    /// milliseconds; a fraction is dropped); zero fails a conflicting request at once
    /// with [`AcquireError::Timeout`](crate::AcquireError::Timeout) (no deadlock
    /// search), as a zero `lock_wait_timeout` does.
    Timeout(std::time::Duration),
    /// Wait until granted, chosen as a deadlock victim, or killed.
    Forever,
}

impl WaitOption {
    /// `Timeout` of `ms` milliseconds.
    pub const fn millis(ms: u64) -> WaitOption {
        WaitOption::Timeout(std::time::Duration::from_millis(ms))
    }

    /// The timeout in whole milliseconds (saturating), `None` for `NoWait` and `Forever`.
    pub fn timeout_ms(self) -> Option<u64> {
        match self {
            WaitOption::Timeout(d) => Some(u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
            WaitOption::NoWait | WaitOption::Forever => None,
        }
    }
}

/// How a wait ended; the first status set in a wait slot wins (`MDL_wait::enum_wait_status`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
#[non_exhaustive]
pub enum WaitStatus {
    /// The request was granted.
    Granted,
    /// The context was chosen as a deadlock victim.
    Deadlock,
    /// The wait's timeout passed.
    Timeout,
    /// The wait was killed ([`ContextHandle::kill`](crate::ContextHandle::kill)).
    Killed,
}

impl WaitStatus {
    /// The same word as an [`Outcome`].
    pub fn outcome(self) -> Outcome {
        match self {
            WaitStatus::Granted => Outcome::Granted,
            WaitStatus::Deadlock => Outcome::Deadlock,
            WaitStatus::Timeout => Outcome::Timeout,
            WaitStatus::Killed => Outcome::Killed,
        }
    }
}

/// The outcome of a scenario step (the spec's outcome words).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Outcome {
    Granted,
    Waiting,
    Busy,
    Deadlock,
    Timeout,
    Killed,
    Ok,
    Error,
}

impl Outcome {
    pub const ALL: [Outcome; 8] = [
        Outcome::Granted,
        Outcome::Waiting,
        Outcome::Busy,
        Outcome::Deadlock,
        Outcome::Timeout,
        Outcome::Killed,
        Outcome::Ok,
        Outcome::Error,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Granted => "granted",
            Outcome::Waiting => "waiting",
            Outcome::Busy => "busy",
            Outcome::Deadlock => "deadlock",
            Outcome::Timeout => "timeout",
            Outcome::Killed => "killed",
            Outcome::Ok => "ok",
            Outcome::Error => "error",
        }
    }
    pub fn parse(s: &str) -> Option<Outcome> {
        let l = s.to_ascii_lowercase();
        Outcome::ALL.into_iter().find(|o| o.name() == l)
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_names() {
        assert_eq!(LockType::parse("sr"), Some(LockType::SR));
        assert_eq!(LockType::parse("MDL_SHARED_READ"), Some(LockType::SR));
        assert_eq!(
            LockType::parse("shared_write_low_prio"),
            Some(LockType::SWLP)
        );
        assert_eq!(LockType::parse("BACKUP_DML"), Some(LockType::BACKUP_DML));
        assert_eq!(LockType::parse("DML"), Some(LockType::BACKUP_DML));
        assert_eq!(
            LockType::parse("mdl_backup_ftwrl1"),
            Some(LockType::BACKUP_FTWRL1)
        );
        assert_eq!(LockType::parse("Y"), None);
        for t in LockType::all() {
            assert_eq!(LockType::parse(t.abbrev()), Some(t));
            assert_eq!(LockType::parse(t.long_name()), Some(t));
        }
    }

    #[test]
    fn declared_types() {
        // A built-in type's own names give the built-in type.
        assert_eq!(
            LockType::declare("SR", "SHARED_READ", None),
            Ok(LockType::SR)
        );
        assert_eq!(
            LockType::declare("SR", "SHARED_READ", Some("SHARED_READ")),
            Ok(LockType::SR)
        );
        // Other names give a new type, once.
        let r = LockType::declare("TR", "TEST_READ", Some("TestReadLock")).unwrap();
        assert!(!r.is_builtin());
        assert_eq!(
            LockType::declare("TR", "TEST_READ", Some("TestReadLock")),
            Ok(r)
        );
        assert_eq!(
            (r.abbrev(), r.long_name(), r.server_name()),
            ("TR", "TEST_READ", "TestReadLock")
        );
        assert_eq!(r.to_string(), "TR");
        assert_eq!(format!("{r:?} {:?}", LockType::SNRW), "TR SNRW");
        assert!(r.is_named("tr") && r.is_named("mdl_test_read") && r.is_named("testreadlock"));
        assert!(!r.is_named("SR"));
        assert!(!r.is_named("é") && !r.is_named("MDL") && !r.is_named("mdlé_x"));
        // Same abbreviation as a built-in, other long name: a type of its own.
        let s = LockType::declare("S", "TEST_SHARE", None).unwrap();
        assert_ne!(s, LockType::S);
        assert_eq!(s.abbrev(), "S");
        assert!(LockType::declare("1X", "X", None).is_err());
        assert!(LockType::declare("A-B", "X", None).is_err());
        let set: TypeSet = [r, LockType::X, s].into_iter().collect();
        let mut v: Vec<LockType> = set.iter().collect();
        v.sort();
        assert_eq!(set.iter().collect::<Vec<_>>(), v);
        assert_eq!(set.iter().count(), 3);
    }
}
