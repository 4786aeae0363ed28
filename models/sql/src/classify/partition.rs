//! Partition maintenance in `ALTER TABLE` (`ADD` / `DROP` / `REORGANIZE` / `COALESCE` /
//! `REBUILD` / `TRUNCATE` / `ANALYZE` / `CHECK` / `OPTIMIZE` / `REPAIR PARTITION`,
//! `REMOVE PARTITIONING`) of a table the catalog knows is not partitioned: the server
//! takes the locks of the statement's path, then fails with
//! ER_PARTITION_MGMT_ON_NONPARTITIONED (1505), or ER_NO_SUCH_TABLE (1146) for a table
//! that does not exist. Each path is a learned row (`nopart_*`, measured on MariaDB
//! 10.11.19):
//!
//! | operation | path (MariaDB 10.11) | learned row |
//! |---|---|---|
//! | ADD, DROP, REORGANIZE, COALESCE, REBUILD PARTITION, REMOVE PARTITIONING | `mysql_alter_table` opens the table (SU), `prep_alter_part_table` (sql/sql_partition.cc) fails | `nopart_alter` |
//! | TRUNCATE PARTITION | `Sql_cmd_alter_table_truncate_partition::execute` (sql/sql_partition_admin.cc) takes X, then fails | `nopart_truncate` |
//! | ANALYZE, CHECK, OPTIMIZE, REPAIR PARTITION | `mysql_admin_table` (sql/sql_admin.cc) opens the table as its TABLE statement does, then fails on `ALTER_ADMIN_PARTITION` | `nopart_analyze`, `nopart_check`, `nopart_optimize`, `nopart_repair` |
//!
//! `PARTITION BY` of an InnoDB table is a repartitioning copy (learned row
//! `alter_partition_by`), after which the catalog knows the table partitioned;
//! `EXCHANGE PARTITION` of a table that is not partitioned locks both tables, then fails
//! (learned row `nopart_exchange`).
//!
//! Of an InnoDB table the catalog knows partitioned, REMOVE PARTITIONING and TRUNCATE /
//! ANALYZE / CHECK PARTITION ALL are learned rows (`part_*`).
//!
//! What the model does not know is refused: other maintenance and exchange of a
//! partitioned table (not measured, and the catalog keeps no partition names), what `PARTITION BY` asks of the table's columns
//! and keys (1054, 1503: the catalog does not know them), `DISCARD` / `IMPORT PARTITION
//! ... TABLESPACE`, and a partition operation together with other operations or options.

use super::{Cx, Effect, Stmt, Tbl, Tok};
use crate::kind::Kind;

/// `CREATE TABLE ... PARTITION BY ...` (its words, lower case).
pub fn partitioned_by(words: &[String]) -> bool {
    words
        .windows(2)
        .any(|w| w[0] == "partition" && w[1] == "by")
}

