//! Statements of the Oracle grammar that stand outside any routine (sql/sql_yacc.yy, the
//! Oracle branch), none of which takes a metadata lock:
//!
//! - `RAISE name` outside a stored program finds no condition (no `sp_pcontext`:
//!   `LEX::add_signal_statement` via `sp_pcontext::find_declared_or_predefined_condition`
//!   has no context, so even NO_DATA_FOUND is unknown): ER_SP_COND_MISMATCH (1319);
//!   `RAISE` alone is a RESIGNAL with no active handler,
//!   ER_RESIGNAL_WITHOUT_ACTIVE_HANDLER (1645) (`Sql_cmd_resignal::execute`,
//!   sql/sql_signal.cc); measured: compat/oracle/t/exception.test.
//! - `name := expr` is `SET name = expr` (`set_assign` in the Oracle grammar: an
//!   assignment of a system variable outside a routine; compat/oracle/t/variables.test),
//!   classified as that SET.
//! - `SELECT c%ISOPEN` (and the other cursor attributes) outside a routine names no
//!   declared cursor: ER_SP_CURSOR_MISMATCH (1324).
//! - `:NEW.a := 1` / `:name...` outside a trigger is a syntax error (the colon starts a
//!   trigger's `:NEW` / `:OLD` only in a trigger body; compat/oracle/t/trigger.test).

use super::{kw_eq, Cx, Stmt, Tok};

/// ER_SP_COND_MISMATCH.
const ER_SP_COND_MISMATCH: u32 = 1319;
/// ER_RESIGNAL_WITHOUT_ACTIVE_HANDLER.
const ER_RESIGNAL_WITHOUT_ACTIVE_HANDLER: u32 = 1645;

/// The statement when `toks` is one of this file's forms; None otherwise.
pub(super) fn classify(cx: &Cx, toks: &[Tok]) -> Option<Result<Stmt, String>> {
    let mut n = toks.len();
    while n > 0 && toks[n - 1] == Tok::P(';') {
        n -= 1;
    }
    let toks = &toks[..n];
    match toks {
        [r] if kw_eq(r, "raise") => Some(Ok(Stmt::Fails(ER_RESIGNAL_WITHOUT_ACTIVE_HANDLER))),
        [r, Tok::Word { .. }] if kw_eq(r, "raise") => Some(Ok(Stmt::Fails(ER_SP_COND_MISMATCH))),
        [Tok::P(':'), Tok::Word { .. }, ..] => Some(Ok(Stmt::Fails(super::ER_PARSE_ERROR))),
        [s, ..] if kw_eq(s, "select") && cursor_attr(toks) => {
            Some(Ok(Stmt::Fails(ER_SP_CURSOR_MISMATCH)))
        }
        [Tok::Word { .. }, Tok::P(':'), Tok::P('='), rest @ ..] if !rest.is_empty() => {
            let text = format!(
                "SET {} = {}",
                super::lex::render(&toks[..1]),
                super::lex::render(rest)
            );
            Some(super::classify(&text, cx.db, cx.cat, cx.has_row))
        }
        _ => None,
    }
}

/// ER_SP_CURSOR_MISMATCH.
const ER_SP_CURSOR_MISMATCH: u32 = 1324;

/// Whether `toks` reads a cursor attribute `c%ISOPEN` / `%FOUND` / `%NOTFOUND` /
/// `%ROWCOUNT` of a cursor `c` (not `SQL%ROWCOUNT`): outside a routine no cursor is
/// declared (`LEX::make_item_plsql_cursor_attr`, sql/sql_lex.cc; measured:
/// compat/oracle/t/sp-cursor.test, "Undefined CURSOR: c").
fn cursor_attr(toks: &[Tok]) -> bool {
    toks.windows(3).any(|w| {
        matches!(&w[0], Tok::Word { text, .. } if !text.eq_ignore_ascii_case("sql"))
            && w[1] == Tok::P('%')
            && ["isopen", "found", "notfound", "rowcount"]
                .iter()
                .any(|a| kw_eq(&w[2], a))
    })
}

#[cfg(test)]
mod tests {
    use super::super::tokens;
    use super::*;

    #[test]
    fn top_level_forms() {
        let cat = crate::catalog::Catalog::default();
        let has = |_: &str| true;
        let run = |sql: &str| {
            let cx = Cx {
                sql,
                db: "test",
                cat: &cat,
                has_row: &has,
            };
            classify(&cx, &tokens(sql).unwrap())
        };
        assert!(matches!(run("RAISE"), Some(Ok(Stmt::Fails(1645)))));
        assert!(matches!(
            run("RAISE NO_DATA_FOUND;"),
            Some(Ok(Stmt::Fails(1319)))
        ));
        assert!(matches!(run(":NEW.a := 1"), Some(Ok(Stmt::Fails(1064)))));
        assert!(run("SELECT 1").is_none());
        assert!(matches!(
            run("SELECT c%ISOPEN"),
            Some(Ok(Stmt::Fails(1324)))
        ));
        assert!(run("SELECT SQL%ROWCOUNT").is_none());
        assert!(run("max_sort_length:=1030").is_some());
    }
}
