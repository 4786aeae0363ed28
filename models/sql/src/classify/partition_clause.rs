//! The errors MariaDB's parser gives a `PARTITION BY` clause of `CREATE TABLE` or
//! `ALTER TABLE` before the statement does anything: no lock, no implicit commit, and
//! before the name is looked up (so not ER_TABLE_EXISTS_ERROR for a table that exists).
//! Measured on MariaDB 10.11.19: each statement below after `BEGIN; SELECT * FROM t2`
//! fails with its code while the session keeps its SR on t2
//! (`models/conformance/suite/partition-clause-errors.mdl`).
//!
//! The clause follows `sql/sql_yacc.yy`'s `partitioning` rules, whose actions raise:
//!
//! | error | where (sql/sql_yacc.yy, sql/partition_info.cc) |
//! |---|---|
//! | ER_PARSE_ERROR (1064) | the grammar (`KEY` takes a column list, `VALUES LESS THAN` / `IN` a parenthesised list, `SUBPARTITION BY` only `HASH` / `KEY`, `PARTITIONS` an integer: `real_ulong_num`); `thd->parse_error` of ER_PARTITION_WRONG_NO_PART_ERROR / ER_PARTITION_WRONG_NO_SUBPART_ERROR (`part_defs`, `opt_sub_partition`: the counts disagree), of ER_WRONG_EXPR_IN_PARTITION_FUNC_ERROR (`part_func_expr`: a random or time function) and of MAXVALUE in a LIST |
//! | ER_PARTITION_REQUIRES_VALUES_ERROR (1479) | `opt_part_values` empty: `partition_info::error_if_requires_values` for RANGE / LIST |
//! | ER_PARTITION_WRONG_VALUES_ERROR (1480) | `opt_part_values`: `VALUES LESS THAN` not of RANGE, `VALUES IN` not of LIST |
//! | ER_PARTITIONS_MUST_BE_DEFINED_ERROR (1492) | RANGE / LIST with no partition definitions |
//! | ER_NO_PARTS_ERROR (1504) | `opt_num_parts` / `opt_num_subparts`: `PARTITIONS 0` |
//! | ER_PARTITION_COLUMN_LIST_ERROR (1653) | `partition_info::add_column_value`: more values than `COLUMNS (...)` names |
//! | ER_TOO_MANY_VALUES_ERROR (1657) | `partition_info::add_column_value`: more than one value in `VALUES LESS THAN` of RANGE without COLUMNS |
//! | ER_BAD_FIELD_ERROR (1054) | a name in a `VALUES` list (the parser fixes the value's item) |
//!
//! The errors come in the order the parser meets them. Anything the checker does not
//! follow ends it with no error (the statement goes on to the model's other rules).

use super::{kw_eq, Tok};

const ER_PARSE_ERROR: u32 = 1064;
const ER_BAD_FIELD_ERROR: u32 = 1054;
const ER_PARTITION_REQUIRES_VALUES_ERROR: u32 = 1479;
const ER_PARTITION_WRONG_VALUES_ERROR: u32 = 1480;
const ER_PARTITIONS_MUST_BE_DEFINED_ERROR: u32 = 1492;
const ER_NO_PARTS_ERROR: u32 = 1504;
const ER_PARTITION_COLUMN_LIST_ERROR: u32 = 1653;
const ER_TOO_MANY_VALUES_ERROR: u32 = 1657;

/// How the clause stops: the server's error, or a form the checker does not follow.
#[derive(Debug, PartialEq, Eq)]
enum Stop {
    Error(u32),
    Unknown,
}

type R<T> = Result<T, Stop>;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Hash,
    Key,
    Range,
    List,
}