/// `ALTER TABLE t SPEC` where SPEC (the words after the table name) mentions partitions.
pub(super) fn classify(
    cx: &Cx,
    t: &Tbl,
    spec: &[String],
    words: &[String],
    toks: &[Tok],
) -> Result<Stmt, String> {
    let sql = cx.sql;
    if words.get(1).is_some_and(|w| w == "online") {
        return Err(format!(
            "`{sql}`: ALTER ONLINE TABLE with a partition operation is not modelled"
        ));
    }
    // `WAIT n` / `NOWAIT` come before the operations.
    let spec = match spec.first().map(String::as_str) {
        Some("wait") => spec.get(2..).unwrap_or_default(),
        Some("nowait") => &spec[1..],
        _ => spec,
    };
    match (
        spec.first().map(String::as_str),
        spec.get(1).map(String::as_str),
    ) {
        (Some("partition"), Some("by")) => return repartition(cx, t, spec, toks),
        (Some("exchange"), Some("partition")) => return exchange(cx, t, spec, toks),
        // Syntax errors, before any lock (measured on 10.11.19: 1064, the transaction
        // kept): REBUILD PARTITION takes names, OPTIMIZE / ANALYZE PARTITION no option.
        // CONVERT PARTITION p TO TABLE n (10.7+) of a table that is not partitioned:
        // the ALTER path's locks, then 1505 (measured on 10.11.19); a name n that exists
        // is locked X first and gives 1050 instead (not a learned row: refused).
        (Some("convert"), Some("partition")) => {
            let to = spec
                .get(3..5)
                .is_some_and(|w| w[0] == "to" && w[1] == "table");
            let at = toks
                .windows(2)
                .position(|w| super::kw_eq(&w[0], "to") && super::kw_eq(&w[1], "table"));
            let mut c = super::Cur {
                t: toks,
                i: at.map_or(toks.len(), |i| i + 2),
                sql,
            };
            let n = c.table(cx.db);
            let (true, Ok(n), true) = (
                to && name_list(spec.get(2..3).unwrap_or_default()),
                n,
                c.done(),
            ) else {
                return Err(format!("`{sql}`: this CONVERT PARTITION is not modelled"));
            };
            if cx.cat.exists(&n) || cx.cat.is_partitioned(t) {
                return Err(format!(
                    "`{sql}`: CONVERT PARTITION to a table that exists, or of a \
                     partitioned table, is not measured"
                ));
            }
            let part = cx.on_table(Kind::NopartAlter, t)?;
            return cx.plan(
                Kind::NopartAlter,
                vec![part],
                Effect::NotPartitioned(t.clone()),
                toks,
            );
        }
        (Some("rebuild"), Some("partition")) if spec.len() == 2 => {
            return Ok(Stmt::Fails(super::ER_PARSE_ERROR))
        }
        (Some("optimize" | "analyze"), Some("partition"))
            if spec.last().is_some_and(|w| w == "extended") =>
        {
            return Ok(Stmt::Fails(super::ER_PARSE_ERROR))
        }
        _ => {}
    }
    let path = path(spec).map_err(|e| format!("`{sql}`: {e}"))?;
    if cx.cat.is_partitioned(t) {
        return partitioned(cx, t, spec, path, toks);
    }
    let kind = path.kind();
    if !(cx.has_row)(kind.as_str()) {
        return Err(format!(
            "`{sql}`: partition maintenance is not in this dialect's statement table"
        ));
    }
    if matches!(path, PartitionPath::Optimize | PartitionPath::Repair)
        && cx.cat.engine(t) != Some(super::Engine::InnoDb)
    {
        // The MyISAM rows (SW, BACKUP_DML, IX, SNRW) disagree with the server behind
        // another session's INSERT ... SELECT (only IX and SNRW pending there; found by
        // `mdl conform --random 60 --seed 27100`, scenario 27123): refused, as is a
        // missing table (no engine decides its path).
        return Err(format!(
            "`{sql}`: OPTIMIZE / REPAIR PARTITION of a table that is not InnoDB is not \
             modelled"
        ));
    }
    let part = cx.on_table(kind, t)?;
    cx.plan(kind, vec![part], Effect::NotPartitioned(t.clone()), toks)
}

/// `ALTER TABLE t PARTITION BY ...` of an InnoDB table: a repartitioning copy
/// (`mysql_alter_table` with `prep_alter_part_table`, then `copy_data_between_tables`,
/// sql/sql_table.cc), the learned row `alter_partition_by` (measured on MariaDB 10.11.19:
/// IX, SU, BACKUP_DDL, SNW, then X, as the learned `alter_copy`). The table is
/// partitioned afterwards. What the partition function asks of the table's columns and
/// keys (1054, ER_UNIQUE_KEY_NEED_ALL_FIELDS_IN_PF 1503, ...) the catalog does not know;
/// per-partition engines and directories are refused (TABLESPACE and NODEGROUP of a
/// partition change nothing: the same copy, measured on 10.11.19).
fn repartition(cx: &Cx, t: &Tbl, spec: &[String], toks: &[Tok]) -> Result<Stmt, String> {
    let sql = cx.sql;
    if let Some(w) = spec[2..]
        .iter()
        .find(|w| matches!(w.as_str(), "engine" | "directory" | "algorithm" | "lock"))
    {
        return Err(format!(
            "`{sql}`: ALTER TABLE ... PARTITION BY with `{w}` (per-partition storage, or \
             options) is not modelled"
        ));
    }
    if !balanced(&spec[2..]) {
        return Err(format!("`{sql}`: unbalanced parentheses in PARTITION BY"));
    }
    not_myisam(cx, t)?;
    let kind = Kind::AlterPartitionBy;
    if !(cx.has_row)(kind.as_str()) {
        return Err(format!(
            "`{sql}`: `{kind}` is not in this dialect's statement table"
        ));
    }
    let part = cx.on_table(kind, t)?;
    cx.plan(kind, vec![part], Effect::Repartition(t.clone()), toks)
}

