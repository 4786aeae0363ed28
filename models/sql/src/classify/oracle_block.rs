//! An anonymous block at the top level under `sql_mode=ORACLE`:
//!
//! ```text
//! [DECLARE declarations] BEGIN statements [EXCEPTION WHEN name [OR name] THEN ...] END
//! ```
//!
//! MariaDB's Oracle grammar takes it as an anonymous procedure, as the default grammar
//! takes `BEGIN NOT ATOMIC ... END` (sql/sql_yacc.yy, Oracle branch:
//! `sp_anonymous_block` → SQLCOM_COMPOUND; `mysql_execute_command`, sql/sql_parse.cc,
//! SQLCOM_COMPOUND → `sp_head::execute_procedure`): each statement runs with its own
//! locks, none on the block. The model writes the block in the default grammar
//! (`BEGIN NOT ATOMIC DECLARE ...; ... END`) and plays that (`classify/routine_anon.rs`):
//!
//! - a declaration `name type [:= expr | DEFAULT expr]` is `DECLARE name type [DEFAULT
//!   expr]`;
//! - `name := expr` is `SET name = expr`; `NULL` does nothing and is left out;
//! - the EXCEPTION section is an EXIT handler of the block per `WHEN` (`exception_handler`
//!   in the Oracle grammar; the predefined names of `sp_pcontext::find_predefined_condition`,
//!   sql/sp_pcontext.cc: NO_DATA_FOUND ER_SP_FETCH_NO_DATA, DUP_VAL_ON_INDEX ER_DUP_ENTRY,
//!   TOO_MANY_ROWS ER_TOO_MANY_ROWS, INVALID_CURSOR ER_SP_CURSOR_NOT_OPEN; OTHERS every
//!   error: SQLEXCEPTION);
//! - a label `<<name>>` before a statement, with no GOTO in the block, does nothing;
//! - a declared name is written quoted wherever it is read (Oracle mode lets keywords such
//!   as `do` or `close` name variables: MDEV-16244), not after SET, where the default
//!   grammar's ER_SP_BAD_VAR_SHADOW for `names` / `password` / `role` is the Oracle one's
//!   too (compat/oracle/t/parser.test).
//!
//! - cursors and `%TYPE` / `%ROWTYPE` declarations are written by
//!   `classify/oracle_decl.rs`; IF, LOOP, WHILE and FOR by `classify/oracle_flow.rs`.
//!
//! Anything else in the block (nested blocks, CASE, REPEAT, EXIT, GOTO, RAISE, RETURN, TYPE
//! and exception declarations, cursor attributes) is refused with its reason: the model
//! does not follow it.

use super::oracle_decl::Decl;
use super::{kw_eq, Tok};

/// The statements whose first word makes the model refuse the block: control flow and
/// cursors that the flat translation does not follow.
const UNFOLLOWED: &[&str] = &[
    "case", "begin", "declare", "exit", "continue", "goto", "raise", "return", "repeat", "forall",
    "pipe",
];

/// The default grammar's text of the Oracle anonymous block `toks`; None when `toks` is
/// no such block (another statement, or `BEGIN` of a transaction, which is a syntax
/// error in this mode: `classify/oracle_routine.rs`); `Err` with the reason the model
/// does not follow it.
pub(super) fn translate(toks: &[Tok]) -> Option<Result<String, String>> {
    let mut n = toks.len();
    while n > 0 && toks[n - 1] == Tok::P(';') {
        n -= 1;
    }
    let toks = &toks[..n];
    let first = toks.first()?;
    let at_begin = if kw_eq(first, "declare") {
        top_begin(toks)?
    } else if kw_eq(first, "begin") && toks.len() > 1 {
        if toks
            .get(1)
            .is_some_and(|t| kw_eq(t, "not") || kw_eq(t, "work"))
        {
            return None;
        }
        0
    } else {
        return None;
    };
    if !toks.last().is_some_and(|t| kw_eq(t, "end")) {
        return Some(Err(
            "an Oracle anonymous block that does not end with END".into()
        ));
    }
    Some(build(
        &toks[1.min(at_begin)..at_begin],
        &toks[at_begin + 1..toks.len() - 1],
    ))
}

