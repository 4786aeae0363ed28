//! Dialects as data: namespaces, lock strategies, matrices, starvation rules, weights.
//!
//! A dialect is read from a folder of text tables (`mdl-core/dialects/NAME/`):
//! `dialect.txt` (one fact per line: its lock types, namespaces, strategies, ...) and, per
//! strategy, `STRATEGY.granted.tsv` plus `STRATEGY.pending.tsv` or
//! `STRATEGY.pending0.tsv ...` (rows: requested type, columns: granted or pending type, `+`
//! compatible, `-` incompatible), the layout of `shared/reference/`. The format is
//! `models/docs/dialect-format.md`. The two built-in dialects are compiled in from those files;
//! any other folder can be loaded with [`Dialect::from_dir`] or [`Dialect::load`]. Every
//! error is a [`DialectError`] at `FILE:LINE:COL`, never a panic.

mod matrix;
mod parse;
mod words;

pub use matrix::parse_matrix;

use crate::decide::types::{LockType, TypeSet};
use std::fmt;

/// A namespace of a dialect: an index into [`Dialect::namespaces`].
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Namespace(pub u8);

/// How a key of a namespace is written in scenarios.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum KeyForm {
    /// A single unnamed object, written `-`.
    Single,
    /// `db`.
    Db,
    /// `db.name`.
    Qualified,
}

/// Which starvation rule a dialect applies to namespaces flagged `starvation`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Starvation {
    /// MySQL 8.0: hog and piglet counters select one of four pending matrices.
    Mysql,
    /// MariaDB: hogs only; past the limit non-hog waiters are served ignoring priority.
    Mariadb,
    /// A design variant (models/FINDINGS.md, finding 1; the zoo's `mariadb-skipped-hog`):
    /// MariaDB's rule, plus one more pass of `reschedule_waiters` whenever a pass changed
    /// its own `skip_high_priority` decision (the count reset after skipped hogs, or a hog
    /// granted in the pass reached the limit), so no waiter that the rule would grant is
    /// left waiting. No server does this (dialect file: `starvation mariadb-repass`).
    MariadbRepass,
}

#[derive(Clone, Debug)]
pub struct NamespaceInfo {
    pub name: String,
    pub strategy: usize,
    pub key_form: KeyForm,
    /// hog/piglet counting and `max_write_lock_count` apply.
    pub starvation: bool,
    /// every request in this namespace weighs as DDL (GLOBAL).
    pub ddl_weight: bool,
    /// requests weigh as user-level locks.
    pub ull_weight: bool,
}

/// A lock strategy (MySQL's `MDL_lock_strategy`): which types exist and how they conflict.
#[derive(Clone, Debug)]
pub struct Strategy {
    pub name: String,
    /// The types this strategy takes, in enum order.
    pub types: Vec<LockType>,
    pub allowed: TypeSet,
    /// `granted[req]`: the granted types a request of type `req` is incompatible with.
    pub granted: [TypeSet; LockType::MAX],
    /// `pending[i][req]`: the waiting types a request of type `req` yields to, for the
    /// priority matrix `i` (one for most strategies, four for MySQL object locks).
    pub pending: Vec<[TypeSet; LockType::MAX]>,
    /// Types granted by the fast path while nothing obtrusive is granted or waiting.
    pub unobtrusive: TypeSet,
    /// The server has the fast path (the dialect's `fast_path` line; MySQL 8.0, not
    /// MariaDB): an unobtrusive grant made while nothing obtrusive is granted or waiting
    /// enters the lock's granted list only when its owner materialises it (MySQL:
    /// sql/mdl.cc, `MDL_context::materialize_fast_path_locks`, called from
    /// `try_acquire_lock_impl` for an obtrusive request and from `will_wait_for`). Without
    /// it every grant enters the list when it is made. Only the deadlock search's order
    /// reads it ([`crate::decide::step::Lock::wait_for`]).
    pub fast_path: bool,
    /// "Hog" types (strong, high priority): SNW, SNRW, X.
    pub hogs: TypeSet,
    /// The "piglet" type (SW) and the waiter it can starve (SRO).
    pub piglet: TypeSet,
    pub piglet_waiter: TypeSet,
    /// Types from this one on (enum order) weigh as DDL.
    pub ddl_from: Option<LockType>,
    /// Per-type weights overriding the DML/DDL rule.
    pub weight_type: Vec<(LockType, u32)>,
    /// Types a downgrade may start from.
    pub downgrade_from: TypeSet,
    /// An upgrade to a type the held ticket already covers still gives the ticket that
    /// type (MariaDB's BACKUP namespace, `MDL_context::upgrade_shared_lock`).
    pub upgrade_always: bool,
}