/// `ALTER TABLE t EXCHANGE PARTITION p WITH TABLE s` of a
/// table that is not partitioned: `Sql_cmd_alter_table_exchange_partition::
/// exchange_partition` (sql/sql_partition_admin.cc) opens both tables with SNW
/// (`lock_table_names`: one bulk request, with the schema's IX and BACKUP_DDL), then fails
/// with ER_PARTITION_MGMT_ON_NONPARTITIONED, or ER_NO_SUCH_TABLE when either table is
/// missing (learned row `nopart_exchange`). The exchange of a partitioned table (its
/// upgrade to X of both tables) is not measured: refused.
fn exchange(cx: &Cx, t: &Tbl, spec: &[String], toks: &[Tok]) -> Result<Stmt, String> {
    let sql = cx.sql;
    let at = |i: usize| spec.get(i).map(String::as_str).unwrap_or("");
    // The grammar takes one partition name and one table (`alter_commands`'s EXCHANGE
    // PARTITION rule, sql/sql_yacc.yy): a list of either is a syntax error, before any
    // lock (main/partition_exchange.test, `--error ER_PARSE_ERROR`).
    if at(2) == "(" || at(3) == "," || (at(3) == "with" && at(4) == "table" && at(5) == "(") {
        return Ok(Stmt::Fails(super::ER_PARSE_ERROR));
    }
    if !name_list(&spec[2..3.min(spec.len())]) || at(3) != "with" || at(4) != "table" {
        return Err(format!(
            "`{sql}`: EXCHANGE PARTITION of other than one partition with one table is not \
             modelled"
        ));
    }
    let start = toks
        .windows(2)
        .position(|w| super::kw_eq(&w[0], "with") && super::kw_eq(&w[1], "table"))
        .ok_or_else(|| format!("`{sql}`: expected WITH TABLE"))?;
    let mut c = super::Cur {
        t: toks,
        i: start + 2,
        sql,
    };
    let swap = c.table(cx.db)?;
    let rest = c.rest_words();
    // Nothing after the table: `IGNORE`, `, t3`, and also `WITH | WITHOUT VALIDATION`
    // (MySQL's, not MariaDB 10.11's) are syntax errors (measured on 10.11.19: 1064, the
    // transaction kept).
    if !rest.is_empty() {
        return Ok(Stmt::Fails(super::ER_PARSE_ERROR));
    }
    if swap == *t {
        return Err(format!(
            "`{sql}`: EXCHANGE PARTITION of a table with itself is not modelled"
        ));
    }
    if cx.cat.is_partitioned(t) || cx.cat.is_partitioned(&swap) {
        return Err(format!(
            "`{sql}`: EXCHANGE PARTITION with a partitioned table is not measured"
        ));
    }
    not_myisam(cx, t)?;
    not_myisam(cx, &swap)?;
    cx.no_view(t)?;
    cx.no_view(&swap)?;
    let kind = Kind::NopartExchange;
    if !(cx.has_row)(kind.as_str()) {
        return Err(format!(
            "`{sql}`: `{kind}` is not in this dialect's statement table"
        ));
    }
    let bind = super::Bind {
        t: Some(t.clone()),
        t2: Some(swap.clone()),
        ..super::Bind::default()
    };
    let part = cx.part(kind, bind);
    cx.plan(
        kind,
        vec![part],
        Effect::ExchangeNotPartitioned(t.clone(), swap),
        toks,
    )
}

/// Maintenance of an InnoDB table the catalog knows partitioned, of a form that names no
/// partition (the catalog keeps no partition names): learned rows on t1 partitioned by
/// HASH into 2 (MariaDB 10.11.19). REMOVE PARTITIONING is a copy back to one table
/// (`mysql_alter_table`: IX, SU, BACKUP_DDL, SNW, X; `part_remove`), the table not
/// partitioned afterwards; TRUNCATE PARTITION ALL takes X at once
/// (`Sql_cmd_alter_table_truncate_partition::execute`, sql/sql_partition_admin.cc;
/// `part_truncate`); ANALYZE / CHECK PARTITION ALL open the table as ANALYZE / CHECK
/// TABLE do (`mysql_admin_table`, sql/sql_admin.cc; `part_analyze`, `part_check`).
fn partitioned(
    cx: &Cx,
    t: &Tbl,
    spec: &[String],
    path: PartitionPath,
    toks: &[Tok],
) -> Result<Stmt, String> {
    let sql = cx.sql;
    let all = spec.get(2..).is_some_and(|r| r.len() == 1 && r[0] == "all");
    let kind = match (path, spec.first().map(String::as_str)) {
        (PartitionPath::Alter, Some("remove")) => Kind::PartRemove,
        (PartitionPath::Truncate, _) if all => Kind::PartTruncate,
        (PartitionPath::Analyze, _) if all => Kind::PartAnalyze,
        (PartitionPath::Check, _) if all => Kind::PartCheck,
        _ => {
            return Err(format!(
                "`{sql}`: this maintenance of a partitioned table (`{t}`) is not measured \
                 (the catalog keeps no partition names)"
            ))
        }
    };
    if cx.cat.engine(t) != Some(super::Engine::InnoDb) || !(cx.has_row)(kind.as_str()) {
        return Err(format!(
            "`{sql}`: maintenance of a partitioned table that is not InnoDB (or with no \
             `{kind}` row) is not modelled"
        ));
    }
    let part = cx.on_table(kind, t)?;
    let effect = if kind == Kind::PartRemove {
        Effect::Unpartition(t.clone())
    } else {
        Effect::NeedTables(vec![t.clone()])
    };
    cx.plan(kind, vec![part], effect, toks)
}

