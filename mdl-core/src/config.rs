//! The manager's settings: every knob in one [`Config`], built with [`ConfigBuilder`].

use crate::decide::dialect::Dialect;

/// What breaks a deadlock cycle (the `deadlock_resolution` setting).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DeadlockResolution {
    /// The servers' rule: the lightest waiter of the cycle is the victim (MySQL:
    /// sql/mdl.cc, `Deadlock_detection_visitor::opt_change_victim_to`).
    #[default]
    Victim,
    /// Before a victim is chosen, try to break the cycle by reordering pending requests
    /// of its locks (soft-edge resolution, after PostgreSQL's `deadlock.c`); a victim only
    /// when no reordering breaks it.
    SoftEdges,
}

impl DeadlockResolution {
    /// Parses `victim` or `soft_edges`.
    pub fn parse(word: &str) -> Option<DeadlockResolution> {
        match word {
            "victim" => Some(DeadlockResolution::Victim),
            "soft_edges" => Some(DeadlockResolution::SoftEdges),
            _ => None,
        }
    }
}

/// The settings of a [`Manager`](crate::Manager). Build one with [`Config::builder`]
/// (or take [`Config::default`]: no `max_write_lock_count`, the dialect's deadlock
/// settings).
///
/// ```
/// use mdl_core::{Config, DeadlockResolution};
/// let config = Config::builder()
///     .max_write_lock_count(10)
///     .max_search_depth(32)
///     .deadlock_resolution(DeadlockResolution::Victim)
///     .build();
/// assert_eq!(config.max_write_lock_count, 10);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Config {
    /// `max_write_lock_count`: after this many strong (hog) grants in a row while weaker
    /// requests wait, the weaker ones go first (MySQL: sql/mdl.cc,
    /// `MDL_lock::reschedule_waiters`). `u64::MAX` (the default): unlimited.
    pub max_write_lock_count: u64,
    /// The deadlock search declares a deadlock when it enters the N-th waiting context
    /// on a path, as the servers do with `MAX_SEARCH_DEPTH` = 32 (sql/mdl.cc,
    /// `Deadlock_detection_visitor::enter_node`). `None` (the default): the dialect's
    /// `max_search_depth` line, or an exact search when it has none.
    pub max_search_depth: Option<u32>,
    /// What breaks a deadlock. `None` (the default): the dialect's `deadlock_resolution`
    /// line, or [`DeadlockResolution::Victim`] when it has none.
    pub deadlock_resolution: Option<DeadlockResolution>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_write_lock_count: u64::MAX,
            max_search_depth: None,
            deadlock_resolution: None,
        }
    }
}

impl Config {
    /// A builder starting from [`Config::default`].
    pub fn builder() -> ConfigBuilder {
        ConfigBuilder(Config::default())
    }

    /// `dialect` with this configuration's deadlock settings applied (those it sets).
    pub(crate) fn apply(&self, mut dialect: Dialect) -> Dialect {
        if let Some(n) = self.max_search_depth {
            dialect.max_search_depth = Some(n);
        }
        if let Some(r) = self.deadlock_resolution {
            dialect.soft_edges = r == DeadlockResolution::SoftEdges;
        }
        dialect
    }

    /// The lock table's part of the settings.
    pub(crate) fn table(&self) -> crate::decide::step::Config {
        crate::decide::step::Config {
            max_write_lock_count: self.max_write_lock_count,
        }
    }
}

#[doc(hidden)]
impl From<crate::decide::step::Config> for Config {
    fn from(c: crate::decide::step::Config) -> Config {
        Config::builder()
            .max_write_lock_count(c.max_write_lock_count)
            .build()
    }
}

/// Builds a [`Config`] ([`Config::builder`]).
#[derive(Clone, Copy, Debug)]
pub struct ConfigBuilder(Config);

impl ConfigBuilder {
    /// Sets [`Config::max_write_lock_count`].
    pub fn max_write_lock_count(mut self, n: u64) -> Self {
        self.0.max_write_lock_count = n;
        self
    }
    /// Sets [`Config::max_search_depth`], clamped to 1..=10,000 (the capped search is a
    /// recursion as deep as this).
    pub fn max_search_depth(mut self, n: u32) -> Self {
        let n = n.clamp(1, crate::decide::dialect::MAX_SEARCH_DEPTH_LIMIT);
        self.0.max_search_depth = Some(n);
        self
    }
    /// Sets [`Config::deadlock_resolution`].
    pub fn deadlock_resolution(mut self, r: DeadlockResolution) -> Self {
        self.0.deadlock_resolution = Some(r);
        self
    }
    /// The configuration.
    pub fn build(self) -> Config {
        self.0
    }
}
