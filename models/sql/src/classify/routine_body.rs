//! The part of a routine's definition after its name, as far as the model recognises it
//! (MariaDB `sql/sql_yacc.yy`: `sp_parenthesized_fdparam_list`, `sf_return_type`,
//! `sp_c_chistics`). The server parses the whole definition at CREATE and refuses a
//! syntax error before any lock (ER_PARSE_ERROR); the model plays only definitions whose
//! parameter list, return type and characteristics have the shapes recognised here, and
//! whose body `classify/routine_block.rs` reads.

use super::{kw_eq, Tok};

/// A routine, parameter, variable, condition or cursor name: quoted, or no reserved word
/// (`classify/reserved.rs`, measured on MariaDB 10.11).
pub(super) fn safe_name(t: &Tok) -> bool {
    super::reserved::is_name(t)
}

/// Return types a stored function may name (`sf_return_type`: a field type).
const TYPES: &[&str] = &[
    "int",
    "integer",
    "bigint",
    "smallint",
    "tinyint",
    "mediumint",
    "char",
    "varchar",
    "text",
    "tinytext",
    "mediumtext",
    "longtext",
    "decimal",
    "numeric",
    "double",
    "float",
    "real",
    "date",
    "datetime",
    "timestamp",
    "time",
    "year",
    "blob",
    "bit",
    "binary",
    "varbinary",
    "bool",
    "boolean",
    "tinyblob",
    "mediumblob",
    "longblob",
    "json",
    // The integer synonyms (`INT1` .. `INT8`: sql/lex.h's symbols for TINYINT ..
    // BIGINT; funcs_1/storedproc.test `returns int1 unsigned`, measured: created).
    "int1",
    "int2",
    "int3",
    "int4",
    "int8",
    // Spatial types (`spatial_type`: sql_yacc.yy; main/sp_gis.test, main/gis.test).
    "geometry",
    "point",
    "linestring",
    "polygon",
    "multipoint",
    "multilinestring",
    "multipolygon",
    "geometrycollection",
];

/// Types followed by their list of values (`ENUM ('a', ...)`, `SET ('a', ...)`:
/// `field_type_string`; main/sp-vars.test, main/sp.test bug9775).
const VALUE_LIST_TYPES: &[&str] = &["enum", "set"];

/// Characteristic words (`sp_chistic`).
const CHISTICS: &[&str] = &[
    "comment",
    "language",
    "sql",
    "not",
    "deterministic",
    "contains",
    "no",
    "reads",
    "modifies",
    "data",
    "security",
    "definer",
    "invoker",
];

/// `( ... )` balanced from `t[0]`: the index after it.
fn parens(t: &[Tok]) -> Option<usize> {
    if t.first() != Some(&Tok::P('(')) {
        return None;
    }
    super::lex::matching_paren(t, 0).map(|k| k + 1)
}

/// A type with its length (`CHAR(10)`, `DECIMAL(5,2)`) and attributes from `t[i..]`: the
/// index after it.
pub(super) fn field_type(t: &[Tok], mut i: usize) -> Option<usize> {
    let ty = t.get(i)?;
    if VALUE_LIST_TYPES.iter().any(|w| kw_eq(ty, w)) {
        i += 1;
        let n = parens(t.get(i..)?)?;
        let values = &t[i + 1..i + n - 1];
        let strings = values.iter().step_by(2).all(|x| matches!(x, Tok::Str(_)))
            && values.iter().skip(1).step_by(2).all(|x| *x == Tok::P(','))
            && values.len() % 2 == 1;
        return strings.then(|| attributes(t, i + n));
    }
    if !TYPES.iter().any(|w| kw_eq(ty, w)) {
        return None;
    }
    i += 1;
    if t.get(i) == Some(&Tok::P('(')) {
        let n = parens(&t[i..])?;
        let inside = &t[i + 1..i + n - 1];
        if !inside
            .iter()
            .all(|x| matches!(x, Tok::Num(_)) || *x == Tok::P(','))
        {
            return None;
        }
        i += n;
    }
    Some(attributes(t, i))
}