/// The error of the `PARTITION BY` clause of a CREATE / ALTER TABLE statement, or None.
pub fn error(toks: &[Tok]) -> Option<u32> {
    let toks = &without_versioned_comments(toks);
    let is_ddl = kw_eq(toks.first()?, "create") || kw_eq(toks.first()?, "alter");
    if !is_ddl || !toks.iter().take(6).any(|t| kw_eq(t, "table")) {
        return None;
    }
    let mut depth = 0i32;
    let mut at = None;
    for (i, t) in toks.iter().enumerate() {
        match t {
            Tok::P('(') => depth += 1,
            Tok::P(')') => depth -= 1,
            _ if depth == 0
                && kw_eq(t, "partition")
                && toks.get(i + 1).is_some_and(|b| kw_eq(b, "by")) =>
            {
                at = Some(i + 2);
                break;
            }
            _ => {}
        }
    }
    let mut p = Clause {
        t: toks,
        i: at?,
        kind: Kind::Hash,
        columns: None,
        sub: false,
    };
    match p.clause() {
        Err(Stop::Error(code)) => Some(code),
        _ => None,
    }
}

/// The tokens without the marks of a versioned comment (`/*!50100 ... */`: the server
/// reads what is inside).
fn without_versioned_comments(toks: &[Tok]) -> Vec<Tok> {
    let mut out = Vec::with_capacity(toks.len());
    let mut i = 0;
    while i < toks.len() {
        match (&toks[i], toks.get(i + 1), toks.get(i + 2)) {
            (Tok::P('/'), Some(Tok::P('*')), Some(Tok::P('!'))) => {
                i += 3;
                if matches!(toks.get(i), Some(Tok::Num(_))) {
                    i += 1;
                }
            }
            (Tok::P('*'), Some(Tok::P('/')), _) => i += 2,
            (t, _, _) => {
                out.push(t.clone());
                i += 1;
            }
        }
    }
    out
}

struct Clause<'a> {
    t: &'a [Tok],
    i: usize,
    kind: Kind,
    /// `RANGE COLUMNS (...)` / `LIST COLUMNS (...)`: the number of columns.
    columns: Option<usize>,
    /// Subpartitioned.
    sub: bool,
}

