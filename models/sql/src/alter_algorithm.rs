//! The algorithm MariaDB chooses for `ALTER TABLE` without `ALGORITHM=` (or with
//! `ALGORITHM=DEFAULT`): the cheapest every operation of the statement supports, INSTANT,
//! then INPLACE (NOCOPY is in place too), then COPY (`mysql_alter_table` asks the engine,
//! `handler::check_if_supported_inplace_alter`; InnoDB:
//! `ha_innobase::check_if_supported_inplace_alter` and `instant_alter_column_possible`).
//! Each operation's choice below was measured on MariaDB 10.11.19: for a table
//! `(a INT AUTO_INCREMENT PRIMARY KEY, b INT, s VARCHAR(10), KEY kb (b))`, the first of
//! `ALGORITHM=INSTANT`, `NOCOPY`, `INPLACE`, `COPY` the server accepts (the measurement is
//! in `models/conformance/README.md`).
//!
//! | operation | InnoDB | MyISAM |
//! |---|---|---|
//! | ADD / DROP COLUMN (any position), RENAME COLUMN, ALTER COLUMN SET / DROP DEFAULT, RENAME INDEX / KEY, AUTO_INCREMENT=, COMMENT=, DEFAULT CHARACTER SET | INSTANT | COPY (RENAME COLUMN, defaults, RENAME INDEX, COMMENT: in place, not a learned row) |
//! | ADD / DROP INDEX / KEY / UNIQUE / FULLTEXT, ADD / DROP PRIMARY KEY, FORCE, ENGINE= the same engine, ROW_FORMAT= | INPLACE | COPY |
//! | ENGINE= another engine (the catalog follows it: `Effect::AlterEngine`) | COPY | the same |
//! | CONVERT TO CHARACTER SET | COPY with a character column, in place without | COPY |
//! | PACK_KEYS=, MAX_ROWS=, CHECKSUM= | INSTANT | COPY |
//! | MIN_ROWS=, AVG_ROW_LENGTH=, DELAY_KEY_WRITE=, STATS_PERSISTENT= | INSTANT | in place (metadata only, refused) |
//! | KEY_BLOCK_SIZE= | INPLACE | in place (metadata only, refused) |
//! | PAGE_CHECKSUM=, TRANSACTIONAL=, UNION=, INSERT_METHOD=, CONNECTION=, PASSWORD=, TABLESPACE, STORAGE, COLLATE= | INSTANT | COPY |
//! | WITH SYSTEM VERSIONING | COPY | COPY |
//! | MODIFY / CHANGE of a column | INSTANT, INPLACE or COPY by the column's old and new type | COPY, or in place for its default only |
//!
//! A statement's choice is the most expensive of its operations'. MODIFY, CHANGE and
//! CONVERT depend on the columns, which the catalog does not know: refused, as are the
//! changes of metadata only of a MyISAM table.

use super::catalog::Engine;
use crate::kind::Kind;

/// The learned kinds of ALTER, cheapest first.
const ORDER: [Kind; 3] = [Kind::AlterInstant, Kind::AlterInplace, Kind::AlterCopy];