/// A type's attributes from `t[i..]` (`opt_binary`, `opt_compressed`, `field_options`,
/// `CHARACTER SET` / `COLLATE`; ASCII and UNICODE are `opt_binary`'s latin1 / ucs2,
/// main/sp-ucs2.test): the index after them.
fn attributes(t: &[Tok], mut i: usize) -> usize {
    const WORDS: &[&str] = &[
        "unsigned",
        "signed",
        "zerofill",
        "binary",
        "ascii",
        "unicode",
        "compressed",
    ];
    loop {
        match t.get(i) {
            // `COMPRESSED:` is a label (main/sp.test MDEV-17544), not an attribute.
            Some(x) if kw_eq(x, "compressed") && t.get(i + 1) == Some(&Tok::P(':')) => return i,
            Some(x) if WORDS.iter().any(|w| kw_eq(x, w)) => i += 1,
            Some(x) if kw_eq(x, "charset") || kw_eq(x, "collate") => i += 2,
            Some(x) if kw_eq(x, "character") => i += 3,
            _ => return i,
        }
    }
}

/// ER_SP_DUP_PARAM: two parameters of one name (`LEX::sp_param_init`, sql_lex.cc, at the
/// second name, before its type is read; main/sp-error.test).
pub const ER_SP_DUP_PARAM: u32 = 1330;

/// A parameter list `(p type, ...)`, each with an optional IN / OUT / INOUT (a function's
/// too since MariaDB 10.8, MDEV-10654: `sp_fdparam` reads `sp_parameter_type`;
/// main/sp-inout.test): the index after it; None for a shape not recognised.
fn params(t: &[Tok]) -> Result<Option<usize>, u32> {
    let Some(end) = parens(t) else {
        return Ok(None);
    };
    let inner = &t[1..end - 1];
    if inner.is_empty() {
        return Ok(Some(end));
    }
    let mut names: Vec<String> = Vec::new();
    let mut i = 0;
    loop {
        if ["in", "out", "inout"].iter().any(|w| kw_eq(&inner[i], w)) {
            i += 1;
        }
        let Some(Tok::Word { text, .. }) = inner.get(i).filter(|n| safe_name(n)) else {
            return Ok(None);
        };
        let lower = text.to_lowercase();
        if names.contains(&lower) {
            return Err(ER_SP_DUP_PARAM);
        }
        names.push(lower);
        // `p TYPE OF t.c` / `p ROW TYPE OF t`: `classify/routine_anchor.rs`.
        let Some(j) = super::routine_anchor::anchored_type(inner, i + 1, &[], &[])
            .map_or_else(|| field_type(inner, i + 1), |(_, j)| Some(j))
        else {
            return Ok(None);
        };
        i = j;
        match inner.get(i) {
            None => return Ok(Some(end)),
            Some(Tok::P(',')) if i + 1 < inner.len() => i += 1,
            _ => return Ok(None),
        }
    }
}

/// Characteristics from `t[i..]`: the index after them.
fn chistics(t: &[Tok], mut i: usize) -> usize {
    while let Some(x) = t.get(i) {
        let is_chistic = CHISTICS.iter().any(|w| kw_eq(x, w))
            || (matches!(x, Tok::Str(_)) && i > 0 && kw_eq(&t[i - 1], "comment"));
        if !is_chistic {
            break;
        }
        i += 1;
    }
    i
}

/// ER_PARSE_ERROR for a definition `t` (after the routine's name) whose parameter list or
/// RETURNS type has what `sp_param_type` / `sf_return_type` (a bare `field_type`,
/// sql/sql_yacc.yy) cannot read: `NOT NULL` after a type, a number where a parameter's
/// name goes (`CREATE FUNCTION year(3)(...)`), `RETURNS SERIAL` (an alias of a column
/// definition, not a type). Each measured in funcs_1/storedproc.test and
/// main/parser.test (`--error ER_PARSE_ERROR`); errors of both sql_modes.
pub(super) fn syntax_error(t: &[Tok], function: bool) -> Option<u32> {
    let not_null = |w: &[Tok]| kw_eq(&w[0], "not") && kw_eq(&w[1], "null");
    let end = parens(t)?;
    let list = &t[1..end - 1];
    let bad_list = list.windows(2).any(not_null) || matches!(list.first(), Some(Tok::Num(_)));
    let ret = match (function, t.get(end)) {
        (true, Some(r)) if kw_eq(r, "returns") => t.get(end + 1..).unwrap_or_default(),
        _ => &[],
    };
    let bad_return = ret.first().is_some_and(|x| kw_eq(x, "serial"))
        || field_type(ret, 0).is_some_and(|j| ret.get(j..j + 2).is_some_and(not_null));
    (bad_list || bad_return).then_some(super::ER_PARSE_ERROR)
}

