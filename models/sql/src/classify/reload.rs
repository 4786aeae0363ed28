//! FLUSH and RESET of no table, and RENAME DATABASE (split from `misc.rs`):
//!
//! - `FLUSH [NO_WRITE_TO_BINLOG | LOCAL] PRIVILEGES | STATUS | LOGS` (sql/sql_reload.cc,
//!   `reload_acl_and_cache`; CF_AUTO_COMMIT_TRANS; FLUSH PRIVILEGES re-reads the grant
//!   tables, so it fails under LOCK TABLES): their learned rows;
//! - `FLUSH THREADS | SSL | RELAY LOGS | SLAVE` and `RESET QUERY CACHE | SLAVE [ALL]`: the
//!   same SQLCOM_FLUSH / SQLCOM_RESET through `reload_acl_and_cache` with no table, so the
//!   learned `flush_status` row (no lock, the implicit commit; measured on 10.11.19: the
//!   transaction's SR goes, they run under LOCK TABLES; suite/flush-reset-no-table.mdl).
//!   The harness's server has no replication configured: FLUSH RELAY LOGS, FLUSH SLAVE and
//!   RESET SLAVE do nothing there;
//! - `RESET MASTER`: the same, then ER_FLUSH_MASTER_BINLOG_CLOSED (`reset_master`: the
//!   harness's server runs without a binary log); RESET REPLICA, RESET MASTER TO n and a
//!   named connection: [`super::reset_replica`];
//! - the parser's errors: an option twice in a list (`flush relay logs, relay logs`,
//!   `flush slave, slave`: ER_WRONG_USAGE in sql_yacc.yy's `flush_option`), TABLES in a list
//!   of other options (`flush privileges, tables`, `flush tables with read lock, tables`:
//!   ER_PARSE_ERROR), and `RENAME DATABASE` (gone from the grammar since MySQL 5.1.23:
//!   ER_PARSE_ERROR; main/flush.result, main/renamedb.result).

use super::reset_replica::ER_FLUSH_MASTER_BINLOG_CLOSED;
use super::{Bind, Cx, Effect, Stmt, Tok, ER_PARSE_ERROR};
use crate::kind::Kind;

/// ER_WRONG_USAGE.
pub const ER_WRONG_USAGE: u32 = 1221;

/// The statement if it is one of this file's, else None (the other FLUSH statements).
pub(super) fn classify_reload(
    cx: &Cx,
    toks: &[Tok],
    words: &[String],
) -> Option<Result<Stmt, String>> {
    let mut w: Vec<&str> = words.iter().map(String::as_str).collect();
    let first = w.remove(0);
    if first == "reset" {
        if let Some(st) = super::reset_replica::classify(cx, toks) {
            return Some(st);
        }
    }
    if first == "rename" {
        return Some(Ok(Stmt::Fails(ER_PARSE_ERROR)));
    }
    if matches!(w.first(), Some(&("no_write_to_binlog" | "local"))) {
        w.remove(0);
    }
    let items: Vec<Vec<&str>> = w.split(|x| *x == ",").map(|x| x.to_vec()).collect();
    let tables = |i: &Vec<&str>| matches!(i.first(), Some(&("table" | "tables")));
    if items.len() > 1 {
        // (`FLUSH TABLES t1, t2` is a list of tables, not of options.)
        if items[1..].iter().any(tables) {
            return Some(Ok(Stmt::Fails(ER_PARSE_ERROR)));
        }
        if tables(&items[0]) {
            return None;
        }
        let twice = (0..items.len()).any(|a| (a + 1..items.len()).any(|b| items[a] == items[b]));
        if twice && first == "flush" {
            return Some(Ok(Stmt::Fails(ER_WRONG_USAGE)));
        }
        return None;
    }
    let (kind, effect) = match (first, w.as_slice()) {
        ("flush", ["privileges"]) => (Kind::FlushPrivileges, Effect::None),
        ("flush", ["status"]) => (Kind::FlushStatus, Effect::None),
        ("flush", ["logs"]) => (Kind::FlushLogs, Effect::None),
        ("flush", ["threads"] | ["ssl"] | ["relay", "logs"] | ["slave"]) => {
            (Kind::FlushStatus, Effect::None)
        }
        // The other options of `flush_option` (sql_yacc.yy): REFRESH_HOSTS,
        // REFRESH_USER_RESOURCES, REFRESH_QUERY_CACHE, REFRESH_DES_KEY_FILE and an
        // information_schema table with a `reset_table` (REFRESH_GENERIC:
        // TABLE_STATISTICS, INDEX_STATISTICS, USER_STATISTICS, CLIENT_STATISTICS,
        // THREAD_POOL_*), all in reload_acl_and_cache with no table: no lock, the implicit
        // commit, also under LOCK TABLES (suite/flush-options-no-table.mdl).
        (
            "flush",
            ["hosts"]
            | ["user_resources"]
            | ["query", "cache"]
            | ["des_key_file"]
            | ["table_statistics" | "index_statistics" | "user_statistics"]
            | ["client_statistics"]
            | ["thread_pool_stats" | "thread_pool_waits" | "thread_pool_queues"],
        ) => (Kind::FlushStatus, Effect::None),
        // The logs one by one (REFRESH_BINARY_LOG, REFRESH_SLOW_LOG, ...): FLUSH LOGS'
        // own row (no lock; the harness's server has no binary log to rotate).
        ("flush", ["binary" | "slow" | "error" | "engine" | "general", "logs"]) => {
            (Kind::FlushLogs, Effect::None)
        }
        ("reset", ["query", "cache"] | ["slave"] | ["slave", "all"]) => {
            (Kind::FlushStatus, Effect::None)
        }
        ("reset", ["master"]) => (
            Kind::FlushStatus,
            Effect::Fail(ER_FLUSH_MASTER_BINLOG_CLOSED),
        ),
        _ => return None,
    };
    Some(cx.plan(kind, vec![cx.part(kind, Bind::default())], effect, toks))
}
