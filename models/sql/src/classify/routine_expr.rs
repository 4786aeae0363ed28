//! The expressions of a stored procedure's control flow (IF / ELSEIF / WHILE / UNTIL /
//! CASE conditions, SET and DECLARE ... DEFAULT values) that the model can evaluate: integer
//! literals, NULL, TRUE / FALSE, the body's local variables, user variables, arithmetic,
//! comparisons, AND / OR / NOT, IS [NOT] NULL. The server evaluates them in
//! `sp_instr_jump_if_not::exec_core` / `sp_instr_set::exec_core` (sql/sp_head.cc) through
//! `sp_eval_expr` / `Item::val_bool`, with SQL's three-valued logic: a NULL condition is
//! not true (IF and WHILE take the other way; UNTIL loops again).
//!
//! A value the model does not know (a column read by SELECT ... INTO or FETCH) is
//! `Val::Unknown`; a branch that depends on one is refused when it is taken
//! (`model/call_flow.rs`). An expression that reads a table or calls a function is not
//! parsed here (the caller refuses it with a reason).

use super::{kw_eq, Tok};

/// An evaluated value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Val {
    Int(i64),
    Null,
    /// Read from data the model does not keep.
    Unknown,
}

/// A binary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    Add,
    Sub,
    Mul,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
}

/// An expression over literals and variables.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Expr {
    Lit(Val),
    /// A local variable (its slot in the CALL's frame).
    Local(usize),
    /// A user variable `@name` (lower case).
    User(String),
    Not(Box<Expr>),
    Neg(Box<Expr>),
    /// IS NULL (`false`) / IS NOT NULL (`true`).
    IsNull(Box<Expr>, bool),
    Bin(Op, Box<Expr>, Box<Expr>),
}

/// Parses `t` whole as an expression; `local` resolves a name to its slot.
pub(super) fn parse(t: &[Tok], local: &dyn Fn(&str) -> Option<usize>) -> Result<Expr, String> {
    let mut p = P { t, i: 0, local };
    let e = p.or()?;
    if p.i != t.len() {
        return Err("an expression the model does not evaluate".into());
    }
    Ok(e)
}

struct P<'a> {
    t: &'a [Tok],
    i: usize,
    local: &'a dyn Fn(&str) -> Option<usize>,
}

impl P<'_> {
    fn kw(&mut self, w: &str) -> bool {
        let hit = self.t.get(self.i).is_some_and(|x| kw_eq(x, w));
        self.i += usize::from(hit);
        hit
    }

    fn p(&mut self, c: char) -> bool {
        let hit = self.t.get(self.i) == Some(&Tok::P(c));
        self.i += usize::from(hit);
        hit
    }

    fn or(&mut self) -> Result<Expr, String> {
        let mut e = self.and()?;
        while self.kw("or") || (self.p('|') && self.p('|')) {
            e = Expr::Bin(Op::Or, Box::new(e), Box::new(self.and()?));
        }
        Ok(e)
    }

    fn and(&mut self) -> Result<Expr, String> {
        let mut e = self.not()?;
        while self.kw("and") || (self.p('&') && self.p('&')) {
            e = Expr::Bin(Op::And, Box::new(e), Box::new(self.not()?));
        }
        Ok(e)
    }

    fn not(&mut self) -> Result<Expr, String> {
        if self.kw("not") || self.p('!') {
            return Ok(Expr::Not(Box::new(self.not()?)));
        }
        self.cmp()
    }

    fn cmp_op(&mut self) -> Option<Op> {
        let a = self.t.get(self.i).cloned();
        let b = self.t.get(self.i + 1).cloned();
        let (op, n) = match (a, b) {
            (Some(Tok::P('<')), Some(Tok::P('='))) => (Op::Le, 2),
            (Some(Tok::P('>')), Some(Tok::P('='))) => (Op::Ge, 2),
            (Some(Tok::P('<')), Some(Tok::P('>'))) => (Op::Ne, 2),
            (Some(Tok::P('!')), Some(Tok::P('='))) => (Op::Ne, 2),
            (Some(Tok::P('<')), _) => (Op::Lt, 1),
            (Some(Tok::P('>')), _) => (Op::Gt, 1),
            (Some(Tok::P('=')), _) => (Op::Eq, 1),
            _ => return None,
        };
        self.i += n;
        Some(op)
    }

    fn cmp(&mut self) -> Result<Expr, String> {
        let mut e = self.sum()?;
        loop {
            if self.kw("is") {
                let not = self.kw("not");
                if !self.kw("null") {
                    return Err("IS other than IS [NOT] NULL".into());
                }
                e = Expr::IsNull(Box::new(e), not);
            } else if let Some(op) = self.cmp_op() {
                e = Expr::Bin(op, Box::new(e), Box::new(self.sum()?));
            } else {
                return Ok(e);
            }
        }
    }

    fn sum(&mut self) -> Result<Expr, String> {
        let mut e = self.prod()?;
        loop {
            let op = if self.p('+') {
                Op::Add
            } else if self.p('-') {
                Op::Sub
            } else {
                return Ok(e);
            };
            e = Expr::Bin(op, Box::new(e), Box::new(self.prod()?));
        }
    }

    fn prod(&mut self) -> Result<Expr, String> {
        let mut e = self.unary()?;
        while self.p('*') {
            e = Expr::Bin(Op::Mul, Box::new(e), Box::new(self.unary()?));
        }
        Ok(e)
    }

    fn unary(&mut self) -> Result<Expr, String> {
        if self.p('-') {
            return Ok(Expr::Neg(Box::new(self.unary()?)));
        }
        if self.p('(') {
            let e = self.or()?;
            return if self.p(')') {
                Ok(e)
            } else {
                Err("an unbalanced expression".into())
            };
        }
        let tok = self.t.get(self.i).ok_or("an expression cut short")?;
        let e = match tok {
            Tok::Num(n) => Expr::Lit(Val::Int(
                n.parse().map_err(|_| format!("the number `{n}`"))?,
            )),
            Tok::Word { .. } if kw_eq(tok, "null") => Expr::Lit(Val::Null),
            Tok::Word { .. } if kw_eq(tok, "true") => Expr::Lit(Val::Int(1)),
            Tok::Word { .. } if kw_eq(tok, "false") => Expr::Lit(Val::Int(0)),
            Tok::Word { text, .. } if text.starts_with('@') && !text.starts_with("@@") => {
                Expr::User(text[1..].to_lowercase())
            }
            Tok::Word { text, .. } => match (self.local)(&text.to_lowercase()) {
                Some(slot) if self.t.get(self.i + 1) != Some(&Tok::P('(')) => Expr::Local(slot),
                _ => {
                    return Err(format!(
                        "`{text}` (a column, a function or a table's value)"
                    ))
                }
            },
            _ => return Err("a string or an operator the model does not evaluate".into()),
        };
        self.i += 1;
        Ok(e)
    }
}

