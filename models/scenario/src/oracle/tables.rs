//! The oracle's own reading of the dialect text tables: matrices and namespaces parsed
//! from the raw files (`Dialect::builtin_text`), never from `mdl_core::dialect`'s parsed
//! structures. The few facts that are not matrices (hogs, weights, downgrade sources) are
//! written here from `shared/reference/README.md`.

use mdl_core::dialect::Dialect;
use mdl_core::LockType;

/// A compatibility matrix: `m[req][other]` is true when `req` is *incompatible* with
/// `other` (granted or pending).
pub type Matrix = [[bool; LockType::COUNT]; LockType::COUNT];

/// One strategy: its types and matrices.
#[derive(Clone, Debug)]
pub struct Strategy {
    pub name: String,
    pub types: Vec<LockType>,
    pub granted: Matrix,
    pub pending: Vec<Matrix>,
    /// The `unobtrusive` types (granted by MySQL's fast path while nothing obtrusive is
    /// granted or waiting).
    pub unobtrusive: Vec<LockType>,
}

/// One namespace, in dialect file order (its index is `Namespace.0`).
#[derive(Clone, Debug)]
pub struct ONamespace {
    pub name: String,
    pub strategy: usize,
    /// `single`, `db` or `qualified`.
    pub key_form: String,
}

#[derive(Clone, Debug)]
pub struct Tables {
    pub dialect: String,
    pub namespaces: Vec<ONamespace>,
    pub strategies: Vec<Strategy>,
    /// Types a downgrade may start from, per strategy (mariadb: from `dialect.txt`).
    pub downgrade_from: Vec<Vec<LockType>>,
    /// The `fast_path` line: a fast-path grant enters the granted list only when its
    /// owner materialises it (MySQL 8.0's `MDL_context::materialize_fast_path_locks`).
    pub fast_path: bool,
}

fn read(dialect: &str, file: &str) -> Result<&'static str, String> {
    Dialect::builtin_text(dialect, file).ok_or_else(|| format!("{dialect}/{file}: missing"))
}

fn parse_matrix(dialect: &str, file: &str) -> Result<(Vec<LockType>, Matrix), String> {
    let text = read(dialect, file)?;
    let mut m = [[false; LockType::COUNT]; LockType::COUNT];
    let mut cols: Option<Vec<LockType>> = None;
    let mut rows = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let cells: Vec<&str> = line.split_whitespace().collect();
        match &cols {
            None => {
                let mut c = Vec::new();
                for name in &cells[1..] {
                    c.push(LockType::parse(name).ok_or(format!("{file}: column {name}"))?);
                }
                cols = Some(c);
            }
            Some(c) => {
                let r = LockType::parse(cells[0]).ok_or(format!("{file}: row {}", cells[0]))?;
                if cells.len() != c.len() + 1 {
                    return Err(format!("{file}: row {r} has the wrong number of cells"));
                }
                for (cell, col) in cells[1..].iter().zip(c) {
                    m[r.0 as usize][col.0 as usize] = match *cell {
                        "-" => true,
                        "+" => false,
                        o => return Err(format!("{file}: cell {o}")),
                    };
                }
                rows.push(r);
            }
        }
    }
    let cols = cols.ok_or(format!("{file}: empty"))?;
    if rows != cols {
        return Err(format!("{file}: rows and columns differ"));
    }
    Ok((cols, m))
}

