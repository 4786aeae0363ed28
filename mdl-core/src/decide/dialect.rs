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
        let main = read(MAIN).map_err(|msg| DialectError::at(MAIN, 0, 0, msg))?;
        let err = |line: usize, col: usize, msg: String| DialectError::at(MAIN, line, col, msg);
        // (line, words with their columns), comments and blank lines left out.
        let lines: Vec<(usize, Vec<Word>)> = main
            .lines()
            .enumerate()
            .map(|(i, raw)| (i + 1, words(raw)))
            .filter(|(_, w)| !w.is_empty())
            .collect();

        // Pass 1: the declared types (`type` lines, wherever they stand).
        let mut declared: Vec<(LockType, usize)> = Vec::new();
        for (line, w) in &lines {
            if w[0].text != "type" {
                continue;
            }
            if !(3..=4).contains(&w.len()) {
                return Err(err(
                    *line,
                    w[0].col,
                    "expected `type ABBREVIATION LONG_NAME [SERVER_NAME]`".into(),
                ));
            }
            for x in &w[1..] {
                if let Some((_, l)) = declared.iter().find(|(t, _)| t.is_named(&x.text)) {
                    return Err(err(
                        *line,
                        x.col,
                        format!("`{}` already names the type declared at line {l}", x.text),
                    ));
                }
            }
            let t = LockType::declare(&w[1].text, &w[2].text, w.get(3).map(|x| x.text.as_str()))
                .map_err(|m| err(*line, w[1].col, m))?;
            declared.push((t, *line));
        }
        // A dialect that declares no type uses the built-in names.
        let resolve = |s: &str| -> Option<LockType> {
            if declared.is_empty() {
                LockType::parse(s)
            } else {
                declared.iter().map(|(t, _)| *t).find(|t| t.is_named(s))
            }
        };
        let unknown = |s: &str| {
            if declared.is_empty() {
                format!("unknown lock type `{s}` (this dialect declares no `type`, so the built-in names apply)")
            } else {
                format!("unknown lock type `{s}`: not a `type` of this dialect")
            }
        };

        // Pass 2: everything else.
        let mut name = String::new();
        let mut ns: Vec<NsLine> = Vec::new();
        let mut strategies: Vec<Strategy> = Vec::new();
        // Per strategy: its line and the column of its name.
        let mut strategy_at: Vec<(usize, usize)> = Vec::new();
        // (strategy, count, line, column of the count)
        let mut pending_counts: Vec<(String, usize, usize, usize)> = Vec::new();
        let mut starvation = Starvation::Mysql;
        let mut max_search_depth = None;
        let mut soft_edges = false;
        let mut fast_path = false;
        let mut weights = Weights {
            dml: 1,
            ull: 1,
            ddl: 1,
            victim_overweight: 0,
        };
        // Facts that name a strategy are applied after all strategies are known.
        let mut later: Vec<(usize, &[Word])> = Vec::new();
        let number = |x: &Word, what: &str, line: usize| -> Result<u32, DialectError> {
            x.text.parse::<u32>().map_err(|_| {
                err(
                    line,
                    x.col,
                    format!("{what} must be a whole number, not `{}`", x.text),
                )
            })
        };
        for (line, w) in &lines {
            let line = *line;
            let text: Vec<&str> = w.iter().map(|x| x.text.as_str()).collect();
            match (text[0], w.len()) {
                ("type", _) => {}
                ("name", 2) => name = w[1].text.clone(),
                ("namespace", n) if n >= 4 => {
                    let form = match text[3] {
                        "single" => KeyForm::Single,
                        "db" => KeyForm::Db,
                        "qualified" => KeyForm::Qualified,
                        o => {
                            return Err(err(
                                line,
                                w[3].col,
                                format!("unknown key form `{o}` (single, db or qualified)"),
                            ))
                        }
                    };
                    if let Some(prev) = ns
                        .iter()
                        .find(|n| n.name.text.eq_ignore_ascii_case(text[1]))
                    {
                        return Err(err(
                            line,
                            w[1].col,
                            format!(
                                "namespace `{}` is already declared at line {}",
                                text[1], prev.line
                            ),
                        ));
                    }
                    ns.push(NsLine {
                        name: w[1].clone(),
                        strategy: w[2].clone(),
                        form,
                        flags: w[4..].to_vec(),
                        line,
                    });
                }
                ("strategy", n) if n >= 3 => {
                    if let Some(i) = strategies.iter().position(|s| s.name == text[1]) {
                        return Err(err(
                            line,
                            w[1].col,
                            format!(
                                "strategy `{}` is already declared at line {}",
                                text[1], strategy_at[i].0
                            ),
                        ));
                    }
                    let mut types = Vec::new();
                    for x in &w[2..] {
                        let t =
                            resolve(&x.text).ok_or_else(|| err(line, x.col, unknown(&x.text)))?;
                        if types.contains(&t) {
                            return Err(err(
                                line,
                                x.col,
                                format!("type `{}` is listed twice", x.text),
                            ));
                        }
                        types.push(t);
                    }
                    strategies.push(Strategy {
                        name: w[1].text.clone(),
                        allowed: types.iter().copied().collect(),
                        types,
                        granted: [TypeSet::EMPTY; LockType::MAX],
                        pending: Vec::new(),
                        unobtrusive: TypeSet::EMPTY,
                        fast_path: false,
                        hogs: TypeSet::EMPTY,
                        piglet: TypeSet::EMPTY,
                        piglet_waiter: TypeSet::EMPTY,
                        ddl_from: None,
                        weight_type: Vec::new(),
                        downgrade_from: TypeSet::EMPTY,
                        upgrade_always: false,
                    });
                    strategy_at.push((line, w[1].col));
                }
                ("pending", 3) => {
                    let n = number(&w[2], "the pending count", line)? as usize;
                    if n == 0 || n > 4 {
                        return Err(err(line, w[2].col, "pending count must be 1 to 4".into()));
                    }
                    pending_counts.push((w[1].text.clone(), n, line, w[1].col));
                }
                ("starvation", 2) => {
                    starvation = match text[1] {
                        "mysql" => Starvation::Mysql,
                        "mariadb" => Starvation::Mariadb,
                        "mariadb-repass" => Starvation::MariadbRepass,
                        o => {
                            return Err(err(
                                line,
                                w[1].col,
                                format!(
                                    "unknown starvation rule `{o}` (mysql, mariadb or \
                                     mariadb-repass)"
                                ),
                            ))
                        }
                    }
                }
                ("weight", 3) => {
                    let v = number(&w[2], "a weight", line)?;
                    match text[1] {
                        "dml" => weights.dml = v,
                        "ull" => weights.ull = v,
                        "ddl" => weights.ddl = v,
                        o => {
                            return Err(err(
                                line,
                                w[1].col,
                                format!("unknown weight class `{o}` (dml, ull or ddl)"),
                            ))
                        }
                    }
                }
                ("max_search_depth", 2) => {
                    max_search_depth = Some(
                        parse_max_search_depth(&w[1].text).map_err(|m| err(line, w[1].col, m))?,
                    );
                }
                ("fast_path", 1) => fast_path = true,
                ("deadlock_resolution", 2) => {
                    soft_edges = parse_deadlock_resolution(&w[1].text)
                        .map_err(|m| err(line, w[1].col, m))?;
                }
                ("victim_overweight", 2) => {
                    weights.victim_overweight = number(&w[1], "victim_overweight", line)?
                }
                ("upgrade_always", 2) => later.push((line, w)),
                ("weight_type", 4) => later.push((line, w)),
                (
                    "unobtrusive" | "hogs" | "piglet" | "piglet_waiter" | "ddl_from"
                    | "downgrade_from",
                    n,
                ) if n >= 3 => later.push((line, w)),
                _ => {
                    let shown = main.lines().nth(line - 1).unwrap_or("");
                    let shown = shown.split('#').next().unwrap_or("").trim();
                    return Err(err(line, w[0].col, format!("cannot read `{shown}`")));
                }
            }
        }
        if name.is_empty() {
            return Err(err(1, 1, "no `name NAME` line".into()));
        }
        if ns.is_empty() {
            return Err(err(1, 1, "no `namespace` line".into()));
        }
        // The `unobtrusive` lines: (strategy, line, each type with its column).
        let mut unobtrusive_at: Vec<SetLine> = Vec::new();
        for (line, w) in later {
            let si = strategies
                .iter()
                .position(|s| s.name == w[1].text)
                .ok_or_else(|| err(line, w[1].col, format!("unknown strategy `{}`", w[1].text)))?;
            let s = &mut strategies[si];
            if w[0].text == "upgrade_always" {
                s.upgrade_always = true;
                continue;
            }
            let args = if w[0].text == "weight_type" {
                &w[2..3]
            } else {
                &w[2..]
            };
            let mut set = TypeSet::EMPTY;
            let mut first = None;
            let mut at = Vec::new();
            for x in args {
                let ty = resolve(&x.text)
                    .filter(|ty| s.allowed.contains(*ty))
                    .ok_or_else(|| {
                        err(
                            line,
                            x.col,
                            format!("`{}` is not a type of strategy {}", x.text, s.name),
                        )
                    })?;
                set.insert(ty);
                first.get_or_insert(ty);
                at.push((ty, x.col));
            }
            let Some(first) = first else {
                return Err(err(line, w[0].col, "expected a type".into()));
            };
            match w[0].text.as_str() {
                "unobtrusive" => {
                    s.unobtrusive = set;
                    unobtrusive_at.push((si, line, at));
                }
                "hogs" => s.hogs = set,
                "piglet" => s.piglet = set,
                "piglet_waiter" => s.piglet_waiter = set,
                "downgrade_from" => s.downgrade_from = set,
                "ddl_from" => {
                    if w.len() != 3 {
                        return Err(err(
                            line,
                            w[3].col,
                            "`ddl_from STRATEGY TYPE` takes one type".into(),
                        ));
                    }
                    s.ddl_from = Some(first)
                }
                _ => {
                    // weight_type STRATEGY TYPE N
                    let v = number(&w[3], "a weight", line)?;
                    s.weight_type.push((first, v));
                }
            }
        }
        // The matrices, with where each row and cell was written.
        let mut spots: Vec<Vec<(String, MatrixSpots)>> = Vec::new();
        for (si, s) in strategies.iter_mut().enumerate() {
            let (sline, scol) = strategy_at[si];
            let pend = pending_counts.iter().find(|(n, ..)| *n == s.name);
            let n = pend.map_or(1, |p| p.1);
            let mut files = vec![(format!("{}.granted.tsv", s.name), sline, scol)];
            for i in 0..n {
                let f = if n == 1 {
                    format!("{}.pending.tsv", s.name)
                } else {
                    format!("{}.pending{i}.tsv", s.name)
                };
                let (l, c) = pend.map_or((sline, scol), |p| (p.2, p.3));
                files.push((f, l, c));
            }
            let mut mine = Vec::new();
            for (k, (f, l, c)) in files.into_iter().enumerate() {
                let text = read(&f).map_err(|why| {
                    err(
                        l,
                        c,
                        format!("strategy `{}` needs the matrix file {f}: {why}", s.name),
                    )
                })?;
                let (rows, at) = parse_matrix_with(&f, &text, &s.types, &resolve)?;
                if k == 0 {
                    s.granted = rows;
                } else {
                    s.pending.push(rows);
                }
                mine.push((f, at));
            }
            // Seeded bug `mdl_bug="pending_cell"`: one cell of one pending matrix flipped
            // at load time: in object matrix 0 a SHARED_READ request no longer yields to a
            // pending EXCLUSIVE (it overtakes a waiting DDL).
            #[cfg(mdl_bug = "pending_cell")]
            if s.name == "object" {
                let row = &mut s.pending[0][LockType::SR.0 as usize];
                row.0 &= !LockType::X.bit();
            }
            spots.push(mine);
        }
        let mut namespaces = Vec::new();
        for n in ns {
            if namespaces.len() == MAX_NAMESPACES {
                return Err(err(
                    n.line,
                    n.name.col,
                    format!("at most {MAX_NAMESPACES} namespaces"),
                ));
            }
            let strategy = strategies
                .iter()
                .position(|s| s.name == n.strategy.text)
                .ok_or_else(|| {
                    err(
                        n.line,
                        n.strategy.col,
                        format!("unknown strategy `{}`", n.strategy.text),
                    )
                })?;
            let mut info = NamespaceInfo {
                name: n.name.text,
                strategy,
                key_form: n.form,
                starvation: false,
                ddl_weight: false,
                ull_weight: false,
            };
            for f in n.flags {
                match f.text.as_str() {
                    "starvation" => info.starvation = true,
                    "ddl_weight" => info.ddl_weight = true,
                    "ull_weight" => info.ull_weight = true,
                    o => {
                        return Err(err(
                            n.line,
                            f.col,
                            format!(
                            "unknown namespace flag `{o}` (starvation, ddl_weight or ull_weight)"
                        ),
                        ))
                    }
                }
            }
            namespaces.push(info);
        }
        let types = if declared.is_empty() {
            let mut v: Vec<LockType> = Vec::new();
            for t in strategies.iter().flat_map(|s| &s.types) {
                if !v.contains(t) {
                    v.push(*t);
                }
            }
            v
        } else {
            declared.iter().map(|(t, _)| *t).collect()
        };
        for s in &mut strategies {
            s.fast_path = fast_path;
        }
        let d = Dialect {
            name,
            types,
            namespaces,
            strategies,
            starvation,
            weights,
            max_search_depth,
            soft_edges,
        };
        d.validate(&spots, &unobtrusive_at)?;
        Ok(d)
    }

    /// Checks the invariants the lock manager relies on; an error is at the cell or the
    /// word that breaks one.
    fn validate(
        &self,
        spots: &[Vec<(String, MatrixSpots)>],
        unobtrusive_at: &[SetLine],
    ) -> Result<(), DialectError> {
        for (si, s) in self.strategies.iter().enumerate() {
            // [INV] pending-incompatible is a subset of granted-incompatible.
            for (i, p) in s.pending.iter().enumerate() {
                let (file, at) = &spots[si][i + 1];
                for t in &s.types {
                    let extra = TypeSet(p[t.0 as usize].0 & !s.granted[t.0 as usize].0);
                    if let Some(c) = extra.iter().next() {
                        let (line, col) = at.cell(*t, c, &s.types);
                        return Err(DialectError::at(
                            file,
                            line,
                            col,
                            format!(
                                "{}: pending matrix {i} row {t} is not a subset of the granted \
                                 row: {t} would yield to a waiting {c} but is compatible with a \
                                 granted {c}",
                                s.name
                            ),
                        ));
                    }
                }
            }
        }
        // The fast path is only sound for types that never conflict with each other.
        for (si, line, at) in unobtrusive_at {
            let s = &self.strategies[*si];
            for (a, _) in at {
                for (b, col) in at {
                    let clash = s.conflicts_granted(*a, *b)
                        || s.pending.iter().any(|p| p[a.0 as usize].contains(*b));
                    if clash {
                        return Err(DialectError::at(
                            MAIN,
                            *line,
                            *col,
                            format!("{}: unobtrusive types {a} and {b} conflict", s.name),
                        ));
                    }
                }
            }
        }
        Ok(())
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

/// A word of a line and its 1-based column (in characters).
#[derive(Clone, Debug)]
struct Word {
    text: String,
    col: usize,
}

/// The words of a line up to a `#` (a comment), with their columns.
fn words(raw: &str) -> Vec<Word> {
    let mut out: Vec<Word> = Vec::new();
    let mut cur: Option<Word> = None;
    for (i, c) in raw.chars().enumerate() {
        if c == '#' {
            break;
        }
        if c.is_whitespace() {
            if let Some(w) = cur.take() {
                out.push(w);
            }
        } else {
            match &mut cur {
                Some(w) => w.text.push(c),
                None => {
                    cur = Some(Word {
                        text: c.to_string(),
                        col: i + 1,
                    })
                }
            }
        }
    }
    out.extend(cur);
    out
}

/// A type-set line (`unobtrusive`): its strategy, its line, each type with its column.
type SetLine = (usize, usize, Vec<(LockType, usize)>);

/// A `namespace` line, kept until the strategies are known.
struct NsLine {
    name: Word,
    strategy: Word,
    form: KeyForm,
    flags: Vec<Word>,
    line: usize,
}

/// Where a matrix file wrote each row (its line) and each cell (its column), per row
/// type; columns in the strategy's type order.
#[derive(Default)]
struct MatrixSpots {
    rows: Vec<(LockType, usize, Vec<usize>)>,
}

impl MatrixSpots {
    /// The line and column of the cell (row `r`, column `c`).
    fn cell(&self, r: LockType, c: LockType, types: &[LockType]) -> (usize, usize) {
        let Some((_, line, cols)) = self.rows.iter().find(|(t, ..)| *t == r) else {
            return (1, 1);
        };
        let col = types
            .iter()
            .position(|t| *t == c)
            .and_then(|j| cols.get(j))
            .copied()
            .unwrap_or(1);
        (*line, col)
    }
}

/// Parses one matrix file of built-in type names; returns the incompatibility rows.
pub fn parse_matrix(
    file: &str,
    text: &str,
    types: &[LockType],
) -> Result<[TypeSet; LockType::MAX], DialectError> {
    parse_matrix_with(file, text, types, &LockType::parse).map(|(rows, _)| rows)
}

/// Parses one matrix file (types named as `resolve` reads them); returns the
/// incompatibility rows and where each row and cell was written.
fn parse_matrix_with(
    file: &str,
    text: &str,
    types: &[LockType],
    resolve: &dyn Fn(&str) -> Option<LockType>,
) -> Result<([TypeSet; LockType::MAX], MatrixSpots), DialectError> {
    let err = |line: usize, col: usize, msg: String| DialectError::at(file, line, col, msg);
    let mut rows = [TypeSet::EMPTY; LockType::MAX];
    let mut at = MatrixSpots::default();
    // The header's line and the column of each of its cells.
    let mut header: Option<(usize, Vec<usize>)> = None;
    let mut seen = TypeSet::EMPTY;
    let mut last_line = 0;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        last_line = line;
        let cells = words(raw);
        if cells.is_empty() {
            continue;
        }
        let end = raw.trim_end().chars().count() + 1;
        match &header {
            None => {
                let mut cols = Vec::new();
                for (j, c) in cells[1..].iter().enumerate() {
                    let t = resolve(&c.text).ok_or_else(|| {
                        err(line, c.col, format!("unknown column type `{}`", c.text))
                    })?;
                    match types.get(j) {
                        Some(want) if *want == t => cols.push(c.col),
                        Some(want) => {
                            return Err(err(
                                line,
                                c.col,
                                format!(
                                    "columns must be the strategy's types in order: expected {want} here, found `{}`",
                                    c.text
                                ),
                            ))
                        }
                        None => {
                            return Err(err(
                                line,
                                c.col,
                                format!("the strategy has {} types; `{}` is one column too many", types.len(), c.text),
                            ))
                        }
                    }
                }
                if cols.len() < types.len() {
                    return Err(err(
                        line,
                        end,
                        format!(
                            "columns must be the strategy's types in order: {} is missing",
                            types[cols.len()]
                        ),
                    ));
                }
                header = Some((line, cols));
            }
            Some(_) => {
                let req = resolve(&cells[0].text)
                    .filter(|r| types.contains(r))
                    .ok_or_else(|| {
                        err(
                            line,
                            cells[0].col,
                            format!("unknown row type `{}`", cells[0].text),
                        )
                    })?;
                if seen.contains(req) {
                    return Err(err(line, cells[0].col, format!("a second row for {req}")));
                }
                if let Some(extra) = cells.get(types.len() + 1) {
                    return Err(err(
                        line,
                        extra.col,
                        format!("expected {} cells, found more", types.len()),
                    ));
                }
                if cells.len() != types.len() + 1 {
                    return Err(err(
                        line,
                        end,
                        format!("expected {} cells, found {}", types.len(), cells.len() - 1),
                    ));
                }
                let mut cols = Vec::new();
                for (c, col) in cells[1..].iter().zip(types) {
                    match c.text.as_str() {
                        "+" => {}
                        "-" => rows[req.0 as usize].insert(*col),
                        o => {
                            return Err(err(line, c.col, format!("cell `{o}` is neither + nor -")))
                        }
                    }
                    cols.push(c.col);
                }
                seen.insert(req);
                at.rows.push((req, line, cols));
            }
        }
    }
    let Some((hline, hcols)) = header else {
        return Err(err(
            last_line.max(1),
            1,
            "no header line (`request` and the strategy's types)".into(),
        ));
    };
    if let Some((j, t)) = types.iter().enumerate().find(|(_, t)| !seen.contains(**t)) {
        return Err(err(hline, hcols[j], format!("the row of {t} is missing")));
    }
    Ok((rows, at))
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
