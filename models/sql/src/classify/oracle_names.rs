//! The names an Oracle-mode routine body refers to that the server's parser resolves as
//! it reads the body, so that a CREATE PROCEDURE / FUNCTION naming one it lacks fails
//! before anything is stored (the Oracle branches of sql/sql_yacc.yy):
//!
//! - labels: `GOTO name` with no `<<name>>` in the body is ER_SP_LILABEL_MISMATCH
//!   (`LEX::check_goto_labels` / `sp_goto_statement`, sql/sql_lex.cc), and so is `EXIT
//!   name` / `CONTINUE name` with no such loop label (`LEX::sp_exit_statement`,
//!   `LEX::sp_continue_statement`: `find_label`), and an unlabelled EXIT / CONTINUE
//!   outside any loop (measured: compat/oracle/t/sp-memory-leak.test, "EXIT with no
//!   matching label"); two labels of one name are refused
//!   (ER_SP_LABEL_REDEFINE in one scope, allowed in sibling blocks: the model does not
//!   tell the scopes apart);
//! - cursors: `OPEN c`, `FETCH c`, `CLOSE c`, `c%ISOPEN` / `%FOUND` / `%NOTFOUND` /
//!   `%ROWCOUNT` of a `c` no `CURSOR c` declares is ER_SP_CURSOR_MISMATCH
//!   (`sp_pcontext::find_cursor` found none: `LEX::sp_open_cursor`,
//!   `LEX::make_item_plsql_cursor_attr`; compat/oracle/t/sp-cursor.test "Undefined
//!   CURSOR: c"); `FOR r IN c LOOP` of such a `c` is ER_SP_UNDECLARED_VAR (measured);
//! - a field assignment `r.a := ...` of an `r` that is neither declared, nor a parameter,
//!   nor a FOR loop's record is ER_UNKNOWN_STRUCTURED_VARIABLE (`LEX::set_variable`: the
//!   name is taken for a structured system variable; compat/oracle/t/sp-row.test).
//!
//! What these checks do not tell (a label in another block's scope, the fields of a
//! `%ROWTYPE`, nested DECLARE blocks) stays refused in `classify/oracle_routine.rs`.

use super::{kw_eq, Tok};

/// ER_SP_LILABEL_MISMATCH.
pub(super) const ER_SP_LILABEL_MISMATCH: u32 = super::routine_block::ER_SP_LILABEL_MISMATCH;
/// ER_SP_CURSOR_MISMATCH ("Undefined CURSOR").
const ER_SP_CURSOR_MISMATCH: u32 = 1324;
/// ER_SP_UNDECLARED_VAR.
const ER_SP_UNDECLARED_VAR: u32 = 1327;
/// ER_UNKNOWN_STRUCTURED_VARIABLE ("Unknown structured system variable or ROW routine
/// variable").
const ER_UNKNOWN_STRUCTURED_VARIABLE: u32 = 4081;

/// The cursor attributes (`%name`) the Oracle grammar reads after a cursor's name.
const ATTRS: &[&str] = &["isopen", "found", "notfound", "rowcount"];

/// The error the server's parser gives `body` (after AS / IS) of a routine with the
/// parameters `params`, Ok(None) when the names resolve, Err with the reason the model
/// cannot tell.
pub(super) fn check(body: &[Tok], params: &[String]) -> Result<Option<u32>, String> {
    let labels = labels(body)?;
    let cursors = declared_after(body, "cursor");
    let word = |k: usize| match body.get(k) {
        Some(Tok::Word { text, .. }) => Some(text.to_lowercase()),
        _ => None,
    };
    let loops = body.iter().any(|t| kw_eq(t, "loop"));
    for (i, t) in body.iter().enumerate() {
        let next = word(i + 1);
        if kw_eq(t, "goto") && next.as_ref().is_some_and(|n| !labels.contains(n)) {
            return Ok(Some(ER_SP_LILABEL_MISMATCH));
        }
        if kw_eq(t, "exit") || kw_eq(t, "continue") {
            let named = next.as_ref().filter(|n| n.as_str() != "when");
            match named {
                Some(n) if !labels.contains(n) => return Ok(Some(ER_SP_LILABEL_MISMATCH)),
                None if !loops => return Ok(Some(ER_SP_LILABEL_MISMATCH)),
                _ => {}
            }
        }
        let opens = (kw_eq(t, "open") || kw_eq(t, "close"))
            || (kw_eq(t, "fetch") && !body.get(i + 1).is_some_and(|n| kw_eq(n, "group")));
        if opens && next.as_ref().is_some_and(|n| !cursors.contains(n)) {
            return Ok(Some(ER_SP_CURSOR_MISMATCH));
        }
        let attr = body.get(i + 1) == Some(&Tok::P('%'))
            && body
                .get(i + 2)
                .is_some_and(|a| ATTRS.iter().any(|w| kw_eq(a, w)));
        if let (true, Some(n)) = (attr, word(i)) {
            if n != "sql" && !cursors.contains(&n) {
                return Ok(Some(ER_SP_CURSOR_MISMATCH));
            }
        }
    }
    if let Some(code) = for_loops(body, &cursors)? {
        return Ok(Some(code));
    }
    fields(body, params)
}