/// The index of the block's BEGIN after `DECLARE`: the first `begin` word.
fn top_begin(toks: &[Tok]) -> Option<usize> {
    toks.iter().position(|t| kw_eq(t, "begin"))
}

fn build(decls: &[Tok], body: &[Tok]) -> Result<String, String> {
    let mut names: Vec<String> = Vec::new();
    let mut out: Vec<String> = Vec::new();
    let mut cursors: Vec<String> = Vec::new();
    for d in split(decls) {
        let (name, text) = match super::oracle_decl::special(d) {
            Some(r) => match r? {
                Decl::Var(name, text) => (name, text),
                Decl::Cursor(text) => {
                    cursors.push(text);
                    continue;
                }
            },
            None => declaration(d)?,
        };
        names.push(name);
        out.push(text);
    }
    out.append(&mut cursors);
    let (main, handlers) = match body.iter().position(|t| kw_eq(t, "exception")) {
        Some(k) => (&body[..k], Some(&body[k + 1..])),
        None => (body, None),
    };
    if let Some(h) = handlers {
        for text in handlers_of(h, &names)? {
            out.push(text);
        }
    }
    let goto = body.iter().any(|t| kw_eq(t, "goto"));
    out.extend(super::oracle_flow::body(main, &|s| {
        statement(s, &names, goto)
    })?);
    let mut sql = String::from("BEGIN NOT ATOMIC ");
    for s in out {
        sql.push_str(&s);
        sql.push_str("; ");
    }
    sql.push_str("END");
    Ok(sql)
}

/// The top-level `;`-separated pieces of `toks` (parentheses kept together), empty ones
/// left out.
fn split(toks: &[Tok]) -> Vec<&[Tok]> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (i, t) in toks.iter().enumerate() {
        match t {
            Tok::P('(') => depth += 1,
            Tok::P(')') => depth = depth.saturating_sub(1),
            Tok::P(';') if depth == 0 => {
                if i > start {
                    out.push(&toks[start..i]);
                }
                start = i + 1;
            }
            _ => {}
        }
    }
    if toks.len() > start {
        out.push(&toks[start..]);
    }
    out
}

/// `name type [:= expr | DEFAULT expr]` as `DECLARE ...`, with the declared name.
fn declaration(d: &[Tok]) -> Result<(String, String), String> {
    let Some(Tok::Word { text: name, .. }) = d.first() else {
        return Err("an Oracle anonymous block's declaration the model does not read".into());
    };
    let odd = d.iter().any(|t| {
        *t == Tok::P('%')
            || kw_eq(t, "cursor")
            || kw_eq(t, "exception")
            || kw_eq(t, "type")
            || kw_eq(t, "is")
    });
    if odd || d.len() < 2 {
        return Err(
            "an Oracle anonymous block with a cursor, an exception, a TYPE or an anchored \
             (%TYPE / %ROWTYPE) declaration is not followed"
                .into(),
        );
    }
    let mut rest: Vec<Tok> = Vec::new();
    let mut i = 1;
    while i < d.len() {
        if d[i] == Tok::P(':') && d.get(i + 1) == Some(&Tok::P('=')) {
            rest.push(Tok::Word {
                text: "DEFAULT".into(),
                quoted: false,
            });
            i += 2;
            continue;
        }
        rest.push(d[i].clone());
        i += 1;
    }
    let quoted = Tok::Word {
        text: name.clone(),
        quoted: true,
    };
    Ok((
        name.to_lowercase(),
        format!(
            "DECLARE {} {}",
            super::lex::render(&[quoted]),
            super::lex::render(&rest)
        ),
    ))
}

