//! Reading a dialect folder into a [`Dialect`]: `dialect.txt` in two passes (its `type`
//! lines, then every other fact), the facts that name a strategy once all strategies are
//! known, each strategy's matrix files, the namespaces, and last the invariants the lock
//! manager relies on. Every error is at `FILE:LINE:COL` of the word or cell that is wrong.

use super::matrix::{parse_matrix_with, MatrixSpots};
use super::words::{words, Word};
use super::{
    parse_deadlock_resolution, parse_max_search_depth, Dialect, DialectError, KeyForm,
    NamespaceInfo, Starvation, Strategy, Weights, MAIN, MAX_NAMESPACES,
};
use crate::decide::types::{LockType, TypeSet};

/// A type-set line (`unobtrusive`): its strategy, its line, each type with its column.
type SetLine = (usize, usize, Vec<(LockType, usize)>);

/// Where each strategy's matrix files wrote their rows and cells: per strategy, each file
/// (granted first, then the pending ones) with its spots.
type Spots = Vec<Vec<(String, MatrixSpots)>>;

/// A line of `dialect.txt` with its words (comments and blank lines left out).
type Line = (usize, Vec<Word>);

/// A `namespace` line, kept until the strategies are known.
struct NsLine {
    name: Word,
    strategy: Word,
    form: KeyForm,
    flags: Vec<Word>,
    line: usize,
}

/// An error of `dialect.txt`.
fn err(line: usize, col: usize, msg: String) -> DialectError {
    DialectError::at(MAIN, line, col, msg)
}

/// The word `x` of `line` as a whole number; `what` names it in the error.
fn number(x: &Word, what: &str, line: usize) -> Result<u32, DialectError> {
    x.text.parse::<u32>().map_err(|_| {
        err(
            line,
            x.col,
            format!("{what} must be a whole number, not `{}`", x.text),
        )
    })
}

/// Parses a dialect; `read` returns the text of a file of the folder or why it cannot
/// ([`Dialect::parse_files`]).
pub(super) fn parse_files(
    read: &dyn Fn(&str) -> Result<String, String>,
) -> Result<Dialect, DialectError> {
    let main = read(MAIN).map_err(|msg| DialectError::at(MAIN, 0, 0, msg))?;
    let lines: Vec<Line> = main
        .lines()
        .enumerate()
        .map(|(i, raw)| (i + 1, words(raw)))
        .filter(|(_, w)| !w.is_empty())
        .collect();
    // Pass 1: the declared types (`type` lines, wherever they stand).
    let names = TypeNames {
        declared: declared_types(&lines)?,
    };
    // Pass 2: everything else.
    let mut facts = Facts::new();
    for (line, w) in &lines {
        facts.read_line(&main, *line, w, &names)?;
    }
    if facts.name.is_empty() {
        return Err(err(1, 1, "no `name NAME` line".into()));
    }
    if facts.ns.is_empty() {
        return Err(err(1, 1, "no `namespace` line".into()));
    }
    let unobtrusive_at = apply_strategy_facts(&mut facts.strategies, &facts.later, &names)?;
    let spots = read_matrices(read, &mut facts, &names)?;
    let Facts {
        name,
        ns,
        mut strategies,
        starvation,
        max_search_depth,
        soft_edges,
        fast_path,
        weights,
        ..
    } = facts;
    let namespaces = namespaces(ns, &strategies)?;
    let types = names.all(&strategies);
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
    validate(&d, &spots, &unobtrusive_at)?;
    Ok(d)
}

