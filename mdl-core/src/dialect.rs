//! Dialects as data: namespaces, lock strategies, matrices, starvation rules, weights.
//!
//! A dialect is read from a folder of text tables (`mdl-core/dialects/NAME/`):
//! `dialect.txt` (one fact per line) and, per strategy, `STRATEGY.granted.tsv` plus
//! `STRATEGY.pending.tsv` or `STRATEGY.pending0.tsv ...` (rows: requested type, columns:
//! granted or pending type, `+` compatible, `-` incompatible), the layout of
//! `shared/reference/`. The two built-in dialects are compiled in from those files; any
//! other folder can be loaded with [`Dialect::from_dir`].

use crate::types::{LockType, TypeSet};
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
    pub granted: [TypeSet; LockType::COUNT],
    /// `pending[i][req]`: the waiting types a request of type `req` yields to, for the
    /// priority matrix `i` (one for most strategies, four for MySQL object locks).
    pub pending: Vec<[TypeSet; LockType::COUNT]>,
    /// Types granted by the fast path while nothing obtrusive is granted or waiting.
    pub unobtrusive: TypeSet,
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
    pub fn covers(&self, held: LockType, req: LockType) -> bool {
        held == req || self.granted[req.0 as usize].is_subset(self.granted[held.0 as usize])
    }

    /// The position of `t` in this strategy's enum order.
    pub fn rank(&self, t: LockType) -> Option<usize> {
        self.types.iter().position(|x| *x == t)
    }

    pub fn is_unobtrusive(&self, t: LockType) -> bool {
        self.unobtrusive.contains(t)
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
    pub name: String,
    pub namespaces: Vec<NamespaceInfo>,
    pub strategies: Vec<Strategy>,
    pub starvation: Starvation,
    pub weights: Weights,
    /// `max_search_depth N`: the deadlock search declares a deadlock when it enters the
    /// N-th waiting context on a path (the requester is the first), as MySQL and MariaDB
    /// do with `MAX_SEARCH_DEPTH` = 32 (sql/mdl.cc,
    /// `Deadlock_detection_visitor::enter_node`). `None` (the default): exact search.
    pub max_search_depth: Option<u32>,
}

/// A dialect folder that does not parse: `FILE:LINE: message`, or `FILE:LINE:COL:
/// message` when the column of the offending word is known (`col` > 0).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DialectError {
    pub file: String,
    pub line: usize,
    /// 1-based column of the offending word, 0 when not given.
    pub col: usize,
    pub msg: String,
}