/// The parser's error in a definition's parameter list (a parameter named twice), if any.
pub(super) fn params_error(t: &[Tok]) -> Option<u32> {
    params(t).err()
}

/// Only characteristics (ALTER PROCEDURE / FUNCTION's `sp_a_chistics`).
pub(super) fn only_chistics(t: &[Tok]) -> bool {
    chistics(t, 0) == t.len()
}

/// Whether `t` is only an ALTER PROCEDURE | FUNCTION's characteristics: `sp_a_chistics`
/// (sql/sql_yacc.yy) is a list of `sp_chistic`, which has no `[NOT] DETERMINISTIC`
/// (that one is `sp_c_chistic`, CREATE's only; measured: `ALTER PROCEDURE p1
/// DETERMINISTIC` is 1064 on 10.11.19).
pub(super) fn only_alter_chistics(t: &[Tok]) -> bool {
    only_chistics(t) && !t.iter().any(|x| kw_eq(x, "deterministic"))
}

/// The definition after a procedure's (`function` false) or function's name: its body
/// (read by `classify/routine_block.rs`), when the parameters, return type and
/// characteristics have the shapes recognised here.
pub(super) fn definition(t: &[Tok], function: bool) -> Option<&[Tok]> {
    let mut i = params(t).ok()??;
    if function {
        if !kw_eq(t.get(i)?, "returns") {
            return None;
        }
        i = field_type(t, i + 1)?;
    }
    i = chistics(t, i);
    Some(&t[i..])
}

#[cfg(test)]
mod tests {
    use super::super::tokens;
    use super::*;

    use super::super::routine_block::{read_in, Ctx};

    /// The head is recognised and the body read (no parse error either).
    fn def(sql: &str, function: bool) -> bool {
        let t = tokens(sql).unwrap();
        let ctx = if function {
            Ctx::Function
        } else {
            Ctx::Procedure
        };
        // The parameters are variables of the body (as `routine::classify_body` reads it).
        let params = super::super::routine_decl::param_names(&t);
        definition(&t, function).is_some_and(|b| read_in(b, ctx, false, params).is_ok())
    }

    #[test]
    fn plain_definitions_are_recognised() {
        assert!(def("() BEGIN END", false));
        assert!(def("() SET @x = 1", false));
        assert!(def(
            "(a INT) BEGIN SELECT 1; INSERT INTO t1 VALUES (a); END",
            false
        ));
        assert!(def("() RETURNS INT RETURN 1", true));
        assert!(def("() RETURNS VARCHAR(10) DETERMINISTIC RETURN 'a'", true));
        assert!(def("() COMMENT 'c' NO SQL BEGIN END", false));
        assert!(safe_name(&tokens("p1").unwrap()[0]));
        assert!(safe_name(&tokens("`add`").unwrap()[0]));
        assert!(safe_name(&tokens("my_proc").unwrap()[0]));
        assert!(!safe_name(&tokens("add").unwrap()[0]));
        assert!(!safe_name(&tokens("current_user").unwrap()[0]));
        assert!(safe_name(&tokens("export").unwrap()[0]));
    }

