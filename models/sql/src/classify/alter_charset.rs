//! CHARACTER SET and COLLATE names in an ALTER TABLE, checked as the parser checks them
//! (sql_yacc.yy's `charset_name`, `collation_name` and their merge in
//! `Lex_exact_charset_extended_collation_attrs`, sql/lex_charset.cc): a name the server
//! does not have fails with ER_UNKNOWN_CHARACTER_SET (1115) or ER_UNKNOWN_COLLATION
//! (1273), a collation of another character set than the one named beside it with
//! ER_COLLATION_CHARSET_MISMATCH (1253), before the statement opens anything. Measured
//! on 10.11.19: main/ctype_ldml.test's `ascii2` (a character set the test loads from
//! its own folder) and `latin1_swedish_nopad2_ci`; the names are `crate::collations`.

use crate::collations::{charset, collation};

/// ER_UNKNOWN_CHARACTER_SET.
pub const ER_UNKNOWN_CHARACTER_SET: u32 = 1115;
/// ER_UNKNOWN_COLLATION.
pub const ER_UNKNOWN_COLLATION: u32 = 1273;
/// ER_COLLATION_CHARSET_MISMATCH.
pub const ER_COLLATION_CHARSET_MISMATCH: u32 = 1253;

/// The parser's error for the names in `spec` (the ALTER's words after the table), in
/// the order it reads them; Err for a form the model does not follow (a `uca1400_*`
/// collation without a Unicode character set beside it: its character set is the
/// column's, decided later).
pub(super) fn parse_error(spec: &[String]) -> Result<Option<u32>, String> {
    let mut named: Option<&str> = None;
    let mut depth = 0usize;
    let mut i = 0;
    while i < spec.len() {
        let w = spec[i].as_str();
        match w {
            "(" => depth += 1,
            ")" => depth = depth.saturating_sub(1),
            "," if depth == 0 => named = None,
            "character" | "charset" | "char" => {
                let skip = if w == "charset" { 1 } else { 2 };
                if skip == 2 && spec.get(i + 1).map(String::as_str) != Some("set") {
                    i += 1;
                    continue;
                }
                let Some(name) = value(spec, i + skip) else {
                    i += 1;
                    continue;
                };
                if name != "default" {
                    match charset(name) {
                        Some(cs) => named = Some(cs),
                        None => return Ok(Some(ER_UNKNOWN_CHARACTER_SET)),
                    }
                }
            }
            "collate" => {
                if let Some(code) = collate(value(spec, i + 1), named)? {
                    return Ok(Some(code));
                }
            }
            _ => {}
        }
        i += 1;
    }
    Ok(None)
}

/// COLLATE `name` beside the character set `named` (if any).
fn collate(name: Option<&str>, named: Option<&str>) -> Result<Option<u32>, String> {
    let Some(name) = name.filter(|n| *n != "default") else {
        return Ok(None);
    };
    let Some((_, cs)) = collation(name) else {
        return Ok(Some(ER_UNKNOWN_COLLATION));
    };
    if cs.is_empty() {
        return match named {
            Some(n) if collation(&format!("{n}_{name}")).is_some() => Ok(None),
            Some(_) => Ok(Some(ER_COLLATION_CHARSET_MISMATCH)),
            None => Err(format!(
                "COLLATE {name} (a collation of the character set it is used with) \
                 without a character set beside it is not modelled"
            )),
        };
    }
    Ok(named
        .is_some_and(|n| n != cs)
        .then_some(ER_COLLATION_CHARSET_MISMATCH))
}

/// The name at `i` (after an optional `=`), unquoted.
fn value(spec: &[String], i: usize) -> Option<&str> {
    let v = spec.get(i)?;
    let v = if v == "=" { spec.get(i + 1)? } else { v };
    Some(v.trim_matches('\''))
}