impl Strategy {
    /// Request `req` is incompatible with a granted `held` of another session.
    #[inline]
    pub fn conflicts_granted(&self, req: LockType, held: LockType) -> bool {
        self.granted[req.0 as usize].contains(held)
    }

    /// The grant-order rule of every invariant check (the manager's, the table's, the
    /// model's): two tickets of different sessions granted one after the other are in
    /// conflict when the `later` one, as a request, was incompatible with the `earlier`
    /// one as granted. The granted matrix is not symmetric (MariaDB's BACKUP namespace:
    /// BACKUP_FLUSH may be granted beside a granted BACKUP_DML, not the other way round),
    /// so the order matters.
    #[inline]
    pub fn conflicts(&self, earlier: LockType, later: LockType) -> bool {
        // Seeded bug `mdl_bug="conflicts_either_way"`: the rule reads the matrix both ways
        // (what `manager/verify.rs` did), so a legal BACKUP state is reported.
        #[cfg(mdl_bug = "conflicts_either_way")]
        return self.conflicts_granted(later, earlier) || self.conflicts_granted(earlier, later);
        #[allow(unreachable_code)]
        self.conflicts_granted(later, earlier)
    }

    /// Two granted tickets of different sessions whose grant order is not known exclude
    /// each other: they conflict in both orders ([`Strategy::conflicts`]), so neither
    /// order could have granted both.
    #[inline]
    pub fn conflicts_in_any_order(&self, a: LockType, b: LockType) -> bool {
        self.conflicts(a, b) && self.conflicts(b, a)
    }

    /// Request `req` yields to a waiting `pending` of another session, under matrix `idx`.
    #[inline]
    pub fn yields_to_pending(&self, idx: usize, req: LockType, pending: LockType) -> bool {
        self.pending[idx][req.0 as usize].contains(pending)
    }

    /// The granted types that a granted `held` blocks, as a column of the matrix.
    pub fn blocked_by(&self, held: LockType) -> TypeSet {
        self.types
            .iter()
            .copied()
            .filter(|r| self.conflicts_granted(*r, held))
            .collect()
    }

    /// `held` covers `req`: every granted type that a request of `req` would wait for, a
    /// request of `held` would wait for too (MySQL and MariaDB: sql/mdl.cc,
    /// `MDL_ticket::has_stronger_or_equal_type`, a test of the rows of the granted
    /// matrix). A session reuses (or clones) such a lock instead of asking for `req`.
    /// On MariaDB's asymmetric BACKUP matrix this says nothing about the columns: a held
    /// BACKUP_START covers BACKUP_FLUSH though a granted FLUSH blocks DML and START does
    /// not (which is why MariaDB's upgrade in that namespace always retypes the ticket,
    /// see `upgrade_always`).
    #[inline]
    pub fn covers(&self, held: LockType, req: LockType) -> bool {
        held == req || self.granted[req.0 as usize].is_subset(self.granted[held.0 as usize])
    }

    /// The position of `t` in this strategy's enum order.
    pub fn rank(&self, t: LockType) -> Option<usize> {
        self.types.iter().position(|x| *x == t)
    }

    #[inline]
    pub fn is_unobtrusive(&self, t: LockType) -> bool {
        self.unobtrusive.contains(t)
    }
}

/// How a waiting context's deadlock weight is taken ([`Dialect::weight`]). MySQL: sql/mdl.h,
/// `MDL_context::get_deadlock_weight` returns `DEADLOCK_WEIGHT_DML` when the context's
/// `m_force_dml_deadlock_weight` is set (`MDL_context::set_force_dml_deadlock_weight`),
/// else the weight of the ticket it waits for.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub enum WeightRule {
    /// The weight of the ticket waited for (`MDL_ticket::get_deadlock_weight`: by its
    /// namespace and type, as the dialect's weights say).
    #[default]
    ByTicket,
    /// The DML weight, whatever the wait (a context forced to the DML weight).
    ForcedDml,
}