/// Refuses a MyISAM table (its copy and exchange paths are not learned).
fn not_myisam(cx: &Cx, t: &Tbl) -> Result<(), String> {
    if cx.cat.engine(t) == Some(super::Engine::MyIsam) {
        return Err(format!(
            "`{}`: PARTITION BY / EXCHANGE PARTITION of a MyISAM table (`{t}`) is not \
             learned",
            cx.sql
        ));
    }
    Ok(())
}

/// Parentheses balanced.
fn balanced(words: &[String]) -> bool {
    let mut depth = 0i32;
    for w in words {
        match w.as_str() {
            "(" => depth += 1,
            ")" => depth -= 1,
            _ => {}
        }
        if depth < 0 {
            return false;
        }
    }
    depth == 0
}

/// The path of one partition operation (the learned row's base name).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartitionPath {
    /// `mysql_alter_table`: `nopart_alter`.
    Alter,
    Truncate,
    Analyze,
    Check,
    Optimize,
    Repair,
}

impl PartitionPath {
    /// The learned row of this path on a table that is not partitioned.
    pub fn kind(self) -> Kind {
        match self {
            PartitionPath::Alter => Kind::NopartAlter,
            PartitionPath::Truncate => Kind::NopartTruncate,
            PartitionPath::Analyze => Kind::NopartAnalyze,
            PartitionPath::Check => Kind::NopartCheck,
            PartitionPath::Optimize => Kind::NopartOptimize,
            PartitionPath::Repair => Kind::NopartRepair,
        }
    }
}

/// Whether an ALTER TABLE's specification (its words after the table name, lower case)
/// touches partitioning at all.
pub fn mentions_partitions(spec: &[String]) -> bool {
    spec.iter()
        .any(|w| matches!(w.as_str(), "partition" | "partitions" | "partitioning"))
}

/// The path of an ALTER TABLE specification that is one partition operation, or the
/// reason the model refuses it.
pub fn path(spec: &[String]) -> Result<PartitionPath, String> {
    let at = |i: usize| spec.get(i).map(String::as_str).unwrap_or("");
    // ADD PARTITION IF NOT EXISTS, DROP PARTITION IF EXISTS: the same path (measured on
    // 10.11.19: 1505 for a table that is not partitioned, as without IF [NOT] EXISTS).
    let skip = match (at(0), at(1), at(2), at(3), at(4)) {
        ("add", "partition", "if", "not", "exists") => 3,
        ("drop", "partition", "if", "exists", _) => 2,
        _ => 0,
    };
    let rest = spec.get(2 + skip..).unwrap_or_default();
    let (path, ok) = match (at(0), at(1)) {
        ("add", "partition") => (
            PartitionPath::Alter,
            matches!(at(2 + skip), "(" | "partitions") && definitions(rest),
        ),
        ("reorganize", "partition") => (PartitionPath::Alter, definitions(rest)),
        ("coalesce", "partition") => (
            PartitionPath::Alter,
            rest.len() == 1 && rest[0].chars().all(|c| c.is_ascii_digit()),
        ),
        ("drop" | "rebuild", "partition") => (PartitionPath::Alter, name_list(rest)),
        ("remove", "partitioning") => (PartitionPath::Alter, rest.is_empty()),
        ("truncate", "partition") => (PartitionPath::Truncate, name_list(rest)),
        ("analyze", "partition") => (PartitionPath::Analyze, name_list(rest)),
        ("check", "partition") => (PartitionPath::Check, name_list(rest)),
        ("optimize", "partition") => (PartitionPath::Optimize, name_list(rest)),
        ("repair", "partition") => (PartitionPath::Repair, name_list(rest)),
        ("exchange", "partition") | ("partition", "by") => {
            return Err("EXCHANGE PARTITION and PARTITION BY are not maintenance paths".into())
        }
        _ => {
            return Err(
                "this partition operation (or a partition operation among other \
                 operations) is not modelled"
                    .into(),
            )
        }
    };
    if !ok {
        return Err(
            "a partition operation with other words than its partition names or \
             definitions (options, other operations, or a syntax the model does not check) \
             is not modelled"
                .into(),
        );
    }
    Ok(path)
}

