//! The errors MariaDB gives a column's data type while it parses CREATE / ALTER TABLE:
//! before any lock, before the implicit commit, and before the table's name is looked up
//! (so not ER_TABLE_EXISTS_ERROR, 1050, for a table that exists; the corpus's
//! `CREATE TABLE t1 (a DOUBLE(0,1000))` against the fixture's t1).
//!
//! The grammar's `field_spec` rule (sql/sql_yacc.yy) ends with
//! `Lex->last_field->check(thd)`: `Column_definition::check` (sql/field.cc) calls the type
//! handler's `Column_definition_fix_attributes` (sql/sql_type.cc), which checks the
//! length and decimals written in the type:
//!
//! | type | check (sql/field.cc) | error |
//! |---|---|---|
//! | TINYINT .. BIGINT `(M)` | `fix_attributes_int`: M over `MAX_FIELD_CHARLENGTH` (255) | ER_TOO_BIG_DISPLAYWIDTH (1439) |
//! | FLOAT / DOUBLE / REAL `(M,D)` | `fix_attributes_real`: M < D, then D of `FLOATING_POINT_DECIMALS` (31) or more, then M over 255 | ER_M_BIGGER_THAN_D (1427), ER_TOO_BIG_SCALE (1425), 1439 |
//! | DECIMAL / NUMERIC / FIXED `(M[,D])` | `fix_attributes_decimal`: D of `NOT_FIXED_DEC` (39) or more, then M over `DECIMAL_MAX_PRECISION` (65), then M < D | 1425, ER_TOO_BIG_PRECISION (1426), 1427 |
//! | CHAR / BINARY `(M)` | `fix_attributes_len`: M over 255 | ER_TOO_BIG_FIELDLENGTH (1074) |
//! | BIT `(M)` | `fix_attributes_bit`: M over 64 | 1439 |
//! | BLOB / TEXT `(M)` | the grammar's length over 4294967295 | 1439 |
//! | TIME / DATETIME / TIMESTAMP `(n)` | `fix_attributes_temporal_with_time`: n over 6 | 1426 |
//!
//! Measured on 10.11.19 inside a transaction that holds a table's SR, each against a
//! table that exists: `models/conformance/suite/column-type-errors.mdl` (from
//! main/type_float.test, type_decimal.test, type_blob.test, type_bit.test,
//! type_time.test, errors.test). A type the checker does not follow (a length with a
//! point, `DOUBLE(M)`, VARCHAR, whose limit is in bytes and checked later) gives no error
//! here: the statement goes on to the model's other rules.

use super::{kw_eq, Tok};

pub const ER_TOO_BIG_FIELDLENGTH: u32 = 1074;
pub const ER_TOO_BIG_SCALE: u32 = 1425;
pub const ER_TOO_BIG_PRECISION: u32 = 1426;
pub const ER_M_BIGGER_THAN_D: u32 = 1427;
pub const ER_TOO_BIG_DISPLAYWIDTH: u32 = 1439;

/// The data types whose written length the parser checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TypeClass {
    Int,
    Real,
    Decimal,
    Char,
    Bit,
    Blob,
    Temporal,
}

fn type_class(t: &Tok) -> Option<TypeClass> {
    const CLASSES: &[(&[&str], TypeClass)] = &[
        (
            &[
                "tinyint",
                "smallint",
                "mediumint",
                "int",
                "integer",
                "bigint",
                "int1",
                "int2",
                "int3",
                "int4",
                "int8",
                "middleint",
            ],
            TypeClass::Int,
        ),
        (&["float", "double", "real"], TypeClass::Real),
        (&["decimal", "dec", "numeric", "fixed"], TypeClass::Decimal),
        (&["char", "character", "nchar", "binary"], TypeClass::Char),
        (&["bit"], TypeClass::Bit),
        (&["blob", "text"], TypeClass::Blob),
        (&["time", "datetime", "timestamp"], TypeClass::Temporal),
    ];
    CLASSES
        .iter()
        .find(|(words, _)| words.iter().any(|w| kw_eq(t, w)))
        .map(|(_, c)| *c)
}