impl Clause<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.t.get(self.i)
    }
    fn at(&self, kw: &str) -> bool {
        self.peek().is_some_and(|t| kw_eq(t, kw))
    }
    fn eat(&mut self, kw: &str) -> bool {
        let yes = self.at(kw);
        self.i += usize::from(yes);
        yes
    }
    fn eat_p(&mut self, c: char) -> bool {
        let yes = self.peek() == Some(&Tok::P(c));
        self.i += usize::from(yes);
        yes
    }
    fn need_p(&mut self, c: char) -> R<()> {
        if self.eat_p(c) {
            Ok(())
        } else {
            Err(Stop::Error(ER_PARSE_ERROR))
        }
    }

    fn clause(&mut self) -> R<()> {
        self.kind = self.part_type(false)?;
        let parts = self.num("partitions")?;
        let mut sub_parts = None;
        if self.eat("subpartition") {
            if !self.eat("by") {
                return Err(Stop::Error(ER_PARSE_ERROR));
            }
            if !matches!(self.part_type(true)?, Kind::Hash | Kind::Key) {
                return Err(Stop::Error(ER_PARSE_ERROR));
            }
            self.sub = true;
            sub_parts = self.num("subpartitions")?;
        }
        if !self.eat_p('(') {
            if matches!(self.kind, Kind::Range | Kind::List) {
                return Err(Stop::Error(ER_PARTITIONS_MUST_BE_DEFINED_ERROR));
            }
            return Err(Stop::Unknown);
        }
        let mut count = 0;
        let mut subs_seen: Option<usize> = None;
        loop {
            let subs = self.part_definition(sub_parts)?;
            count += 1;
            // opt_sub_partition: every partition has the first one's number of
            // subpartitions (or none at all), as SUBPARTITIONS n says.
            match (subs_seen, subs) {
                (None, s) => subs_seen = Some(s),
                (Some(a), b) if a != b => return Err(Stop::Error(ER_PARSE_ERROR)),
                _ => {}
            }
            if self.eat_p(',') {
                continue;
            }
            self.need_p(')')?;
            break;
        }
        if parts.is_some_and(|n| n != count) {
            return Err(Stop::Error(ER_PARSE_ERROR));
        }
        Err(Stop::Unknown)
    }

    /// `[LINEAR] KEY [ALGORITHM = n] (names)`, `[LINEAR] HASH (expr)`,
    /// `RANGE | LIST {(expr) | COLUMNS (names)}`.
    fn part_type(&mut self, sub: bool) -> R<Kind> {
        self.eat("linear");
        if self.eat("key") {
            if self.eat("algorithm") {
                self.need_p('=')?;
                self.i += 1;
            }
            self.need_p('(')?;
            self.names()?;
            return Ok(Kind::Key);
        }
        let kind = if self.eat("hash") {
            Kind::Hash
        } else if self.eat("range") {
            Kind::Range
        } else if self.eat("list") {
            Kind::List
        } else if sub {
            return Err(Stop::Error(ER_PARSE_ERROR));
        } else {
            return Err(Stop::Unknown);
        };
        if kind != Kind::Hash && self.eat("columns") {
            self.need_p('(')?;
            self.columns = Some(self.names()?);
            return Ok(kind);
        }
        self.need_p('(')?;
        self.part_func()?;
        Ok(kind)
    }

    /// A list of plain names up to `)` (KEY's columns, COLUMNS (...)): their number.
    fn names(&mut self) -> R<usize> {
        let mut n = 0;
        if self.eat_p(')') {
            return Ok(0);
        }
        loop {
            match self.peek() {
                Some(Tok::Word { .. }) => self.i += 1,
                _ => return Err(Stop::Error(ER_PARSE_ERROR)),
            }
            n += 1;
            if self.eat_p(',') {
                continue;
            }
            self.need_p(')')?;
            return Ok(n);
        }
    }

    /// The partition function's expression up to its `)`: a random or time function
    /// makes the parser refuse it (`part_func_expr`).
    fn part_func(&mut self) -> R<()> {
        let mut depth = 1;
        while depth > 0 {
            let t = self.peek().ok_or(Stop::Unknown)?;
            match t {
                Tok::P('(') => depth += 1,
                Tok::P(')') => depth -= 1,
                Tok::Word {
                    text,
                    quoted: false,
                } if NOT_ALLOWED.contains(&text.to_ascii_lowercase().as_str()) => {
                    return Err(Stop::Error(ER_PARSE_ERROR));
                }
                _ => {}
            }
            self.i += 1;
        }
        Ok(())
    }

    /// `PARTITIONS n` / `SUBPARTITIONS n`: an integer literal, not 0.
    fn num(&mut self, kw: &str) -> R<Option<usize>> {
        if !self.eat(kw) {
            return Ok(None);
        }
        let n = match self.peek() {
            Some(Tok::Num(n)) if n.chars().all(|c| c.is_ascii_digit()) => n.clone(),
            _ => return Err(Stop::Error(ER_PARSE_ERROR)),
        };
        self.i += 1;
        if matches!(self.peek(), Some(Tok::P('+' | '-' | '.' | '*' | '/'))) {
            return Err(Stop::Error(ER_PARSE_ERROR));
        }
        match n.parse::<usize>() {
            Ok(0) => Err(Stop::Error(ER_NO_PARTS_ERROR)),
            Ok(n) => Ok(Some(n)),
            Err(_) => Err(Stop::Unknown),
        }
    }

    /// `PARTITION name [VALUES ...] [options] [(SUBPARTITION ...)]`: the number of its
    /// subpartitions.
    fn part_definition(&mut self, sub_parts: Option<usize>) -> R<usize> {
        // The PARTITION keyword may be left out (`p1 VALUES LESS THAN (10)`; measured:
        // main/partition_alter.test:278 on 10.11.19).
        self.eat("partition");
        match self.peek() {
            Some(Tok::Word { text, quoted }) if *quoted || !OPTIONS.contains(&lc(text)) => {
                self.i += 1
            }
            _ => return Err(Stop::Error(ER_PARSE_ERROR)),
        }
        self.part_values()?;
        self.options()?;
        if !self.eat_p('(') {
            return Ok(0);
        }
        if !self.sub {
            return Err(Stop::Unknown);
        }
        let mut n = 0;
        loop {
            if !self.eat("subpartition") {
                return Err(Stop::Error(ER_PARSE_ERROR));
            }
            match self.peek() {
                Some(Tok::Word { .. }) => self.i += 1,
                _ => return Err(Stop::Error(ER_PARSE_ERROR)),
            }
            self.options()?;
            n += 1;
            if self.eat_p(',') {
                continue;
            }
            self.need_p(')')?;
            break;
        }
        if sub_parts.is_some_and(|s| s != n) {
            return Err(Stop::Error(ER_PARSE_ERROR));
        }
        Ok(n)
    }

    /// `opt_part_values`.
    fn part_values(&mut self) -> R<()> {
        if self.eat("default") {
            return Err(Stop::Unknown);
        }
        if !self.eat("values") {
            // partition_info::error_if_requires_values.
            return match self.kind {
                Kind::Range | Kind::List => Err(Stop::Error(ER_PARTITION_REQUIRES_VALUES_ERROR)),
                _ => Ok(()),
            };
        }
        if self.eat("less") {
            if !self.eat("than") {
                return Err(Stop::Error(ER_PARSE_ERROR));
            }
            if self.kind != Kind::Range {
                return Err(Stop::Error(ER_PARTITION_WRONG_VALUES_ERROR));
            }
            if self.eat("maxvalue") {
                return Ok(());
            }
            self.need_p('(')?;
            return self.tuple(true);
        }
        if self.eat("in") {
            if self.kind != Kind::List {
                return Err(Stop::Error(ER_PARTITION_WRONG_VALUES_ERROR));
            }
            self.need_p('(')?;
            return self.in_list();
        }
        Err(Stop::Error(ER_PARSE_ERROR))
    }

    /// `VALUES IN (...)` after its `(`: values, or (LIST COLUMNS of several columns)
    /// tuples.
    fn in_list(&mut self) -> R<()> {
        match self.columns {
            Some(n) if n > 1 => loop {
                self.need_p('(')?;
                self.tuple(false)?;
                if self.eat_p(',') {
                    continue;
                }
                return self.need_p(')');
            },
            Some(_) if self.t[self.i..].first() == Some(&Tok::P('(')) => Err(Stop::Unknown),
            _ => self.values(false, None),
        }
    }

    /// One tuple after its `(`: for COLUMNS, as many values as columns; else one value
    /// (a second is ER_TOO_MANY_VALUES_ERROR, `partition_info::add_column_value`).
    fn tuple(&mut self, maxvalue: bool) -> R<()> {
        if self.columns.is_none() {
            self.value(maxvalue)?;
            if self.eat_p(',') {
                return Err(Stop::Error(ER_TOO_MANY_VALUES_ERROR));
            }
            return self.need_p(')');
        }
        self.values(maxvalue, self.columns)
    }

    /// Values separated by commas up to `)`; with `want`, more than `want` values is
    /// ER_PARTITION_COLUMN_LIST_ERROR, fewer a parse error.
    fn values(&mut self, maxvalue: bool, want: Option<usize>) -> R<()> {
        let mut n = 0;
        loop {
            n += 1;
            if want.is_some_and(|w| n > w) {
                return Err(Stop::Error(ER_PARTITION_COLUMN_LIST_ERROR));
            }
            self.value(maxvalue)?;
            if self.eat_p(',') {
                continue;
            }
            self.need_p(')')?;
            break;
        }
        if want.is_some_and(|w| n < w) {
            return Err(Stop::Error(ER_PARSE_ERROR));
        }
        Ok(())
    }

    /// One value expression, up to the `,` or `)` that ends it.
    fn value(&mut self, maxvalue: bool) -> R<()> {
        let mut depth = 0;
        let start = self.i;
        loop {
            let t = self.peek().ok_or(Stop::Unknown)?;
            match t {
                Tok::P('(') => depth += 1,
                Tok::P(')') if depth == 0 => break,
                Tok::P(')') => depth -= 1,
                Tok::P(',') if depth == 0 => break,
                Tok::Word {
                    text,
                    quoted: false,
                } => {
                    let w = lc(text);
                    let next = self.t.get(self.i + 1);
                    let call = next == Some(&Tok::P('('));
                    // `DATE '...'`, `x'41'`, or a character set introducer: `_latin1 0xDF`.
                    let typed = matches!(next, Some(Tok::Str(_)))
                        || (text.starts_with('_') && matches!(next, Some(Tok::Num(_))));
                    if w == "maxvalue" && !call {
                        if !maxvalue {
                            return Err(Stop::Error(ER_PARSE_ERROR));
                        }
                    } else if !(call || typed || matches!(w, "null" | "true" | "false")) {
                        // A column name (1054), or an operator the checker does not read.
                        return Err(
                            if w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                                && !OPERATORS.contains(&w)
                            {
                                Stop::Error(ER_BAD_FIELD_ERROR)
                            } else {
                                Stop::Unknown
                            },
                        );
                    }
                }
                Tok::Word { quoted: true, .. } => return Err(Stop::Unknown),
                _ => {}
            }
            self.i += 1;
        }
        if self.i == start {
            return Err(Stop::Error(ER_PARSE_ERROR));
        }
        Ok(())
    }

    /// Partition (or subpartition) options up to `(`, `,` or `)`.
    fn options(&mut self) -> R<()> {
        loop {
            match self.peek() {
                None | Some(Tok::P('(' | ',' | ')')) => return Ok(()),
                Some(Tok::Word {
                    text,
                    quoted: false,
                }) if OPTIONS.contains(&lc(text)) => {
                    if lc(text) == "values" {
                        // VALUES after options, or in a subpartition: the grammar's.
                        return Err(Stop::Error(ER_PARSE_ERROR));
                    }
                    self.i += 1;
                    self.eat("engine");
                    self.eat("directory");
                    self.eat_p('=');
                    // The option's value: one word, string or number.
                    match self.peek() {
                        Some(Tok::Word { .. } | Tok::Str(_) | Tok::Num(_)) => self.i += 1,
                        _ => return Err(Stop::Unknown),
                    }
                }
                _ => return Err(Stop::Error(ER_PARSE_ERROR)),
            }
        }
    }
}

