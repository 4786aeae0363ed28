//! The control flow of an Oracle anonymous block's body, written in the default grammar
//! (`classify/oracle_block.rs` writes the block; this file walks its statements).
//!
//! The Oracle grammar's compound statements (sql/sql_yacc.yy, Oracle branch:
//! `sp_proc_stmt_if`, `loop_body`, `while_body`, `for_loop_statements` →
//! `LEX::sp_for_loop_*`, sql/sql_lex.cc) are those of the default grammar with other
//! words, and build the same sp_instr (sql/sp_head.cc); the model writes them as:
//!
//! - `IF c THEN ... [ELSIF c THEN ...] [ELSE ...] END IF` → the same with ELSEIF;
//! - `LOOP ... END LOOP [label]` → `LOOP ... END LOOP`;
//! - `WHILE c LOOP ... END LOOP [label]` → `WHILE c DO ... END WHILE`;
//! - `FOR x IN [REVERSE] a..b | cursor | (query) LOOP ... END LOOP [label]` →
//!   `FOR ... DO ... END FOR` (the default grammar's FOR, MDEV-14415, read by
//!   `classify/routine_for.rs` / `routine_for_cursor.rs`);
//! - a label `<<name>>` before a loop → `name: ` (`sp_labeled_control`).
//!
//! A cursor attribute (`c%ISOPEN`, `%FOUND`, `%NOTFOUND`, `%ROWCOUNT`) has no default
//! grammar form and is refused; a condition the model cannot evaluate is refused by the
//! player of the written block (`classify/routine_flow.rs`) with its reason.

use super::{kw_eq, Tok};

/// One simple statement written in the default grammar (None: nothing to run).
pub(super) type Simple<'a> = &'a dyn Fn(&[Tok]) -> Result<Option<String>, String>;

/// The statements of `toks` (a body without its EXCEPTION section) in the default
/// grammar, each without its `;`.
pub(super) fn body(toks: &[Tok], simple: Simple) -> Result<Vec<String>, String> {
    if let Some(w) = toks
        .windows(2)
        .find(|w| w[0] == Tok::P('%') && attribute(&w[1]))
    {
        return Err(format!(
            "an Oracle anonymous block with a cursor attribute (%{}) is not followed",
            super::lex::render(&w[1..]).to_uppercase()
        ));
    }
    let mut i = 0;
    let out = stmts(toks, &mut i, simple)?;
    if i < toks.len() {
        return Err("an Oracle anonymous block with an unmatched END is not followed".into());
    }
    Ok(out)
}

fn attribute(t: &Tok) -> bool {
    ["isopen", "found", "notfound", "rowcount"]
        .iter()
        .any(|w| kw_eq(t, w))
}

/// Statements from `*i` up to a word that ends the enclosing construct (END, ELSIF,
/// ELSE) or the end of `t`.
fn stmts(t: &[Tok], i: &mut usize, simple: Simple) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    loop {
        while t.get(*i) == Some(&Tok::P(';')) {
            *i += 1;
        }
        let Some(first) = t.get(*i) else { break };
        if ["end", "elsif", "else"].iter().any(|w| kw_eq(first, w)) {
            break;
        }
        if let Some(s) = stmt(t, i, simple)? {
            out.push(s);
        }
    }
    Ok(out)
}

/// One statement at `*i`, `*i` moved past it.
fn stmt(t: &[Tok], i: &mut usize, simple: Simple) -> Result<Option<String>, String> {
    let start = *i;
    let mut label = None;
    let mut k = *i;
    while t.get(k) == Some(&Tok::P('<')) && t.get(k + 1) == Some(&Tok::P('<')) {
        if t.get(k + 3) != Some(&Tok::P('>')) || t.get(k + 4) != Some(&Tok::P('>')) {
            return Err("an Oracle anonymous block's label the model does not read".into());
        }
        label = t.get(k + 2).cloned();
        k += 5;
    }
    let word = |w: &str| t.get(k).is_some_and(|x| kw_eq(x, w));
    let text = if word("if") {
        *i = k + 1;
        if_stmt(t, i, simple)?
    } else if word("loop") || word("while") || word("for") {
        *i = k;
        loop_stmt(t, i, simple)?
    } else {
        let end = simple_end(t, start);
        *i = end;
        return simple(&t[start..end]);
    };
    Ok(Some(match label {
        Some(l) => format!("{}: {text}", super::lex::render(&[l])),
        None => text,
    }))
}

