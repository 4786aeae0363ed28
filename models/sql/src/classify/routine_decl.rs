//! The type of a variable a stored program's body DECLAREs (sql/sql_yacc.yy: `sp_decl_vars`
//! takes a `field_type`, `ROW (field, ...)` (`row_type_body`), or an anchored type:
//! `TYPE OF t.c` / `ROW TYPE OF t` (`sp_decl_variable_list_anchored`, resolved when the
//! variable is declared at run time by `sp_rcontext::resolve_type_ref` /
//! `resolve_table_rowtype_ref`, sql/sp_rcontext.cc, which open the table).

use super::routine_body::{field_type, safe_name};
use super::routine_reader::{refused, Reader, Why};
use super::{kw_eq, Tok};

/// The index after a variable's type at `s[i..]`: a field type, a `ROW (...)` of
/// field types (a ROW of ROWs is a syntax error: main/sp-row.test), or an anchored type
/// (`TYPE OF t.c`, `ROW TYPE OF t`: read by `routine_anchor.rs`, resolved when the
/// routine runs; CREATE opens nothing).
pub(super) fn var_type(s: &[Tok], i: usize) -> Result<usize, Why> {
    if let Some((_, j)) = super::routine_anchor::anchored_type(s, i, &[], &[]) {
        return Ok(j);
    }
    if let Some(j) = row_type(s, i) {
        return Ok(j);
    }
    field_type(s, i).map_or_else(|| super::routine_keywords::unread_type(s, i), Ok)
}

/// `ROW (name type, ...)` at `s[i..]`: the index after it.
fn row_type(s: &[Tok], i: usize) -> Option<usize> {
    if !s.get(i).is_some_and(|t| kw_eq(t, "row")) || s.get(i + 1) != Some(&Tok::P('(')) {
        return None;
    }
    let mut k = i + 2;
    loop {
        safe_name(s.get(k)?).then_some(())?;
        k = field_type(s, k + 1)?;
        match s.get(k)? {
            Tok::P(',') => k += 1,
            Tok::P(')') => return Some(k + 1),
            _ => return None,
        }
    }
}

/// `name CURSOR (p type, ...) FOR SELECT ...` (`sp_decl_cursor`, `opt_parenthesized_cursor_
/// formal_parameters`, MariaDB 10.3+): the SELECT, opened at OPEN with the arguments.
pub(super) fn cursor_with_params(s: &[Tok]) -> Result<&[Tok], Why> {
    let shape = || refused("a cursor other than `name CURSOR [(p type, ...)] FOR SELECT ...`");
    if !safe_name(&s[0]) {
        return shape();
    }
    let mut k = 3;
    loop {
        // A parameter's mode (MDEV-10654): IN is the default; OUT / INOUT is the parser's
        // ER_NOT_SUPPORTED_YET "OUT/INOUT cursor parameter" (sql/sql_yacc.yy,
        // `sp_cursor_formal_parameter` over `sp_param_name_and_mode`; measured:
        // main/sp-cursor.test, "End of 10.8 tests").
        if s.get(k)
            .is_some_and(|t| kw_eq(t, "out") || kw_eq(t, "inout"))
        {
            return Err(Why::Fails(super::oracle_decl::ER_NOT_SUPPORTED_YET));
        }
        if s.get(k).is_some_and(|t| kw_eq(t, "in")) && s.get(k + 1).is_some_and(safe_name) {
            k += 1;
        }
        if !s.get(k).is_some_and(safe_name) {
            return shape();
        }
        let Some(j) = field_type(s, k + 1) else {
            return shape();
        };
        match s.get(j) {
            Some(Tok::P(',')) => k = j + 1,
            Some(Tok::P(')')) => {
                k = j + 1;
                break;
            }
            _ => return shape(),
        }
    }
    match &s[k..] {
        [f, q @ ..] if kw_eq(f, "for") && q.first().is_some_and(|x| kw_eq(x, "select")) => Ok(q),
        _ => shape(),
    }
}

/// The parameters' names of a definition `(p type, IN q type, ...) ...` (none when `t`
/// does not start with `(`): variables of the body.
pub(super) fn param_names(t: &[Tok]) -> Vec<String> {
    let mut out = Vec::new();
    if t.first() != Some(&Tok::P('(')) {
        return out;
    }
    let mut depth = 0usize;
    let mut start = true;
    for x in t {
        match x {
            Tok::P('(') => depth += 1,
            Tok::P(')') => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            Tok::P(',') if depth == 1 => start = true,
            Tok::Word { text, .. }
                if depth == 1 && start && !["in", "out", "inout"].iter().any(|w| kw_eq(x, w)) =>
            {
                out.push(text.to_lowercase());
                start = false;
            }
            _ => {}
        }
    }
    out
}

/// ER_SP_BAD_VAR_SHADOW: `SET names = ...` / `SET password = ...` (also after a `,`)
/// where a variable of that name is declared (sql_yacc.yy reads SET NAMES / SET PASSWORD
/// and refuses the shadowing variable; measured on MariaDB 10.11.19, main/sp-error.test).
pub const ER_SP_BAD_VAR_SHADOW: u32 = 1453;

