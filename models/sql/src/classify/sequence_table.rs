//! `CREATE TABLE t (...) SEQUENCE=1`: a table made a sequence by its table option
//! (MariaDB `sql/sql_table.cc`, `create_table_impl` with `HA_CREATE_USED_SEQUENCE`, which
//! calls `check_sequence_fields`, sql/sql_sequence.cc). SQLCOM_CREATE_TABLE parsed by the
//! `create_table` rule: the locks of CREATE TABLE (SU, then X, BACKUP_DDL back-off),
//! learned as the `create_table_sequence` row; the name that exists is ER_TABLE_EXISTS
//! first (`upgrade_lock_if_not_exists`), then the columns are checked once the locks are
//! held: not the eight columns of a sequence, by name (any case), type, UNSIGNED and NOT
//! NULL (`Field_definition::flags`, so a DEFAULT or a generated column fails too), a key or
//! a CHECK constraint: ER_SEQUENCE_INVALID_TABLE_STRUCTURE (4086; measured on 10.11.19
//! with each of `suite/sql_sequence/create.test`'s forms). The table made is a sequence
//! (`SHOW FULL TABLES`: SEQUENCE). `SEQUENCE=0` / `SEQUENCE=DEFAULT` make a plain table.
//!
//! OR REPLACE of a table that exists: [`replace_plan`].
//!
//! Refused: a column attribute the check's outcome is not known for (COLLATE, ZEROFILL,
//! INVISIBLE, ...), LIKE / SELECT / TEMPORARY with SEQUENCE=1, ALTER TABLE ...
//! SEQUENCE=1.

use super::sequence_columns::COLUMNS;
pub(super) use super::sequence_columns::ER_SEQUENCE_INVALID_TABLE_STRUCTURE;
use super::{classify, kw_eq, Effect, Stmt, Tok};
use crate::catalog::Catalog;
use crate::kind::Kind;

/// CREATE TABLE with a `SEQUENCE=` option, or `None` when the statement has none.
pub(super) fn create_table_sequence(
    sql: &str,
    toks: &[Tok],
    db: &str,
    cat: &Catalog,
    has_row: &dyn Fn(&str) -> bool,
) -> Option<Result<Stmt, String>> {
    let at = toks.windows(3).position(|w| {
        kw_eq(&w[0], "sequence") && w[1] == Tok::P('=')
            || kw_eq(&w[0], "sequence") && matches!(w[1], Tok::Num(_))
    })?;
    let eq = toks[at + 1] == Tok::P('=');
    let value_at = if eq { at + 2 } else { at + 1 };
    let on = match toks.get(value_at) {
        Some(Tok::Num(n)) => n != "0",
        Some(t) if kw_eq(t, "default") => false,
        _ => {
            return Some(Err(format!(
                "`{sql}`: this SEQUENCE= value is not modelled"
            )))
        }
    };
    let create = toks.first().is_some_and(|t| kw_eq(t, "create"));
    if !create && on {
        return Some(super::sequence_alter::alter_sequence_on(
            sql, toks, value_at, db, cat, has_row,
        ));
    }
    if !create {
        return Some(Err(format!(
            "`{sql}`: ALTER TABLE ... SEQUENCE= (a table made a sequence or back) is not \
             modelled"
        )));
    }
    // The statement without the option (and a comma before it: `ENGINE=InnoDB,SEQUENCE=1`).
    let mut start = at;
    if start > 0 && toks[start - 1] == Tok::P(',') {
        start -= 1;
    }
    let mut rest: Vec<Tok> = toks[..start].to_vec();
    rest.extend(toks[value_at + 1..].iter().cloned());
    let st = match classify(&super::lex::render(&rest), db, cat, has_row) {
        Ok(st) => st,
        Err(e) => return Some(Err(e)),
    };
    if !on {
        return Some(Ok(st));
    }
    Some(sequence_plan(sql, st, &rest, cat, has_row))
}

/// The CREATE TABLE's plan made a sequence's, or its error's.
fn sequence_plan(
    sql: &str,
    st: Stmt,
    toks: &[Tok],
    cat: &Catalog,
    has_row: &dyn Fn(&str) -> bool,
) -> Result<Stmt, String> {
    let refuse = |why: &str| {
        Err(format!(
            "`{sql}`: CREATE TABLE ... SEQUENCE=1 {why} is not modelled"
        ))
    };
    let kind = Kind::CreateTableSequence;
    if !has_row(kind.as_str()) {
        return refuse("in this dialect");
    }
    let Stmt::Learned(mut p) = st else {
        return refuse("of this statement");
    };
    if let Effect::Replace { .. } = &p.effect {
        return replace_plan(sql, p, toks);
    }
    let Effect::CreateTable {
        t,
        engine,
        if_not_exists,
        src,
        ..
    } = &p.effect
    else {
        return refuse("of this statement");
    };
    if p.kind != Kind::CreateTable || !src.is_empty() || p.parts.len() != 1 {
        return refuse("with OR REPLACE, LIKE or SELECT");
    }
    let valid = match columns_valid(toks) {
        Some(v) => v,
        None => return refuse("with these column attributes"),
    };
    // Seeded bug `sql_sequence_columns_unchecked`: any column list makes a sequence.
    let valid = valid || cfg!(mdl_bug = "sql_sequence_columns_unchecked");
    // The name that exists fails first (ER_TABLE_EXISTS, `model/plan.rs`), as for a
    // CREATE SEQUENCE; the columns' check comes once the locks are held.
    p.effect = if valid || cat.exists(t) {
        Effect::CreateSequence {
            t: t.clone(),
            engine: *engine,
            if_not_exists: *if_not_exists,
            replace: false,
            bounds: None,
        }
    } else {
        Effect::Fail(ER_SEQUENCE_INVALID_TABLE_STRUCTURE)
    };
    p.kind = kind;
    p.parts[0].kind = kind;
    p.parts[0].row = kind.as_str().into();
    Ok(Stmt::Learned(p))
}

