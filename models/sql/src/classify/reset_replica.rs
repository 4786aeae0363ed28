//! RESET forms beside `reload.rs`'s `RESET SLAVE [ALL]` and `RESET MASTER` (sql/sql_parse.cc,
//! SQLCOM_RESET: CF_AUTO_COMMIT_TRANS, then `reload_acl_and_cache` with no table), measured
//! on the harness's server (no replication configured, no binary log):
//!
//! - `RESET REPLICA [ALL]`: the parser's synonym of RESET SLAVE (sql_yacc.yy `slave`);
//! - `RESET MASTER TO n`: `reset_master` with a first file number, ER_FLUSH_MASTER_BINLOG_CLOSED
//!   after the implicit commit as RESET MASTER;
//! - `RESET SLAVE 'name' [ALL]` and `RESET SLAVE [ALL] FOR CHANNEL 'name'`: after the
//!   implicit commit, `reload_acl_and_cache`'s `get_master_info(&lex->mi.connection_name,
//!   Sql_condition::WARN_LEVEL_ERROR)` (sql/rpl_mi.cc) finds no connection of a name other
//!   than '' (the default one): ER_SLAVE_CONNECTION_NOT_FOUND; under LOCK TABLES the locks
//!   stay;
//! - both a connection name and FOR CHANNEL: the parser's ER_WRONG_ARGUMENTS
//!   (sql_yacc.yy `opt_for_channel`), before anything runs (the transaction's locks stay).
//!
//! Measured: suite/reset-replica-named.mdl.

use super::{Bind, Cx, Effect, Stmt, Tok};
use crate::kind::Kind;

/// ER_FLUSH_MASTER_BINLOG_CLOSED (also RESET MASTER's, `reload.rs`).
pub const ER_FLUSH_MASTER_BINLOG_CLOSED: u32 = 1186;
/// ER_SLAVE_CONNECTION_NOT_FOUND.
pub const ER_SLAVE_CONNECTION_NOT_FOUND: u32 = 1617;
/// ER_WRONG_ARGUMENTS.
pub const ER_WRONG_ARGUMENTS: u32 = 1210;

/// The statement if it is one of this file's forms (`toks`: the whole `RESET ...`).
pub(super) fn classify(cx: &Cx, toks: &[Tok]) -> Option<Result<Stmt, String>> {
    let kw = |t: Option<&Tok>, w: &str| matches!(t, Some(Tok::Word { text, quoted: false }) if text.eq_ignore_ascii_case(w));
    let mut i = 1;
    if kw(toks.get(i), "no_write_to_binlog") || kw(toks.get(i), "local") {
        i += 1;
    }
    let row = |effect| {
        Some(cx.plan(
            Kind::FlushStatus,
            vec![cx.part(Kind::FlushStatus, Bind::default())],
            effect,
            toks,
        ))
    };
    if kw(toks.get(i), "master") && kw(toks.get(i + 1), "to") {
        return match toks.get(i + 2..) {
            Some([Tok::Num(_)]) => row(Effect::Fail(ER_FLUSH_MASTER_BINLOG_CLOSED)),
            _ => None,
        };
    }
    if !(kw(toks.get(i), "slave") || kw(toks.get(i), "replica")) {
        return None;
    }
    i += 1;
    let name = match toks.get(i) {
        Some(Tok::Str(s)) => {
            i += 1;
            Some(s.clone())
        }
        _ => None,
    };
    if kw(toks.get(i), "all") {
        i += 1;
    }
    let channel = match toks.get(i..) {
        Some([]) => None,
        Some([f, c, Tok::Str(s)]) if kw(Some(f), "for") && kw(Some(c), "channel") => {
            Some(s.clone())
        }
        _ => return None,
    };
    match (name, channel) {
        (Some(_), Some(_)) => Some(Ok(Stmt::Fails(ER_WRONG_ARGUMENTS))),
        (Some(n), None) | (None, Some(n)) if !n.is_empty() => {
            row(Effect::Fail(ER_SLAVE_CONNECTION_NOT_FOUND))
        }
        _ => row(Effect::None),
    }
}
