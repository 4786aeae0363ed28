//! `XA START | BEGIN`, `XA END`, `XA PREPARE`, `XA COMMIT [ONE PHASE]`, `XA ROLLBACK`,
//! `XA RECOVER` (sql/sql_yacc.yy, `xa`), played by `crate::model::xa`.

use super::Tok;
use crate::stmt::{Stmt, XaOp, XaStmt};

/// `XA ...` from its tokens, or why it is refused.
pub(super) fn classify_xa(sql: &str, toks: &[Tok]) -> Result<Stmt, String> {
    let word = |i: usize| match toks.get(i) {
        Some(Tok::Word {
            text,
            quoted: false,
        }) => text.to_ascii_lowercase(),
        _ => String::new(),
    };
    let op = match word(1).as_str() {
        "start" | "begin" => XaOp::Start,
        "end" => XaOp::End,
        "prepare" => XaOp::Prepare,
        "commit" => XaOp::Commit { one_phase: false },
        "rollback" => XaOp::Rollback,
        "recover" => {
            // XA RECOVER [FORMAT = 'SQL' | 'RAW']: reads the xid cache, no table.
            let format = match (toks.get(3), toks.get(4)) {
                (Some(Tok::P('=')), Some(Tok::Str(f))) if word(2) == "format" => Some(f),
                _ => None,
            };
            let plain = toks.len() == 2;
            if !plain
                && !format.is_some_and(|f| matches!(f.to_ascii_lowercase().as_str(), "sql" | "raw"))
                || toks.len() > 5
            {
                return Err(format!("`{sql}`: this XA RECOVER is not modelled"));
            }
            return Ok(Stmt::Xa(XaStmt {
                op: XaOp::Recover,
                xid: String::new(),
                option: false,
            }));
        }
        _ => return Err(format!("`{sql}`: this XA statement is not modelled")),
    };
    let mut i = 2;
    let mut parts = Vec::new();
    loop {
        match toks.get(i) {
            Some(Tok::Str(s)) => parts.push(format!("'{s}'")),
            Some(Tok::Num(n)) if !parts.is_empty() => parts.push(n.clone()),
            _ => return Err(format!("`{sql}`: an xid of string literals is modelled")),
        }
        i += 1;
        if toks.get(i) != Some(&Tok::P(',')) || parts.len() == 3 {
            break;
        }
        i += 1;
    }
    let rest: Vec<String> = (i..toks.len()).map(word).collect();
    let rest: Vec<&str> = rest.iter().map(String::as_str).collect();
    let (op, option) = match (op, rest.as_slice()) {
        (op, []) => (op, false),
        (XaOp::Commit { .. }, ["one", "phase"]) => (XaOp::Commit { one_phase: true }, false),
        (XaOp::Start, ["join" | "resume"]) => (XaOp::Start, true),
        (XaOp::End, ["suspend"] | ["suspend", "for", "migrate"]) => (XaOp::End, true),
        _ => return Err(format!("`{sql}`: unexpected words after the xid")),
    };
    // The formatID is not part of the xid's identity: `XID::eq` and the xid cache's key
    // compare the gtrid and bqual only (sql/handler.h; measured: `XA START 'a','b', 123`
    // while another session has 'a','b' is ER_XAER_DUPID, main/xa.test).
    parts.truncate(2);
    Ok(Stmt::Xa(XaStmt {
        op,
        xid: parts.join(","),
        option,
    }))
}