/// The error of a column's data type in a CREATE / ALTER TABLE statement, or None.
pub fn error(toks: &[Tok]) -> Option<u32> {
    let is_ddl = kw_eq(toks.first()?, "create") || kw_eq(toks.first()?, "alter");
    if !is_ddl || !toks.iter().take(6).any(|t| kw_eq(t, "table")) {
        return None;
    }
    (2..toks.len()).find_map(|i| {
        let class = type_class(&toks[i])?;
        if !at_column_type(toks, i) {
            return None;
        }
        // DOUBLE PRECISION (M,D) is DOUBLE's.
        let open = if kw_eq(&toks[i], "double")
            && toks.get(i + 1).is_some_and(|t| kw_eq(t, "precision"))
        {
            i + 2
        } else {
            i + 1
        };
        let args = lengths(toks, open)?;
        check(class, &args)
    })
}

/// Is `toks[i]` the data type of a column definition: after the column's name, itself
/// after `(` or `,` of the definitions, or ADD / MODIFY [COLUMN] [IF NOT EXISTS], or
/// CHANGE [COLUMN] old?
fn at_column_type(toks: &[Tok], i: usize) -> bool {
    let is_name =
        |k: usize| matches!(toks.get(k), Some(Tok::Word { text, .. }) if !text.starts_with('@'));
    if i < 2 || !is_name(i - 1) {
        return false;
    }
    let before = &toks[i - 2];
    let opens = matches!(before, Tok::P('(') | Tok::P(','))
        || ["add", "modify", "column", "exists"]
            .iter()
            .any(|w| kw_eq(before, w));
    let kw_at = |k: usize, w: &str| k < toks.len() && kw_eq(&toks[k], w);
    let change = i >= 3
        && is_name(i - 2)
        && (kw_at(i - 3, "change") || (i >= 4 && kw_at(i - 3, "column") && kw_at(i - 4, "change")));
    // `column` before the name: ADD / MODIFY COLUMN name, not CHANGE COLUMN old new.
    opens || change
}

/// The numbers of `( M [, D] )` at `open`, each at most u64::MAX (the grammar's larger
/// numbers read as too big all the same), or None when it is not such a list.
fn lengths(toks: &[Tok], open: usize) -> Option<Vec<u64>> {
    if toks.get(open) != Some(&Tok::P('(')) {
        return None;
    }
    let mut out = Vec::new();
    let mut k = open + 1;
    loop {
        let Some(Tok::Num(n)) = toks.get(k) else {
            return None;
        };
        if !n.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        out.push(n.parse::<u64>().unwrap_or(u64::MAX));
        match toks.get(k + 1) {
            Some(Tok::P(')')) => return Some(out),
            Some(Tok::P(',')) if out.len() < 2 => k += 2,
            _ => return None,
        }
    }
}