/// One statement of the block in the default grammar; None for `NULL`.
fn statement(s: &[Tok], names: &[String], goto: bool) -> Result<Option<String>, String> {
    let mut s = s;
    while s.len() > 4 && s[0] == Tok::P('<') && s[1] == Tok::P('<') {
        if goto {
            return Err("an Oracle anonymous block with GOTO is not followed".into());
        }
        if !(s[3] == Tok::P('>') && s[4] == Tok::P('>')) {
            return Err("an Oracle anonymous block's label the model does not read".into());
        }
        s = &s[5..];
    }
    let Some(first) = s.first() else {
        return Ok(None);
    };
    if s.len() == 1 && kw_eq(first, "null") {
        return Ok(None);
    }
    if let Some(w) = UNFOLLOWED.iter().find(|w| kw_eq(first, w)) {
        return Err(format!(
            "an Oracle anonymous block with `{}` is not followed",
            w.to_uppercase()
        ));
    }
    // A system variable's name is checked as the block is parsed (ER_UNKNOWN_SYSTEM_VARIABLE,
    // measured: compat/oracle/t/parser.test MDEV-15615), which the stored-program reader
    // does not do.
    let system =
        |t: &Tok| ["global", "session", "local"].iter().any(|w| kw_eq(t, w)) || *t == Tok::P('@');
    if kw_eq(first, "set") && s.get(1).is_some_and(system) {
        return Err("an Oracle anonymous block setting a system variable is not followed".into());
    }
    if s.windows(2)
        .any(|w| w[0] == Tok::P('<') && w[1] == Tok::P('<'))
    {
        return Err("an Oracle anonymous block's label the model does not read".into());
    }
    if s.len() > 2 && s[1] == Tok::P(':') && s[2] == Tok::P('=') {
        let mut v = vec![Tok::Word {
            text: "SET".into(),
            quoted: false,
        }];
        v.push(s[0].clone());
        v.push(Tok::P('='));
        v.extend(quote_names(&s[3..], names));
        return Ok(Some(super::lex::render(&v)));
    }
    Ok(Some(super::lex::render(&quote_names(s, names))))
}

/// `s` with the declared `names` quoted where they are read: not after SET or a `.`,
/// nor before `(` (a function of that name).
fn quote_names(s: &[Tok], names: &[String]) -> Vec<Tok> {
    let mut out = Vec::with_capacity(s.len());
    for (i, t) in s.iter().enumerate() {
        let prev = i.checked_sub(1).map(|k| &s[k]);
        let read = match t {
            Tok::Word {
                text,
                quoted: false,
            } => {
                names.contains(&text.to_lowercase())
                    && !prev.is_some_and(|p| kw_eq(p, "set") || *p == Tok::P('.'))
                    && s.get(i + 1) != Some(&Tok::P('('))
                    && s.get(i + 1) != Some(&Tok::P('.'))
            }
            _ => false,
        };
        if let (true, Tok::Word { text, .. }) = (read, t) {
            out.push(Tok::Word {
                text: text.clone(),
                quoted: true,
            });
        } else {
            out.push(t.clone());
        }
    }
    out
}

/// The EXCEPTION section `WHEN name [OR name] THEN statements ...` as the block's EXIT
/// handlers.
fn handlers_of(h: &[Tok], names: &[String]) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let starts: Vec<usize> = (0..h.len())
        .filter(|&i| kw_eq(&h[i], "when") && (i == 0 || h[i - 1] == Tok::P(';')))
        .collect();
    if starts.first() != Some(&0) {
        return Err("an Oracle anonymous block's EXCEPTION section the model does not read".into());
    }
    for (k, &at) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(h.len());
        let part = &h[at + 1..end];
        let Some(then) = part.iter().position(|t| kw_eq(t, "then")) else {
            return Err("an Oracle anonymous block's handler without THEN".into());
        };
        let mut conds = Vec::new();
        for c in part[..then].split(|t| kw_eq(t, "or")) {
            conds.push(condition(c)?);
        }
        let mut stmts = String::new();
        for s in split(&part[then + 1..]) {
            if let Some(text) = statement(s, names, false)? {
                stmts.push_str(&text);
                stmts.push_str("; ");
            }
        }
        out.push(format!(
            "DECLARE EXIT HANDLER FOR {} BEGIN {stmts}END",
            conds.join(", ")
        ));
    }
    Ok(out)
}