impl fmt::Display for DialectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.col > 0 {
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

fn builtin_file(dialect: &str, file: &str) -> Option<&'static str> {
    macro_rules! files {
        ($($d:literal / $f:literal),* $(,)?) => {
            match (dialect, file) {
                $(($d, $f) => Some(include_str!(concat!("../dialects/", $d, "/", $f))),)*
                _ => None,
            }
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
}

impl Dialect {
    /// A built-in dialect by name (`mysql-8.0`, `mariadb`; `mysql` is accepted too).
    pub fn builtin(name: &str) -> Option<Dialect> {
        let name = match name.to_ascii_lowercase().as_str() {
            "mysql-8.0" | "mysql" | "mysql8" | "mysql-8" => "mysql-8.0",
            "mariadb" => "mariadb",
            _ => return None,
        };
        let d = Dialect::parse(&|f| builtin_file(name, f).map(str::to_owned))
            .unwrap_or_else(|e| panic!("built-in dialect {name} is broken: {e}"));
        Some(d)
    }

    pub fn mysql80() -> Dialect {
        Dialect::builtin("mysql-8.0").expect("built in")
    }

    pub fn mariadb() -> Dialect {
        Dialect::builtin("mariadb").expect("built in")
    }

    /// The raw text of a built-in dialect's file, for `mdl matrix` and tests.
    pub fn builtin_text(dialect: &str, file: &str) -> Option<&'static str> {
        builtin_file(dialect, file)
    }

    /// Loads a dialect from a folder laid out like `mdl-core/dialects/NAME/`.
    pub fn from_dir(dir: &std::path::Path) -> Result<Dialect, DialectError> {
        Dialect::parse(&|f| std::fs::read_to_string(dir.join(f)).ok())
    }

    /// Parses a dialect; `read` returns the text of a file of the folder.
    pub fn parse(read: &dyn Fn(&str) -> Option<String>) -> Result<Dialect, DialectError> {
        let main = read("dialect.txt").ok_or_else(|| DialectError {
            file: "dialect.txt".into(),
            line: 0,
            col: 0,
            msg: "missing".into(),
        })?;
        let err = |line: usize, msg: String| DialectError {
            file: "dialect.txt".into(),
            line,
            col: 0,
            msg,
        };
        let mut name = String::new();
        let mut ns: Vec<(String, String, KeyForm, Vec<String>, usize)> = Vec::new();
        let mut strategies: Vec<Strategy> = Vec::new();
        let mut pending_counts: Vec<(String, usize, usize)> = Vec::new();
        let mut starvation = Starvation::Mysql;
        let mut max_search_depth = None;
        let mut weights = Weights {
            dml: 1,
            ull: 1,
            ddl: 1,
            victim_overweight: 0,
        };
        // Facts that name a strategy are applied after all strategies are known.
        let mut later: Vec<(usize, Vec<String>)> = Vec::new();
        for (i, raw) in main.lines().enumerate() {
            let line = i + 1;
            let text = raw.split('#').next().unwrap_or("").trim();
            if text.is_empty() {
                continue;
            }
            let w: Vec<String> = text.split_whitespace().map(str::to_owned).collect();
            match w[0].as_str() {
                "name" if w.len() == 2 => name = w[1].clone(),
                "namespace" if w.len() >= 4 => {
                    let form = match w[3].as_str() {
                        "single" => KeyForm::Single,
                        "db" => KeyForm::Db,
                        "qualified" => KeyForm::Qualified,
                        o => return Err(err(line, format!("unknown key form `{o}`"))),
                    };
                    ns.push((w[1].clone(), w[2].clone(), form, w[4..].to_vec(), line));
                }
                "strategy" if w.len() >= 3 => {
                    let mut types = Vec::new();
                    for t in &w[2..] {
                        types.push(
                            LockType::parse(t)
                                .ok_or_else(|| err(line, format!("unknown lock type `{t}`")))?,
                        );
                    }
                    strategies.push(Strategy {
                        name: w[1].clone(),
                        allowed: types.iter().copied().collect(),
                        types,
                        granted: [TypeSet::EMPTY; LockType::COUNT],
                        pending: Vec::new(),
                        unobtrusive: TypeSet::EMPTY,
                        hogs: TypeSet::EMPTY,
                        piglet: TypeSet::EMPTY,
                        piglet_waiter: TypeSet::EMPTY,
                        ddl_from: None,
                        weight_type: Vec::new(),
                        downgrade_from: TypeSet::EMPTY,
                        upgrade_always: false,
                    });
                }
                "pending" if w.len() == 3 => {
                    let n: usize = w[2]
                        .parse()
                        .map_err(|_| err(line, "pending count must be a number".into()))?;
                    if n == 0 || n > 4 {
                        return Err(err(line, "pending count must be 1 to 4".into()));
                    }
                    pending_counts.push((w[1].clone(), n, line));
                }
                "starvation" if w.len() == 2 => {
                    starvation = match w[1].as_str() {
                        "mysql" => Starvation::Mysql,
                        "mariadb" => Starvation::Mariadb,
                        o => return Err(err(line, format!("unknown starvation rule `{o}`"))),
                    }
                }
                "weight" if w.len() == 3 => {
                    let v: u32 = w[2]
                        .parse()
                        .map_err(|_| err(line, "weight must be a number".into()))?;
                    match w[1].as_str() {
                        "dml" => weights.dml = v,
                        "ull" => weights.ull = v,
                        "ddl" => weights.ddl = v,
                        o => return Err(err(line, format!("unknown weight class `{o}`"))),
                    }
                }
                "max_search_depth" if w.len() == 2 => {
                    let col = word_col(raw, 1);
                    max_search_depth =
                        Some(parse_max_search_depth(&w[1]).map_err(|msg| DialectError {
                            file: "dialect.txt".into(),
                            line,
                            col,
                            msg,
                        })?);
                }
                "upgrade_always" if w.len() == 2 => later.push((line, w)),
                "victim_overweight" if w.len() == 2 => {
                    weights.victim_overweight = w[1]
                        .parse()
                        .map_err(|_| err(line, "victim_overweight must be a number".into()))?
                }
                "unobtrusive" | "hogs" | "piglet" | "piglet_waiter" | "ddl_from"
                | "weight_type" | "downgrade_from"
                    if w.len() >= 3 =>
                {
                    later.push((line, w))
                }
                _ => return Err(err(line, format!("cannot read `{text}`"))),
            }
        }
        if name.is_empty() {
            return Err(err(0, "no `name` line".into()));
        }
        for (line, w) in later {
            let si = strategies
                .iter()
                .position(|s| s.name == w[1])
                .ok_or_else(|| err(line, format!("unknown strategy `{}`", w[1])))?;
            let s = &mut strategies[si];
            let mut set = TypeSet::EMPTY;
            let args: &[String] = if w[0] == "weight_type" {
                &w[2..3]
            } else {
                &w[2..]
            };
            if w[0] == "upgrade_always" {
                s.upgrade_always = true;
                continue;
            }
            for t in args {
                let ty = LockType::parse(t)
                    .filter(|ty| s.allowed.contains(*ty))
                    .ok_or_else(|| err(line, format!("`{t}` is not a type of {}", s.name)))?;
                set.insert(ty);
            }
            match w[0].as_str() {
                "unobtrusive" => s.unobtrusive = set,
                "hogs" => s.hogs = set,
                "piglet" => s.piglet = set,
                "piglet_waiter" => s.piglet_waiter = set,
                "downgrade_from" => s.downgrade_from = set,
                "ddl_from" => s.ddl_from = set.iter().next(),
                "weight_type" => {
                    let v: u32 = w
                        .get(3)
                        .and_then(|v| v.parse().ok())
                        .ok_or_else(|| err(line, "weight_type STRATEGY TYPE N".into()))?;
                    s.weight_type
                        .push((set.iter().next().expect("one type"), v));
                }
                _ => unreachable!("filtered above"),
            }
        }
        for s in &mut strategies {
            let n = pending_counts
                .iter()
                .find(|(n, _, _)| *n == s.name)
                .map(|(_, n, _)| *n)
                .unwrap_or(1);
            let f = format!("{}.granted.tsv", s.name);
            let text = read(&f).ok_or_else(|| DialectError {
                file: f.clone(),
                line: 0,
                col: 0,
                msg: "missing".into(),
            })?;
            s.granted = parse_matrix(&f, &text, &s.types)?;
            for i in 0..n {
                let f = if n == 1 {
                    format!("{}.pending.tsv", s.name)
                } else {
                    format!("{}.pending{i}.tsv", s.name)
                };
                let text = read(&f).ok_or_else(|| DialectError {
                    file: f.clone(),
                    line: 0,
                    col: 0,
                    msg: "missing".into(),
                })?;
                s.pending.push(parse_matrix(&f, &text, &s.types)?);
            }
            // Seeded bug `mdl_bug="pending_cell"`: one cell of one pending matrix flipped
            // at load time: in object matrix 0 a SHARED_READ request no longer yields to a
            // pending EXCLUSIVE (it overtakes a waiting DDL).
            #[cfg(mdl_bug = "pending_cell")]
            if s.name == "object" {
                let row = &mut s.pending[0][LockType::SR.0 as usize];
                row.0 &= !LockType::X.bit();
            }
        }
        let mut namespaces = Vec::new();
        for (n, strat, form, flags, line) in ns {
            let strategy = strategies
                .iter()
                .position(|s| s.name == strat)
                .ok_or_else(|| err(line, format!("unknown strategy `{strat}`")))?;
            let mut info = NamespaceInfo {
                name: n,
                strategy,
                key_form: form,
                starvation: false,
                ddl_weight: false,
                ull_weight: false,
            };
            for f in flags {
                match f.as_str() {
                    "starvation" => info.starvation = true,
                    "ddl_weight" => info.ddl_weight = true,
                    "ull_weight" => info.ull_weight = true,
                    o => return Err(err(line, format!("unknown namespace flag `{o}`"))),
                }
            }
            namespaces.push(info);
        }
        if namespaces.len() > 64 {
            return Err(err(0, "at most 64 namespaces".into()));
        }
        let d = Dialect {
            name,
            namespaces,
            strategies,
            starvation,
            weights,
            max_search_depth,
        };
        d.validate()?;
        Ok(d)
    }

    /// Checks the invariants the lock manager relies on.
    fn validate(&self) -> Result<(), DialectError> {
        let err = |msg: String| DialectError {
            file: "dialect.txt".into(),
            line: 0,
            col: 0,
            msg,
        };
        for s in &self.strategies {
            // [INV] pending-incompatible is a subset of granted-incompatible.
            for (i, p) in s.pending.iter().enumerate() {
                for t in &s.types {
                    if !p[t.0 as usize].is_subset(s.granted[t.0 as usize]) {
                        return Err(err(format!(
                            "{}: pending matrix {i} row {t} is not a subset of the granted row",
                            s.name
                        )));
                    }
                }
            }
            // The fast path is only sound for types that never conflict with each other.
            for a in s.unobtrusive.iter() {
                for b in s.unobtrusive.iter() {
                    let clash = s.conflicts_granted(a, b)
                        || s.pending.iter().any(|p| p[a.0 as usize].contains(b));
                    if clash {
                        return Err(err(format!(
                            "{}: unobtrusive types {a} and {b} conflict",
                            s.name
                        )));
                    }
                }
            }
        }
        Ok(())
    }

    pub fn namespace(&self, ns: Namespace) -> &NamespaceInfo {
        &self.namespaces[ns.0 as usize]
    }

    pub fn namespace_by_name(&self, name: &str) -> Option<Namespace> {
        self.namespaces
            .iter()
            .position(|n| n.name.eq_ignore_ascii_case(name))
            .map(|i| Namespace(i as u8))
    }

    pub fn strategy(&self, ns: Namespace) -> &Strategy {
        &self.strategies[self.namespaces[ns.0 as usize].strategy]
    }

    /// `ty` is a type that namespace `ns` takes.
    pub fn allows(&self, ns: Namespace, ty: LockType) -> bool {
        self.strategy(ns).allowed.contains(ty)
    }

    /// The deadlock weight of a waiting request (`MDL_ticket::get_deadlock_weight`, plus
    /// `force_dml_weight` and MariaDB's victim overweight).
    pub fn weight(&self, ns: Namespace, ty: LockType, force_dml: bool, victim_count: u32) -> u32 {
        let over = self.weights.victim_overweight.saturating_mul(victim_count);
        if force_dml {
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

/// The 1-based column (in characters) of the `n`-th whitespace-separated word of `raw`.
fn word_col(raw: &str, n: usize) -> usize {
    let mut word = 0;
    let mut in_word = false;
    for (i, c) in raw.chars().enumerate() {
        if c.is_whitespace() {
            in_word = false;
        } else if !in_word {
            if word == n {
                return i + 1;
            }
            word += 1;
            in_word = true;
        }
    }
    0
}

/// Parses one matrix file; returns the incompatibility rows.
pub fn parse_matrix(
    file: &str,
    text: &str,
    types: &[LockType],
) -> Result<[TypeSet; LockType::COUNT], DialectError> {
    let err = |line: usize, msg: String| DialectError {
        file: file.to_owned(),
        line,
        col: 0,
        msg,
    };
    let mut rows = [TypeSet::EMPTY; LockType::COUNT];
    let mut header: Option<Vec<LockType>> = None;
    let mut seen = TypeSet::EMPTY;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let t = raw.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let cells: Vec<&str> = t.split_whitespace().collect();
        match &header {
            None => {
                let mut h = Vec::new();
                for c in &cells[1..] {
                    h.push(
                        LockType::parse(c)
                            .ok_or_else(|| err(line, format!("unknown column type `{c}`")))?,
                    );
                }
                if h != types {
                    return Err(err(
                        line,
                        "columns must be the strategy's types in order".into(),
                    ));
                }
                header = Some(h);
            }
            Some(h) => {
                let req = LockType::parse(cells[0])
                    .filter(|r| types.contains(r))
                    .ok_or_else(|| err(line, format!("unknown row type `{}`", cells[0])))?;
                if cells.len() != h.len() + 1 {
                    return Err(err(line, format!("expected {} cells", h.len())));
                }
                for (c, col) in cells[1..].iter().zip(h) {
                    match *c {
                        "+" => {}
                        "-" => rows[req.0 as usize].insert(*col),
                        o => return Err(err(line, format!("cell `{o}` is neither + nor -"))),
                    }
                }
                seen.insert(req);
            }
        }
    }
    if types.iter().any(|t| !seen.contains(*t)) {
        return Err(err(0, "a row is missing".into()));
    }
    Ok(rows)
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
        assert_eq!(m.weight(t, LockType::SR, false, 0), 25);
        assert_eq!(m.weight(t, LockType::SU, false, 0), 100);
        assert_eq!(m.weight(g, LockType::IX, false, 0), 100);
        assert_eq!(
            m.weight(u, LockType::X, false, 0),
            50,
            "ULL before the DDL rule"
        );
        assert_eq!(m.weight(u, LockType::S, false, 0), 50);
        assert_eq!(m.weight(t, LockType::X, true, 0), 25);
        let d = Dialect::mariadb();
        let b = d.namespace_by_name("BACKUP").unwrap();
        assert_eq!(d.weight(b, LockType::BACKUP_FTWRL1, false, 0), 0);
        assert_eq!(d.weight(b, LockType::BACKUP_DML, false, 0), 100);
        let t = d.namespace_by_name("TABLE").unwrap();
        assert_eq!(d.weight(t, LockType::SW, false, 2), 3);
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