/// The `type` lines: each declared type with its line.
fn declared_types(lines: &[Line]) -> Result<Vec<(LockType, usize)>, DialectError> {
    let mut declared: Vec<(LockType, usize)> = Vec::new();
    for (line, w) in lines {
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
    Ok(declared)
}

/// The names a dialect's lines use for types: its declared types or, when it declares
/// none, the built-in names.
struct TypeNames {
    /// Each declared type with its line.
    declared: Vec<(LockType, usize)>,
}

impl TypeNames {
    /// The type `s` names.
    fn resolve(&self, s: &str) -> Option<LockType> {
        if self.declared.is_empty() {
            LockType::parse(s)
        } else {
            self.declared
                .iter()
                .map(|(t, _)| *t)
                .find(|t| t.is_named(s))
        }
    }

    /// The error of a name that is no type.
    fn unknown(&self, s: &str) -> String {
        if self.declared.is_empty() {
            format!("unknown lock type `{s}` (this dialect declares no `type`, so the built-in names apply)")
        } else {
            format!("unknown lock type `{s}`: not a `type` of this dialect")
        }
    }

    /// The dialect's types: the declared ones, or the built-in ones its strategies name.
    fn all(&self, strategies: &[Strategy]) -> Vec<LockType> {
        if !self.declared.is_empty() {
            return self.declared.iter().map(|(t, _)| *t).collect();
        }
        let mut v: Vec<LockType> = Vec::new();
        for t in strategies.iter().flat_map(|s| &s.types) {
            if !v.contains(t) {
                v.push(*t);
            }
        }
        v
    }
}

/// What pass 2 reads of `dialect.txt`.
struct Facts<'a> {
    name: String,
    ns: Vec<NsLine>,
    strategies: Vec<Strategy>,
    /// Per strategy: its line and the column of its name.
    strategy_at: Vec<(usize, usize)>,
    /// (strategy, count, line, column of the count)
    pending_counts: Vec<(String, usize, usize, usize)>,
    starvation: Starvation,
    max_search_depth: Option<u32>,
    soft_edges: bool,
    fast_path: bool,
    weights: Weights,
    /// Facts that name a strategy, applied after all strategies are known.
    later: Vec<(usize, &'a [Word])>,
}

impl<'a> Facts<'a> {
    fn new() -> Facts<'a> {
        Facts {
            name: String::new(),
            ns: Vec::new(),
            strategies: Vec::new(),
            strategy_at: Vec::new(),
            pending_counts: Vec::new(),
            starvation: Starvation::Mysql,
            max_search_depth: None,
            soft_edges: false,
            fast_path: false,
            weights: Weights {
                dml: 1,
                ull: 1,
                ddl: 1,
                victim_overweight: 0,
            },
            later: Vec::new(),
        }
    }

    /// Reads one line of `dialect.txt` (its words `w`) other than a `type` line.
    fn read_line(
        &mut self,
        main: &str,
        line: usize,
        w: &'a [Word],
        names: &TypeNames,
    ) -> Result<(), DialectError> {
        match (w[0].text.as_str(), w.len()) {
            ("type", _) => {}
            ("name", 2) => self.name = w[1].text.clone(),
            ("namespace", n) if n >= 4 => self.ns.push(namespace_line(line, w, &self.ns)?),
            ("strategy", n) if n >= 3 => self.strategy_line(line, w, names)?,
            ("pending", 3) => {
                let n = number(&w[2], "the pending count", line)? as usize;
                if n == 0 || n > 4 {
                    return Err(err(line, w[2].col, "pending count must be 1 to 4".into()));
                }
                self.pending_counts
                    .push((w[1].text.clone(), n, line, w[1].col));
            }
            ("starvation", 2) => self.starvation = starvation_rule(line, &w[1])?,
            ("weight", 3) => self.weight_line(line, w)?,
            ("max_search_depth", 2) => {
                self.max_search_depth =
                    Some(parse_max_search_depth(&w[1].text).map_err(|m| err(line, w[1].col, m))?);
            }
            ("fast_path", 1) => self.fast_path = true,
            ("deadlock_resolution", 2) => {
                self.soft_edges =
                    parse_deadlock_resolution(&w[1].text).map_err(|m| err(line, w[1].col, m))?;
            }
            ("victim_overweight", 2) => {
                self.weights.victim_overweight = number(&w[1], "victim_overweight", line)?
            }
            ("upgrade_always", 2) => self.later.push((line, w)),
            ("weight_type", 4) => self.later.push((line, w)),
            (
                "unobtrusive" | "hogs" | "piglet" | "piglet_waiter" | "ddl_from" | "downgrade_from",
                n,
            ) if n >= 3 => self.later.push((line, w)),
            _ => {
                let shown = main.lines().nth(line - 1).unwrap_or("");
                let shown = shown.split('#').next().unwrap_or("").trim();
                return Err(err(line, w[0].col, format!("cannot read `{shown}`")));
            }
        }
        Ok(())
    }

    /// `strategy NAME TYPE...`: a strategy with no matrix yet.
    fn strategy_line(
        &mut self,
        line: usize,
        w: &[Word],
        names: &TypeNames,
    ) -> Result<(), DialectError> {
        if let Some(i) = self.strategies.iter().position(|s| s.name == w[1].text) {
            return Err(err(
                line,
                w[1].col,
                format!(
                    "strategy `{}` is already declared at line {}",
                    w[1].text, self.strategy_at[i].0
                ),
            ));
        }
        let mut types = Vec::new();
        for x in &w[2..] {
            let t = names
                .resolve(&x.text)
                .ok_or_else(|| err(line, x.col, names.unknown(&x.text)))?;
            if types.contains(&t) {
                return Err(err(
                    line,
                    x.col,
                    format!("type `{}` is listed twice", x.text),
                ));
            }
            types.push(t);
        }
        self.strategies.push(Strategy {
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
        self.strategy_at.push((line, w[1].col));
        Ok(())
    }

    /// `weight CLASS N`.
    fn weight_line(&mut self, line: usize, w: &[Word]) -> Result<(), DialectError> {
        let v = number(&w[2], "a weight", line)?;
        match w[1].text.as_str() {
            "dml" => self.weights.dml = v,
            "ull" => self.weights.ull = v,
            "ddl" => self.weights.ddl = v,
            o => {
                return Err(err(
                    line,
                    w[1].col,
                    format!("unknown weight class `{o}` (dml, ull or ddl)"),
                ))
            }
        }
        Ok(())
    }
}

/// `namespace NAME STRATEGY FORM FLAG...`, not yet tied to its strategy; `ns` are the
/// namespaces declared before it.
fn namespace_line(line: usize, w: &[Word], ns: &[NsLine]) -> Result<NsLine, DialectError> {
    let form = match w[3].text.as_str() {
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
        .find(|n| n.name.text.eq_ignore_ascii_case(&w[1].text))
    {
        return Err(err(
            line,
            w[1].col,
            format!(
                "namespace `{}` is already declared at line {}",
                w[1].text, prev.line
            ),
        ));
    }
    Ok(NsLine {
        name: w[1].clone(),
        strategy: w[2].clone(),
        form,
        flags: w[4..].to_vec(),
        line,
    })
}

/// The word of `starvation RULE`.
fn starvation_rule(line: usize, x: &Word) -> Result<Starvation, DialectError> {
    match x.text.as_str() {
        "mysql" => Ok(Starvation::Mysql),
        "mariadb" => Ok(Starvation::Mariadb),
        "mariadb-repass" => Ok(Starvation::MariadbRepass),
        o => Err(err(
            line,
            x.col,
            format!(
                "unknown starvation rule `{o}` (mysql, mariadb or \
                 mariadb-repass)"
            ),
        )),
    }
}

/// Applies the facts that name a strategy (`unobtrusive`, `hogs`, `weight_type`, ...);
/// returns the `unobtrusive` lines for [`validate`].
fn apply_strategy_facts(
    strategies: &mut [Strategy],
    later: &[(usize, &[Word])],
    names: &TypeNames,
) -> Result<Vec<SetLine>, DialectError> {
    let mut unobtrusive_at: Vec<SetLine> = Vec::new();
    for &(line, w) in later {
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
        let at = type_set(line, args, s, names)?;
        let set: TypeSet = at.iter().map(|(t, _)| *t).collect();
        let Some(&(first, _)) = at.first() else {
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
    Ok(unobtrusive_at)
}

/// The types `args` name, each a type of strategy `s`, with their columns.
fn type_set(
    line: usize,
    args: &[Word],
    s: &Strategy,
    names: &TypeNames,
) -> Result<Vec<(LockType, usize)>, DialectError> {
    let mut at = Vec::new();
    for x in args {
        let ty = names
            .resolve(&x.text)
            .filter(|ty| s.allowed.contains(*ty))
            .ok_or_else(|| {
                err(
                    line,
                    x.col,
                    format!("`{}` is not a type of strategy {}", x.text, s.name),
                )
            })?;
        at.push((ty, x.col));
    }
    Ok(at)
}

/// Reads each strategy's matrix files (`granted`, then its pending ones) into it; returns
/// where each row and cell was written.
fn read_matrices(
    read: &dyn Fn(&str) -> Result<String, String>,
    facts: &mut Facts,
    names: &TypeNames,
) -> Result<Spots, DialectError> {
    let resolve = |s: &str| names.resolve(s);
    let mut spots: Spots = Vec::new();
    for (si, s) in facts.strategies.iter_mut().enumerate() {
        let mut mine = Vec::new();
        let files = matrix_files(s, facts.strategy_at[si], &facts.pending_counts);
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
    Ok(spots)
}

/// The matrix files of strategy `s` (declared at `at`: line, column), each with the line
/// and column of `dialect.txt` that asks for it: `granted`, then one pending file or, with
/// a `pending` count, that many numbered ones.
fn matrix_files(
    s: &Strategy,
    (sline, scol): (usize, usize),
    pending_counts: &[(String, usize, usize, usize)],
) -> Vec<(String, usize, usize)> {
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
    files
}

/// The namespaces, each tied to its strategy, with their flags.
fn namespaces(
    ns: Vec<NsLine>,
    strategies: &[Strategy],
) -> Result<Vec<NamespaceInfo>, DialectError> {
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
    Ok(namespaces)
}

/// Checks the invariants the lock manager relies on; an error is at the cell or the word
/// that breaks one.
fn validate(d: &Dialect, spots: &Spots, unobtrusive_at: &[SetLine]) -> Result<(), DialectError> {
    for (si, s) in d.strategies.iter().enumerate() {
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
        let s = &d.strategies[*si];
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