/// The kind one operation (its words, lower case) needs on a table of `engine`;
/// `Err` with the reason when the model cannot tell.
pub(crate) fn operation(op: &[String], engine: Engine) -> Result<usize, String> {
    let at = |i: usize| op.get(i).map(String::as_str).unwrap_or("");
    let copy = 2;
    let inplace = 1;
    let instant = 0;
    let metadata_only = || {
        if engine == Engine::MyIsam {
            Err(
                "a change of metadata only of a MyISAM table is done in place, which no \
                 learned row has"
                    .to_string(),
            )
        } else {
            Ok(instant)
        }
    };
    match (at(0), at(1)) {
        ("modify" | "change", _) => Err(
            "the server's algorithm for MODIFY / CHANGE depends on the column's type, which \
             the model does not know"
                .into(),
        ),
        // Measured: COPY with a character column to convert, and in place (SU, then X)
        // without one.
        ("convert", _) => Err(
            "the server's algorithm for CONVERT TO CHARACTER SET depends on the table's \
             character columns, which the model does not know"
                .into(),
        ),
        ("engine", _) => {
            let v = if at(1) == "=" { at(2) } else { at(1) };
            // `engine` is the table's class (`catalog::Engine::class`): InnoDB to InnoDB
            // rebuilds in place; any other engine, or another engine's class, copies
            // (`mysql_alter_table`: a new engine is always ALTER_RECREATE by copy).
            match Engine::parse(v) {
                Some(e) if e == engine && engine == Engine::InnoDb => Ok(inplace),
                Some(_) => Ok(copy),
                None => Err(format!("ALTER TABLE ... ENGINE={v} is not modelled")),
            }
        }
        // Table options, measured on the fixture's t1 and m1 (README): of InnoDB INSTANT
        // (KEY_BLOCK_SIZE: INPLACE); of MyISAM PACK_KEYS, MAX_ROWS, CHECKSUM copy, the
        // others change metadata only.
        // SEQUENCE=0 of a table that is not a sequence: a copy (measured: SNW, then X,
        // behind a reader; ALGORITHM=INPLACE fails with 1846, "Reason: SEQUENCE").
        ("sequence", _) => Ok(copy),
        ("pack_keys" | "max_rows" | "checksum", _) if engine == Engine::MyIsam => Ok(copy),
        ("pack_keys" | "max_rows" | "checksum", _) => Ok(instant),
        ("min_rows" | "avg_row_length" | "delay_key_write" | "stats_persistent", _) => {
            metadata_only()
        }
        ("key_block_size", _) if engine == Engine::InnoDb => Ok(inplace),
        ("key_block_size", _) => metadata_only(),
        _ if engine == Engine::MyIsam
            && !matches!((at(0), at(1)), ("rename" | "alter", _) | ("comment", _)) =>
        {
            Ok(copy)
        }
        ("rename", "column" | "index" | "key") | ("alter", _) | ("comment", _) => metadata_only(),
        ("auto_increment", _) => Ok(instant),
        ("default" | "character" | "charset", _) => Ok(instant),
        ("force", _) | ("row_format", _) => Ok(inplace),
        // ORDER BY copies the rows in order (mysql_alter_table, copy_data_between_tables;
        // measured: SNW and BACKUP_DDL behind a reader, also of a column that is not there).
        ("order", "by") => Ok(copy),
        ("add" | "drop", "index" | "key" | "unique" | "fulltext" | "primary" | "spatial") => {
            Ok(inplace)
        }
        (
            "add" | "drop",
            "constraint" | "foreign" | "check" | "partition" | "period" | "system",
        ) => Err(format!("`{}` is not modelled", op.join(" "))),
        ("add" | "drop", _) => Ok(instant),
        // Table options InnoDB keeps as metadata only (another engine's options, a MERGE
        // or FEDERATED option, the default collation): measured INSTANT on 10.11.19 with
        // the fixture's t1 (`suite/alter-table-options-innodb.mdl`).
        (
            "page_checksum" | "transactional" | "collate" | "connection" | "password"
            | "insert_method" | "union" | "tablespace" | "storage",
            _,
        ) => Ok(instant),
        // WITH SYSTEM VERSIONING adds the row start / end columns by copy (measured: 1846
        // for INSTANT, NOCOPY and INPLACE).
        ("with", "system") => Ok(copy),
        // ENCRYPTED=, ENCRYPTION_KEY_ID=, PAGE_COMPRESSED=, PAGE_COMPRESSION_LEVEL=: INSTANT
        // when the value is the table's own, a rebuild in place otherwise, or 1478 (the
        // server's encryption and compression settings): the catalog keeps no values.
        ("encrypted" | "encryption_key_id" | "page_compressed" | "page_compression_level", _) => {
            Err(format!(
                "the algorithm of `{}` depends on the table's own value, which the catalog \
                 does not keep",
                op.join(" ")
            ))
        }
        _ => Err(format!("cannot tell the algorithm of `{}`", op.join(" "))),
    }
}

/// The operations of an ALTER TABLE's specification (the words after the table name),
/// split at the commas outside parentheses; `ALGORITHM=` and `LOCK=` clauses left out.
pub(crate) fn operations(words: &[String]) -> Vec<Vec<String>> {
    let mut out = vec![Vec::new()];
    let order_by = ["order".to_owned(), "by".to_owned()];
    let mut depth = 0i32;
    for w in words {
        match w.as_str() {
            "(" => depth += 1,
            ")" => depth -= 1,
            // (ORDER BY's list is its own: the statement's last clause.)
            "," if depth == 0 && !out.last().is_some_and(|op| op.starts_with(&order_by)) => {
                out.push(Vec::new());
                continue;
            }
            _ => {}
        }
        out.last_mut().expect("one").push(w.clone());
    }
    out.retain(|op| {
        !op.is_empty() && !matches!(op[0].as_str(), "algorithm" | "lock" | "wait" | "nowait")
    });
    out
}

