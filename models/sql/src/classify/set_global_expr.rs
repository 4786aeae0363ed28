//! SET GLOBAL values of several tokens that the server computes without a table and that
//! always give a number: arithmetic (`+ - *`, `<< >>`, parentheses) of numbers, of
//! `CAST(number AS [UN]SIGNED [INT])` and of the variable's own value (`SET GLOBAL x =
//! 1 - @@global.x`, `@@global.x + 8192`). sql/set_var.cc `set_var::check` evaluates the
//! item; a numeric variable takes any number, out of its range it is truncated with a
//! warning (`Sys_var_integer::do_check` / `throw_bounds_warning`), so the statement goes
//! on as one literal would (`misc::set_global`'s learned `set_global` row, no lock).
//! The variable's own value is a name the server knows in its global scope, since the
//! assignment is to it; another variable's value may not exist in this build (ER_UNKNOWN_
//! SYSTEM_VARIABLE) or be session-only, and a user variable's value may be NULL or a
//! string (ER_WRONG_TYPE_FOR_VAR): those stay refused. Division is left out (a zero
//! divisor is NULL).
//!
//! Measured: suite/set-global-expressions.mdl.

use super::set_global_forms::assignments;
use super::Tok;

/// Whether every assignment of `GLOBAL a = v, ...` (`toks` after `SET`) has a value this
/// file computes to a number, and at least one of them is not a single token.
pub(super) fn all_numeric(toks: &[Tok]) -> bool {
    let list = assignments(toks);
    let parts = toks.split(|t| *t == Tok::P(',')).count();
    !list.is_empty() && list.len() == parts && list.iter().all(|a| numeric(&a.name, a.value))
}

fn numeric(name: &str, v: &[Tok]) -> bool {
    let word = |t: Option<&Tok>, w: &str| matches!(t, Some(Tok::Word { text, quoted: false }) if text.eq_ignore_ascii_case(w));
    let (mut i, mut depth) = (0, 0i32);
    let mut operand = false;
    while i < v.len() {
        match &v[i] {
            Tok::Num(_) => operand = true,
            Tok::P('(') => depth += 1,
            Tok::P(')') => depth -= 1,
            Tok::P('+' | '-' | '*') => {}
            Tok::P(c @ ('<' | '>')) if v.get(i + 1) == Some(&Tok::P(*c)) => i += 1,
            Tok::Word { .. } if word(v.get(i), "cast") => {
                let Some(end) = cast_end(&v[i..]) else {
                    return false;
                };
                i += end;
                operand = true;
                continue;
            }
            Tok::Word { .. }
                if word(v.get(i), "@@global") && v.get(i + 1) == Some(&Tok::P('.')) =>
            {
                if !word(v.get(i + 2), name) {
                    return false;
                }
                i += 2;
                operand = true;
            }
            Tok::Word { .. } if word(v.get(i), &format!("@@{name}")) => operand = true,
            _ => return false,
        }
        if depth < 0 {
            return false;
        }
        i += 1;
    }
    // Ends with an operand (`1 +` is the parser's syntax error), no two operators meet.
    let op = |t: &Tok| matches!(t, Tok::P('+' | '-' | '*' | '<' | '>'));
    let ends = matches!(v.last(), Some(Tok::Num(_) | Tok::P(')') | Tok::Word { .. }));
    let doubled = v
        .windows(2)
        .any(|w| op(&w[0]) && op(&w[1]) && !(w[0] == w[1] && matches!(w[0], Tok::P('<' | '>'))));
    depth == 0 && operand && v.len() > 1 && ends && !doubled
}

/// Whether `v` is one user variable whose name has dots (`@max_con.save`,
/// `@save.slave_parallel_workers`): a value as `@saved` is (one token), which the
/// statement plays alike whatever it holds when the variable changes no locking (its
/// NULL or wrong type is 1231 / 1232 in `set_var::check`, before anything runs; the
/// model does not tell those apart, as for `@saved`). A variable that changes locking
/// is refused before (`misc::set_global`'s list, `read_only.rs`, `global_timeout.rs`).
pub(super) fn user_var(v: &[Tok]) -> bool {
    let Some((
        Tok::Word {
            text,
            quoted: false,
        },
        rest,
    )) = v.split_first()
    else {
        return false;
    };
    text.starts_with('@')
        && !text.starts_with("@@")
        && text.len() > 1
        && !rest.is_empty()
        && rest
            .chunks(2)
            .all(|p| matches!(p, [Tok::P('.'), Tok::Word { .. }]))
}

/// The length of `CAST([-]number AS UNSIGNED|SIGNED [INT|INTEGER])` at the start of `v`.
fn cast_end(v: &[Tok]) -> Option<usize> {
    let word = |i: usize, ws: &[&str]| {
        matches!(v.get(i), Some(Tok::Word { text, quoted: false })
            if ws.iter().any(|w| text.eq_ignore_ascii_case(w)))
    };
    let mut i = 1;
    (v.get(i) == Some(&Tok::P('('))).then_some(())?;
    i += 1;
    if v.get(i) == Some(&Tok::P('-')) {
        i += 1;
    }
    matches!(v.get(i), Some(Tok::Num(_))).then_some(())?;
    i += 1;
    word(i, &["as"]).then_some(())?;
    i += 1;
    word(i, &["unsigned", "signed"]).then_some(())?;
    i += 1;
    if word(i, &["int", "integer"]) {
        i += 1;
    }
    (v.get(i) == Some(&Tok::P(')'))).then_some(i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::lex::tokens;

    fn ok(sql: &str) -> bool {
        let t = tokens(sql).unwrap();
        all_numeric(&t[1..])
    }

    #[test]
    fn values() {
        assert!(ok("set global flush_time=cast(-1 as unsigned int)"));
        assert!(ok("SET @@global.big_tables = 1-@@global.big_tables"));
        assert!(ok(
            "set global aria_log_file_size=@@global.aria_log_file_size + 8192 - 1"
        ));
        assert!(ok("SET GLOBAL server_id = (1 << 32) - 1"));
        assert!(ok(
            "SET @@global.slave_net_timeout=2*@@global.slave_net_timeout"
        ));
        assert!(!ok(
            "set @@global.slave_net_timeout = @@global.net_read_timeout * 2"
        ));
        assert!(!ok("SET @@global.max_connections = @start_value+1"));
        assert!(!ok("SET GLOBAL x = 1"));
        assert!(!ok("SET GLOBAL x = (1"));
        assert!(!ok("SET GLOBAL x = 4 / 2"));
        assert!(!ok("SET GLOBAL x = 1 +"));
        assert!(!ok("SET GLOBAL x = 1 + * 2"));
    }

    #[test]
    fn dotted_user_variables() {
        let uv = |q: &str| user_var(&tokens(q).unwrap());
        assert!(uv("@max_con.save"));
        assert!(uv("@save.a.b"));
        assert!(!uv("@x"));
        assert!(!uv("@@global.x"));
        assert!(!uv("@x.save + 1"));
    }
}