impl WeightRule {
    /// The rule of a context whose force-DML setting is `forced`
    /// (`m_force_dml_deadlock_weight`).
    pub fn forced_if(forced: bool) -> WeightRule {
        if forced {
            WeightRule::ForcedDml
        } else {
            WeightRule::ByTicket
        }
    }
}

/// Deadlock weights.
#[derive(Clone, Debug)]
pub struct Weights {
    pub dml: u32,
    pub ull: u32,
    pub ddl: u32,
    /// Added once for each time a session was already chosen as a victim.
    pub victim_overweight: u32,
}

/// A dialect: everything that makes `mysql-8.0` differ from `mariadb`.
#[derive(Clone, Debug)]
pub struct Dialect {
    /// The dialect's name (`mysql-8.0`, `mariadb`, or its `name` line).
    pub name: String,
    /// The lock types of this dialect, in declaration order: its `type` lines or, when it
    /// has none, the built-in types its strategies name. Scenarios name types from these.
    pub types: Vec<LockType>,
    /// The namespaces, in the dialect's enum order (a [`Namespace`] indexes it).
    pub namespaces: Vec<NamespaceInfo>,
    /// The lock strategies (compatibility and priority matrices).
    pub strategies: Vec<Strategy>,
    /// How `max_write_lock_count` counts strong grants.
    pub starvation: Starvation,
    /// The deadlock weights of the victim choice.
    pub weights: Weights,
    /// `max_search_depth N`: the deadlock search declares a deadlock when it enters the
    /// N-th waiting context on a path (the requester is the first), as MySQL and MariaDB
    /// do with `MAX_SEARCH_DEPTH` = 32 (sql/mdl.cc,
    /// `Deadlock_detection_visitor::enter_node`). `None` (the default): exact search.
    pub max_search_depth: Option<u32>,
    /// `deadlock_resolution soft_edges`: before a victim is chosen, try to break the
    /// cycle by reordering pending requests of its locks (soft-edge resolution, after
    /// PostgreSQL's `deadlock.c`; [`crate::decide::step::Lock::reorder`]). `false` (the default,
    /// `deadlock_resolution victim`): the servers' victim rule alone.
    pub soft_edges: bool,
}

/// Parses the value of a `deadlock_resolution` setting (dialect.txt or a scenario):
/// `victim` (the servers' rule) or `soft_edges`; true for `soft_edges`.
pub fn parse_deadlock_resolution(word: &str) -> Result<bool, String> {
    match word {
        "victim" => Ok(false),
        "soft_edges" => Ok(true),
        _ => Err(format!(
            "deadlock_resolution must be `victim` or `soft_edges`, not `{word}`"
        )),
    }
}

/// A dialect folder that does not parse: `FILE:LINE:COL: message` at the word or cell
/// that is wrong; `FILE: message` (line 0) when the file itself cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DialectError {
    /// The file, relative to the dialect folder.
    pub file: String,
    /// 1-based line, 0 when the file itself is the error.
    pub line: usize,
    /// 1-based column of the offending word, 0 when not given.
    pub col: usize,
    /// What is wrong.
    pub msg: String,
}

impl fmt::Display for DialectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.file, self.msg)
        } else if self.col > 0 {
            write!(f, "{}:{}:{}: {}", self.file, self.line, self.col, self.msg)
        } else {
            write!(f, "{}:{}: {}", self.file, self.line, self.msg)
        }
    }
}

impl std::error::Error for DialectError {}

/// The largest `max_search_depth`: the capped search is a recursion as deep as this.
pub const MAX_SEARCH_DEPTH_LIMIT: u32 = 10_000;

/// Parses the value of a `max_search_depth` setting (dialect.txt or a scenario): a whole
/// number from 1 to [`MAX_SEARCH_DEPTH_LIMIT`].
pub fn parse_max_search_depth(word: &str) -> Result<u32, String> {
    match word.parse::<u32>() {
        Ok(n) if (1..=MAX_SEARCH_DEPTH_LIMIT).contains(&n) => Ok(n),
        _ => Err(format!(
            "max_search_depth must be a whole number from 1 to {MAX_SEARCH_DEPTH_LIMIT}, not `{word}`"
        )),
    }
}

