//! The names an Oracle-mode routine body refers to that the server's parser resolves as
//! it reads the body, so that a CREATE PROCEDURE / FUNCTION naming one it lacks fails
//! before anything is stored (the Oracle branches of sql/sql_yacc.yy):
//!
//! - labels (GOTO, EXIT, CONTINUE): `classify/oracle_labels.rs`; an unlabelled EXIT /
//!   CONTINUE with no loop in the body is ER_SP_LILABEL_MISMATCH (measured:
//!   compat/oracle/t/sp-memory-leak.test, "EXIT with no matching label");
//! - cursors: `OPEN c`, `FETCH c`, `CLOSE c`, `c%ISOPEN` / `%FOUND` / `%NOTFOUND` /
//!   `%ROWCOUNT` of a `c` no `CURSOR c` declares is ER_SP_CURSOR_MISMATCH
//!   (`sp_pcontext::find_cursor` found none: `LEX::sp_open_cursor`,
//!   `LEX::make_item_plsql_cursor_attr`; compat/oracle/t/sp-cursor.test "Undefined
//!   CURSOR: c"); `FOR r IN c LOOP` of such a `c` is ER_SP_UNDECLARED_VAR (measured);
//! - a field assignment `r.a := ...` of an `r` that is neither declared, nor a parameter,
//!   nor a FOR loop's record is ER_UNKNOWN_STRUCTURED_VARIABLE (`LEX::set_variable`: the
//!   name is taken for a structured system variable; compat/oracle/t/sp-row.test); a FOR
//!   loop's record is known inside its loop only;
//! - `EXIT | CONTINUE WHEN name ...` of an undeclared bare name is ER_SP_UNDECLARED_VAR;
//! - a cursor opened with another number of arguments than it declares is
//!   ER_WRONG_PARAMCOUNT_TO_CURSOR.
//!
//! What these checks do not tell (two labels of one name, a cursor or variable declared
//! in another block than where it is used, the fields of a `%ROWTYPE`) is either refused
//! or a known difference (README, "Oracle mode").

use super::{kw_eq, Tok};

