//! `CREATE [OR REPLACE] SERVER [IF NOT EXISTS] name FOREIGN DATA WRAPPER w OPTIONS (...)`,
//! `ALTER SERVER name OPTIONS (...)`, `DROP SERVER [IF EXISTS] name` (MariaDB
//! `sql/sql_servers.cc`; SQLCOM_CREATE_SERVER / ALTER_SERVER / DROP_SERVER are
//! CF_AUTO_COMMIT_TRANS, sql/sql_parse.cc `init_update_queries`).
//!
//! Measured on 10.11.19 (suite/servers-and-help.mdl): `create_server`, `alter_server` and
//! `drop_server` look the name up in the servers' cache first; a CREATE of a name that
//! exists (ER_FOREIGN_SERVER_EXISTS, 1476, or a note with IF NOT EXISTS), an ALTER or DROP
//! of one that does not (ER_FOREIGN_SERVER_DOESNT_EXIST, 1477, or a note with IF EXISTS)
//! and a `mysql` wrapper with neither HOST nor SOCKET (ER_CANT_CREATE_FEDERATED_TABLE,
//! 1434) end there, after the implicit commit and before any lock (no 1223 under FTWRL,
//! no 1100 under LOCK TABLES): the learned `flush_status` row (an implicit commit, no
//! lock). Otherwise the statement opens `mysql.servers` with `open_ltable(TL_WRITE)`: the
//! learned `server` row (the SW of a system table, which the harness does not compare,
//! then the backup lock that FTWRL blocks; 1223 under the session's FTWRL, 1100 under
//! LOCK TABLES).
//!
//! A difference written down: a DROP SERVER of a server that exists refused by the
//! session's FTWRL (1223) or LOCK TABLES (1100) has already taken the server out of
//! `drop_server`'s cache on 10.11.19 (measured: a DROP after it is 1477); the model, whose
//! session rules fail a statement before its effect, keeps it.
//!
//! Refused: CREATE OR REPLACE of a server that exists (measured: under FTWRL it drops the
//! old server, then fails with 1223), a PORT out of INT's range or negative (the parser's
//! 1690 / 1064, before the implicit commit).

use super::{Bind, Cx, Effect, Stmt, Tok};
use crate::kind::Kind;
use crate::servers::{ServerOp, ER_CANT_CREATE_FEDERATED_TABLE};

/// The statement if it is one of these, else None.
pub(super) fn classify(cx: &Cx, toks: &[Tok], words: &[String]) -> Option<Result<Stmt, String>> {
    let at = |i: usize| words.get(i).map(String::as_str).unwrap_or("");
    let server = at(1) == "server" || (at(1) == "or" && at(3) == "server");
    match at(0) {
        "create" | "alter" | "drop" if server => Some(server_stmt(cx, toks)),
        _ => None,
    }
}

fn word(t: Option<&Tok>) -> Option<String> {
    match t? {
        Tok::Word { text, .. } | Tok::Str(text) => Some(text.to_ascii_lowercase()),
        _ => None,
    }
}

/// The options `( name value, ... )` at `toks[i..]` (the tokens after OPTIONS): whether
/// HOST or SOCKET is among them; Err for a form not read.
fn options(sql: &str, toks: &[Tok]) -> Result<bool, String> {
    let bad = |why: &str| Err(format!("`{sql}`: SERVER's OPTIONS: {why}"));
    if toks.first() != Some(&Tok::P('(')) || toks.last() != Some(&Tok::P(')')) {
        return bad("expected a list in parentheses");
    }
    let inner = &toks[1..toks.len() - 1];
    let mut host = false;
    for opt in inner.split(|t| *t == Tok::P(',')) {
        match (
            opt.first().and_then(|t| word(Some(t))),
            opt.get(1),
            opt.len(),
        ) {
            (Some(n), Some(Tok::Num(v)), 2) if n == "port" => match v.parse::<i64>() {
                Ok(p) if p <= i64::from(i32::MAX) => {}
                _ => return bad("a PORT out of INT's range is the parser's 1690"),
            },
            (Some(n), Some(Tok::Str(_)), 2)
                if matches!(
                    n.as_str(),
                    "host" | "database" | "user" | "password" | "socket" | "owner"
                ) =>
            {
                host |= n == "host" || n == "socket";
            }
            _ => return bad("an option not read (a negative PORT is the parser's 1064)"),
        }
    }
    Ok(host)
}

fn server_stmt(cx: &Cx, toks: &[Tok]) -> Result<Stmt, String> {
    let sql = cx.sql;
    let bad = || format!("`{sql}`: this SERVER statement is not modelled");
    let w = |i: usize| word(toks.get(i)).unwrap_or_default();
    let verb = w(0);
    let or_replace = w(1) == "or";
    let mut i = if or_replace { 4 } else { 2 };
    let guard = match (verb.as_str(), w(i).as_str(), w(i + 1).as_str()) {
        ("create", "if", "not") => 3,
        ("drop", "if", "exists") => 2,
        _ => 0,
    };
    i += guard;
    let name = word(toks.get(i)).ok_or_else(bad)?;
    i += 1;
    let exists = cx.cat.servers.contains(&name);
    let (op, fail) = match verb.as_str() {
        "create" => {
            if w(i) != "foreign" || w(i + 1) != "data" || w(i + 2) != "wrapper" {
                return Err(bad());
            }
            let wrapper = word(toks.get(i + 3)).ok_or_else(bad)?;
            if w(i + 4) != "options" {
                return Err(bad());
            }
            let host = options(sql, &toks[i + 5..])?;
            if or_replace && exists {
                return Err(format!(
                    "`{sql}`: CREATE OR REPLACE of a server that exists is not modelled"
                ));
            }
            let fail = if exists {
                (guard == 0).then_some(crate::servers::ER_FOREIGN_SERVER_EXISTS)
            } else if wrapper == "mysql" && !host {
                Some(ER_CANT_CREATE_FEDERATED_TABLE)
            } else {
                None
            };
            (ServerOp::Create(name), (exists || fail.is_some(), fail))
        }
        "alter" => {
            if w(i) != "options" {
                return Err(bad());
            }
            options(sql, &toks[i + 1..])?;
            let fail = (!exists).then_some(crate::servers::ER_FOREIGN_SERVER_DOESNT_EXIST);
            (ServerOp::Alter, (!exists, fail))
        }
        "drop" if i == toks.len() => {
            let fail =
                (!exists && guard == 0).then_some(crate::servers::ER_FOREIGN_SERVER_DOESNT_EXIST);
            (ServerOp::Drop(name), (!exists, fail))
        }
        _ => return Err(bad()),
    };
    let (no_open, fail) = fail;
    let kind = if no_open {
        Kind::FlushStatus
    } else {
        Kind::Server
    };
    if !(cx.has_row)(kind.as_str()) {
        return Err(format!("`{sql}`: `{kind}` is not in the learned table"));
    }
    let effect = match (no_open, fail) {
        (_, Some(code)) => Effect::Fail(code),
        (true, None) => Effect::None,
        (false, None) => Effect::Server(op),
    };
    cx.plan(kind, vec![cx.part(kind, Bind::default())], effect, toks)
}