/// The names of the built-in dialects.
pub const BUILTIN: [&str; 2] = ["mysql-8.0", "mariadb"];

/// Every file of each built-in dialect folder, with its text.
const BUILTIN_FILES: [(&str, &str, &str); 15] = {
    macro_rules! files {
        ($($d:literal / $f:literal),* $(,)?) => {
            [$(($d, $f, include_str!(concat!("../../dialects/", $d, "/", $f))),)*]
        };
    }
    files!(
        "mysql-8.0" / "dialect.txt",
        "mysql-8.0" / "scoped.granted.tsv",
        "mysql-8.0" / "scoped.pending.tsv",
        "mysql-8.0" / "object.granted.tsv",
        "mysql-8.0" / "object.pending0.tsv",
        "mysql-8.0" / "object.pending1.tsv",
        "mysql-8.0" / "object.pending2.tsv",
        "mysql-8.0" / "object.pending3.tsv",
        "mariadb" / "dialect.txt",
        "mariadb" / "scoped.granted.tsv",
        "mariadb" / "scoped.pending.tsv",
        "mariadb" / "object.granted.tsv",
        "mariadb" / "object.pending.tsv",
        "mariadb" / "backup.granted.tsv",
        "mariadb" / "backup.pending.tsv",
    )
};

fn builtin_file(dialect: &str, file: &str) -> Option<&'static str> {
    BUILTIN_FILES
        .iter()
        .find(|(d, f, _)| *d == dialect && *f == file)
        .map(|(_, _, t)| *t)
}

impl Dialect {
    /// A built-in dialect by name (`mysql-8.0`, `mariadb`; `mysql` is accepted too).
    pub fn builtin(name: &str) -> Option<Dialect> {
        let name = Dialect::builtin_name(name)?;
        let d = Dialect::parse(&|f| builtin_file(name, f).map(str::to_owned))
            .unwrap_or_else(|e| panic!("built-in dialect {name} is broken: {e}"));
        Some(d)
    }

