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
    let reads_table = value
        .windows(2)
        .any(|w| kw_eq(&w[0], "from") && !kw_eq(&w[1], "dual"));
    if reads_table {
        return Ok(());
    }
    let unknown = value.iter().enumerate().any(|(i, t)| {
        matches!(t, Tok::Word { text, quoted: false } if !text.starts_with('@'))
            && !declared(t)
            && !super::reserved::is_reserved(t)
            && value.get(i + 1) != Some(&Tok::P('('))
    });
    if unknown {
        return refused(
            "SET of a variable to a value naming an identifier the body does not declare \
             (the server's ER_SP_UNDECLARED_VAR, or a keyword the model does not tell)",
        );
    }
    Ok(())
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
        assert!(rd("BEGIN DECLARE a, b INT; SET a=b+1; END").is_ok());
        assert!(rd("BEGIN DECLARE a INT; SET a=NULL; END").is_ok());
        assert!(rd("BEGIN DECLARE a INT; SET a=ABS(-1); END").is_ok());
        assert!(rd("BEGIN DECLARE a INT; SET @a=unknown; END").is_ok());
    }
}
