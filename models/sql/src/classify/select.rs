//! SELECT, SET and the subqueries of other statements (`mysql_select`, `sql_parse.cc`).

use super::{
    from_tables, locking_clauses, user_locks, views, Bind, Cx, Effect, Part, Plan, Stmt, Tok,
    UserLockCall,
};
use crate::kind::Kind;

/// The tables of the subqueries in an expression (`SET @a = (SELECT ... FROM t1)`, `DO
/// (SELECT ...)`): read, SR, as a SELECT's. The server opens them with the statement's
/// other tables (sql_parse.cc, mysql_execute_command: SQLCOM_SET_OPTION and SQLCOM_DO
/// call open_and_lock_tables on `all_tables`, which holds the subqueries' tables with
/// TL_READ, so MDL_SHARED_READ). None when the statement names no table.
pub(super) fn subquery_reads(cx: &Cx, toks: &[Tok]) -> Option<Result<Stmt, String>> {
    let mut tables = match from_tables(toks, cx.db) {
        Ok(t) => t,
        Err(e) => return Some(Err(e)),
    };
    // The system schemas' tables as a SELECT's (`system_tables::leave_out`): an
    // `information_schema` table takes no MDL, the others' are the server's (measured:
    // main/information_schema.test:489, `set @got_val= (select count(*) from
    // information_schema.columns)`; suite/set-subquery-system-tables.mdl).
    let need = match super::system_tables::leave_out(cx.sql, &mut tables) {
        Ok(n) => n,
        Err(e) => return Some(Err(e)),
    };
    if tables.is_empty() {
        return None;
    }
    let parts: Result<Vec<Part>, String> = tables
        .iter()
        .map(|t| cx.on_table(Kind::Select, t))
        .collect();
    Some(parts.and_then(|parts| cx.plan(Kind::Select, parts, Effect::NeedTables(need), toks)))
}

pub(super) fn classify_set(words: &[String], sql: &str) -> Result<Stmt, String> {
    // SET [SESSION|@@session.|LOCAL] var = value [, ...]
    let mut w: Vec<&str> = words.iter().map(String::as_str).collect();
    w.retain(|x| *x != "session" && *x != "local" && *x != "@@session" && *x != ".");
    let var = w.get(1).copied().unwrap_or("");
    let var = var.trim_start_matches("@@");
    if let Some(st) = super::set_session_values::several(&w[1..]) {
        return st.map_err(|e| format!("`{sql}`: {e}"));
    }
    if w.contains(&",") && (w.contains(&"lock_wait_timeout") || w.contains(&"autocommit")) {
        return Err(format!(
            "`{sql}`: set lock_wait_timeout or autocommit in a SET of its own"
        ));
    }
    // The value's words, after `=` / `:=`.
    let values: Vec<&str> = match w.get(2..) {
        Some(["=", v @ ..]) | Some([":", "=", v @ ..]) => v.to_vec(),
        _ => Vec::new(),
    };
    let value = || w.get(3).copied().unwrap_or("");
    match var {
        "lock_wait_timeout" => {
            super::set_session_values::session_timeout(&values).map_err(|e| format!("`{sql}`: {e}"))
        }
        "autocommit" => {
            super::set_session_values::autocommit(&values).map_err(|e| format!("`{sql}`: {e}"))
        }
        "global" | "@@global" => Err(format!("`{sql}`: SET GLOBAL is not modelled")),
        // It decides whether an unrestricted recursive CTE fails (4008,
        // `classify/cte_recursion.rs`) in the session's later statements, which the
        // classifier reads one by one: refused; `SET STATEMENT standard_compliant_cte=0
        // FOR ...` is played.
        "standard_compliant_cte" => Err(format!(
            "`{sql}`: SET standard_compliant_cte for the session is not modelled (SET \
             STATEMENT ... FOR is)"
        )),
        // A refused engine value fails in `set_var::check`, after SQLCOM_SET_OPTION's
        // `open_and_lock_tables` has flushed the session's HANDLERs (sql/sql_parse.cc;
        // measured: suite/set-engine-null.mdl, the RENAME behind a HANDLER goes on).
        _ if w.len() == 4 && w[2] == "=" => Ok(super::engines::set_engine_error(var, value())
            .map_or(Stmt::NoLocks, |code| {
                Stmt::Session(crate::stmt::SessionStmt::SetFails(code))
            })),
        _ => Ok(Stmt::NoLocks),
    }
}