    /// The name of the built-in dialect `name` stands for (`mysql`, `MySQL-8.0` ->
    /// `mysql-8.0`), without loading it.
    pub fn builtin_name(name: &str) -> Option<&'static str> {
        match name.to_ascii_lowercase().as_str() {
            "mysql-8.0" | "mysql" | "mysql8" | "mysql-8" => Some("mysql-8.0"),
            "mariadb" => Some("mariadb"),
            _ => None,
        }
    }

    /// The built-in `mysql-8.0` dialect (MySQL 8.0's `sql/mdl.cc`).
    pub fn mysql80() -> Dialect {
        Dialect::builtin("mysql-8.0").expect("built in")
    }

    /// The built-in `mariadb` dialect (MariaDB 10.11's `sql/mdl.cc`).
    pub fn mariadb() -> Dialect {
        Dialect::builtin("mariadb").expect("built in")
    }

    /// The raw text of a built-in dialect's file, for `mdl matrix` and tests.
    pub fn builtin_text(dialect: &str, file: &str) -> Option<&'static str> {
        builtin_file(dialect, file)
    }

    /// The files of a built-in dialect's folder (`dialect.txt` first), with their text,
    /// for `mdl dialect new`. Empty for a name that is not a built-in one.
    pub fn builtin_files(dialect: &str) -> Vec<(&'static str, &'static str)> {
        BUILTIN_FILES
            .iter()
            .filter(|(d, ..)| *d == dialect)
            .map(|(_, f, t)| (*f, *t))
            .collect()
    }

    /// Loads a dialect from a folder laid out like `mdl-core/dialects/NAME/`. Errors name
    /// the file by its path in the folder.
    pub fn from_dir(dir: &std::path::Path) -> Result<Dialect, DialectError> {
        let read = |f: &str| -> Result<String, String> {
            let p = dir.join(f);
            match std::fs::metadata(&p) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err("missing".into()),
                Err(e) => return Err(format!("cannot read it: {e}")),
                Ok(m) if m.is_dir() => return Err("cannot read it: it is a folder".into()),
                Ok(m) if m.len() > MAX_FILE_BYTES => {
                    return Err(format!(
                        "cannot read it: bigger than the limit of {MAX_FILE_BYTES} bytes"
                    ))
                }
                Ok(_) => {}
            }
            std::fs::read_to_string(&p).map_err(|e| match e.kind() {
                std::io::ErrorKind::InvalidData => "cannot read it: it is not UTF-8 text".into(),
                _ => format!("cannot read it: {e}"),
            })
        };
        Dialect::parse_files(&read).map_err(|mut e| {
            e.file = dir.join(&e.file).display().to_string();
            e
        })
    }

    /// A built-in dialect by name (a built-in name always means the built-in), else the
    /// dialect folder at `spec`, relative to `base`. The error of a folder that does not
    /// load says that `spec` is neither.
    pub fn load(spec: &str, base: &std::path::Path) -> Result<Dialect, DialectError> {
        if let Some(d) = Dialect::builtin(spec) {
            return Ok(d);
        }
        let dir = base.join(spec);
        if !dir.is_dir() {
            return Err(DialectError {
                file: dir.display().to_string(),
                line: 0,
                col: 0,
                msg: format!(
                    "`{spec}` is neither a built-in dialect ({}) nor a dialect folder",
                    BUILTIN.join(", ")
                ),
            });
        }
        Dialect::from_dir(&dir)
    }

    /// The type `s` names among this dialect's types ([`Dialect::types`]): an
    /// abbreviation, long name or server name, case-insensitive, with or without `MDL_`.
    pub fn parse_type(&self, s: &str) -> Option<LockType> {
        // One look-up in the built-in names, then the declared types (no two types of a
        // dialect share a name, so the order does not matter).
        if let Some(t) = LockType::parse(s).filter(|t| self.types.contains(t)) {
            return Some(t);
        }
        self.types
            .iter()
            .copied()
            .filter(|t| !t.is_builtin())
            .find(|t| t.is_named(s))
    }

    /// Parses a dialect; `read` returns the text of a file of the folder (`None`: the
    /// file is missing).
    pub fn parse(read: &dyn Fn(&str) -> Option<String>) -> Result<Dialect, DialectError> {
        Dialect::parse_files(&|f| read(f).ok_or_else(|| "missing".to_string()))
    }

    /// Parses a dialect; `read` returns the text of a file of the folder or why it cannot.
    /// Every error is at `FILE:LINE:COL` of the file that has it (a matrix file that
    /// cannot be read: at the line of `dialect.txt` that asks for it); only a
    /// `dialect.txt` that cannot be read has no line.
    pub fn parse_files(
        read: &dyn Fn(&str) -> Result<String, String>,
    ) -> Result<Dialect, DialectError> {
        parse::parse_files(read)
    }

    /// The namespace's declaration.
    pub fn namespace(&self, ns: Namespace) -> &NamespaceInfo {
        &self.namespaces[ns.0 as usize]
    }

    /// The namespace of that name (`TABLE`, `SCHEMA`, ...), if the dialect has one.
    pub fn namespace_by_name(&self, name: &str) -> Option<Namespace> {
        self.namespaces
            .iter()
            .position(|n| n.name.eq_ignore_ascii_case(name))
            .map(|i| Namespace(i as u8))
    }

    /// The lock strategy of a namespace.
    #[inline]
    pub fn strategy(&self, ns: Namespace) -> &Strategy {
        &self.strategies[self.namespaces[ns.0 as usize].strategy]
    }

    /// `ty` is a type that namespace `ns` takes.
    #[inline]
    pub fn allows(&self, ns: Namespace, ty: LockType) -> bool {
        self.strategy(ns).allowed.contains(ty)
    }

    /// The deadlock weight of a request of type `ty` in namespace `ns` that waits, weighed
    /// by `rule` (MySQL: sql/mdl.h, `MDL_context::get_deadlock_weight`: the ticket's
    /// `MDL_ticket::get_deadlock_weight`, or the DML weight for a context forced to it),
    /// plus MariaDB's victim overweight for each of the `victim_count` times the context
    /// was chosen before.
    pub fn weight(&self, ns: Namespace, ty: LockType, rule: WeightRule, victim_count: u32) -> u32 {
        let over = self.weights.victim_overweight.saturating_mul(victim_count);
        if rule == WeightRule::ForcedDml {
            return self.weights.dml.saturating_add(over);
        }
        let info = self.namespace(ns);
        let s = self.strategy(ns);
        // MySQL checks USER_LEVEL_LOCK first: GET_LOCK takes X, and a wait for a
        // user-level lock weighs 50 whatever its type (`MDL_ticket::get_deadlock_weight`).
        let base = if let Some((_, w)) = s.weight_type.iter().find(|(t, _)| *t == ty) {
            *w
        } else if info.ull_weight {
            self.weights.ull
        } else if info.ddl_weight
            || s.ddl_from
                .and_then(|f| s.rank(f))
                .zip(s.rank(ty))
                .is_some_and(|(f, r)| r >= f)
        {
            self.weights.ddl
        } else {
            self.weights.dml
        };
        base.saturating_add(over)
    }
}

