//! `SET v = expr` of a stored program's variable whose value names an identifier that is
//! no variable of the body and no column of a table in scope: MariaDB's parser refuses
//! the definition with ER_SP_UNDECLARED_VAR (1327) before any lock (main/sp-vars.test,
//! MDEV-14347's cases: `SET a=unknown_ident`, `SET a=(SELECT unknown_ident)`,
//! `(SELECT unknown_ident FROM dual)`, `DEFAULT(unknown_ident)`, measured on 10.11.19).
//! The model does not tell such an identifier from a keyword or a name the server knows
//! (a collation, a CAST type, an interval unit), so a value with one is refused rather
//! than failed; a value whose subquery reads a table is read as before (its names may be
//! that table's columns).

use super::routine_reader::{refused, Why};
use super::{kw_eq, Tok};

/// Refused when `s` (a SET statement of a body) assigns a declared variable (`vars`) a
/// value with a bare name that is no variable, and reads no table.
pub(super) fn check(s: &[Tok], vars: &[String]) -> Result<(), Why> {
    let declared =
        |t: &Tok| matches!(t, Tok::Word { text, .. } if vars.contains(&text.to_lowercase()));
    let [_, target, Tok::P('='), value @ ..] = s else {
        return Ok(());
    };
    if !declared(target) {
        return Ok(());
    }
    let covered = tables_in_scope(value);
    let unknown = value.iter().enumerate().any(|(i, t)| {
        matches!(t, Tok::Word { text, quoted: false } if !text.starts_with('@'))
            && !declared(t)
            && !super::reserved::is_reserved(t)
            && value.get(i + 1) != Some(&Tok::P('('))
            && (i == 0 || value[i - 1] != Tok::P('.'))
            && !covered[i]
            && !names_no_identifier(value, i)
    });
    if unknown {
        return refused(
            "SET of a variable to a value naming an identifier the body does not declare \
             (the server's ER_SP_UNDECLARED_VAR, or a keyword the model does not tell)",
        );
    }
    Ok(())
}

/// The word at `value[i]` is a name the parser reads as no identifier (`sql_yacc.yy`):
/// an introducer or a typed literal before a string (`_latin1'x'`, `_utf8 0xD18F`,
/// `TIME'10:20:30'`), a character set or collation (after CHARACTER SET, CHARSET,
/// COLLATE, USING), a CAST type or an alias (after AS), or an interval unit where the
/// value has an INTERVAL or a TIMESTAMPADD / TIMESTAMPDIFF / EXTRACT. Measured on
/// 10.11.19 with main/sp-vars.test's and main/ctype_*.test's bodies, which run.
fn names_no_identifier(value: &[Tok], i: usize) -> bool {
    const UNITS: &[&str] = &[
        "microsecond",
        "second",
        "minute",
        "hour",
        "day",
        "week",
        "month",
        "quarter",
        "year",
        "second_microsecond",
        "minute_microsecond",
        "minute_second",
        "hour_microsecond",
        "hour_second",
        "hour_minute",
        "day_microsecond",
        "day_second",
        "day_minute",
        "day_hour",
        "year_month",
    ];
    let Some(Tok::Word { text, .. }) = value.get(i) else {
        return false;
    };
    let next = value.get(i + 1);
    let before = |k: usize, w: &str| i >= k && kw_eq(&value[i - k], w);
    let literal_after = matches!(next, Some(Tok::Str(_)))
        || (text.starts_with('_') && matches!(next, Some(Tok::Num(_))));
    let charset = (before(1, "set") && before(2, "character"))
        || ["charset", "collate", "using", "as"]
            .iter()
            .any(|w| before(1, w));
    let unit = UNITS.iter().any(|u| text.eq_ignore_ascii_case(u))
        && value.iter().any(|t| {
            ["interval", "timestampadd", "timestampdiff", "extract"]
                .iter()
                .any(|w| kw_eq(t, w))
        });
    literal_after || charset || unit
}

