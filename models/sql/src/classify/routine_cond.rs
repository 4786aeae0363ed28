//! Conditions in a stored program's body, as the parser checks them (sql/sql_yacc.yy:
//! `sqlstate`, `sp_hcond`, `signal_value`, `signal_information_item_list`): a SQLSTATE
//! that is not five of 0-9A-Z or is of class 00 is ER_SP_BAD_SQLSTATE (1407), wherever it
//! is written; a handler or SIGNAL naming no condition declared before it is
//! ER_SP_COND_MISMATCH (1319); SIGNAL / RESIGNAL of a condition declared FOR an error
//! number is ER_SIGNAL_BAD_CONDITION_TYPE (1646); an item SET twice is ER_DUP_SIGNAL_SET
//! (1641). Each is the parser's, so the definition fails before any lock (measured on
//! MariaDB 10.11.19: main/signal.test, main/sp-error.test).
//!
//! The conditions are those DECLAREd earlier anywhere in the body (the model does not
//! scope them by block: one declared in a closed sibling block is taken as declared).

use super::routine_block::{Reader, Why};
use super::routine_diag::{ER_DUP_SIGNAL_SET, ER_SP_BAD_SQLSTATE, ER_SP_COND_MISMATCH};
use super::{kw_eq, Tok};

pub const ER_SIGNAL_BAD_CONDITION_TYPE: u32 = 1646;
pub const ER_SP_DUP_HANDLER: u32 = 1413;

/// A condition value as `sp_condition_value::equals` compares them.
fn value_key(v: &[Tok]) -> String {
    match v.last() {
        Some(Tok::Str(s)) => format!("sqlstate {s}"),
        Some(Tok::Num(n)) => format!("errno {n}"),
        _ => super::lex::render(v).to_lowercase(),
    }
}

/// A SQLSTATE the parser takes (`is_sqlstate_valid`, not `is_sqlstate_completion`).
pub(super) fn valid_sqlstate(s: &str) -> bool {
    s.len() == 5
        && s.chars()
            .all(|c| c.is_ascii_digit() || c.is_ascii_uppercase())
        && !s.starts_with("00")
}

/// `Fails(1407)` for a bad SQLSTATE.
pub(super) fn check_sqlstate(s: &str) -> Result<(), Why> {
    if valid_sqlstate(s) {
        Ok(())
    } else {
        Err(Why::Fails(ER_SP_BAD_SQLSTATE))
    }
}

