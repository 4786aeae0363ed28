//! A table's columns and keys as the catalog keeps them (`catalog::Catalog::columns`),
//! read from the words (lower case, `classify.rs`'s `rest_words`) of a CREATE TABLE's
//! definition list or of one ALTER TABLE column definition. Only what the server's
//! choice of ALTER algorithm and its errors need: a column's type (its name, its
//! parameters, UNSIGNED, character set, BINARY), NOT NULL, AUTO_INCREMENT; each key's
//! name and columns. `None` for anything this reader does not know (a generated column,
//! a foreign key, a national or compressed type): the catalog then does not claim to
//! know the table's columns.

pub use crate::table_def::{single_byte, ColType, Column, Key, TableDef, SERVER_CHARSET};

/// The words of `( ... )` starting at `words[at]` (which is `(`), without the outer
/// parentheses, and the index after the `)`.
pub fn group(words: &[String], at: usize) -> Option<(&[String], usize)> {
    if words.get(at)? != "(" {
        return None;
    }
    let mut depth = 0;
    for (i, w) in words.iter().enumerate().skip(at) {
        match w.as_str() {
            "(" => depth += 1,
            ")" => {
                depth -= 1;
                if depth == 0 {
                    return Some((&words[at + 1..i], i + 1));
                }
            }
            _ => {}
        }
    }
    None
}