fn lc(s: &str) -> &'static str {
    // The option and operator words are ASCII; others compare as no word of the lists.
    let l = s.to_ascii_lowercase();
    OPTIONS
        .iter()
        .chain(OPERATORS)
        .chain(NOT_ALLOWED)
        .chain(["maxvalue", "null", "true", "false"].iter())
        .find(|w| **w == l)
        .copied()
        .unwrap_or("")
}

/// Words that begin a partition option (`opt_part_option`), and VALUES (too late).
const OPTIONS: &[&str] = &[
    "engine",
    "storage",
    "tablespace",
    "nodegroup",
    "max_rows",
    "min_rows",
    "data",
    "index",
    "comment",
    "values",
];

/// Words of expressions the checker does not read (not column names).
const OPERATORS: &[&str] = &[
    "interval", "div", "mod", "and", "or", "xor", "not", "is", "between", "like", "case", "when",
    "then", "else", "end", "in", "binary", "collate",
];

/// Functions a partition function may not call (random or depending on the time or
/// the time zone: `Item::check_vcol_func_processor`, refused in `part_func_expr`).
const NOT_ALLOWED: &[&str] = &[
    "rand",
    "now",
    "curtime",
    "curdate",
    "current_time",
    "current_date",
    "current_timestamp",
    "sysdate",
    "localtime",
    "localtimestamp",
    "utc_time",
    "utc_date",
    "utc_timestamp",
    "uuid",
    "uuid_short",
];