pub(super) fn classify_select(cx: &Cx, toks: &[Tok], words: &[String]) -> Result<Stmt, String> {
    let sql = cx.sql;
    let funcs: Vec<(usize, String)> = toks
        .iter()
        .enumerate()
        .filter_map(|(i, t)| match t {
            Tok::Word {
                text,
                quoted: false,
            } if toks.get(i + 1) == Some(&Tok::P('(')) => Some((i, text.to_ascii_lowercase())),
            _ => None,
        })
        .collect();
    let user = funcs
        .iter()
        .filter(|(_, f)| {
            matches!(
                f.as_str(),
                "get_lock" | "release_lock" | "release_all_locks"
            )
        })
        .collect::<Vec<_>>();
    // SLEEP(n) and BENCHMARK(n, expr) take no lock of their own (`Item_func_sleep::val_int`
    // waits on a condition, `Item_func_benchmark::val_int` evaluates `expr` n times, in
    // sql/item_func.cc): the statement is played without them. On the server the
    // statement's locks are held for its whole duration; the model does not play time,
    // so they are taken and released in one step (see models/sql/README.md).
    let get = |n: String, ms: u64| get_lock_plan(cx, n, ms);
    let all = funcs
        .iter()
        .filter(|(_, f)| f.ends_with("_lock") || f == "release_all_locks")
        .count();
    if all > 1 {
        if let Some(calls) = user_locks::calls(toks, &get) {
            return calls
                .map(Stmt::UserLocks)
                .map_err(|e| format!("`{sql}`: {e}"));
        }
    }
    if !user.is_empty() {
        if user.len() > 1 || words.iter().any(|w| w == "from") {
            return Err(format!(
                "`{sql}`: user-lock functions are modelled only as the columns of a SELECT \
                 with no FROM"
            ));
        }
        let (i, f) = user[0];
        let args: Vec<&Tok> = toks[i + 2..]
            .iter()
            .take_while(|t| **t != Tok::P(')'))
            .filter(|t| **t != Tok::P(','))
            .collect();
        let name = || match args.first() {
            Some(Tok::Str(s)) => Ok(s.clone()),
            _ => Err(format!("`{sql}`: the lock name must be a string literal")),
        };
        return match f.as_str() {
            "release_all_locks" => Ok(Stmt::ReleaseAllLocks),
            "release_lock" => Ok(Stmt::ReleaseLock(name()?)),
            _ => {
                let n = name()?;
                match user_locks::timeout_ms(&args[1..]).map_err(|e| format!("`{sql}`: {e}"))? {
                    Some(ms) => Ok(Stmt::Learned(get(n, ms))),
                    None => Ok(Stmt::UserLocks(vec![UserLockCall::BadTimeout])),
                }
            }
        };
    }
    // SELECT ... INTO OUTFILE / DUMPFILE: the SELECT's locks, then the file.
    if super::into_outfile::writes_file(toks) {
        let (text, path) = super::into_outfile::strip(cx, toks)?;
        let rest = super::tokens(&text)?;
        let inner = Cx {
            sql: &text,
            db: cx.db,
            cat: cx.cat,
            has_row: cx.has_row,
        };
        let words = super::Cur {
            t: &rest,
            i: 0,
            sql: &text,
        }
        .rest_words();
        let st = classify_select(&inner, &rest, &words)?;
        return super::into_outfile::with_file(sql, st, path);
    }
    // A CTE's name is no table (`classify/query_shapes.rs`).
    let mut tables = from_tables(&super::query_ctes::resolve_ctes(toks), cx.db)?;
    if tables.is_empty() {
        return Ok(Stmt::NoLocks);
    }
    super::select_order::first_table_first(toks, cx.db, &mut tables)?;
    // The system schemas' tables (`system_tables.rs`): `mysql` and `performance_schema`
    // ones read with SR as any table (1100 under LOCK TABLES), not in the catalog;
    // `information_schema` ones with no lock.
    let need = super::system_tables::leave_out(sql, &mut tables)?;
    if tables.is_empty() {
        return Ok(Stmt::NoLocks);
    }
    let (kind, inner) = locking_clauses(toks, cx.db)?;
    if kind != Kind::Select && inner.is_empty() {
        if let Some((before, last)) = super::union_tail::split(toks, cx.db)? {
            let mut parts = Vec::new();
            for t in &before {
                if cx.cat.is_view(t) {
                    parts.extend(views::select_parts(cx, t)?);
                } else {
                    parts.push(cx.on_table(Kind::Select, t)?);
                }
            }
            for t in &last {
                parts.push(cx.on_table(kind, t)?);
            }
            return cx.plan(kind, parts, Effect::NeedTables(need), toks);
        }
    }
    // The locking clause is the outer SELECT's only (`lock_scope`).
    let sub_only = if kind == Kind::Select {
        Vec::new()
    } else {
        super::lock_scope::only_in_subqueries(&super::query_ctes::resolve_ctes(toks), cx.db)?
    };
    let mut parts = Vec::new();
    for t in &tables {
        let outer = if sub_only.contains(t) {
            Kind::Select
        } else {
            kind
        };
        let k = inner
            .iter()
            .find(|(it, _)| it == t)
            .map_or(outer, |(_, k)| *k);
        if k == Kind::Select && cx.cat.is_view(t) {
            parts.extend(views::select_parts(cx, t)?);
            continue;
        }
        parts.push(cx.on_table(k, t)?);
    }
    cx.plan(kind, parts, Effect::NeedTables(need), toks)
}

/// The plan of one GET_LOCK: the learned `get_lock` row on the lock's name, with its
/// timeout (ms).
pub(super) fn get_lock_plan(cx: &Cx, n: String, ms: u64) -> Plan {
    let bind = Bind {
        lock: Some(n),
        ..Bind::default()
    };
    let part = cx.part(Kind::GetLock, bind);
    Plan {
        user_lock_timeout: Some(ms),
        ..Plan::of(Kind::GetLock, vec![part], Effect::None)
    }
}