/// CREATE OR REPLACE TABLE t (...) SEQUENCE=1 of a table (or sequence) `t` that exists:
/// the locks of CREATE OR REPLACE TABLE (its learned row); `create_table_impl`
/// (sql/sql_table.cc) drops the old table under its X, then the new definition is
/// checked (`check_sequence_fields`): a sequence's columns make a sequence, any other
/// list fails with ER_SEQUENCE_INVALID_TABLE_STRUCTURE and leaves no table (measured on
/// 10.11.19, suite/sequence-or-replace-table.mdl).
fn replace_plan(sql: &str, mut p: crate::stmt::Plan, toks: &[Tok]) -> Result<Stmt, String> {
    let refuse = |why: &str| {
        Err(format!(
            "`{sql}`: CREATE OR REPLACE TABLE ... SEQUENCE=1 {why} is not modelled"
        ))
    };
    let Effect::Replace { t, engine, src, .. } = &p.effect else {
        return refuse("of this statement");
    };
    if !src.is_empty() || p.parts.len() != 1 {
        return refuse("with LIKE or SELECT");
    }
    let Some(valid) = columns_valid(toks) else {
        return refuse("with these column attributes");
    };
    // Seeded bug `sql_sequence_columns_unchecked`: any column list makes a sequence.
    let valid = valid || cfg!(mdl_bug = "sql_sequence_columns_unchecked");
    p.effect = if valid {
        Effect::CreateSequence {
            t: t.clone(),
            engine: *engine,
            if_not_exists: false,
            replace: true,
            bounds: None,
        }
    } else {
        Effect::DropThenFail {
            t: t.clone(),
            code: ER_SEQUENCE_INVALID_TABLE_STRUCTURE,
        }
    };
    Ok(Stmt::Learned(p))
}

/// Whether the column list is a sequence's (`check_sequence_fields`), `None` when it has
/// something whose outcome is not known.
fn columns_valid(toks: &[Tok]) -> Option<bool> {
    let toks = &without_comments(toks)?;
    let open = toks.iter().position(|t| *t == Tok::P('('))?;
    let mut items: Vec<Vec<&Tok>> = vec![Vec::new()];
    let mut depth = 0usize;
    for t in &toks[open + 1..] {
        match t {
            Tok::P('(') => depth += 1,
            Tok::P(')') if depth == 0 => break,
            Tok::P(')') => depth -= 1,
            Tok::P(',') if depth == 0 => {
                items.push(Vec::new());
                continue;
            }
            _ => {}
        }
        items.last_mut()?.push(t);
    }
    let word = |t: &Tok| match t {
        Tok::Word { text, .. } => Some(text.to_ascii_lowercase()),
        _ => None,
    };
    let mut cols = 0;
    let mut valid = true;
    for item in &items {
        let first = word(item.first()?)?;
        let table_level = ["key", "index", "primary", "unique", "constraint", "check"];
        if table_level.contains(&first.as_str()) {
            // "Sequence tables cannot have any keys" / "... any constraints".
            valid = false;
            continue;
        }
        valid &= column_valid(item, cols)?;
        cols += 1;
    }
    Some(valid && cols == COLUMNS.len())
}

/// The tokens without their `/* ... */` comments (which the lexer leaves as `/`, `*`
/// tokens; create.test writes `/* error */` between columns), `None` for an executable
/// comment (`/*!`, `/*M!`) or one that does not end.
fn without_comments(toks: &[Tok]) -> Option<Vec<Tok>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        if toks[i] == Tok::P('/') && toks.get(i + 1) == Some(&Tok::P('*')) {
            match toks.get(i + 2) {
                Some(Tok::P('!')) => return None,
                Some(t) if kw_eq(t, "M") => return None,
                _ => {}
            }
            let end = (i + 2..toks.len().saturating_sub(1))
                .find(|&j| toks[j] == Tok::P('*') && toks[j + 1] == Tok::P('/'))?;
            i = end + 2;
            continue;
        }
        out.push(toks[i].clone());
        i += 1;
    }
    Some(out)
}

/// One column definition against the sequence's column `i`; `None` for an attribute whose
/// outcome is not known.
fn column_valid(item: &[&Tok], i: usize) -> Option<bool> {
    let word = |t: &Tok| match t {
        Tok::Word { text, .. } => Some(text.to_ascii_lowercase()),
        _ => None,
    };
    let name = word(item[0])?;
    let ty = word(item.get(1)?)?;
    let mut j = 2;
    if item.get(j) == Some(&&Tok::P('(')) {
        j += 3; // `(21)`
    }
    let (mut unsigned, mut not_null, mut bad) = (false, false, false);
    while j < item.len() {
        let w = word(item[j])?;
        match w.as_str() {
            "unsigned" => unsigned = true,
            "not" if item.get(j + 1).and_then(|t| word(t)).as_deref() == Some("null") => {
                not_null = true;
                j += 1;
            }
            // Measured: a comment changes nothing.
            "comment" => j += 1,
            // Flags or a column kind the sequence's field does not have.
            "default" | "generated" | "as" | "check" | "auto_increment" | "null" | "primary"
            | "unique" | "key" => bad = true,
            _ => return None,
        }
        if bad {
            return Some(false);
        }
        j += 1;
    }
    let Some(&(want, want_ty, want_unsigned)) = COLUMNS.get(i) else {
        return Some(false);
    };
    Some(name == want && ty == want_ty && unsigned == want_unsigned && not_null)
}
