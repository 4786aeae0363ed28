//! Statement families of their own that take the learned rows of `misc` kinds
//! ([`crate::mapping::KINDS`], measured by `mdl conform --learn`):
//!
//! - `CACHE INDEX t [, ...] IN default` and `LOAD INDEX INTO CACHE t [, ...]`
//!   (sql/sql_admin.cc: `mysql_assign_to_keycache`, `mysql_preload_keys`, both through
//!   `mysql_admin_table`; measured: SR of transaction duration on each table, no implicit
//!   commit). A key cache other than `default` exists only after `SET GLOBAL
//!   name.key_buffer_size = N`, which the model does not keep (the server fails with
//!   ER_UNKNOWN_KEY_CACHE before it opens anything): refused;
//! - `CHECKSUM TABLE t [, ...] [QUICK | EXTENDED]` (sql/sql_table.cc:
//!   `mysql_checksum_table`, one `open_n_lock_single_table` per table; measured: SR of
//!   transaction duration on each, in the statement's order);
//! - `LOAD DATA [LOCAL] INFILE 'file' [REPLACE | IGNORE] INTO TABLE t ...` (sql/sql_load.cc:
//!   `mysql_load`, DML: SW on the table and BACKUP_TRANS_DML, as INSERT). Whether the file
//!   exists is outside MDL: the server opens the file after the table is locked, so the
//!   locks are the same either way;
//! - `SET GLOBAL var = value [, ...]` (sql/sql_parse.cc, SQLCOM_SET_OPTION:
//!   `sql_set_variables`, no table; `stmt_causes_implicit_commit` skips the commit unless
//!   autocommit is set). Refused: `read_only` (sql/sys_vars.cc, `Sys_var_readonly`'s
//!   update takes the global read lock), the variables that become a new session's default
//!   and that the model reads (`lock_wait_timeout`, `autocommit`, `max_statement_time`),
//!   `gtid_*` and `debug*`;
//! - `FLUSH PRIVILEGES | STATUS | LOGS` (sql/sql_reload.cc, `reload_acl_and_cache`;
//!   CF_AUTO_COMMIT_TRANS; FLUSH PRIVILEGES re-reads the grant tables, so it fails under
//!   LOCK TABLES, learned).
//!
//! - the BACKUP statements the parser refuses (sql/sql_yacc.yy, `backup_statements`:
//!   `BACKUP LOG`, `BACKUP LOCK` and `BACKUP STAGE` with no name, a reserved word as the
//!   stage) and `BACKUP STAGE name` of an unknown stage (sql/backup.cc,
//!   `backup_stage_names` lookup in the parser's action: ER_BACKUP_UNKNOWN_STAGE); measured
//!   in main/backup_syntax.test.
//!
//! `FLUSH TABLES t [, ...] FOR EXPORT` is in [`super::classify_flush`]: the server runs
//! it as `FLUSH TABLES ... WITH READ LOCK` (sql/sql_reload.cc,
//! `flush_tables_with_read_lock`, with `REFRESH_FOR_EXPORT` only adding the engine's
//! HA_CAN_EXPORT check, which InnoDB and MyISAM pass).

use super::{from_tables, Bind, Cur, Cx, Effect, Stmt, Tbl, Tok, ER_PARSE_ERROR};

/// ER_BACKUP_UNKNOWN_STAGE.
pub const ER_BACKUP_UNKNOWN_STAGE: u32 = 4149;

/// The statement if it is one of this file's families, else None.
pub(super) fn classify_misc(
    cx: &Cx,
    toks: &[Tok],
    words: &[String],
) -> Option<Result<Stmt, String>> {
    let at = |i: usize| words.get(i).map(String::as_str).unwrap_or("");
    match (at(0), at(1)) {
        ("cache", "index") => Some(cache_index(cx, toks)),
        ("load", "index") => Some(load_index(cx, toks)),
        ("load", "data") => Some(load_data(cx, toks, words)),
        ("checksum", "table" | "tables") => Some(checksum(cx, toks)),
        ("set", "global" | "@@global") => Some(set_global(cx, toks, words)),
        ("flush", _) => flush_other(cx, toks, words),
        ("backup", _) => backup_syntax(toks, words),
        ("xa", _) => Some(super::xa::classify_xa(cx.sql, toks)),
        _ => None,
    }
}