impl fmt::Display for Namespace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ns#{}", self.0)
    }
}

/// The main file of a dialect folder.
const MAIN: &str = "dialect.txt";

/// A dialect file is at most 1 MiB.
pub const MAX_FILE_BYTES: u64 = 1 << 20;

/// A dialect has at most 64 namespaces.
pub const MAX_NAMESPACES: usize = 64;

impl DialectError {
    fn at(file: &str, line: usize, col: usize, msg: impl Into<String>) -> DialectError {
        DialectError {
            file: file.to_owned(),
            line,
            col,
            msg: msg.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_load() {
        let m = Dialect::mysql80();
        assert_eq!(m.namespaces.len(), 18);
        assert_eq!(m.strategies[1].pending.len(), 4);
        let d = Dialect::mariadb();
        assert_eq!(d.namespaces.len(), 9);
        let b = d.strategy(d.namespace_by_name("BACKUP").unwrap());
        assert_eq!(b.types.len(), 14);
    }

    #[test]
    fn weights() {
        let m = Dialect::mysql80();
        let t = m.namespace_by_name("TABLE").unwrap();
        let g = m.namespace_by_name("GLOBAL").unwrap();
        let u = m.namespace_by_name("USER_LEVEL_LOCK").unwrap();
        assert_eq!(m.weight(t, LockType::SR, WeightRule::ByTicket, 0), 25);
        assert_eq!(m.weight(t, LockType::SU, WeightRule::ByTicket, 0), 100);
        assert_eq!(m.weight(g, LockType::IX, WeightRule::ByTicket, 0), 100);
        assert_eq!(
            m.weight(u, LockType::X, WeightRule::ByTicket, 0),
            50,
            "ULL before the DDL rule"
        );
        assert_eq!(m.weight(u, LockType::S, WeightRule::ByTicket, 0), 50);
        assert_eq!(m.weight(t, LockType::X, WeightRule::ForcedDml, 0), 25);
        let d = Dialect::mariadb();
        let b = d.namespace_by_name("BACKUP").unwrap();
        assert_eq!(
            d.weight(b, LockType::BACKUP_FTWRL1, WeightRule::ByTicket, 0),
            0
        );
        assert_eq!(
            d.weight(b, LockType::BACKUP_DML, WeightRule::ByTicket, 0),
            100
        );
        let t = d.namespace_by_name("TABLE").unwrap();
        assert_eq!(d.weight(t, LockType::SW, WeightRule::ByTicket, 2), 3);
    }

    #[test]
    fn covers() {
        let m = Dialect::mysql80();
        let t = m.strategy(m.namespace_by_name("TABLE").unwrap());
        assert!(t.covers(LockType::X, LockType::SR));
        assert!(t.covers(LockType::S, LockType::SH));
        assert!(!t.covers(LockType::SR, LockType::SW));
        assert!(!t.covers(LockType::SNW, LockType::SW));
        let s = m.strategy(m.namespace_by_name("GLOBAL").unwrap());
        assert!(
            !s.covers(LockType::S, LockType::IX),
            "scoped S does not cover IX"
        );
        assert!(s.covers(LockType::X, LockType::IX));
    }
}