/// What the model cannot play in an ALTER TABLE whatever its algorithm, `words` the
/// statement's (lower case), `spec` its words after the table name: the reason, or none.
/// Each of these was a wrong answer on MariaDB 10.11.19 (`mdl conform --corpus`, files
/// main/alter_table*.test): the server takes SU and then finds nothing to do, or fails
/// before it changes anything, where the model played the whole ALTER.
/// - `IF [NOT] EXISTS` of a column, index or key: `handle_if_exists_options`
///   (sql/sql_table.cc) drops the operation when the object is (not) there, which the
///   model knows only for a table whose columns the catalog knows (`known`:
///   `alter_columns.rs` plays it); with nothing left the ALTER ends after SU.
/// - No operation (`ALTER TABLE t1 ALGORITHM=INPLACE`), a RENAME COLUMN to its own name:
///   nothing to do (`mysql_alter_table`'s "no changes" path).
/// - A subquery (`SET DEFAULT (SELECT ...)`): ER_GENERATED_COLUMN_FUNCTION_IS_NOT_ALLOWED
///   (1901) before any upgrade.
pub fn not_modelled(words: &[String], spec: &[String], known: bool) -> Option<String> {
    if !known
        && words
            .windows(2)
            .any(|w| w[0] == "if" && matches!(w[1].as_str(), "exists" | "not"))
    {
        return Some(
            "IF [NOT] EXISTS in ALTER TABLE depends on whether the column or index exists, \
             which the model does not know"
                .into(),
        );
    }
    // `SEQUENCE=0` alone of a table that is not a sequence: a copy (below).
    let sequence_off = words
        .windows(3)
        .any(|w| w[0] == "sequence" && w[1] == "=" && w[2] == "0");
    if words
        .iter()
        .any(|w| (w == "sequence" && !sequence_off) || w == "nextval" || w == "lastval")
        || words.windows(2).any(|w| w[0] == "value" && w[1] == "for")
    {
        // SEQUENCE=1 of a table fails (4086); a default NEXT VALUE FOR a sequence opens
        // it (1146 when missing) before the table's upgrade.
        return Some("sequences in ALTER TABLE are not modelled".into());
    }
    if words.iter().any(|w| w == "select") {
        return Some("a subquery in ALTER TABLE is not modelled".into());
    }
    if known {
        // Nothing to do: `alter_columns.rs` (measured: IX, SU, BACKUP_DDL, then the end).
        return None;
    }
    let spec = match spec.first().map(String::as_str) {
        Some("wait") => spec.get(2..).unwrap_or_default(),
        Some("nowait") => spec.get(1..).unwrap_or_default(),
        _ => spec,
    };
    let ops = operations(spec);
    if ops.is_empty() {
        return Some(
            "an ALTER TABLE with no operation (the server finds nothing to do) is not \
             modelled"
                .into(),
        );
    }
    let same_name = ops.iter().any(|op| {
        op.len() >= 5 && op[0] == "rename" && op[1] == "column" && op[3] == "to" && op[2] == op[4]
    });
    if same_name {
        return Some("RENAME COLUMN to its own name (nothing to do) is not modelled".into());
    }
    None
}

/// The learned kind for `ALTER TABLE t SPEC` with no algorithm named, `spec` its words
/// after the table name, `engine` the table's.
pub fn default_kind(spec: &[String], engine: Engine) -> Result<Kind, String> {
    // `WAIT n` / `NOWAIT` come before the operations.
    let spec = match spec.first().map(String::as_str) {
        Some("wait") => spec.get(2..).unwrap_or_default(),
        Some("nowait") => &spec[1..],
        _ => spec,
    };
    let ops = operations(spec);
    if ops.is_empty() {
        return Err("an ALTER TABLE with no operation".into());
    }
    let mut worst = 0;
    for op in &ops {
        worst = worst.max(operation(op, engine)?);
    }
    Ok(ORDER[worst])
}

