//! Statement families of their own that take the learned rows of `misc` kinds
//! ([`crate::mapping::KINDS`], measured by `mdl conform --learn`):
//!
//! - `CACHE INDEX t [, ...] IN cache` and `LOAD INDEX INTO CACHE t [, ...]`
//!   (sql/sql_admin.cc: `mysql_assign_to_keycache`, `mysql_preload_keys`, both through
//!   `mysql_admin_table`; measured: SR of transaction duration on each table, no implicit
//!   commit). A key cache other than `default` exists once `SET GLOBAL
//!   name.key_buffer_size = N` (N > 0) made it (the catalog's `key_caches`); before, the
//!   server fails with ER_UNKNOWN_KEY_CACHE before it opens anything. (A key cache is the
//!   server's, not the scenario's: one an earlier scenario on the same server made is
//!   not known here);
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
//!   and that the model reads (`autocommit`, `max_statement_time`; `lock_wait_timeout` is
//!   [`super::global_timeout`]),
//!   `gtid_*` and `debug*`;
//! - FLUSH / RESET of no table, RENAME DATABASE: [`super::reload`].
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
use crate::kind::Kind;

/// ER_UNKNOWN_KEY_CACHE.
pub const ER_UNKNOWN_KEY_CACHE: u32 = 1284;
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
        ("load", "data" | "xml") => Some(load_data(cx, toks, words)),
        ("checksum", "table" | "tables") => Some(checksum(cx, toks)),
        ("set", "global" | "@@global") => Some(set_global(cx, toks, words)),
        ("flush" | "reset", _) => super::reload::classify_reload(cx, toks, words),
        ("rename", "database" | "schema") => super::reload::classify_reload(cx, toks, words),
        ("backup", _) => backup_syntax(toks, words),
        ("xa", _) => Some(super::xa::classify_xa(cx.sql, toks)),
        _ => None,
    }
}