/// Splits words at the commas outside parentheses.
pub fn split_commas(words: &[String]) -> Vec<&[String]> {
    let mut out = Vec::new();
    let mut depth = 0;
    let mut start = 0;
    for (i, w) in words.iter().enumerate() {
        match w.as_str() {
            "(" => depth += 1,
            ")" => depth -= 1,
            "," if depth == 0 => {
                out.push(&words[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&words[start..]);
    out
}

/// The type at the start of `words`, and the index after it.
fn col_type(words: &[String]) -> Option<(ColType, usize)> {
    let base = words.first()?.as_str();
    let (base, mut args) = match base {
        "integer" => ("int", None),
        "bool" | "boolean" => ("tinyint", Some(vec!["1".to_owned()])),
        "dec" | "numeric" | "fixed" => ("decimal", None),
        "real" => ("double", None),
        "character" => ("char", None),
        "tinyint" | "smallint" | "mediumint" | "int" | "bigint" | "decimal" | "float"
        | "double" | "bit" | "char" | "varchar" | "binary" | "varbinary" | "tinytext" | "text"
        | "mediumtext" | "longtext" | "tinyblob" | "blob" | "mediumblob" | "longblob" | "enum"
        | "set" | "date" | "time" | "datetime" | "timestamp" | "year" => (base, None),
        _ => return None,
    };
    let mut i = 1;
    if base == "char" && words.get(1).is_some_and(|w| w == "varying") {
        i = 2;
    }
    let base = if i == 2 { "varchar" } else { base };
    if base == "double" && words.get(i).is_some_and(|w| w == "precision") {
        i += 1;
    }
    if let Some((inner, next)) = group(words, i) {
        args = Some(inner.iter().filter(|w| *w != ",").cloned().collect());
        i = next;
    }
    let mut args = args.unwrap_or_default();
    if matches!(
        base,
        "tinyint" | "smallint" | "mediumint" | "int" | "bigint" | "year"
    ) {
        // A display width changes nothing stored.
        args.clear();
    }
    let mut ty = ColType {
        base: base.to_owned(),
        args,
        unsigned: false,
        charset: None,
        collation: false,
    };
    loop {
        match words.get(i).map(String::as_str) {
            Some("unsigned") => ty.unsigned = true,
            Some("signed") => {}
            Some("zerofill") => {
                ty.unsigned = true;
                ty.collation = true;
            }
            Some("binary") | Some("ascii") | Some("unicode") | Some("byte") => ty.collation = true,
            Some("character") if words.get(i + 1).is_some_and(|w| w == "set") => {
                i += 1;
                ty.charset = Some(words.get(i + 1)?.clone());
                i += 1;
            }
            Some("charset") => {
                ty.charset = Some(words.get(i + 1)?.clone());
                i += 1;
            }
            Some("collate") => {
                ty.collation = true;
                // COLLATE alone names the character set too (`crate::collations`).
                let of = words
                    .get(i + 1)
                    .and_then(|n| crate::collations::collation(n));
                if let Some((_, cs)) = of.filter(|(_, cs)| !cs.is_empty()) {
                    ty.charset.get_or_insert_with(|| cs.to_owned());
                }
                i += 1;
            }
            _ => break,
        }
        i += 1;
    }
    Some((ty, i))
}

/// Words of a column definition's attributes the reader refuses (the column is not
/// a plain stored one, or refers to other objects).
const UNKNOWN_ATTRS: &[&str] = &[
    "check",
    "as",
    "generated",
    "references",
    "compressed",
    "system",
    "versioning",
    "persistent",
    "virtual",
    "stored",
];

/// What a column definition (`name type attributes...`) says, and whether it makes a
/// key of its own (PRIMARY KEY, UNIQUE [KEY]; a bare KEY is a primary key too).
pub struct ColDef {
    pub col: Column,
    pub primary: bool,
    pub unique: bool,
    /// FIRST or AFTER name (its words).
    pub after: Option<String>,
    pub first: bool,
}

/// Reads `name type attributes...`.
pub fn column_def(words: &[String]) -> Option<ColDef> {
    let name = words.first()?.clone();
    if name == "(" || name == "," {
        return None;
    }
    let (ty, mut i) = col_type(&words[1..])?;
    i += 1;
    let serial = false;
    let mut d = ColDef {
        col: Column {
            name,
            ty,
            not_null: serial,
            auto_inc: false,
        },
        primary: false,
        unique: false,
        after: None,
        first: false,
    };
    while i < words.len() {
        let w = words[i].as_str();
        if UNKNOWN_ATTRS.contains(&w) {
            return None;
        }
        match w {
            "not" if words.get(i + 1).is_some_and(|n| n == "null") => {
                d.col.not_null = true;
                i += 1;
            }
            "auto_increment" => d.col.auto_inc = true,
            "primary" => d.primary = true,
            "unique" => d.unique = true,
            "key" if !d.unique => d.primary = true,
            "first" => d.first = true,
            "after" => {
                d.after = Some(words.get(i + 1)?.clone());
                i += 1;
            }
            "(" => {
                // DEFAULT (expr), CHECK (expr): skipped whole.
                i = group(words, i)?.1;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    if d.primary {
        d.col.not_null = true;
    }
    Some(d)
}

/// The key columns of `(a [(n)] [ASC|DESC], ...)` at `words[at]`.
pub fn key_cols(words: &[String], at: usize) -> Option<(Vec<String>, usize)> {
    let (inner, next) = group(words, at)?;
    let mut cols = Vec::new();
    for part in split_commas(inner) {
        let c = part.first()?;
        if c == "(" {
            // A key on an expression.
            return None;
        }
        cols.push(c.clone());
    }
    Some((cols, next))
}

/// What a part of a definition list is, as a key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyDef {
    /// A column, not a key.
    NotAKey,
    /// A key this reader does not know (a FOREIGN KEY, a CHECK, an expression).
    Unread,
    /// Its name (`None`: the server names it; `primary` for the primary key) and columns.
    Key {
        name: Option<String>,
        cols: Vec<String>,
    },
}

/// A key definition `[CONSTRAINT [n]] {PRIMARY KEY | UNIQUE [KEY|INDEX] | KEY | INDEX
/// | FULLTEXT | SPATIAL} [IF NOT EXISTS] [name] [USING x] (cols) [options]`: its name
/// and columns ([`KeyDef`]).
pub fn key_def(words: &[String]) -> KeyDef {
    let mut i = 0;
    let mut name = None;
    if words.first().is_some_and(|w| w == "constraint") {
        i = 1;
        if !matches!(
            words.get(1).map(String::as_str),
            Some("primary" | "unique" | "foreign" | "check")
        ) {
            name = words.get(1).cloned();
            i = 2;
        }
    }
    let primary = match words.get(i).map(String::as_str) {
        Some("primary") => true,
        Some("unique" | "key" | "index" | "fulltext" | "spatial") => false,
        Some("foreign" | "check" | "period") => return KeyDef::Unread,
        _ if i > 0 => return KeyDef::Unread,
        _ => return KeyDef::NotAKey,
    };
    i += 1;
    while matches!(words.get(i).map(String::as_str), Some("key" | "index")) {
        i += 1;
    }
    if words.get(i).is_some_and(|w| w == "if") {
        i += 3;
    }
    if !matches!(words.get(i).map(String::as_str), Some("(" | "using") | None) {
        name = words.get(i).cloned();
        i += 1;
    }
    if words.get(i).is_some_and(|w| w == "using") {
        i += 2;
    }
    let Some((cols, _)) = key_cols(words, i) else {
        return KeyDef::Unread;
    };
    if primary {
        name = Some("primary".into());
    }
    KeyDef::Key { name, cols }
}

/// A CHECK constraint `[CONSTRAINT [name]] CHECK (expr)`: `None` when these words are
/// none; `Some(None)` when not read; `Some(Some(name))` (the inner `None`: no name).
#[allow(clippy::option_option)]
pub fn check_def(words: &[String]) -> Option<Option<Option<String>>> {
    let (name, at) = match (words.first()?.as_str(), words.get(1).map(String::as_str)) {
        ("check", _) => (None, 0),
        ("constraint", Some("check")) => (None, 1),
        ("constraint", Some(n)) if words.get(2).is_some_and(|w| w == "check") => {
            (Some(n.to_owned()), 2)
        }
        _ => return None,
    };
    Some(group(words, at + 1).map(|_| name))
}

/// Adds a key (named by the server when `name` is none).
pub fn add_key(def: &mut TableDef, name: Option<String>, cols: Vec<String>) {
    let name = name.unwrap_or_else(|| def.key_name_for(&cols[0]));
    def.keys.push(Key { name, cols });
}

/// The definition of `CREATE TABLE t ( ... ) options` from its words: `None` when the
/// reader cannot tell (LIKE, SELECT, an unknown column or key, a partition clause does
/// not matter).
pub fn create_table(words: &[String]) -> Option<TableDef> {
    if words.iter().any(|w| w == "select" || w == "like") {
        return None;
    }
    let open = words.iter().position(|w| w == "(")?;
    let (inner, next) = group(words, open)?;
    let mut def = TableDef {
        cols: Vec::new(),
        keys: Vec::new(),
        charset: SERVER_CHARSET.into(),
        checks: Vec::new(),
    };
    let mut col_keys = Vec::new();
    for part in split_commas(inner) {
        if let Some(name) = check_def(part) {
            let name = name?.unwrap_or_else(|| def.check_name());
            def.checks.push(name);
            continue;
        }
        match key_def(part) {
            KeyDef::Unread => return None,
            KeyDef::Key { name, cols } => {
                if name.as_deref() == Some("primary") && def.key("primary").is_some() {
                    return None;
                }
                add_key(&mut def, name, cols);
            }
            KeyDef::NotAKey => {
                let d = column_def(part)?;
                if def.col(&d.col.name).is_some() {
                    return None;
                }
                if d.primary {
                    col_keys.push((Some("primary".to_owned()), d.col.name.clone()));
                } else if d.unique {
                    col_keys.push((None, d.col.name.clone()));
                }
                def.cols.push(d.col);
            }
        }
    }
    // (Keys of column definitions come first: mysql_prepare_create_table sorts the
    // primary key first in any case; names do not depend on the order here.)
    for (name, c) in col_keys {
        add_key(&mut def, name, vec![c]);
    }
    let rest = &words[next..];
    for (i, w) in rest.iter().enumerate() {
        let cs = match w.as_str() {
            "charset" => rest.get(i + 1),
            "set" if i > 0 && rest[i - 1] == "character" => rest.get(i + 1),
            "collate" => return None,
            _ => None,
        };
        if let Some(cs) = cs {
            let cs = if cs == "=" { rest.get(i + 2)? } else { cs };
            def.charset = cs.clone();
        }
    }
    // Every key column must be a column (else ER_KEY_COLUMN_DOES_NOT_EXIST, a failed
    // CREATE the model does not play here).
    let known = def
        .keys
        .iter()
        .all(|k| k.cols.iter().all(|c| def.col(c).is_some()));
    known.then_some(def)
}