/// Per token of `value`, whether a SELECT around it (its own or an outer one, each a
/// parenthesised group) reads a table (`FROM x` at that group's own level, x not DUAL):
/// a name there may be one of that table's columns.
fn tables_in_scope(value: &[Tok]) -> Vec<bool> {
    // Per `(`: whether its group reads a table at its own level.
    let mut open: Vec<(usize, bool)> = Vec::new();
    let mut reads = vec![false; value.len()];
    for (i, t) in value.iter().enumerate() {
        match t {
            Tok::P('(') => open.push((i, false)),
            Tok::P(')') => {
                if let Some((at, true)) = open.pop() {
                    reads[at] = true;
                }
            }
            _ if kw_eq(t, "from") && !value.get(i + 1).is_some_and(|n| kw_eq(n, "dual")) => {
                if let Some(g) = open.last_mut() {
                    g.1 = true;
                }
            }
            _ => {}
        }
    }
    // A token is covered when one of its enclosing groups reads a table.
    let mut stack: Vec<usize> = Vec::new();
    let mut covered = vec![false; value.len()];
    for (i, t) in value.iter().enumerate() {
        match t {
            Tok::P('(') => stack.push(i),
            Tok::P(')') => {
                stack.pop();
            }
            _ => covered[i] = stack.iter().any(|&g| reads[g]),
        }
    }
    covered
}

#[cfg(test)]
mod tests {
    use super::super::routine_block::{read, Ctx, Why};
    use super::super::tokens;

    #[test]
    fn undeclared_names_in_a_variables_value_are_refused() {
        let rd = |sql: &str| read(&tokens(sql).unwrap(), Ctx::Procedure).map(|s| s.len());
        let refused = |sql: &str| matches!(rd(sql), Err(Why::Refused(_)));
        assert!(refused("BEGIN DECLARE a INT; SET a=unknown_ident; END"));
        assert!(refused(
            "BEGIN DECLARE a INT; SET a=(SELECT unknown_ident FROM dual); END"
        ));
        assert!(refused(
            "BEGIN DECLARE a INT; SET a=DEFAULT(unknown_ident); END"
        ));
        assert!(rd("BEGIN DECLARE a INT; SET a=(SELECT c1 FROM t1); END").is_ok());
        assert!(refused(
            "BEGIN DECLARE a INT; SET a=(SELECT c1 FROM t1)+unknown_ident; END"
        ));
        let nested = "BEGIN DECLARE a INT; SET a=(SELECT (SELECT u)+(SELECT c1 FROM t1)); END";
        assert!(refused(nested));
        assert!(rd("BEGIN DECLARE a INT; SET a=(SELECT (SELECT c2) FROM t1); END").is_ok());
        assert!(rd("BEGIN DECLARE a, b INT; SET a=b+1; END").is_ok());
        assert!(rd("BEGIN DECLARE a INT; SET a=NULL; END").is_ok());
        assert!(rd("BEGIN DECLARE a INT; SET a=ABS(-1); END").is_ok());
        assert!(rd("BEGIN DECLARE a INT; SET @a=unknown; END").is_ok());
        // Names that are no identifier (main/ctype_*.test, main/sp-vars.test bodies).
        for ok in [
            "BEGIN DECLARE a VARCHAR(9); SET a=CAST(_latin1'x' AS CHAR(1) CHARACTER SET latin1); END",
            "BEGIN DECLARE a VARCHAR(9); SET a=CAST(_utf8 0xD18F AS CHAR(1) CHARACTER SET latin1); END",
            "BEGIN DECLARE a VARCHAR(9); SET a=CAST(TIME'10:20:30' AS CHAR(1)); END",
            "BEGIN DECLARE a DATETIME; SET a=NOW() + INTERVAL 1 DAY; END",
            "BEGIN DECLARE a, b INT; SET a=TIMESTAMPDIFF(SECOND, b, b); END",
        ] {
            assert!(rd(ok).is_ok(), "{ok}");
        }
        assert!(refused(
            "BEGIN DECLARE a DATETIME; SET a=NOW() + INTERVAL unknown_ident DAY; END"
        ));
    }
}
