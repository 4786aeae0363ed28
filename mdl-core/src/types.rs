//! Lock types, durations and wait outcomes: the vocabulary shared by every layer.
//!
//! Lock types form one universe for both dialects (MySQL's `enum_mdl_type` followed by
//! MariaDB's BACKUP types). Which types a namespace takes, and how they conflict, is the
//! dialect's business (`crate::dialect`); a [`LockType`] is only a name with an index.

use std::fmt;

/// A lock type. The index is its position in [`LockType::ALL`], which is the servers'
/// enum order; "stronger first" in bulk requests means a higher index first.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct LockType(pub u8);

/// (abbreviation, long name without `MDL_`) for every type, in enum order.
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

impl LockType {
    pub const COUNT: usize = NAMES.len();
    pub const IX: LockType = LockType(0);
    pub const S: LockType = LockType(1);
    pub const SH: LockType = LockType(2);
    pub const SR: LockType = LockType(3);
    pub const SW: LockType = LockType(4);
    pub const SWLP: LockType = LockType(5);
    pub const SU: LockType = LockType(6);
    pub const SRO: LockType = LockType(7);
    pub const SNW: LockType = LockType(8);
    pub const SNRW: LockType = LockType(9);
    pub const X: LockType = LockType(10);
    pub const BACKUP_START: LockType = LockType(11);
    pub const BACKUP_FTWRL1: LockType = LockType(16);
    pub const BACKUP_FTWRL2: LockType = LockType(17);
    pub const BACKUP_DML: LockType = LockType(18);

    /// Every type in enum order.
    pub fn all() -> impl Iterator<Item = LockType> {
        (0..Self::COUNT as u8).map(LockType)
    }

    /// The bit of this type in a [`TypeSet`].
    #[inline]
    pub fn bit(self) -> u32 {
        1u32 << self.0
    }

    /// The abbreviation (`SR`, `BACKUP_DML`).
    pub fn abbrev(self) -> &'static str {
        NAMES[self.0 as usize].0
    }

    /// The long name without prefix (`SHARED_READ`).
    pub fn long_name(self) -> &'static str {
        NAMES[self.0 as usize].1
    }

    /// The name `performance_schema.metadata_locks` shows (`SHARED_READ`, `BACKUP_DML`).
    pub fn server_name(self) -> &'static str {
        self.long_name()
    }

    /// Parses an abbreviation or long name, with or without `MDL_`, case-insensitive.
    /// BACKUP types may also be written without their `BACKUP_` prefix (as in the tables).
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

impl fmt::Display for LockType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.abbrev())
    }
}

/// A set of lock types as a bitmap (MySQL's `bitmap_t`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct TypeSet(pub u32);

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
    pub fn iter(self) -> impl Iterator<Item = LockType> {
        LockType::all().filter(move |t| self.contains(*t))
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

/// How long a lock is held (`enum_mdl_duration`).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Duration {
    /// Released at the end of the statement (and at commit).
    Statement,
    /// Released at commit or rollback.
    Transaction,
    /// Released only explicitly (LOCK TABLES, HANDLER, GET_LOCK).
    Explicit,
}

impl Duration {
    pub fn parse(s: &str) -> Option<Duration> {
        match s.to_ascii_lowercase().as_str() {
            "statement" => Some(Duration::Statement),
            "transaction" => Some(Duration::Transaction),
            "explicit" => Some(Duration::Explicit),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Duration::Statement => "statement",
            Duration::Transaction => "transaction",
            Duration::Explicit => "explicit",
        }
    }
    /// The name `performance_schema.metadata_locks.LOCK_DURATION` shows.
    pub fn server_name(self) -> &'static str {
        match self {
            Duration::Statement => "STATEMENT",
            Duration::Transaction => "TRANSACTION",
            Duration::Explicit => "EXPLICIT",
        }
    }
}

impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a request that could not be granted at once does.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum WaitOption {
    /// Fail at once with [`Outcome::Busy`].
    NoWait,
    /// Wait at most this many milliseconds of the manager's clock; 0 fails a conflicting
    /// request at once with [`Outcome::Timeout`] (no deadlock search), as a zero
    /// `lock_wait_timeout` does.
    Timeout(u64),
    /// Wait until granted, chosen as a deadlock victim, or killed.
    Forever,
}

/// How a wait ended; the first status set in a wait slot wins (`MDL_wait::enum_wait_status`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum WaitStatus {
    Granted,
    Deadlock,
    Timeout,
    Killed,
}

impl WaitStatus {
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
}