/// `name [, name ...]` or `ALL`: single words separated by commas.
fn name_list(words: &[String]) -> bool {
    !words.is_empty()
        && words.len() % 2 == 1
        && words.iter().enumerate().all(|(i, w)| {
            if i % 2 == 1 {
                w == ","
            } else {
                // (`-` and spaces only come from a quoted name: `p10-99`.)
                w.chars().all(|c| c.is_alphanumeric() || "_$- ".contains(c))
                    && !w.is_empty()
                    && !KEYWORDS.contains(&w.as_str())
            }
        })
}

/// Words that begin another operation or option of ALTER TABLE (not partition names).
const KEYWORDS: &[&str] = &[
    "algorithm",
    "lock",
    "add",
    "drop",
    "modify",
    "change",
    "alter",
    "force",
    "engine",
    "rename",
    "order",
    "convert",
    "partition",
    "remove",
    "with",
    "without",
    "discard",
    "import",
    "extended",
    "quick",
    "medium",
    "fast",
    "changed",
    "use_frm",
    "into",
];

/// Partition definitions (`(PARTITION ...)`, `PARTITIONS n`, `p1 INTO (...)`): the
/// parentheses balanced and nothing at the top level after the list; `MAXVALUE` in a
/// `VALUES IN` list (a syntax error the model does not check) refused.
fn definitions(words: &[String]) -> bool {
    let mut depth = 0i32;
    let mut closed = false;
    for (i, w) in words.iter().enumerate() {
        match w.as_str() {
            "(" => depth += 1,
            ")" => {
                depth -= 1;
                closed |= depth == 0;
            }
            "maxvalue"
                if words[..i]
                    .windows(2)
                    .any(|p| p[0] == "values" && p[1] == "in") =>
            {
                return false
            }
            _ if depth > 0 => {}
            // After the definition list: nothing.
            _ if closed => return false,
            "partitions" | "into" | "," => {}
            w if w.chars().all(|c| c.is_alphanumeric() || c == '_') => {}
            _ => return false,
        }
    }
    depth == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn the_paths_of_the_operations() {
        let cases = [
            (
                "add partition ( partition p1 values less than ( 10 ) )",
                PartitionPath::Alter,
            ),
            ("add partition partitions 2", PartitionPath::Alter),
            ("drop partition p1 , p2", PartitionPath::Alter),
            ("coalesce partition 2", PartitionPath::Alter),
            ("remove partitioning", PartitionPath::Alter),
            (
                "reorganize partition p1 into ( partition p2 values less than ( 10 ) )",
                PartitionPath::Alter,
            ),
            ("truncate partition all", PartitionPath::Truncate),
            ("analyze partition p1 , p2", PartitionPath::Analyze),
            ("check partition all", PartitionPath::Check),
            ("optimize partition p1", PartitionPath::Optimize),
            ("repair partition p1", PartitionPath::Repair),
        ];
        for (s, p) in cases {
            assert_eq!(path(&w(s)), Ok(p), "{s}");
        }
    }

    #[test]
    fn what_is_not_modelled_is_refused() {
        for s in [
            "exchange partition p1 with table t2",
            "partition by hash ( a ) partitions 2",
            "add partition partitions 2 , algorithm = inplace",
            "rebuild partition",
            "optimize partition p1 extended",
            "add partition ( partition p1 values in ( maxvalue , maxvalue ) )",
            "reorganize partition p1 into ( partition p2 values less than ( 5 ) ) , force",
            "drop partition p1 , add column c int",
            "discard partition p1 tablespace",
            "add column c int , partition by key ( a )",
        ] {
            assert!(path(&w(s)).is_err(), "{s}");
        }
    }
}