#[cfg(test)]
mod tests {
    use super::super::tokens;
    use super::error;

    fn e(sql: &str) -> Option<u32> {
        error(&tokens(sql).unwrap())
    }

    #[test]
    fn the_measured_errors() {
        for (sql, code) in [
            (
                "create table t1 (a int) partition by key(a) partitions 0.2+e1",
                1064,
            ),
            (
                "create table t1 (a int) partition by key(a) partitions -1",
                1064,
            ),
            (
                "create table t1 (a int) partition by key(a) partitions 1.5",
                1064,
            ),
            (
                "create table t1 (a int) partition by key(a) partitions 1e+300",
                1064,
            ),
            (
                "create table t3 (a int) partition by key(a) partitions 0",
                1504,
            ),
            ("create table t1 (a int) partition by range (a)", 1492),
            ("alter table t1 partition by list (a) partitions 2", 1492),
            (
                "CREATE TABLE t1 (a int) PARTITION BY RANGE (a) (PARTITION p0 VALUES LESS \
                 THAN (1), PARTITION p1 VALU ES LESS THAN (2))",
                1479,
            ),
            (
                "create table t1 (a int) partition by hash (a) partitions 2 (partition x1 \
                 values less than (4), partition x2 values less than (5))",
                1480,
            ),
            (
                "create table t1 (a int) partition by list (a) partitions 2 (partition x1 \
                 values less than 4, partition x2 values less than (5))",
                1480,
            ),
            (
                "create table t1 (a int, b int) partition by range columns(a,b) (partition \
                 p0 values less than (1,1,1)",
                1653,
            ),
            (
                "create table t1 (a int, b int) partition by range columns(a,b) (partition \
                 p0 values less than (10))",
                1064,
            ),
            (
                "CREATE TABLE t1 (a int) PARTITION BY RANGE (a) (PARTITION p0 VALUES LESS \
                 THAN (x1))",
                1054,
            ),
            ("create table t1 (a int) partition by hash (rand(a))", 1064),
            (
                "create table t1 (a int, b char(20)) partition by range(a) (partition p0 \
                 values less than (1,\"b\"))",
                1657,
            ),
            (
                "create table t1 (a int) partition by key (a+2) partitions 3",
                1064,
            ),
            (
                "create table t1 (a int) partition by key (a) partitions 3 (partition x1, \
                 partition x2)",
                1064,
            ),
            (
                "create table t1 (a int, b int) partition by list columns(a,b) (partition \
                 p0 values in ((maxvalue, 0)))",
                1064,
            ),
            (
                "create table t1 (a int, b int) partition by range (a) subpartition by \
                 hash(a) (partition p0 values less than (0) (subpartition sp0), partition \
                 p1 values less than (1))",
                1064,
            ),
            (
                "create table t1 (a int) partition by key (a) subpartition by list (a+b) \
                 (partition x1 (subpartition x11))",
                1064,
            ),
        ] {
            assert_eq!(e(sql), Some(code), "{sql}");
        }
    }