impl Reader<'_> {
    /// `DECLARE name CONDITION FOR v`: `v` is `[SQLSTATE [VALUE]] 'x'` or a number.
    pub(super) fn declare_condition(&mut self, name: &Tok, v: &[Tok]) -> Result<(), Why> {
        let state = match v.last() {
            Some(Tok::Str(s)) => {
                check_sqlstate(s)?;
                true
            }
            _ => false,
        };
        if let Tok::Word { text, .. } = name {
            self.conds.push((text.to_lowercase(), state, value_key(v)));
        }
        Ok(())
    }

    /// A condition named by a handler or a SIGNAL: whether it has a SQLSTATE.
    pub(super) fn declared_condition(&self, name: &Tok) -> Result<bool, Why> {
        let Tok::Word { text, .. } = name else {
            return Err(Why::Fails(ER_SP_COND_MISMATCH));
        };
        let n = text.to_lowercase();
        self.conds
            .iter()
            .rev()
            .find(|(c, _, _)| *c == n)
            .map(|(_, state, _)| *state)
            .ok_or(Why::Fails(ER_SP_COND_MISMATCH))
    }

    /// A handler's condition `v` (its tokens, a declared name resolved to its value):
    /// ER_SP_DUP_HANDLER when a handler of the same block has that value already
    /// (`sp_pcontext::check_duplicate_handler`).
    pub(super) fn handled(&mut self, v: &[Tok]) -> Result<(), Why> {
        let key = match v {
            [Tok::Word { text, .. }] => {
                let n = text.to_lowercase();
                match self.conds.iter().rev().find(|(c, _, _)| *c == n) {
                    Some((_, _, k)) => k.clone(),
                    None => value_key(v),
                }
            }
            _ => value_key(v),
        };
        let Some(block) = self.handlers.last_mut() else {
            return Ok(());
        };
        if block.contains(&key) {
            return Err(Why::Fails(ER_SP_DUP_HANDLER));
        }
        block.push(key);
        Ok(())
    }

    /// SIGNAL / RESIGNAL of a condition: declared, with a SQLSTATE.
    fn signal_condition(&self, n: &Tok) -> Result<(), Why> {
        if self.declared_condition(n)? {
            Ok(())
        } else {
            Err(Why::Fails(ER_SIGNAL_BAD_CONDITION_TYPE))
        }
    }

    /// The parser's checks of SIGNAL / RESIGNAL `s` (after the verb), in its order.
    pub(super) fn signal_checks(&self, s: &[Tok]) -> Result<(), Why> {
        match s {
            [st, rest @ ..] if kw_eq(st, "sqlstate") => {
                let v = match rest {
                    [x, r @ ..] if kw_eq(x, "value") => r.first(),
                    r => r.first(),
                };
                if let Some(Tok::Str(state)) = v {
                    check_sqlstate(state)?;
                }
            }
            [n, ..] if !kw_eq(n, "set") => self.signal_condition(n)?,
            _ => {}
        }
        let Some(k) = s.iter().position(|t| kw_eq(t, "set")) else {
            return Ok(());
        };
        let mut seen: Vec<String> = Vec::new();
        for item in s[k + 1..].split(|t| *t == Tok::P(',')) {
            if let Some(Tok::Word { text, .. }) = item.first() {
                let n = text.to_lowercase();
                if seen.contains(&n) {
                    return Err(Why::Fails(ER_DUP_SIGNAL_SET));
                }
                seen.push(n);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::routine_block::{read, Ctx};
    use super::super::tokens;
    use super::*;

    fn fails(sql: &str) -> Option<u32> {
        match read(&tokens(sql).unwrap(), Ctx::Procedure) {
            Err(Why::Fails(c)) => Some(c),
            _ => None,
        }
    }

    /// Measured on MariaDB 10.11.19 (the corpus's differences at main/signal.test:434,
    /// :630, main/sp-error.test:2191).
    #[test]
    fn the_parsers_condition_errors() {
        let handler00 = "BEGIN DECLARE CONTINUE HANDLER FOR SQLSTATE '00000' SET @x = 0; END";
        assert_eq!(fails(handler00), Some(1407));
        assert_eq!(
            fails("BEGIN DECLARE c CONDITION FOR SQLSTATE 'aabbb'; END"),
            Some(1407)
        );
        assert_eq!(fails("BEGIN SIGNAL SQLSTATE '00000'; END"), Some(1407));
        assert_eq!(
            fails("BEGIN DECLARE foo CONDITION FOR 1234; RESIGNAL foo; END"),
            Some(1646)
        );
        assert_eq!(fails("BEGIN SIGNAL foo; END"), Some(1319));
        assert_eq!(
            fails("BEGIN DECLARE EXIT HANDLER FOR foo BEGIN END; END"),
            Some(1319)
        );
        let dup = "BEGIN DECLARE foo CONDITION FOR SQLSTATE '12345'; \
                   RESIGNAL foo SET MYSQL_ERRNO = 'foo', MYSQL_ERRNO = 'bar'; END";
        assert_eq!(fails(dup), Some(1641));
        let dup_handler = "BEGIN DECLARE c1 CONDITION FOR SQLSTATE '42000'; \
                           DECLARE EXIT HANDLER FOR c1 SELECT 1; \
                           DECLARE EXIT HANDLER FOR SQLSTATE '42000' SELECT 2; END";
        assert_eq!(fails(dup_handler), Some(1413));
        let nested = "BEGIN DECLARE EXIT HANDLER FOR 1062 SELECT 1; \
                      BEGIN DECLARE EXIT HANDLER FOR 1062 SELECT 2; END; END";
        assert_eq!(fails(nested), None);
        let ok = "BEGIN DECLARE foo CONDITION FOR SQLSTATE '12345'; \
                  DECLARE EXIT HANDLER FOR foo BEGIN END; SIGNAL foo SET MESSAGE_TEXT = 'x'; END";
        assert_eq!(
            read(&tokens(ok).unwrap(), Ctx::Procedure).map(|s| s.len()),
            Ok(0)
        );
    }
}