impl Tables {
    /// Loads a built-in dialect (`mysql-8.0` or `mariadb`).
    pub fn load(dialect: &str) -> Result<Tables, String> {
        let main = read(dialect, "dialect.txt")?;
        let mut namespaces = Vec::new();
        let mut strat_names: Vec<String> = Vec::new();
        let mut downgrade: Vec<(String, Vec<LockType>)> = Vec::new();
        let mut unobtrusive: Vec<(String, Vec<LockType>)> = Vec::new();
        let mut fast_path = false;
        for line in main.lines() {
            let line = line.split('#').next().unwrap_or("").trim();
            let w: Vec<&str> = line.split_whitespace().collect();
            match w.first() {
                Some(&"namespace") => {
                    if !strat_names.iter().any(|s| s == w[2]) {
                        strat_names.push(w[2].to_owned());
                    }
                    namespaces.push((w[1].to_owned(), w[2].to_owned(), w[3].to_owned()));
                }
                Some(&"downgrade_from") => downgrade.push((
                    w[1].to_owned(),
                    w[2..].iter().filter_map(|t| LockType::parse(t)).collect(),
                )),
                Some(&"unobtrusive") => unobtrusive.push((
                    w[1].to_owned(),
                    w[2..].iter().filter_map(|t| LockType::parse(t)).collect(),
                )),
                Some(&"fast_path") => fast_path = true,
                _ => {}
            }
        }
        let mut strategies = Vec::new();
        for s in &strat_names {
            let (types, granted) = parse_matrix(dialect, &format!("{s}.granted.tsv"))?;
            let mut pending = Vec::new();
            if let Some(t) = Dialect::builtin_text(dialect, &format!("{s}.pending.tsv")) {
                let _ = t;
                pending.push(parse_matrix(dialect, &format!("{s}.pending.tsv"))?.1);
            } else {
                for i in 0..4 {
                    pending.push(parse_matrix(dialect, &format!("{s}.pending{i}.tsv"))?.1);
                }
            }
            strategies.push(Strategy {
                name: s.clone(),
                types,
                granted,
                pending,
                unobtrusive: unobtrusive
                    .iter()
                    .filter(|(n, _)| n == s)
                    .flat_map(|(_, t)| t.iter().copied())
                    .collect(),
            });
        }
        let downgrade_from = strategies
            .iter()
            .map(|s| {
                if dialect == "mysql-8.0" {
                    // README: "Downgrade (mysql-8.0): only from X or SNW."
                    vec![LockType::X, LockType::SNW]
                } else {
                    downgrade
                        .iter()
                        .find(|(n, _)| *n == s.name)
                        .map(|(_, t)| t.clone())
                        .unwrap_or_default()
                }
            })
            .collect();
        let namespaces = namespaces
            .into_iter()
            .map(|(name, st, form)| ONamespace {
                strategy: strat_names.iter().position(|s| *s == st).expect("listed"),
                name,
                key_form: form,
            })
            .collect();
        Ok(Tables {
            dialect: dialect.to_owned(),
            namespaces,
            strategies,
            downgrade_from,
            fast_path,
        })
    }

    pub fn ns_index(&self, name: &str) -> Option<usize> {
        self.namespaces
            .iter()
            .position(|n| n.name.eq_ignore_ascii_case(name))
    }

    pub fn strategy_of(&self, ns: usize) -> &Strategy {
        &self.strategies[self.namespaces[ns].strategy]
    }
}

impl Strategy {
    pub fn takes(&self, t: LockType) -> bool {
        self.types.contains(&t)
    }

    /// A request of `req` is incompatible with a granted `held` of another session.
    pub fn conflicts(&self, req: LockType, held: LockType) -> bool {
        self.granted[req.0 as usize][held.0 as usize]
    }

    /// A request of `req` yields to a pending `other` under matrix `idx`.
    pub fn yields(&self, idx: usize, req: LockType, other: LockType) -> bool {
        self.pending[idx][req.0 as usize][other.0 as usize]
    }

    /// `held` is at least as strong as `req`: every granted type a request of `req` is
    /// incompatible with, a request of `held` is incompatible with too (sql/mdl.cc,
    /// `MDL_ticket::has_stronger_or_equal_type`: rows of the granted matrix only).
    pub fn covers(&self, held: LockType, req: LockType) -> bool {
        self.types
            .iter()
            .all(|&u| !self.conflicts(req, u) || self.conflicts(held, u))
    }
}