/// The primary key's columns of `CREATE TABLE t (DEFINITIONS) ...` (its words, lower
/// case): `Some(vec![])` when it has no PRIMARY KEY and no UNIQUE key (InnoDB's hidden
/// row id is the clustered index); `None` when the model cannot tell (a UNIQUE key may
/// become the clustered index, `dict_index_t` of the first UNIQUE NOT NULL key).
pub fn primary_key(words: &[String]) -> Option<Vec<String>> {
    let start = words.iter().position(|w| w == "(")?;
    let mut depth = 0;
    let mut first: Option<&str> = None;
    let mut at_start = true;
    let mut pk: Option<Vec<String>> = None;
    let mut unique = false;
    let mut i = start;
    while i < words.len() {
        let w = words[i].as_str();
        match w {
            "(" => depth += 1,
            ")" => depth -= 1,
            "," if depth == 1 => at_start = true,
            _ if depth == 1 => {
                if at_start {
                    first = Some(w);
                    at_start = false;
                }
                if w == "unique" {
                    unique = true;
                }
                if w == "primary" && words.get(i + 1).is_some_and(|k| k == "key") {
                    if pk.is_some() {
                        return None;
                    }
                    pk = Some(match first {
                        Some("primary" | "constraint") => key_parts(&words[i + 2..])?,
                        Some(col) => vec![col.to_owned()],
                        None => return None,
                    });
                }
            }
            _ => {}
        }
        if depth == 0 {
            break;
        }
        i += 1;
    }
    match pk {
        Some(p) => Some(p),
        None if !unique => Some(Vec::new()),
        None => None,
    }
}

/// The column names of a key's part list `[name] [USING ...] ( a [(n)] [ASC|DESC], ... )`.
fn key_parts(words: &[String]) -> Option<Vec<String>> {
    let open = words.iter().position(|w| w == "(")?;
    let mut out = Vec::new();
    let mut depth = 0;
    let mut expect_name = true;
    for w in &words[open..] {
        match w.as_str() {
            "(" => depth += 1,
            ")" => {
                depth -= 1;
                if depth == 0 {
                    return Some(out);
                }
            }
            "," if depth == 1 => expect_name = true,
            n if depth == 1 && expect_name => {
                out.push(n.to_owned());
                expect_name = false;
            }
            _ => {}
        }
    }
    None
}

/// The columns an ALTER TABLE's operations drop (`DROP [COLUMN] name`).
fn dropped_columns(ops: &[Vec<String>]) -> Vec<String> {
    const NOT_COLUMNS: &[&str] = &[
        "index",
        "key",
        "primary",
        "foreign",
        "constraint",
        "check",
        "partition",
        "period",
        "system",
        "unique",
        "fulltext",
        "spatial",
    ];
    ops.iter()
        .filter(|op| op.first().is_some_and(|w| w == "drop"))
        .filter_map(|op| {
            let name = if op.get(1).is_some_and(|w| w == "column") {
                op.get(2)
            } else {
                op.get(1).filter(|w| !NOT_COLUMNS.contains(&w.as_str()))
            };
            name.cloned()
        })
        .collect()
}

/// An InnoDB ALTER that drops a column of the primary key drops the key: the clustered
/// index is rebuilt by a copy (measured: `ALTER TABLE t1 DROP COLUMN a` of the fixture's
/// t1, `a INT AUTO_INCREMENT PRIMARY KEY`, takes SNW and BACKUP_DDL on MariaDB 10.11.19;
/// `ha_innobase::check_if_supported_inplace_alter`, storage/innobase/handler/
/// handler0alter.cc, does not drop a primary key in place without a new one). `pk` the
/// table's primary key columns when the catalog knows them. `Ok(true)`: a copy;
/// `Ok(false)`: no primary key column dropped; `Err`: the model cannot tell.
pub fn drops_primary_key(spec: &[String], pk: Option<&[String]>) -> Result<bool, String> {
    let ops = operations(spec);
    let dropped = dropped_columns(&ops);
    if dropped.is_empty() {
        return Ok(false);
    }
    let Some(pk) = pk else {
        return Err(
            "DROP COLUMN of an InnoDB table whose primary key the model does not know (a \
             key column dropped makes a copy)"
                .into(),
        );
    };
    let hit = dropped.iter().any(|c| pk.contains(c));
    // `DROP a, ADD a ...`: the key stays on the new column (measured: in place).
    let readded = ops.iter().any(|op| {
        op.first().is_some_and(|w| w == "add")
            && (op.get(1).is_some_and(|w| dropped.contains(w))
                || (op.get(1).is_some_and(|w| w == "column")
                    && op.get(2).is_some_and(|w| dropped.contains(w))))
    });
    if hit && readded {
        return Err(
            "DROP COLUMN and ADD COLUMN of a primary key column's name is not \
                    modelled"
                .into(),
        );
    }
    if hit && spec.windows(2).any(|w| w[0] == "primary" && w[1] == "key") {
        return Err(
            "DROP COLUMN of a primary key column with a new primary key is not measured".into(),
        );
    }
    Ok(hit)
}