/// ER_SP_LILABEL_MISMATCH.
pub(super) use super::oracle_labels::ER_SP_LILABEL_MISMATCH;
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
    if let Some(code) = super::oracle_labels::check(body)? {
        return Ok(Some(code));
    }
    let cursors = declared_after(body, "cursor");
    let word = |k: usize| match body.get(k) {
        Some(Tok::Word { text, .. }) => Some(text.to_lowercase()),
        _ => None,
    };
    let loops = body.iter().any(|t| kw_eq(t, "loop"));
    for (i, t) in body.iter().enumerate() {
        let next = word(i + 1);
        let unnamed = next.as_ref().is_none_or(|n| n == "when");
        if (kw_eq(t, "exit") || kw_eq(t, "continue")) && unnamed && !loops {
            return Ok(Some(ER_SP_LILABEL_MISMATCH));
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
    if let Some(code) = cursor_args(body)? {
        return Ok(Some(code));
    }
    if let Some(code) = exit_when(body, params) {
        return Ok(Some(code));
    }
    fields(body, params)
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
            // `FOR i IN REVERSE a..b`: an integer range, no name to resolve.
            let range = body[i + 4..]
                .iter()
                .take(3)
                .any(|t| *t == Tok::P('.') || matches!(t, Tok::Num(n) if n.contains('.')));
            if range {
                continue;
            }
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
    let named =
        |t: &Tok, n: &str| matches!(t, Tok::Word { text, .. } if text.eq_ignore_ascii_case(n));
    let declared = declared_names(body);
    let known = |n: &str, at: usize| {
        params.iter().any(|p| p == n)
            || declared.iter().any(|d| d == n)
            // A FOR loop's record lives inside its loop only (after END LOOP the name is
            // unknown again: compat/oracle/t/sp-cursor-rowtype.test, 4081).
            || (0..at).any(|i| {
                kw_eq(&body[i], "for")
                    && body.get(i + 1).is_some_and(|t| named(t, n))
                    && loop_end(body, i) > at
            })
    };
    for (k, w) in body.windows(5).enumerate() {
        let starts = w[0] == Tok::P(';') || kw_eq(&w[0], "begin") || kw_eq(&w[0], "set");
        let (Tok::Word { text, .. }, Tok::P('.'), Tok::Word { .. }) = (&w[1], &w[2], &w[3]) else {
            continue;
        };
        if starts
            && (w[4] == Tok::P(':') || w[4] == Tok::P('='))
            && !known(&text.to_lowercase(), k + 1)
        {
            return Ok(Some(ER_UNKNOWN_STRUCTURED_VARIABLE));
        }
    }
    Ok(None)
}

/// The names declarations declare: `a [, b ...] type ...` at the body's start, after a
/// `;` or after DECLARE (`sp_decl_idents`: several names share one type).
fn declared_names(body: &[Tok]) -> Vec<String> {
    let mut out = Vec::new();
    for i in 0..body.len() {
        let starts = i == 0 || body[i - 1] == Tok::P(';') || kw_eq(&body[i - 1], "declare");
        if !starts {
            continue;
        }
        let mut k = i;
        let mut names = Vec::new();
        while let Some(Tok::Word { text, .. }) = body.get(k) {
            names.push(text.to_lowercase());
            if body.get(k + 1) != Some(&Tok::P(',')) {
                break;
            }
            k += 2;
        }
        // A declaration: the names are followed by a type (a word).
        if matches!(body.get(k + 1), Some(Tok::Word { .. })) {
            out.extend(names);
        }
    }
    out
}

/// ER_SP_UNDECLARED_VAR for `EXIT | CONTINUE [label] WHEN name ...` whose condition
/// starts with a bare name that nothing declares: the condition is a routine expression,
/// whose names the parser resolves as routine variables (`LEX::make_item_ident` in a
/// routine, sql/sql_lex.cc; measured: compat/oracle/t/sp.test MDEV-10411, 1327).
fn exit_when(body: &[Tok], params: &[String]) -> Option<u32> {
    const LITERALS: &[&str] = &["null", "true", "false", "not", "sql"];
    let declared = declared_names(body);
    let fors: Vec<String> = body
        .windows(2)
        .filter(|w| kw_eq(&w[0], "for"))
        .filter_map(|w| match &w[1] {
            Tok::Word { text, .. } => Some(text.to_lowercase()),
            _ => None,
        })
        .collect();
    let cursors = declared_after(body, "cursor");
    for (i, t) in body.iter().enumerate() {
        if !kw_eq(t, "when") || i == 0 {
            continue;
        }
        let exits = |k: usize| kw_eq(&body[k], "exit") || kw_eq(&body[k], "continue");
        if !(exits(i - 1) || (i >= 2 && exits(i - 2))) {
            continue;
        }
        let Some(Tok::Word {
            text,
            quoted: false,
        }) = body.get(i + 1)
        else {
            continue;
        };
        let n = text.to_lowercase();
        let next = body.get(i + 2);
        if next == Some(&Tok::P('(')) || next == Some(&Tok::P('%')) || next == Some(&Tok::P('.')) {
            continue;
        }
        let known = LITERALS.contains(&n.as_str())
            || params.contains(&n)
            || declared.contains(&n)
            || fors.contains(&n)
            || cursors.contains(&n);
        if !known {
            return Some(ER_SP_UNDECLARED_VAR);
        }
    }
    None
}

/// The index of the `END LOOP` that closes the loop of the FOR at `at` (the body's length
/// when none does).
fn loop_end(body: &[Tok], at: usize) -> usize {
    let mut depth = 0usize;
    for i in at..body.len() {
        let after_end = i > 0 && kw_eq(&body[i - 1], "end");
        if kw_eq(&body[i], "loop") && !after_end {
            depth += 1;
        } else if kw_eq(&body[i], "loop") && after_end {
            depth = depth.saturating_sub(1);
            if depth == 0 {
                return i;
            }
        }
    }
    body.len()
}

/// ER_WRONG_PARAMCOUNT_TO_CURSOR: `OPEN c(args)` / `FOR r IN c(args)` with another number
/// of arguments than `CURSOR c (params)` declares (`LEX::sp_open_cursor` /
/// `LEX::sp_for_loop_cursor_declarations` compare them, sql/sql_lex.cc; measured:
/// compat/oracle/t/sp-cursor.test, 4080).
const ER_WRONG_PARAMCOUNT_TO_CURSOR: u32 = 4080;

/// The arguments in the parentheses at `at` (0 when `at` is no `(`).
fn arg_count(body: &[Tok], at: usize) -> Option<usize> {
    if body.get(at) != Some(&Tok::P('(')) {
        return Some(0);
    }
    let end = super::lex::matching_paren(body, at)?;
    if end == at + 1 {
        return Some(0);
    }
    let mut depth = 0usize;
    let mut n = 1;
    for t in &body[at + 1..end] {
        match t {
            Tok::P('(') => depth += 1,
            Tok::P(')') => depth = depth.saturating_sub(1),
            Tok::P(',') if depth == 0 => n += 1,
            _ => {}
        }
    }
    Some(n)
}

/// A cursor opened with another number of arguments than it declares.
fn cursor_args(body: &[Tok]) -> Result<Option<u32>, String> {
    let mut declared: Vec<(String, usize)> = Vec::new();
    for i in 0..body.len() {
        if let (true, Some(Tok::Word { text, .. })) = (kw_eq(&body[i], "cursor"), body.get(i + 1)) {
            let n = arg_count(body, i + 2).ok_or("a cursor's parameters not read")?;
            declared.push((text.to_lowercase(), n));
        }
    }
    for i in 0..body.len() {
        let opens = kw_eq(&body[i], "open")
            || (kw_eq(&body[i], "in") && i >= 2 && kw_eq(&body[i - 2], "for"));
        let Some(Tok::Word { text, .. }) = body.get(i + 1).filter(|_| opens) else {
            continue;
        };
        let Some((_, want)) = declared.iter().find(|(n, _)| n.eq_ignore_ascii_case(text)) else {
            continue;
        };
        let got = arg_count(body, i + 2).ok_or("a cursor's arguments not read")?;
        if got != *want {
            return Ok(Some(ER_WRONG_PARAMCOUNT_TO_CURSOR));
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
        assert_eq!(
            ck("BEGIN goto lab5; if 1 then <<lab5>> NULL; end if; END"),
            Ok(Some(1308))
        );
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
            ck("BEGIN FOR i IN REVERSE 1..p LOOP NULL; END LOOP; END"),
            Ok(None)
        );
        assert_eq!(
            ck("BEGIN FOR r IN (SELECT 1 AS a) LOOP r.a:=1; END LOOP; END"),
            Ok(None)
        );
        assert_eq!(ck("BEGIN rec.a:=1; END"), Ok(Some(4081)));
        assert_eq!(ck("rec ROW(a INT); BEGIN rec.a:=1; END"), Ok(None));
        assert_eq!(ck("BEGIN p.a:=1; END"), Ok(None));
        assert_eq!(
            ck("rec1,rec2 ROW(a INT,b INT); BEGIN rec1.a:= 1; rec2.b:= 2; END"),
            Ok(None)
        );
        assert_eq!(
            ck("BEGIN LOOP EXIT WHEN unknown_ident IS NULL; END LOOP; END"),
            Ok(Some(1327))
        );
        assert_eq!(
            ck("a INT; BEGIN LOOP EXIT WHEN a IS NULL; END LOOP; END"),
            Ok(None)
        );
        assert_eq!(
            ck("CURSOR c IS SELECT 1; BEGIN LOOP EXIT WHEN c%NOTFOUND; END LOOP; END"),
            Ok(None)
        );
        assert_eq!(
            ck("BEGIN FOR rec IN (SELECT 1 AS a) LOOP NULL; END LOOP; rec.a:= 10; END"),
            Ok(Some(4081))
        );
        assert_eq!(
            ck("CURSOR c (a INT, b INT) IS SELECT a; BEGIN OPEN c(1); CLOSE c; END"),
            Ok(Some(4080))
        );
        assert_eq!(
            ck("CURSOR c (a INT) IS SELECT a; BEGIN FOR r IN c(1) LOOP NULL; END LOOP; END"),
            Ok(None)
        );
    }
}
