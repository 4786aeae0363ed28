//! The cursor and anchored declarations of an Oracle anonymous block, written in the
//! default grammar (`classify/oracle_block.rs` writes the rest of the block).
//!
//! The Oracle grammar (sql/sql_yacc.yy, Oracle branch `sp_decl_body`):
//!
//! - `CURSOR name [(p [IN] type, ...)] IS query` is the default grammar's `DECLARE name
//!   CURSOR [(p type, ...)] FOR query` (`sp_decl_handler` / `sp_cursor_stmt`, both build
//!   one `sp_pcursor` in `LEX::sp_declare_cursor`, sql/sql_lex.cc); a parameter's mode
//!   other than IN is the parser's error, which the model does not follow;
//! - `name t.c%TYPE` is `DECLARE name TYPE OF t.c`, `name v%TYPE` is `DECLARE name TYPE
//!   OF v`, `name t%ROWTYPE` / `name c%ROWTYPE` is `DECLARE name ROW TYPE OF t` (the same
//!   `LEX::sp_variable_declarations_*` calls: `..._column_type_finalize`,
//!   `..._vartype_finalize`, `..._rowtype_finalize`, `..._cursor_rowtype_finalize`).
//!
//! The Oracle grammar lets a variable follow a cursor (MDEV-10598: the cursors are pushed
//! after the whole declaration list, `sp_add_instr_cpush_for_cursors`); the default
//! grammar does not (ER_SP_VARCOND_AFTER_CURSHNDLR), so the model writes the variables
//! first.
//!
//! TYPE and user EXCEPTION declarations stay refused.

use super::{kw_eq, Tok};

/// ER_NOT_SUPPORTED_YET ("OUT/INOUT cursor parameter"): the Oracle grammar's cursor
/// parameter with a mode other than IN is refused as the block is parsed (sql/sql_yacc.yy,
/// Oracle branch, the cursor's `sp_fdparam` list; measured: compat/oracle/t/sp-cursor.test,
/// "End of 10.8 tests").
pub(super) const ER_NOT_SUPPORTED_YET: u32 = 1235;

/// The error the parser gives for the declarations of the block `toks` (`DECLARE ...
/// BEGIN`), if any.
pub(super) fn parse_error(toks: &[Tok]) -> Option<u32> {
    if !toks.first().is_some_and(|t| kw_eq(t, "declare")) {
        return None;
    }
    let begin = toks.iter().position(|t| kw_eq(t, "begin"))?;
    let decls = &toks[..begin];
    let cursor_out = decls.windows(2).enumerate().any(|(k, w)| {
        kw_eq(&w[0], "cursor") && {
            let is = decls[k..]
                .iter()
                .position(|t| kw_eq(t, "is"))
                .map(|e| k + e);
            is.is_some_and(|e| {
                decls[k..e]
                    .iter()
                    .any(|t| kw_eq(t, "out") || kw_eq(t, "inout"))
            })
        }
    });
    cursor_out.then_some(ER_NOT_SUPPORTED_YET)
}

/// What one declaration is in the default grammar.
pub(super) enum Decl {
    /// A variable (with its declared name) or a cursor: `DECLARE ...` text.
    Var(String, String),
    Cursor(String),
}

/// The default grammar's declaration for a cursor or an anchored declaration `d`; None
/// for any other declaration.
pub(super) fn special(d: &[Tok]) -> Option<Result<Decl, String>> {
    if d.first().is_some_and(|t| kw_eq(t, "cursor")) {
        return Some(cursor(d).map(Decl::Cursor));
    }
    let pct = d.iter().position(|t| *t == Tok::P('%'))?;
    Some(anchored(d, pct))
}

fn refused() -> String {
    "an Oracle anonymous block with an exception, a TYPE, a cursor parameter's OUT / INOUT or \
     an anchored declaration the model does not read is not followed"
        .into()
}

/// `CURSOR name [(params)] IS query`.
fn cursor(d: &[Tok]) -> Result<String, String> {
    let is = d.iter().position(|t| kw_eq(t, "is")).ok_or_else(refused)?;
    let Some(Tok::Word { text: name, .. }) = d.get(1) else {
        return Err(refused());
    };
    let params = &d[2..is];
    if params.iter().any(|t| kw_eq(t, "out") || kw_eq(t, "inout")) {
        return Err(refused());
    }
    let params: Vec<Tok> = params.iter().filter(|t| !kw_eq(t, "in")).cloned().collect();
    let quoted = Tok::Word {
        text: name.clone(),
        quoted: true,
    };
    Ok(format!(
        "DECLARE {} CURSOR {} FOR {}",
        super::lex::render(&[quoted]),
        super::lex::render(&params),
        super::lex::render(&d[is + 1..])
    ))
}

/// `name ref%TYPE | ref%ROWTYPE [:= expr | DEFAULT expr]`.
fn anchored(d: &[Tok], pct: usize) -> Result<Decl, String> {
    let Some(Tok::Word { text: name, .. }) = d.first() else {
        return Err(refused());
    };
    let anchor = &d[1..pct];
    let kind = d.get(pct + 1).ok_or_else(refused)?;
    let of = if kw_eq(kind, "type") {
        "TYPE OF"
    } else if kw_eq(kind, "rowtype") {
        "ROW TYPE OF"
    } else {
        return Err(refused());
    };
    let anchor_ok = anchor
        .iter()
        .all(|t| matches!(t, Tok::Word { .. } | Tok::P('.')));
    if anchor.is_empty() || !anchor_ok {
        return Err(refused());
    }
    let mut rest: Vec<Tok> = Vec::new();
    let tail = &d[pct + 2..];
    let mut i = 0;
    while i < tail.len() {
        if tail[i] == Tok::P(':') && tail.get(i + 1) == Some(&Tok::P('=')) {
            rest.push(Tok::Word {
                text: "DEFAULT".into(),
                quoted: false,
            });
            i += 2;
            continue;
        }
        rest.push(tail[i].clone());
        i += 1;
    }
    let quoted = Tok::Word {
        text: name.clone(),
        quoted: true,
    };
    Ok(Decl::Var(
        name.to_lowercase(),
        format!(
            "DECLARE {} {of} {} {}",
            super::lex::render(&[quoted]),
            super::lex::render(anchor),
            super::lex::render(&rest)
        ),
    ))
}