/// The type handler's check of the written length `m` and decimals `d`
/// (`Column_definition_fix_attributes`, sql/field.cc's `fix_attributes_*`).
fn check(class: TypeClass, args: &[u64]) -> Option<u32> {
    const MAX_FIELD_CHARLENGTH: u64 = 255;
    let m = args[0];
    let d = args.get(1).copied();
    match (class, d) {
        (TypeClass::Int, None) => (m > MAX_FIELD_CHARLENGTH).then_some(ER_TOO_BIG_DISPLAYWIDTH),
        (TypeClass::Real, Some(d)) => {
            if m < d {
                Some(ER_M_BIGGER_THAN_D)
            } else if d >= 31 {
                Some(ER_TOO_BIG_SCALE)
            } else {
                (m > MAX_FIELD_CHARLENGTH).then_some(ER_TOO_BIG_DISPLAYWIDTH)
            }
        }
        (TypeClass::Decimal, d) => {
            let d = d.unwrap_or(0);
            if d >= 39 {
                Some(ER_TOO_BIG_SCALE)
            } else if m > 65 {
                Some(ER_TOO_BIG_PRECISION)
            } else if m < d {
                Some(ER_M_BIGGER_THAN_D)
            } else {
                None
            }
        }
        (TypeClass::Char, None) => (m > MAX_FIELD_CHARLENGTH).then_some(ER_TOO_BIG_FIELDLENGTH),
        (TypeClass::Bit, None) => (m > 64).then_some(ER_TOO_BIG_DISPLAYWIDTH),
        (TypeClass::Blob, None) => (m > u64::from(u32::MAX)).then_some(ER_TOO_BIG_DISPLAYWIDTH),
        (TypeClass::Temporal, None) => (m > 6).then_some(ER_TOO_BIG_PRECISION),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::tokens;
    use super::*;

    fn err(sql: &str) -> Option<u32> {
        error(&tokens(sql).unwrap())
    }

    #[test]
    fn type_errors_of_the_suite() {
        assert_eq!(
            err("CREATE TABLE t1 (a DOUBLE(0,1000))"),
            Some(ER_M_BIGGER_THAN_D)
        );
        assert_eq!(
            err("create table t1 (a double(40,31))"),
            Some(ER_TOO_BIG_SCALE)
        );
        assert_eq!(
            err("CREATE TABLE t1 (a DOUBLE(1000,0))"),
            Some(ER_TOO_BIG_DISPLAYWIDTH)
        );
        assert_eq!(
            err("create table t1 (sl decimal(32,39))"),
            Some(ER_TOO_BIG_SCALE)
        );
        assert_eq!(
            err("create table t1 (sl decimal(67,38))"),
            Some(ER_TOO_BIG_PRECISION)
        );
        assert_eq!(
            err("create table t1 (sl decimal(0,30))"),
            Some(ER_M_BIGGER_THAN_D)
        );
        assert_eq!(
            err("create table t1 (a int(256))"),
            Some(ER_TOO_BIG_DISPLAYWIDTH)
        );
        assert_eq!(
            err("CREATE TABLE t2 (x INT, a char(256))"),
            Some(ER_TOO_BIG_FIELDLENGTH)
        );
        assert_eq!(
            err("create table t1 (a bit(65))"),
            Some(ER_TOO_BIG_DISPLAYWIDTH)
        );
        assert_eq!(
            err("CREATE TABLE b (a blob(4294967296))"),
            Some(ER_TOO_BIG_DISPLAYWIDTH)
        );
        assert_eq!(
            err("create table t1 (a time(7))"),
            Some(ER_TOO_BIG_PRECISION)
        );
        assert_eq!(
            err("ALTER TABLE t1 ADD COLUMN c DATETIME(7)"),
            Some(ER_TOO_BIG_PRECISION)
        );
        assert_eq!(
            err("ALTER TABLE t1 CHANGE a b DECIMAL(70)"),
            Some(ER_TOO_BIG_PRECISION)
        );
        assert_eq!(
            err("ALTER TABLE t1 MODIFY a DOUBLE PRECISION(10,20)"),
            Some(ER_M_BIGGER_THAN_D)
        );
    }

    #[test]
    fn lengths_in_range_and_other_places_pass() {
        assert_eq!(
            err("create table t1 (a double(40,30), b decimal(65,30))"),
            None
        );
        assert_eq!(err("CREATE TABLE t1 (a DECIMAL(10.2))"), None);
        assert_eq!(err("CREATE TABLE t1 (a CHAR(10) DEFAULT CHAR(300))"), None);
        assert_eq!(
            err("CREATE TABLE t1 SELECT CAST(a AS CHAR(300)) FROM t2"),
            None
        );
        assert_eq!(err("SELECT CAST(1 AS DECIMAL(70))"), None);
        assert_eq!(err("CREATE TABLE t1 (a INT, KEY (a))"), None);
    }
}