/// The tables of an admin list at `c`: `t [PARTITION ...] [INDEX|KEY (...)] [IGNORE
/// LEAVES], ...` until a word of `stop` or the end. A table the catalog does not have is
/// refused (the server answers it in a result row, not with an error).
fn admin_tables(cx: &Cx, c: &mut Cur, stop: &[&str]) -> Result<Vec<Tbl>, String> {
    let sql = cx.sql;
    let mut ts = Vec::new();
    loop {
        let t = c.table(cx.db)?;
        if c.at("partition") || c.at("partitions") {
            return Err(format!(
                "`{sql}`: a PARTITION clause (partitioned tables) is not modelled here"
            ));
        }
        if c.eat("index") || c.eat("key") || c.peek() == Some(&Tok::P('(')) {
            if !c.eat_p('(') {
                return Err(format!("`{sql}`: expected `(` after INDEX"));
            }
            while !c.done() && !c.eat_p(')') {
                c.i += 1;
            }
        }
        if c.eat("ignore") {
            c.expect("leaves")?;
        }
        if !cx.cat.exists(&t) {
            return Err(format!(
                "`{sql}`: `{t}` does not exist (the server answers in a result row); not \
                 modelled"
            ));
        }
        ts.push(t);
        if !c.eat_p(',') {
            break;
        }
    }
    if !c.done() && !stop.iter().any(|s| c.at(s)) {
        return Err(format!("`{sql}`: unexpected words after the table list"));
    }
    Ok(ts)
}

fn on_tables(cx: &Cx, kind: &str, ts: Vec<Tbl>, toks: &[Tok]) -> Result<Stmt, String> {
    let parts = ts
        .iter()
        .map(|t| cx.on_table(kind, t))
        .collect::<Result<Vec<_>, _>>()?;
    cx.plan(kind, parts, Effect::NeedTables(ts), toks)
}

fn cursor<'a>(cx: &Cx<'a>, toks: &'a [Tok], i: usize) -> Cur<'a> {
    Cur {
        t: toks,
        i,
        sql: cx.sql,
    }
}

/// `CACHE INDEX t [, ...] IN cache`.
fn cache_index(cx: &Cx, toks: &[Tok]) -> Result<Stmt, String> {
    let mut c = cursor(cx, toks, 2);
    let ts = admin_tables(cx, &mut c, &["in"])?;
    c.expect("in")?;
    let cache = c.ident()?;
    if !c.done() {
        return Err(format!(
            "`{}`: unexpected words after the key cache",
            cx.sql
        ));
    }
    if !cache.eq_ignore_ascii_case("default") {
        return Err(format!(
            "`{}`: key cache `{cache}` (made by SET GLOBAL {cache}.key_buffer_size, which the \
             model does not keep) is not modelled; `default` is",
            cx.sql
        ));
    }
    on_tables(cx, "cache_index", ts, toks)
}

/// `LOAD INDEX INTO CACHE t [, ...]`.
fn load_index(cx: &Cx, toks: &[Tok]) -> Result<Stmt, String> {
    let mut c = cursor(cx, toks, 2);
    c.expect("into")?;
    c.expect("cache")?;
    let ts = admin_tables(cx, &mut c, &[])?;
    on_tables(cx, "load_index", ts, toks)
}

/// `CHECKSUM TABLE t [, ...] [QUICK | EXTENDED]`.
fn checksum(cx: &Cx, toks: &[Tok]) -> Result<Stmt, String> {
    let mut c = cursor(cx, toks, 2);
    let ts = admin_tables(cx, &mut c, &["quick", "extended"])?;
    let _ = c.eat("quick") || c.eat("extended");
    if !c.done() {
        return Err(format!("`{}`: unexpected words at the end", cx.sql));
    }
    on_tables(cx, "checksum", ts, toks)
}