    #[test]
    fn valid_clauses_give_no_error() {
        for sql in [
            "create table t1 (a int) partition by hash (a) partitions 2",
            "create table t1 (a int) partition by key () partitions 2",
            "create table t1 (a int) partition by linear key algorithm=2 (a) partitions 2",
            "create table t1 (a int) partition by range (a) (partition p0 values less than \
             (10), partition p1 values less than maxvalue)",
            "create table t1 (a date) partition by range (to_days(a)) (partition p0 values \
             less than (to_days('2001-01-01')) engine = innodb)",
            "create table t1 (a int) partition by list (a) (partition p0 values in (1, 2, \
             null), partition p1 values in (3))",
            "create table t1 (a int, b int) partition by list columns (a, b) (partition p0 \
             values in ((1, 2), (3, 4)))",
            "create table t1 (a int, b int) partition by range (a) subpartition by hash (b) \
             subpartitions 2 (partition p0 values less than (5) (subpartition s0, \
             subpartition s1), partition p1 values less than maxvalue (subpartition s2, \
             subpartition s3))",
            "create table t1 (a int) partition by hash (a) (partition p0 comment = 'x', \
             partition p1)",
            "alter table t1 partition by hash (a) partitions 2",
            "CREATE OR REPLACE TABLE t1 (a TIME) PARTITION BY LIST COLUMNS (a) (PARTITION p0 \
             VALUES IN (_ucs2 0x0411))",
            "create or replace table t1 (x int) partition by list(x) (partition p1 values in \
             (2, 3), p4 values in (32, 33), pn values in (52))",
            "CREATE TABLE t1 (pk INT) /*!50100 PARTITION BY HASH (pk) PARTITIONS 2 */",
            "create table t1 (a int)",
            "select 1",
        ] {
            assert_eq!(e(sql), None, "{sql}");
        }
    }
}