/// The tables of an admin list at `c`: `t [PARTITION (...)] [INDEX|KEY (...)] [IGNORE
/// LEAVES], ...` until a word of `stop` or the end, and whether a PARTITION clause was
/// there. A table the catalog does not have is refused (the server answers it in a
/// result row, not with an error), and so is a PARTITION clause of a partitioned table
/// (the catalog does not know its partitions' names).
/// The table list of an admin statement; `skip_missing`: a table that does not exist is
/// left out (CHECKSUM TABLE), else refused.
fn admin_tables(
    cx: &Cx,
    c: &mut Cur,
    stop: &[&str],
    skip_missing: bool,
) -> Result<(Vec<Tbl>, bool), String> {
    let sql = cx.sql;
    let mut ts = Vec::new();
    let mut part = false;
    loop {
        let t = c.table(cx.db)?;
        if c.at("partitions") || (c.at("partition") && cx.cat.is_partitioned(&t)) {
            return Err(format!(
                "`{sql}`: a PARTITION clause of a partitioned table is not modelled here"
            ));
        }
        if c.eat("partition") {
            // (Several tables with it are the parser's error: `partition_syntax`.)
            part = true;
            if !c.eat_p('(') {
                return Err(format!("`{sql}`: expected `(` after PARTITION"));
            }
            while !c.done() && !c.eat_p(')') {
                c.i += 1;
            }
        }
        if c.peek() == Some(&Tok::P('(')) {
            // `cache_keys_spec` / `opt_cache_key_list` of sql_yacc.yy: the list needs INDEX
            // or KEY before it (main/partition_key_cache.test expects ER_PARSE_ERROR).
            return Err(format!(
                "`{sql}`: an index list without INDEX or KEY (a syntax error) is not modelled"
            ));
        }
        if c.eat("index") || c.eat("key") {
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
        if !cx.cat.exists(&t) && !skip_missing {
            return Err(format!(
                "`{sql}`: `{t}` does not exist (the server answers in a result row); not \
                 modelled"
            ));
        }
        if cx.cat.exists(&t) {
            ts.push(t);
        }
        if !c.eat_p(',') {
            break;
        }
    }
    if !c.done() && !stop.iter().any(|s| c.at(s)) {
        return Err(format!("`{sql}`: unexpected words after the table list"));
    }
    Ok((ts, part))
}

/// The plan of an admin statement on `ts`. With a PARTITION clause (of a table that has
/// no partitions) `mysql_admin_table` opens the table, then fails with
/// ER_PARTITION_MGMT_ON_NONPARTITIONED, keeping the SR it took in the transaction
/// (sql/sql_admin.cc; measured on 10.11.19: suite/admin-partition-nonpartitioned.mdl).
fn on_tables(
    cx: &Cx,
    kind: Kind,
    (ts, part): (Vec<Tbl>, bool),
    toks: &[Tok],
) -> Result<Stmt, String> {
    let parts = ts
        .iter()
        .map(|t| cx.on_table(kind, t))
        .collect::<Result<Vec<_>, _>>()?;
    let effect = match (part, ts.first()) {
        (true, Some(t)) => Effect::NotPartitioned(t.clone()),
        _ => Effect::NeedTables(ts),
    };
    cx.plan(kind, parts, effect, toks)
}

fn cursor<'a>(cx: &Cx<'a>, toks: &'a [Tok], i: usize) -> Cur<'a> {
    Cur {
        t: toks,
        i,
        sql: cx.sql,
    }
}

/// `CACHE INDEX t [, ...] IN cache`. A key cache other than `default` that the scenario
/// did not make fails before any table is opened (`mysql_assign_to_keycache`:
/// `get_key_cache`, ER_UNKNOWN_KEY_CACHE; measured: the name compares with its case).
fn cache_index(cx: &Cx, toks: &[Tok]) -> Result<Stmt, String> {
    let at = toks
        .iter()
        .rposition(
            |t| matches!(t, Tok::Word { text, quoted: false } if text.eq_ignore_ascii_case("in")),
        )
        .ok_or_else(|| format!("`{}`: no IN", cx.sql))?;
    let mut c = cursor(cx, toks, at + 1);
    let cache = c.ident()?;
    if !c.done() {
        return Err(format!(
            "`{}`: unexpected words after the key cache",
            cx.sql
        ));
    }
    if let Some(st) = partition_syntax(&toks[..at]) {
        return Ok(st);
    }
    if !cache.eq_ignore_ascii_case("default") && !cx.cat.key_caches.contains(&cache) {
        return Ok(Stmt::Fails(ER_UNKNOWN_KEY_CACHE));
    }
    let mut c = cursor(cx, &toks[..at], 2);
    let ts = admin_tables(cx, &mut c, &[], false)?;
    on_tables(cx, Kind::CacheIndex, ts, toks)
}

/// The key cache a `SET GLOBAL [@@global.]name.key_buffer_size = N` makes: Some(name)
/// when N > 0 (a size of 0 leaves an existing cache usable, measured), None for the
/// default cache or another variable; Err when the model cannot tell (several
/// assignments, a value it cannot compute).
fn key_cache_made(cx: &Cx, toks: &[Tok], words: &[String]) -> Result<Option<String>, String> {
    const VARS: &[&str] = &[
        "key_buffer_size",
        "key_cache_block_size",
        "key_cache_division_limit",
        "key_cache_age_threshold",
        "key_cache_file_hash_size",
        "key_cache_segments",
    ];
    let is_var = |t: &Tok| matches!(t, Tok::Word { text, .. } if VARS.contains(&text.to_ascii_lowercase().as_str()));
    let Some(v) = toks.iter().position(is_var) else {
        return Ok(None);
    };
    let sql = cx.sql;
    if words.iter().any(|w| w == ",") {
        return Err(format!(
            "`{sql}`: a key cache variable in a SET of several is not modelled"
        ));
    }
    let name = match (
        v.checked_sub(2).map(|i| &toks[i]),
        v.checked_sub(1).map(|i| &toks[i]),
    ) {
        (Some(Tok::Word { text, .. }), Some(Tok::P('.')))
            if !matches!(text.to_ascii_lowercase().as_str(), "global" | "@@global") =>
        {
            text.clone()
        }
        _ => return Ok(None),
    };
    let var = match &toks[v] {
        Tok::Word { text, .. } => text.to_ascii_lowercase(),
        _ => String::new(),
    };
    if name.eq_ignore_ascii_case("default") || var != "key_buffer_size" {
        return Ok(None);
    }
    let mut size: u64 = 1;
    for t in toks.get(v + 2..).unwrap_or_default() {
        match t {
            Tok::Num(n) => {
                let n: u64 = n.parse().map_err(|_| format!("`{sql}`: size `{n}`"))?;
                size = size.saturating_mul(n);
            }
            Tok::P('*') => {}
            _ => {
                return Err(format!(
                    "`{sql}`: a key cache size the model cannot compute"
                ))
            }
        }
    }
    Ok((size > 0).then_some(name))
}

/// The parser's errors of an admin list's PARTITION clause (sql_yacc.yy,
/// `keycache_list_or_parts`, `preload_list_or_parts`; measured, main/partition_key_cache.test):
/// `PARTITIONS`, and PARTITION with more than one table.
fn partition_syntax(toks: &[Tok]) -> Option<Stmt> {
    let kw = |k: &str| {
        toks.iter()
            .any(|t| matches!(t, Tok::Word { text, quoted: false } if text.eq_ignore_ascii_case(k)))
    };
    let mut depth = 0i32;
    let mut lists = false;
    for t in toks {
        match t {
            Tok::P('(') => depth += 1,
            Tok::P(')') => depth -= 1,
            Tok::P(',') if depth == 0 => lists = true,
            _ => {}
        }
    }
    // An index list needs INDEX or KEY before it (`cache_keys_spec`: `LOAD INDEX INTO
    // CACHE t2 (PRIMARY)` is ER_PARSE_ERROR in main/partition_key_cache.result).
    let bare_list = toks.windows(2).any(|w| {
        w[1] == Tok::P('(')
            && matches!(&w[0], Tok::Word { text, quoted: false }
                if !["partition", "index", "key"].iter().any(|k| text.eq_ignore_ascii_case(k)))
    });
    (kw("partitions") || (kw("partition") && lists) || bare_list)
        .then_some(Stmt::Fails(ER_PARSE_ERROR))
}

/// `LOAD INDEX INTO CACHE t [, ...]`.
fn load_index(cx: &Cx, toks: &[Tok]) -> Result<Stmt, String> {
    if let Some(st) = partition_syntax(toks) {
        return Ok(st);
    }
    let mut c = cursor(cx, toks, 2);
    c.expect("into")?;
    c.expect("cache")?;
    let ts = admin_tables(cx, &mut c, &[], false)?;
    on_tables(cx, Kind::LoadIndex, ts, toks)
}

/// `CHECKSUM TABLE t [, ...] [QUICK | EXTENDED]`.
fn checksum(cx: &Cx, toks: &[Tok]) -> Result<Stmt, String> {
    let mut c = cursor(cx, toks, 2);
    // A table that does not exist: `mysql_checksum_table`'s open fails, its MDL is
    // rolled back with the open (`open_tables`' savepoint), and the table's row says NULL
    // with no error (measured: `CHECKSUM TABLE t1, t3, t2` keeps SR on t1 and t2 only).
    let ts = admin_tables(cx, &mut c, &["quick", "extended"], true)?;
    if ts.1 {
        return Err(format!("`{}`: CHECKSUM TABLE with PARTITION", cx.sql));
    }
    let _ = c.eat("quick") || c.eat("extended");
    if !c.done() {
        return Err(format!("`{}`: unexpected words at the end", cx.sql));
    }
    if ts.0.is_empty() {
        return Ok(Stmt::NoLocks);
    }
    on_tables(cx, Kind::Checksum, ts, toks)
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
    if c.at("partition") && cx.cat.is_partitioned(&t) {
        // (Of a table with no partitions: `partition_select.rs`, through `cx.plan`.)
        return Err(format!(
            "`{sql}`: a PARTITION clause of a partitioned table is not modelled here"
        ));
    }
    if words.iter().any(|w| w == "select") {
        return Err(format!("`{sql}`: a subquery in LOAD DATA is not modelled"));
    }
    cx.no_view(&t)?;
    let p = cx.on_table(Kind::LoadData, &t)?;
    cx.plan(Kind::LoadData, vec![p], Effect::NeedTables(vec![t]), toks)
}

/// `SET GLOBAL var = value [, ...]`: the learned `set_global` row (no lock).
fn set_global(cx: &Cx, toks: &[Tok], words: &[String]) -> Result<Stmt, String> {
    let sql = cx.sql;
    const REFUSED: &[&str] = &[
        "read_only",
        "autocommit",
        "max_statement_time",
        "session",
        "@@session",
        "local",
    ];
    if let Some(st) = super::global_timeout::classify(sql, words) {
        return st;
    }
    if let Some(st) = super::read_only::classify(cx, toks, words) {
        return st;
    }
    if let Some(st) = super::set_global_forms::classify(cx, toks, words) {
        return st;
    }
    if let Some(st) = super::set_global_vars::classify(sql, toks) {
        return st;
    }
    let defaults = super::set_global_vars::sets_defaults_only(toks);
    // (A user variable, `@saved_debug`, is a value, not a variable's name.)
    let user_var = |w: &str| w.starts_with('@') && !w.starts_with("@@");
    let refused = |w: &str| REFUSED.contains(&w) || w.starts_with("gtid_") || w.contains("debug");
    if let Some(w) = words
        .iter()
        .find(|w| !defaults && refused(w) && !super::set_global_vars::no_lock(w) && !user_var(w))
    {
        return Err(format!("`{sql}`: SET GLOBAL of `{w}` is not modelled"));
    }
    if !from_tables(toks, cx.db)?.is_empty() || words.iter().any(|w| w == "select") {
        return Err(format!(
            "`{sql}`: SET GLOBAL with a subquery is not modelled"
        ));
    }
    if !assignments_are_simple(&toks[1..]) && !super::set_global_expr::all_numeric(&toks[1..]) {
        return Err(format!(
            "`{sql}`: SET GLOBAL whose value is not one literal, name or signed number is not \
             modelled (the server may reject it as a syntax error)"
        ));
    }
    let effect = match key_cache_made(cx, toks, words)? {
        Some(name) => Effect::KeyCache(name),
        None => Effect::None,
    };
    cx.plan(
        Kind::SetGlobal,
        vec![cx.part(Kind::SetGlobal, Bind::default())],
        effect,
        toks,
    )
}

/// Whether every assignment of `GLOBAL a = v, [GLOBAL] b = v, @@global.c = v` has the
/// shape the grammar takes for a system variable (`sql_yacc.yy`'s `option_value_no_option_type`:
/// a name, optionally `cache.name`, then `=` or `:=`, then one value). Values of several
/// tokens (`GMT+`, `user:pass`, `a,b`) are refused, not guessed: the server rejects many of
/// them as syntax errors (found by `conform_syntax_errors` on `suite/sys_vars`).
fn assignments_are_simple(toks: &[Tok]) -> bool {
    let word = |t: Option<&Tok>| matches!(t, Some(Tok::Word { .. }));
    toks.split(|t| *t == Tok::P(',')).all(|a| {
        let mut i = 0;
        match a.first() {
            Some(Tok::Word {
                text,
                quoted: false,
            }) if text.eq_ignore_ascii_case("global") => i = 1,
            Some(Tok::Word {
                text,
                quoted: false,
            }) if text.eq_ignore_ascii_case("@@global") => {
                if a.get(1) != Some(&Tok::P('.')) {
                    return false;
                }
                i = 2
            }
            _ => {}
        }
        if !word(a.get(i)) {
            return false;
        }
        i += 1;
        if a.get(i) == Some(&Tok::P('.')) {
            if !word(a.get(i + 1)) {
                return false;
            }
            i += 2;
        }
        match (a.get(i), a.get(i + 1)) {
            (Some(Tok::P('=')), _) => i += 1,
            (Some(Tok::P(':')), Some(Tok::P('='))) => i += 2,
            _ => return false,
        }
        if a.get(i) == Some(&Tok::P('-')) {
            i += 1;
            return matches!(a.get(i), Some(Tok::Num(_))) && a.len() == i + 1;
        }
        let rest = &a[i..];
        let arithmetic = rest.len() > 1
            && rest.iter().all(|t| {
                matches!(t, Tok::Num(_)) || matches!(t, Tok::P(p) if "*+-/()".contains(*p))
            })
            && matches!(rest.last(), Some(Tok::Num(_) | Tok::P(')')));
        arithmetic
            || super::set_global_expr::user_var(rest)
            || (matches!(a.get(i), Some(Tok::Word { .. } | Tok::Str(_) | Tok::Num(_)))
                && a.len() == i + 1)
    })
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