/// Whether an ALTER TABLE may change the primary key whose columns are `pk` (then the
/// catalog forgets it): a PRIMARY KEY clause, or a key column dropped, changed, modified
/// or renamed.
pub fn may_change_pk(spec: &[String], pk: Option<&[String]>) -> bool {
    let Some(pk) = pk else { return true };
    if spec.iter().any(|w| w == "primary") {
        return true;
    }
    operations(spec).iter().any(|op| {
        let verb = op.first().map(String::as_str).unwrap_or("");
        if !matches!(verb, "drop" | "change" | "modify" | "rename") {
            return false;
        }
        let name = if op.get(1).is_some_and(|w| w == "column") {
            op.get(2)
        } else {
            op.get(1)
        };
        name.is_some_and(|n| pk.contains(n))
    })
}

/// ER_ALTER_OPERATION_NOT_SUPPORTED_REASON: "LOCK=NONE is not supported. Reason: COPY
/// algorithm requires a lock".
pub const ER_ALTER_OPERATION_NOT_SUPPORTED_REASON: u32 = 1846;

/// An ALTER TABLE's `LOCK [=] NONE | SHARED | EXCLUSIVE` (`Alter_info::requested_lock`);
/// `LOCK=DEFAULT` is no clause.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lock {
    None,
    Shared,
    Exclusive,
}

/// The LOCK clause of an ALTER TABLE's specification `spec` (its words after the table
/// name, lower case): `Ok(None)` for none or DEFAULT, `Err` with the name the parser
/// refuses (ER_UNKNOWN_ALTER_LOCK, `classify/parse_errors.rs`).
pub fn lock_clause(spec: &[String]) -> Result<Option<Lock>, String> {
    // An operation of its own: first, or after a comma.
    let Some(i) = spec
        .iter()
        .enumerate()
        .position(|(i, w)| w == "lock" && (i == 0 || spec[i - 1] == ","))
    else {
        return Ok(None);
    };
    let v = match spec.get(i + 1).map(String::as_str) {
        Some("=") => spec.get(i + 2),
        _ => spec.get(i + 1),
    };
    match v.map(String::as_str) {
        Some("default") => Ok(None),
        Some("none") => Ok(Some(Lock::None)),
        Some("shared") => Ok(Some(Lock::Shared)),
        Some("exclusive") => Ok(Some(Lock::Exclusive)),
        other => Err(other.unwrap_or("").to_owned()),
    }
}

/// The learned row of an ALTER TABLE of `kind` (`alter_copy`, `alter_inplace`,
/// `alter_instant`) with LOCK=`lock`, and the error it ends with. Measured on MariaDB
/// 10.11.19 (`models/conformance/README.md`): COPY with SHARED takes what COPY takes
/// (SNW for the copy), INPLACE with NONE what INPLACE takes, INSTANT the same with any
/// LOCK; COPY with EXCLUSIVE takes X before the copy (`mysql_alter_table`), INPLACE with
/// SHARED moves down to SNW after the prepare phase and with EXCLUSIVE keeps X
/// (`mysql_inplace_alter_table`, sql/sql_table.cc); COPY with NONE fails (1846) once its
/// SU and BACKUP_DDL are taken.
pub fn lock_row(kind: Kind, lock: Lock) -> (Kind, Option<u32>) {
    match (kind, lock) {
        (Kind::AlterCopy, Lock::None) => (
            Kind::AlterCopyLockNone,
            Some(ER_ALTER_OPERATION_NOT_SUPPORTED_REASON),
        ),
        (Kind::AlterCopy, Lock::Exclusive) => (Kind::AlterCopyLockExclusive, None),
        (Kind::AlterInplace, Lock::Shared) => (Kind::AlterInplaceLockShared, None),
        (Kind::AlterInplace, Lock::Exclusive) => (Kind::AlterInplaceLockExclusive, None),
        _ => (kind, None),
    }
}