/// Whether SET statement `s` (from SET) assigns a declared `names` or `password`.
pub(super) fn shadowed_set(s: &[Tok], vars: &[String]) -> bool {
    s.windows(3).any(|w| {
        (kw_eq(&w[0], "set") || w[0] == Tok::P(','))
            && w[2] == Tok::P('=')
            && matches!(&w[1], Tok::Word { text, quoted: false }
                if ["names", "password"].iter().any(|n| text.eq_ignore_ascii_case(n))
                    && vars.iter().any(|v| v.eq_ignore_ascii_case(text)))
    })
}

impl Reader<'_> {
    /// `OPEN c(args)`'s arguments (`sp_proc_stmt_open`, `opt_parenthesized_cursor_actual_
    /// parameters`): values, variables and operators, recorded as expressions; nothing
    /// without parentheses.
    pub(super) fn open_args(&mut self) -> Result<(), Why> {
        if self.t.get(self.i) != Some(&Tok::P('(')) {
            return Ok(());
        }
        let start = self.i + 1;
        let mut depth = 0usize;
        while let Some(t) = self.t.get(self.i) {
            match t {
                Tok::P('(') => depth += 1,
                Tok::P(')') => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                Tok::P(';') => return refused("OPEN's arguments without their `)`"),
                _ => {}
            }
            self.i += 1;
        }
        if self.t.get(self.i).is_none() {
            return refused("OPEN's arguments without their `)`");
        }
        let args = &self.t[start..self.i];
        self.i += 1;
        for a in args.split(|t| *t == Tok::P(',')) {
            if a.is_empty() {
                return refused("an empty argument of OPEN");
            }
            self.stmts.push(a);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::tokens;
    use super::*;

    fn ty(sql: &str) -> Result<usize, Why> {
        var_type(&tokens(sql).unwrap(), 0)
    }

    /// The shapes of main/sp-row.test and main/sp-anchor-row-type-table.test.
    #[test]
    fn row_and_anchored_types_are_read() {
        assert_eq!(ty("ROW(a INT, b VARCHAR(10))"), Ok(11));
        assert!(matches!(
            ty("ROW (a ROW(b INT), c INT)"),
            Err(Why::Refused(_))
        ));
        assert_eq!(ty("INT UNSIGNED"), Ok(2));
        assert_eq!(ty("ROW TYPE OF t1"), Ok(4));
        assert_eq!(ty("TYPE OF t1.a"), Ok(5));
        assert!(matches!(ty("TYPE OF 1"), Err(Why::Refused(_))));
        assert!(matches!(ty("ROW(a INT"), Err(Why::Refused(_))));
        assert!(matches!(ty("ROW()"), Err(Why::Refused(_))));
    }

    #[test]
    fn set_of_a_shadowing_variable() {
        let vars = ["names".to_owned(), "password".to_owned()];
        for sql in [
            "SET names = 'x'",
            "SET @a = 1, names = 'x'",
            "SET PASSWORD = 'x'",
        ] {
            assert!(shadowed_set(&tokens(sql).unwrap(), &vars), "{sql}");
        }
        assert!(!shadowed_set(&tokens("SET names = 'x'").unwrap(), &[]));
        assert!(!shadowed_set(&tokens("SET `names` = 'x'").unwrap(), &vars));
    }

    #[test]
    fn parameters_are_variables() {
        let t = tokens("(OUT number INT, INOUT message TEXT, c DECIMAL(5,2)) BEGIN END").unwrap();
        assert_eq!(param_names(&t), ["number", "message", "c"]);
        assert!(param_names(&tokens("ON SCHEDULE EVERY 1 DAY").unwrap()).is_empty());
    }

    /// main/sp-cursor.test's cursors with parameters.
    #[test]
    fn cursors_with_parameters() {
        let t =
            tokens("c CURSOR (pa INT, pb VARCHAR(10)) FOR SELECT a FROM t1 WHERE a > pa").unwrap();
        assert_eq!(cursor_with_params(&t).map(|q| q.len()), Ok(8));
        let t = tokens("c CURSOR (IN a INT) FOR SELECT a FROM dual").unwrap();
        assert_eq!(cursor_with_params(&t).map(|q| q.len()), Ok(4));
        for mode in ["OUT", "INOUT"] {
            let t = tokens(&format!("c CURSOR ({mode} a INT) FOR SELECT a FROM dual")).unwrap();
            assert_eq!(cursor_with_params(&t), Err(Why::Fails(1235)));
        }
        let t = tokens("c CURSOR (pa INT) FOR UPDATE t1 SET a = 1").unwrap();
        assert!(cursor_with_params(&t).is_err());
        let t = tokens("c CURSOR (pa) FOR SELECT 1").unwrap();
        assert!(cursor_with_params(&t).is_err());
    }
}