/// Evaluates `e` with locals `locals` and user variables `user`.
pub fn eval(e: &Expr, locals: &[Val], user: &dyn Fn(&str) -> Val) -> Val {
    match e {
        Expr::Lit(v) => v.clone(),
        Expr::Local(i) => locals.get(*i).cloned().unwrap_or(Val::Null),
        Expr::User(n) => user(n),
        Expr::Not(a) => match eval(a, locals, user) {
            Val::Int(x) => Val::Int(i64::from(x == 0)),
            v => v,
        },
        Expr::Neg(a) => match eval(a, locals, user) {
            Val::Int(x) => Val::Int(x.wrapping_neg()),
            v => v,
        },
        Expr::IsNull(a, not) => match eval(a, locals, user) {
            Val::Unknown => Val::Unknown,
            v => Val::Int(i64::from((v == Val::Null) != *not)),
        },
        Expr::Bin(op, a, b) => bin(*op, eval(a, locals, user), eval(b, locals, user)),
    }
}

fn bin(op: Op, a: Val, b: Val) -> Val {
    use Val::{Int, Null, Unknown};
    match (op, &a, &b) {
        // Three-valued AND / OR: a false (true) side decides whatever the other is.
        (Op::And, Int(0), _) | (Op::And, _, Int(0)) => Int(0),
        (Op::Or, Int(x), _) | (Op::Or, _, Int(x)) if *x != 0 => Int(1),
        (_, Unknown, _) | (_, _, Unknown) => Unknown,
        (_, Null, _) | (_, _, Null) => Null,
        (_, Int(x), Int(y)) => {
            let (x, y) = (*x, *y);
            Int(match op {
                Op::Add => x.wrapping_add(y),
                Op::Sub => x.wrapping_sub(y),
                Op::Mul => x.wrapping_mul(y),
                Op::Eq => i64::from(x == y),
                Op::Ne => i64::from(x != y),
                Op::Lt => i64::from(x < y),
                Op::Le => i64::from(x <= y),
                Op::Gt => i64::from(x > y),
                Op::Ge => i64::from(x >= y),
                Op::And => i64::from(x != 0 && y != 0),
                Op::Or => i64::from(x != 0 || y != 0),
            })
        }
    }
}

/// A condition's truth: `Some(true)` only for a non-zero integer (`Item::val_bool`),
/// None when it depends on data the model does not know.
pub fn truth(v: &Val) -> Option<bool> {
    match v {
        Val::Int(x) => Some(*x != 0),
        Val::Null => Some(false),
        Val::Unknown => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::tokens;
    use super::*;

    fn ev(sql: &str) -> Val {
        let t = tokens(sql).unwrap();
        let e = parse(&t, &|n| (n == "v").then_some(0)).unwrap();
        eval(&e, &[Val::Int(3)], &|n| {
            if n == "x" {
                Val::Int(2)
            } else {
                Val::Null
            }
        })
    }

    #[test]
    fn arithmetic_comparisons_and_three_valued_logic() {
        assert_eq!(ev("v + 1 * 2 = 5"), Val::Int(1));
        assert_eq!(ev("v <= 2 or @x <> 2"), Val::Int(0));
        assert_eq!(ev("not (v > 2)"), Val::Int(0));
        assert_eq!(ev("@y = 1"), Val::Null);
        assert_eq!(ev("@y = 1 and 0"), Val::Int(0));
        assert_eq!(ev("@y is null"), Val::Int(1));
        assert_eq!(ev("-v < 0"), Val::Int(1));
        assert_eq!(truth(&ev("null")), Some(false));
    }

    #[test]
    fn columns_and_functions_are_not_evaluated() {
        let t = tokens("b > 1").unwrap();
        assert!(parse(&t, &|_| None).is_err());
        let t = tokens("v(1)").unwrap();
        assert!(parse(&t, &|_| Some(0)).is_err());
        let t = tokens("(select count(*) from t1) > 0").unwrap();
        assert!(parse(&t, &|_| None).is_err());
    }
}
