//! FOR loops in a stored program's body (sql/sql_yacc.yy: `sp_for_loop_index_and_bounds`,
//! `sp_for_loop_bounds`, MariaDB 10.3+): `[label:] FOR i IN [REVERSE] a .. b DO ... END FOR
//! [label]` (an integer range), `FOR r IN cursor[(args)] DO` (a declared cursor, opened
//! by the loop: its SELECT was read with its DECLARE) and `FOR r IN (SELECT ...) DO` (an
//! implicit cursor over that SELECT, opened when the loop starts: `LEX::sp_for_loop_
//! implicit_cursor_statement`, sql/sql_lex.cc).

use super::routine_body::safe_name;
use super::routine_reader::{refused, Reader, Why};
use super::{kw_eq, Tok};

/// The index after the `)` matching the `(` at `t[i]`.
fn close_paren(t: &[Tok], i: usize) -> Option<usize> {
    super::lex::matching_paren(t, i).map(|k| k + 1)
}

impl<'a> Reader<'a> {
    /// `FOR` at `t[i]`, with its label.
    pub(super) fn for_loop(&mut self, label: Option<String>) -> Result<(), Why> {
        self.i += 1;
        if !self.t.get(self.i).is_some_and(safe_name) {
            return refused("a FOR loop index the model cannot tell from a reserved word");
        }
        if let Some(Tok::Word { text, .. }) = self.t.get(self.i) {
            // The index (or the cursor's record) is a variable of the loop's body.
            self.vars.push(text.to_lowercase());
        }
        self.i += 1;
        self.expect("in")?;
        self.eat("reverse");
        if self.t.get(self.i) == Some(&Tok::P('(')) {
            self.implicit_cursor()?;
        } else {
            self.bounds()?;
        }
        self.expect("do")?;
        self.labels
            .push((label.clone().unwrap_or_default(), label.is_some()));
        self.stmts_until(&["end"], true)?;
        self.expect("end")?;
        self.expect("for")?;
        self.labels.pop();
        self.end_label(label)
    }

    /// `(SELECT ...)`: the SELECT recorded (its tables are opened by the loop).
    fn implicit_cursor(&mut self) -> Result<(), Why> {
        let Some(end) = close_paren(self.t, self.i) else {
            return refused("a FOR loop's query without its `)`");
        };
        let q = &self.t[self.i + 1..end - 1];
        if !q.first().is_some_and(|x| kw_eq(x, "select")) {
            return refused("a FOR loop over a query other than SELECT");
        }
        self.stmts.push(q);
        self.i = end;
        Ok(())
    }

    /// `a .. b` or `cursor[(args)]` up to DO: names, numbers, variables and operators
    /// only (a call or a subquery in a bound is not followed).
    fn bounds(&mut self) -> Result<(), Why> {
        let start = self.i;
        while let Some(t) = self.t.get(self.i) {
            if kw_eq(t, "do") {
                break;
            }
            match t {
                Tok::Word { .. } if kw_eq(t, "select") => {
                    return refused("a FOR loop bound with a subquery")
                }
                Tok::P(';') => return refused("a FOR loop without its DO"),
                Tok::P('(') if self.i > start + 1 || self.i == start => {
                    return refused("a FOR loop bound with a call or a subquery")
                }
                Tok::P('(') => self.cursor_args()?,
                _ => {}
            }
            self.i += 1;
        }
        if self.i == start {
            return refused("a FOR loop without its bounds");
        }
        Ok(())
    }

    /// A cursor's arguments `(x, 1)`: plain values only; leaves `i` at the `)`.
    fn cursor_args(&mut self) -> Result<(), Why> {
        let Some(end) = close_paren(self.t, self.i) else {
            return refused("a FOR loop's cursor arguments without their `)`");
        };
        let plain = self.t[self.i + 1..end - 1].iter().all(|x| {
            matches!(
                x,
                Tok::Word { .. } | Tok::Num(_) | Tok::Str(_) | Tok::P(',')
            )
        });
        if !plain || !self.t.get(end).is_some_and(|t| kw_eq(t, "do")) {
            return refused("a FOR loop's cursor argument other than a value or a variable");
        }
        self.i = end - 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::routine_block::{read, Ctx};
    use super::super::tokens;
    use super::*;

    fn rd(sql: &str) -> Result<usize, Why> {
        read(&tokens(sql).unwrap(), Ctx::Procedure).map(|s| s.len())
    }

    /// The shapes of main/sp-for-loop.test and main/sp-cursor.test.
    #[test]
    fn for_loops_are_read() {
        assert_eq!(rd("FOR i IN 1 .. 3 DO SELECT i; END FOR"), Ok(1));
        assert_eq!(rd("FOR i IN 0..imax DO SET @a = i; END FOR"), Ok(1));
        assert_eq!(
            rd("la: FOR i IN REVERSE a .. b + 1 DO ITERATE la; END FOR la"),
            Ok(0)
        );
        assert_eq!(
            rd("FOR r IN (SELECT a FROM t1) DO INSERT INTO t2 VALUES (r.a); END FOR"),
            Ok(2)
        );
        assert_eq!(
            rd("BEGIN DECLARE c CURSOR (p INT) FOR SELECT p; FOR r IN c(1) DO SELECT r.p; END FOR; END"),
            Ok(2)
        );
        assert!(matches!(
            rd("FOR i IN f(1) .. 3 DO SELECT 1; END FOR"),
            Err(Why::Refused(_))
        ));
        assert!(matches!(
            rd("FOR i IN 1 .. 3 DO SELECT 1; END LOOP"),
            Err(Why::Refused(_))
        ));
        assert_eq!(
            rd("l1: FOR i IN 1 .. 3 DO SELECT 1; END FOR l2"),
            Err(Why::Fails(
                super::super::routine_block::ER_SP_LABEL_MISMATCH
            ))
        );
    }
}