/// The end of the simple statement at `start`: its `;` outside parentheses.
fn simple_end(t: &[Tok], start: usize) -> usize {
    let mut depth = 0usize;
    for (k, x) in t.iter().enumerate().skip(start) {
        match x {
            Tok::P('(') => depth += 1,
            Tok::P(')') => depth = depth.saturating_sub(1),
            Tok::P(';') if depth == 0 => return k,
            _ => {}
        }
    }
    t.len()
}

/// The tokens from `*i` to the word `w` (outside parentheses), `*i` moved past `w`.
fn until<'t>(t: &'t [Tok], i: &mut usize, w: &str) -> Result<&'t [Tok], String> {
    let mut depth = 0usize;
    for k in *i..t.len() {
        match &t[k] {
            Tok::P('(') => depth += 1,
            Tok::P(')') => depth = depth.saturating_sub(1),
            Tok::P(';') if depth == 0 => break,
            x if depth == 0 && kw_eq(x, w) => {
                let part = &t[*i..k];
                *i = k + 1;
                return Ok(part);
            }
            _ => {}
        }
    }
    Err(format!(
        "an Oracle anonymous block's statement without its {} is not followed",
        w.to_uppercase()
    ))
}

/// `END w [label]` at `*i`, `*i` moved past it.
fn end_of(t: &[Tok], i: &mut usize, w: &str) -> Result<(), String> {
    if !(t.get(*i).is_some_and(|x| kw_eq(x, "end")) && t.get(*i + 1).is_some_and(|x| kw_eq(x, w))) {
        return Err(format!(
            "an Oracle anonymous block's {} without END {} is not followed",
            w.to_uppercase(),
            w.to_uppercase()
        ));
    }
    *i += 2;
    if matches!(t.get(*i), Some(Tok::Word { .. })) {
        *i += 1;
    }
    Ok(())
}

/// A statement list; an empty one (Oracle's `NULL;` is left out) is `BEGIN END`, as the
/// default grammar wants one statement at least (`sp_proc_stmts1`).
fn joined(stmts: Vec<String>) -> String {
    if stmts.is_empty() {
        return "BEGIN END; ".into();
    }
    stmts.iter().map(|s| format!("{s}; ")).collect()
}

/// `IF c THEN ... [ELSIF c THEN ...] [ELSE ...] END IF`, after IF.
fn if_stmt(t: &[Tok], i: &mut usize, simple: Simple) -> Result<String, String> {
    let mut out = String::from("IF ");
    loop {
        // A CASE expression's own THEN would end the condition too early.
        let cond = until(t, i, "then")?;
        if cond.iter().any(|x| kw_eq(x, "case")) {
            return Err(
                "an Oracle anonymous block's IF over a CASE expression is not followed".into(),
            );
        }
        out.push_str(&cond_text(cond, simple)?);
        out.push_str(" THEN ");
        out.push_str(&joined(stmts(t, i, simple)?));
        if t.get(*i).is_some_and(|x| kw_eq(x, "elsif")) {
            *i += 1;
            out.push_str("ELSEIF ");
            continue;
        }
        if t.get(*i).is_some_and(|x| kw_eq(x, "else")) {
            *i += 1;
            out.push_str("ELSE ");
            out.push_str(&joined(stmts(t, i, simple)?));
        }
        end_of(t, i, "if")?;
        out.push_str("END IF");
        return Ok(out);
    }
}

/// `[WHILE c | FOR x IN ...] LOOP ... END LOOP`, at its first word.
fn loop_stmt(t: &[Tok], i: &mut usize, simple: Simple) -> Result<String, String> {
    let first = t[*i].clone();
    *i += 1;
    let (head, tail) = if kw_eq(&first, "loop") {
        ("LOOP ".to_string(), "END LOOP")
    } else {
        let h = until(t, i, "loop")?;
        if kw_eq(&first, "while") {
            (format!("WHILE {} DO ", cond_text(h, simple)?), "END WHILE")
        } else {
            (format!("FOR {} DO ", super::lex::render(h)), "END FOR")
        }
    };
    let inner = joined(stmts(t, i, simple)?);
    end_of(t, i, "loop")?;
    Ok(format!("{head}{inner}{tail}"))
}

/// A condition written as the simple statements are (declared names quoted).
fn cond_text(c: &[Tok], simple: Simple) -> Result<String, String> {
    let mut v = vec![Tok::Word {
        text: "DO".into(),
        quoted: false,
    }];
    v.extend_from_slice(c);
    let s = simple(&v)?.unwrap_or_default();
    Ok(s.strip_prefix("DO ").unwrap_or(&s).to_string())
}