/// The labels `<<name>>` of `body`; Err when one name labels twice.
fn labels(body: &[Tok]) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = Vec::new();
    for w in body.windows(5) {
        if let [Tok::P('<'), Tok::P('<'), Tok::Word { text, .. }, Tok::P('>'), Tok::P('>')] = w {
            let n = text.to_lowercase();
            if out.contains(&n) {
                return Err(
                    "two labels of one name (the model does not tell the scopes \
                            apart)"
                        .into(),
                );
            }
            out.push(n);
        }
    }
    Ok(out)
}

/// The names declared by `name KEYWORD` (`c CURSOR` is not Oracle's order: `CURSOR c`),
/// for `keyword` "cursor": the word after each CURSOR.
fn declared_after(body: &[Tok], keyword: &str) -> Vec<String> {
    body.windows(2)
        .filter(|w| kw_eq(&w[0], keyword))
        .filter_map(|w| match &w[1] {
            Tok::Word { text, .. } => Some(text.to_lowercase()),
            _ => None,
        })
        .collect()
}

/// `FOR r IN name LOOP` of a `name` that is no declared cursor: ER_SP_UNDECLARED_VAR
/// (measured on MariaDB 10.11: the name is looked up as a variable, the bound of an
/// integer range, `LEX::sp_for_loop_condition`).
fn for_loops(body: &[Tok], cursors: &[String]) -> Result<Option<u32>, String> {
    for (i, t) in body.iter().enumerate() {
        if !kw_eq(t, "for") || !body.get(i + 2).is_some_and(|t| kw_eq(t, "in")) {
            continue;
        }
        let Some(Tok::Word {
            text,
            quoted: false,
        }) = body.get(i + 3)
        else {
            continue;
        };
        if kw_eq(&body[i + 3], "reverse") {
            return Err("FOR ... IN REVERSE".into());
        }
        let after = body.get(i + 4);
        if cursors.contains(&text.to_lowercase()) {
            continue;
        }
        if after.is_some_and(|a| kw_eq(a, "loop")) {
            return Ok(Some(ER_SP_UNDECLARED_VAR));
        }
        if after == Some(&Tok::P('(')) {
            return Err("FOR ... IN name(...) of no declared cursor".into());
        }
    }
    Ok(None)
}

/// `r.a := ...` (or `SET r.a = ...`) of an `r` that nothing declares.
fn fields(body: &[Tok], params: &[String]) -> Result<Option<u32>, String> {
    let known = |n: &str| {
        params.iter().any(|p| p == n)
            || body.windows(3).any(|w| {
                (w[0] == Tok::P(';') || kw_eq(&w[0], "declare") || kw_eq(&w[0], "for"))
                    && matches!(&w[1], Tok::Word { text, .. } if text.eq_ignore_ascii_case(n))
                    && (matches!(w[2], Tok::Word { .. }))
            })
            || matches!(body.first(), Some(Tok::Word { text, .. }) if text.eq_ignore_ascii_case(n))
    };
    for w in body.windows(5) {
        let starts = w[0] == Tok::P(';') || kw_eq(&w[0], "begin") || kw_eq(&w[0], "set");
        let (Tok::Word { text, .. }, Tok::P('.'), Tok::Word { .. }) = (&w[1], &w[2], &w[3]) else {
            continue;
        };
        if starts && (w[4] == Tok::P(':') || w[4] == Tok::P('=')) && !known(&text.to_lowercase()) {
            return Ok(Some(ER_UNKNOWN_STRUCTURED_VARIABLE));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::super::tokens;
    use super::*;

    fn ck(s: &str) -> Result<Option<u32>, String> {
        check(&tokens(s).unwrap(), &["p".to_owned()])
    }

    #[test]
    fn names_resolve_or_fail() {
        assert_eq!(ck("BEGIN GOTO lab1; <<lab1>> NULL; END"), Ok(None));
        assert_eq!(ck("BEGIN GOTO lab5; <<lab1>> NULL; END"), Ok(Some(1308)));
        assert!(ck("BEGIN <<a>> NULL; <<a>> NULL; END").is_err());
        assert_eq!(ck("BEGIN LOOP EXIT lab; END LOOP; END"), Ok(Some(1308)));
        assert_eq!(
            ck("BEGIN <<l>> LOOP EXIT l WHEN 1; END LOOP; END"),
            Ok(None)
        );
        assert_eq!(ck("BEGIN EXIT WHEN 1; END"), Ok(Some(1308)));
        assert_eq!(ck("BEGIN SELECT c%ISOPEN; END"), Ok(Some(1324)));
        assert_eq!(
            ck("CURSOR c IS SELECT 1; BEGIN OPEN c; CLOSE c; END"),
            Ok(None)
        );
        assert_eq!(ck("BEGIN OPEN c; END"), Ok(Some(1324)));
        assert_eq!(ck("BEGIN SELECT SQL%ROWCOUNT; END"), Ok(None));
        assert_eq!(
            ck("BEGIN FOR r IN c LOOP NULL; END LOOP; END"),
            Ok(Some(1327))
        );
        assert_eq!(ck("BEGIN FOR i IN 1..3 LOOP NULL; END LOOP; END"), Ok(None));
        assert_eq!(
            ck("BEGIN FOR r IN (SELECT 1 AS a) LOOP r.a:=1; END LOOP; END"),
            Ok(None)
        );
        assert_eq!(ck("BEGIN rec.a:=1; END"), Ok(Some(4081)));
        assert_eq!(ck("rec ROW(a INT); BEGIN rec.a:=1; END"), Ok(None));
        assert_eq!(ck("BEGIN p.a:=1; END"), Ok(None));
    }
}