/// A handler's condition: OTHERS or a predefined name (`sp_pcontext::
/// find_predefined_condition`, sql/sp_pcontext.cc).
fn condition(c: &[Tok]) -> Result<String, String> {
    let [Tok::Word { text, .. }] = c else {
        return Err("an Oracle anonymous block's handler condition the model does not read".into());
    };
    Ok(match text.to_lowercase().as_str() {
        "others" => "SQLEXCEPTION".into(),
        "no_data_found" => "1329".into(),
        "dup_val_on_index" => "1062".into(),
        "too_many_rows" => "1172".into(),
        "invalid_cursor" => "1326".into(),
        _ => {
            return Err(
                "an Oracle anonymous block's handler for a declared exception is not followed"
                    .into(),
            )
        }
    })
}

#[cfg(test)]
mod tests {
    use super::super::tokens;
    use super::*;

    fn tr(sql: &str) -> Option<Result<String, String>> {
        translate(&tokens(sql).unwrap())
    }

    #[test]
    fn blocks_are_written_in_the_default_grammar() {
        assert_eq!(
            tr("DECLARE a20 INT:=20; BEGIN INSERT INTO t1 VALUES(a20); END;"),
            Some(Ok(
                "BEGIN NOT ATOMIC DECLARE `a20` INT DEFAULT 20; INSERT INTO t1 \
                     VALUES ( `a20` ); END"
                    .into()
            ))
        );
        assert_eq!(
            tr("DECLARE do INT; BEGIN SELECT do INTO do FROM DUAL; END"),
            Some(Ok(
                "BEGIN NOT ATOMIC DECLARE `do` INT; SELECT `do` INTO `do` FROM DUAL; \
                     END"
                .into()
            ))
        );
        assert_eq!(
            tr("BEGIN INSERT INTO t1 VALUES(1); EXCEPTION WHEN DUP_VAL_ON_INDEX THEN NULL; END"),
            Some(Ok(
                "BEGIN NOT ATOMIC DECLARE EXIT HANDLER FOR 1062 BEGIN END; INSERT INTO \
                     t1 VALUES ( 1 ); END"
                    .into()
            ))
        );
        assert_eq!(
            tr("DECLARE x INT; BEGIN <<l>> x:=1; END"),
            Some(Ok("BEGIN NOT ATOMIC DECLARE `x` INT; SET x = 1; END".into()))
        );
        assert_eq!(tr("BEGIN"), None);
        assert_eq!(tr("BEGIN WORK"), None);
        assert_eq!(tr("SELECT 1"), None);
        assert_eq!(
            tr("DECLARE CURSOR c IS SELECT 1; v INT; BEGIN OPEN c; FETCH c INTO v; END"),
            Some(Ok(
                "BEGIN NOT ATOMIC DECLARE `v` INT; DECLARE `c` CURSOR  FOR SELECT 1; \
                 OPEN c; FETCH c INTO `v`; END"
                    .into()
            ))
        );
        assert_eq!(
            tr("BEGIN IF 1 THEN NULL; ELSIF 2 THEN SELECT 2; ELSE SELECT 3; END IF; END"),
            Some(Ok(
                "BEGIN NOT ATOMIC IF 1 THEN BEGIN END; ELSEIF 2 THEN SELECT 2; ELSE SELECT 3; \
                 END IF; END"
                    .into()
            ))
        );
        assert_eq!(
            tr("DECLARE a t1.a%TYPE; BEGIN <<l>> FOR i IN 1..2 LOOP SELECT i; END LOOP l; END"),
            Some(Ok(
                "BEGIN NOT ATOMIC DECLARE `a` TYPE OF t1 . a ; l: FOR i IN 1..2 DO \
                 SELECT i; END FOR; END"
                    .into()
            ))
        );
        assert!(
            tr("DECLARE CURSOR c IS SELECT 1; BEGIN OPEN c; SELECT c%ISOPEN; END")
                .is_some_and(|r| r.is_err())
        );
        assert!(tr("BEGIN IF 1 THEN NULL; END; END").is_some_and(|r| r.is_err()));
        assert!(
            tr("BEGIN IF CASE WHEN 1 THEN 1 END = 1 THEN NULL; END IF; END")
                .is_some_and(|r| r.is_err())
        );
    }
}