/// `LOAD DATA [LOW_PRIORITY | CONCURRENT] [LOCAL] INFILE 'f' [REPLACE | IGNORE] INTO TABLE
/// t ...` (and `LOAD XML`, the same `mysql_load`).
fn load_data(cx: &Cx, toks: &[Tok], words: &[String]) -> Result<Stmt, String> {
    let sql = cx.sql;
    let Some(into) = words.iter().position(|w| w == "into") else {
        return Err(format!("`{sql}`: no INTO TABLE"));
    };
    let mut c = cursor(cx, toks, into + 1);
    c.expect("table")?;
    let t = c.table(cx.db)?;
    if c.at("partition") {
        return Err(format!(
            "`{sql}`: a PARTITION clause (partitioned tables) is not modelled here"
        ));
    }
    if words.iter().any(|w| w == "select") {
        return Err(format!("`{sql}`: a subquery in LOAD DATA is not modelled"));
    }
    cx.no_view(&t)?;
    let p = cx.on_table("load_data", &t)?;
    cx.plan("load_data", vec![p], Effect::NeedTables(vec![t]), toks)
}

/// `SET GLOBAL var = value [, ...]`: the learned `set_global` row (no lock).
fn set_global(cx: &Cx, toks: &[Tok], words: &[String]) -> Result<Stmt, String> {
    let sql = cx.sql;
    const REFUSED: &[&str] = &[
        "read_only",
        "lock_wait_timeout",
        "autocommit",
        "max_statement_time",
        "session",
        "@@session",
        "local",
    ];
    if let Some(w) = words
        .iter()
        .find(|w| REFUSED.contains(&w.as_str()) || w.starts_with("gtid_") || w.contains("debug"))
    {
        return Err(format!("`{sql}`: SET GLOBAL of `{w}` is not modelled"));
    }
    if !from_tables(toks, cx.db)?.is_empty() || words.iter().any(|w| w == "select") {
        return Err(format!(
            "`{sql}`: SET GLOBAL with a subquery is not modelled"
        ));
    }
    cx.plan(
        "set_global",
        vec![cx.part("set_global", Bind::default())],
        Effect::None,
        toks,
    )
}

/// `FLUSH [NO_WRITE_TO_BINLOG | LOCAL] PRIVILEGES | STATUS | LOGS` alone; None for the
/// other FLUSH statements.
fn flush_other(cx: &Cx, toks: &[Tok], words: &[String]) -> Option<Result<Stmt, String>> {
    let mut w: &[String] = &words[1..];
    if matches!(
        w.first().map(String::as_str),
        Some("no_write_to_binlog" | "local")
    ) {
        w = &w[1..];
    }
    let kind = match w {
        [x] if x == "privileges" => "flush_privileges",
        [x] if x == "status" => "flush_status",
        [x] if x == "logs" => "flush_logs",
        _ => return None,
    };
    Some(cx.plan(
        kind,
        vec![cx.part(kind, Bind::default())],
        Effect::None,
        toks,
    ))
}

/// The BACKUP statements that fail in the parser; None for the others.
fn backup_syntax(toks: &[Tok], words: &[String]) -> Option<Result<Stmt, String>> {
    const STAGES: &[&str] = &["start", "flush", "block_ddl", "block_commit", "end"];
    // Reserved words (sql/lex.h) a stage name could be written as: the parser's `ident`
    // does not take them.
    const RESERVED: &[&str] = &[
        "lock", "select", "table", "read", "write", "key", "index", "for", "with", "from",
    ];
    let w: Vec<&str> = words.iter().map(String::as_str).collect();
    match w.as_slice() {
        ["backup"] | ["backup", "log" | "lock" | "stage"] => Some(Ok(Stmt::Fails(ER_PARSE_ERROR))),
        ["backup", "stage", x] if RESERVED.contains(x) => Some(Ok(Stmt::Fails(ER_PARSE_ERROR))),
        ["backup", "stage", x]
            if !STAGES.contains(x)
                && matches!(toks.get(2), Some(Tok::Word { .. }))
                && x.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
        {
            Some(Ok(Stmt::Fails(ER_BACKUP_UNKNOWN_STAGE)))
        }
        _ => None,
    }
}
