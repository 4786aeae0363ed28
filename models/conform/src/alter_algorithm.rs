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
//! | ENGINE= another engine | COPY (refused: the catalog does not follow the change) | the same |
//! | CONVERT TO CHARACTER SET | COPY with a character column, in place without | COPY |
//! | MODIFY / CHANGE of a column | INSTANT, INPLACE or COPY by the column's old and new type | COPY, or in place for its default only |
//!
//! A statement's choice is the most expensive of its operations'. MODIFY, CHANGE and
//! CONVERT depend on the columns, which the catalog does not know: refused, as are the
//! changes of metadata only of a MyISAM table.

use super::catalog::Engine;

/// The learned kinds of ALTER, cheapest first.
const ORDER: [&str; 3] = ["alter_instant", "alter_inplace", "alter_copy"];

/// The kind one operation (its words, lower case) needs on a table of `engine`;
/// `Err` with the reason when the model cannot tell.
fn operation(op: &[String], engine: Engine) -> Result<usize, String> {
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
            match Engine::parse(v) {
                Some(e) if e == engine && engine == Engine::InnoDb => Ok(inplace),
                Some(e) if e == engine => Ok(copy),
                _ => Err(format!(
                    "ALTER TABLE ... ENGINE={v} of a table of another engine (a copy the \
                     catalog does not follow) is not modelled"
                )),
            }
        }
        _ if engine == Engine::MyIsam
            && !matches!((at(0), at(1)), ("rename" | "alter", _) | ("comment", _)) =>
        {
            Ok(copy)
        }
        ("rename", "column" | "index" | "key") | ("alter", _) | ("comment", _) => metadata_only(),
        ("auto_increment", _) => Ok(instant),
        ("default" | "character" | "charset", _) => Ok(instant),
        ("force", _) | ("row_format", _) => Ok(inplace),
        ("add" | "drop", "index" | "key" | "unique" | "fulltext" | "primary" | "spatial") => {
            Ok(inplace)
        }
        (
            "add" | "drop",
            "constraint" | "foreign" | "check" | "partition" | "period" | "system",
        ) => Err(format!("`{}` is not modelled", op.join(" "))),
        ("add" | "drop", _) => Ok(instant),
        _ => Err(format!("cannot tell the algorithm of `{}`", op.join(" "))),
    }
}

/// The operations of an ALTER TABLE's specification (the words after the table name),
/// split at the commas outside parentheses; `ALGORITHM=` and `LOCK=` clauses left out.
fn operations(words: &[String]) -> Vec<Vec<String>> {
    let mut out = vec![Vec::new()];
    let mut depth = 0i32;
    for w in words {
        match w.as_str() {
            "(" => depth += 1,
            ")" => depth -= 1,
            "," if depth == 0 => {
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

/// The learned kind for `ALTER TABLE t SPEC` with no algorithm named, `spec` its words
/// after the table name, `engine` the table's.
pub fn default_kind(spec: &[String], engine: Engine) -> Result<&'static str, String> {
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