    #[test]
    fn the_suites_syntax_errors_are_not() {
        assert!(!def(
            "() BEGIN DECLARE var INT; GET DIAGNOSTICS var; END",
            false
        ));
        assert!(!def("() begin SIGNAL; end", false));
        assert!(!def("() returns serial return 1", true));
        assert!(!def("() SET @=1", false));
        assert!(def(
            "() BEGIN DECLARE a, b INT DEFAULT 0; SET a = 1; END",
            false
        ));
        assert!(def("() BEGIN DECLARE c CURSOR FOR SELECT 1; END", false));
        assert!(def(
            "() BEGIN DECLARE CONTINUE HANDLER FOR SQLEXCEPTION SET @a = 1; END",
            false
        ));
        assert!(safe_name(&tokens("f").unwrap()[0]));
        assert!(!safe_name(&tokens("if").unwrap()[0]));
        assert!(!def("(f1 year(f1 3) ) returns year(3) return f1", true));
        assert!(!def("(IN a INT  OUT x CHAR(16)) SET a=1", false));
        assert!(def(
            "(IN a INT, OUT x CHAR(16) CHARACTER SET utf8) SET a=1",
            false
        ));
        assert!(def("(a DECIMAL(5,2) UNSIGNED) RETURNS INT RETURN 1", true));
        assert!(!def("() CREATE VIEW v AS SELECT 1 INTO @a", false));
        assert!(!def(
            "(s char(20) RETURNS CHAR(50) RETURN CONCAT('a', ,s)",
            true
        ));
        assert!(!def(
            "(a INT , b INT) RETURNS INT x=SELECT COUNT(*) FROM t",
            true
        ));
        assert!(def("() RETURNS INT BEGIN RETURN 1; END", true));
        assert!(!def("() RETURNS INT SET @x = 1", true));
        assert!(!def("() RETURN 1", false));
        assert!(only_chistics(&tokens("COMMENT 'c' CONTAINS SQL").unwrap()));
        // Measured on MariaDB 10.11 (main/sp-inout.test, sp-vars.test, sp.test, sp_gis.test,
        // sp-ucs2.test, sp-error.test).
        assert!(def(
            "(IN a INT, OUT c INT, INOUT d INT) RETURNS INT BEGIN SET c = 1; RETURN a; END",
            true
        ));
        assert!(def("(v1 int) returns set('a','b') return v1", true));
        assert!(def(
            "(arg ENUM('a', 'b')) RETURNS ENUM('c', 'd') RETURN arg",
            true
        ));
        assert!(def(
            "() RETURNS ENUM('a') CHARACTER SET binary RETURN NULL",
            true
        ));
        assert!(!def("() RETURNS ENUM(1) RETURN NULL", true));
        assert!(def("(x INT, y INT) RETURNS POINT RETURN NULL", true));
        assert!(def(
            "() RETURNS VARCHAR(64) ASCII BINARY BEGIN RETURN ''; END",
            true
        ));
        assert!(def("() RETURNS TEXT COMPRESSED BEGIN RETURN ''; END", true));
        assert!(def("() RETURNS TINYBLOB RETURN 1", true));
        let dup = |sql: &str| params_error(&tokens(sql).unwrap());
        assert_eq!(dup("(x int, x char(10)) begin end"), Some(ER_SP_DUP_PARAM));
        assert_eq!(
            dup("(IN x int, OUT X int) begin end"),
            Some(ER_SP_DUP_PARAM)
        );
        assert_eq!(dup("(x int, y char(10)) begin end"), None);
        assert!(!only_chistics(&tokens("aggregate none").unwrap()));
    }

    /// funcs_1/storedproc.test and main/parser.test, each `--error ER_PARSE_ERROR`.
    #[test]
    fn the_heads_parse_errors() {
        let err = |sql: &str, f: bool| syntax_error(&tokens(sql).unwrap(), f);
        assert_eq!(
            err("(f1 char not null ) returns char not null return f1", true),
            Some(1064)
        );
        assert_eq!(
            err(
                "(f1 longblob not null ) returns longblob not null return f1",
                true
            ),
            Some(1064)
        );
        assert_eq!(
            err("(3)(f1 year(3)) returns year(3) return f1", true),
            Some(1064)
        );
        assert_eq!(err("() returns serial return 1", true), Some(1064));
        assert_eq!(
            err("(f1 int1 unsigned ) returns int1 unsigned return f1", true),
            None
        );
        assert!(def(
            "(f1 int1 unsigned ) returns int1 unsigned return f1",
            true
        ));
        assert_eq!(err("(a INT) RETURNS INT RETURN 1", true), None);
        assert_eq!(err("(a INT) BEGIN END", false), None);
    }
}
