//! The statement families that take no metadata lock of their own but have session rules,
//! and the read-only metadata statements, for the classifier ([`crate::classify`]):
//!
//! - `SAVEPOINT`, `ROLLBACK [WORK] TO [SAVEPOINT]`, `RELEASE SAVEPOINT` (MariaDB
//!   `sql/transaction.cc`: `trans_savepoint`, `trans_rollback_to_savepoint`,
//!   `trans_release_savepoint`), played by `crate::model::savepoint`;
//! - `SET TRANSACTION ...` (the next transaction's characteristics: refused in an active
//!   transaction, `Sys_var_tx_isolation::on_check`, sql/sys_vars.cc) and
//!   `SET SESSION TRANSACTION ...` (no lock, no rule);
//! - `SET STATEMENT var=value [, ...] FOR statement` (`sql_parse.cc`,
//!   `mysql_execute_command`: the variables are set for the inner statement only): the
//!   inner statement's locks, with its `lock_wait_timeout`, and its `max_statement_time`
//!   (a timer: `crate::model::statement_time`);
//! - `EXPLAIN SELECT ...`: the SELECT's locks (it opens its tables as the SELECT does;
//!   measured: SR of transaction duration);
//! - `SHOW CREATE TABLE`, `SHOW COLUMNS` / `SHOW FIELDS` / `SHOW INDEX` / `DESCRIBE` of a
//!   table: the learned `show_create` / `show_columns` rows;
//! - `SHOW` statements that open no table (`SHOW TABLES`, `SHOW DATABASES`, `SHOW
//!   VARIABLES`, ...) and `SELECT`s of `information_schema` only: no lock the server
//!   keeps past the statement (measured: none held after them in a transaction). The
//!   `MDL_SHARED_HIGH_PRIO` that `get_all_tables` takes for a moment on each table it
//!   opens conflicts only with X: it is not modelled (a statement that names such a
//!   table's X holder is rare: DROP TABLE of a list holding X on one table while it
//!   waits for the next);
//! - accounts (`CREATE` / `DROP` / `ALTER` / `RENAME USER`, `GRANT`, `REVOKE`, `SET
//!   PASSWORD`): the learned `account` row (the grant tables' locks are in the system
//!   schema, which the comparison ignores; what shows is BACKUP_TRANS_DML and the
//!   implicit commit), with the users they need or make ([`crate::accounts::Accounts`]).
//!
//! Anything else of these families is refused by name.

use super::classify;
use crate::accounts::classify_accounts;
use crate::catalog::{Catalog, Engine};
use crate::effect::Effect;
use crate::kind::{Kind, RowVariant};
use crate::objects::Tbl;
use crate::set_password::classify_set_password;
use crate::stmt::{Bind, Part, Plan, SessionStmt, SetTarget, Stmt};
use crate::words::{table_at, words};

/// The byte offset just after the first `FOR` keyword outside quotes, parentheses
/// included at any depth (SET STATEMENT's values are plain).
fn after_for(sql: &str) -> Option<usize> {
    let b = sql.as_bytes();
    let mut quote: Option<u8> = None;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == b'`' || c == b'\'' || c == b'"' => quote = Some(c),
            None => {
                let word_start = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
                if word_start
                    && b.len() >= i + 3
                    && b[i..i + 3].eq_ignore_ascii_case(b"for")
                    && b.get(i + 3)
                        .is_none_or(|x| !(x.is_ascii_alphanumeric() || *x == b'_'))
                {
                    return Some(i + 3);
                }
            }
        }
        i += 1;
    }
    None
}

/// The savepoint name of `SAVEPOINT \`a\`\`b\`` (and of ROLLBACK TO / RELEASE) when it is one
/// backquoted identifier with doubled backquotes, which `words` splits: the `i`-th token
/// and the last (sql/sql_lex.cc, `Lex_input_stream::scan_ident_delimited` undoes the
/// doubling; rpl_mdev382.test). Savepoint names compare case-insensitively
/// (`find_savepoint`, sql/transaction.cc: `system_charset_info`), hence lower case.
fn quoted_name(sql: &str, i: usize) -> Option<String> {
    let toks = super::lex::tokens(sql.trim().trim_end_matches(';')).ok()?;
    match toks.get(i..) {
        Some([super::Tok::Word { text, quoted: true }]) => Some(text.to_lowercase()),
        _ => None,
    }
}

/// Classifies a statement of these families; `None` for any other statement.
pub fn classify_session(
    sql: &str,
    db: &str,
    cat: &Catalog,
    has_row: &dyn Fn(&str) -> bool,
) -> Option<Result<Stmt, String>> {
    let w = words(sql);
    let at = |i: usize| w.get(i).map(String::as_str).unwrap_or("");
    let one_name = |i: usize| -> Result<String, String> {
        if w.len() != i + 1 {
            return quoted_name(sql, i)
                .ok_or_else(|| format!("`{sql}`: expected one savepoint name at its end"));
        }
        // (A quoted name is one word, its case kept: savepoint names compare without
        // case all the same, find_savepoint.)
        Ok(w[i].to_lowercase())
    };
    let session = |x: Result<String, String>, f: fn(String) -> SessionStmt| {
        Some(x.map(|n| Stmt::Session(f(n))))
    };
    match at(0) {
        "savepoint" => session(one_name(1), SessionStmt::Savepoint),
        "rollback" if w.iter().any(|x| x == "to") => {
            let mut i = 1;
            if at(i) == "work" {
                i += 1;
            }
            i += 1; // TO
            if at(i) == "savepoint" {
                i += 1;
            }
            session(one_name(i), SessionStmt::RollbackTo)
        }
        "release" if at(1) == "savepoint" => session(one_name(2), SessionStmt::Release),
        "set" => classify_set(sql, &w, db, cat, has_row),
        "explain" | "describe" | "desc" => Some(explain(sql, &w, db, cat, has_row)),
        "show" => Some(show(sql, &w, db, cat, has_row)),
        "select" if reads_only_information_schema(&w) => Some(Ok(Stmt::NoLocks)),
        "grant" | "revoke" => Some(classify_accounts(sql, &w, db, cat, has_row)),
        "create" if at(1) == "or" && at(3) == "table" => {
            Some(create_or_replace(sql, &w, db, cat, has_row))
        }
        "alter" if matches!(at(1), "database" | "schema") => Some(alter_db(sql, &w, db, has_row)),
        "create" | "drop" | "alter" | "rename"
            if matches!(at(1), "user" | "role")
                || (at(1) == "or" && matches!(at(3), "user" | "role")) =>
        {
            Some(classify_accounts(sql, &w, db, cat, has_row))
        }
        _ => None,
    }
}

fn classify_set(
    sql: &str,
    w: &[String],
    db: &str,
    cat: &Catalog,
    has_row: &dyn Fn(&str) -> bool,
) -> Option<Result<Stmt, String>> {
    let at = |i: usize| w.get(i).map(String::as_str).unwrap_or("");
    let read_only = w.windows(2).any(|x| x[0] == "read" && x[1] == "only");
    let refuse_read_only = || {
        Err(format!(
            "`{sql}`: a READ ONLY transaction (its writes fail with \
             ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION) is not modelled"
        ))
    };
    match (at(1), at(2)) {
        ("transaction", _) if read_only => Some(refuse_read_only()),
        ("transaction", _) => Some(Ok(Stmt::Session(SessionStmt::SetNextTransaction))),
        ("session" | "local", "transaction") if read_only => Some(refuse_read_only()),
        ("session" | "local", "transaction") => Some(Ok(Stmt::NoLocks)),
        ("statement", _) => Some(set_statement(sql, w, db, cat, has_row)),
        // SET PASSWORD writes the grant tables (`change_password`, sql/sql_acl.cc): not a
        // plain SET (crate::set_password).
        ("password", _) => Some(classify_set_password(sql, w, has_row)),
        _ => None,
    }
}

/// `SET STATEMENT var=value [, ...] FOR statement`.
fn set_statement(
    sql: &str,
    w: &[String],
    db: &str,
    cat: &Catalog,
    has_row: &dyn Fn(&str) -> bool,
) -> Result<Stmt, String> {
    let end = after_for(sql).ok_or_else(|| format!("`{sql}`: SET STATEMENT without FOR"))?;
    let inner = &sql[end..];
    let vars_end = w.iter().position(|x| x == "for").unwrap_or(w.len());
    let mut timeout = None;
    let mut max_time = None;
    let mut compliant_off = false;
    for var in w[2..vars_end].split(|x| x == ",") {
        let name = var.first().map(String::as_str).unwrap_or("");
        let name = name
            .trim_start_matches("@@session.")
            .trim_start_matches("@@");
        let value = var.get(2).map(String::as_str).unwrap_or("");
        if super::set_stmt_refused::refused(name) {
            return super::set_stmt_refused::fails(sql, inner);
        }
        match name {
            "lock_wait_timeout" => {
                timeout = Some(value.parse::<u64>().map_err(|_| {
                    format!("`{sql}`: bad lock_wait_timeout `{value}` (whole seconds)")
                })?)
            }
            "max_statement_time" => max_time = Some(statement_time_ms(sql, value)?),
            "sql_log_bin" => return Err(format!("`{sql}`: SET STATEMENT {name} is not modelled")),
            // An unrestricted recursive CTE runs (`classify/cte_recursion.rs`).
            "standard_compliant_cte" => compliant_off = matches!(value, "0" | "off"),
            _ => {}
        }
    }
    let mut st = inner_statement(sql, inner, db, cat, has_row, timeout)?;
    if compliant_off {
        st = super::cte_recursion::compliant_off(st);
    }
    Ok(match max_time {
        Some(ms) if ms > 0 => Stmt::Session(SessionStmt::StatementTime(ms, Box::new(st))),
        _ => st,
    })
}

/// `max_statement_time`'s value in ms (seconds, a decimal: `Sys_max_statement_time`,
/// sql/sys_vars.cc; 0 is no limit).
fn statement_time_ms(sql: &str, value: &str) -> Result<u64, String> {
    match value.parse::<f64>() {
        Ok(v) if v >= 0.0 && v.is_finite() => Ok((v * 1000.0).round() as u64),
        _ => Err(format!(
            "`{sql}`: bad max_statement_time `{value}` (seconds)"
        )),
    }
}

/// The statement after SET STATEMENT's FOR, with its `lock_wait_timeout`.
fn inner_statement(
    sql: &str,
    inner: &str,
    db: &str,
    cat: &Catalog,
    has_row: &dyn Fn(&str) -> bool,
    timeout: Option<u64>,
) -> Result<Stmt, String> {
    match classify(inner, db, cat, has_row)? {
        Stmt::Learned(mut p) => {
            if p.wait.is_none() {
                p.wait = timeout;
            }
            Ok(Stmt::Learned(p))
        }
        Stmt::NoLocks => Ok(Stmt::NoLocks),
        other if timeout.is_none() => Ok(other),
        _ => Err(format!(
            "`{sql}`: SET STATEMENT lock_wait_timeout for a control statement is not modelled"
        )),
    }
}

fn one_table_plan(kind: Kind, t: Tbl, cat: &Catalog, has_row: &dyn Fn(&str) -> bool) -> Stmt {
    let row = match cat.engine(&t) {
        Some(Engine::MyIsam) if has_row(kind.row_name(RowVariant::MyIsam)) => {
            kind.row_name(RowVariant::MyIsam).to_owned()
        }
        _ => kind.as_str().to_owned(),
    };
    let bind = Bind {
        t: Some(t.clone()),
        ..Bind::default()
    };
    let part = Part::on_row(row, kind, bind);
    // A system schema's table the server has is not the catalog's (`system_tables.rs`).
    let need = if super::system_tables::is_system(&t) && super::system_tables::exists(&t) {
        vec![]
    } else {
        vec![t]
    };
    Stmt::Learned(Plan::of(kind, vec![part], Effect::NeedTables(need)))
}

/// `EXPLAIN SELECT ...` (the SELECT's locks), `DESCRIBE t` / `EXPLAIN t` (SHOW COLUMNS).
fn explain(
    sql: &str,
    w: &[String],
    db: &str,
    cat: &Catalog,
    has_row: &dyn Fn(&str) -> bool,
) -> Result<Stmt, String> {
    let mut i = 1;
    while matches!(
        w.get(i).map(String::as_str),
        Some("extended" | "partitions")
    ) {
        i += 1;
    }
    match w.get(i).map(String::as_str) {
        Some("select") => {
            let start = sql
                .to_ascii_lowercase()
                .find("select")
                .ok_or_else(|| format!("`{sql}`: expected SELECT"))?;
            match classify(&sql[start..], db, cat, has_row)? {
                s @ (Stmt::Learned(_) | Stmt::NoLocks) => Ok(s),
                _ => Err(format!("`{sql}`: EXPLAIN of this SELECT is not modelled")),
            }
        }
        Some("insert" | "replace" | "update" | "delete" | "format" | "analyze") | None => Err(
            format!("`{sql}`: EXPLAIN of a statement other than SELECT is not modelled"),
        ),
        Some(_) if i == 1 && w.len() <= 3 => {
            let t = table_at(w, 1, db).ok_or_else(|| format!("`{sql}`: no table"))?;
            // An information_schema table is no table of the catalog: the server builds
            // it as a temporary table (`open_and_process_table` → `mysql_schema_table`,
            // sql/sql_base.cc, sql/sql_show.cc) and takes no metadata lock
            // (main/information_schema_routines.test:73).
            if t.db.eq_ignore_ascii_case("information_schema") && super::system_tables::exists(&t) {
                return Ok(Stmt::NoLocks);
            }
            no_view(sql, cat, &t)?;
            Ok(one_table_plan(Kind::ShowColumns, t, cat, has_row))
        }
        Some(_) => Err(format!("`{sql}`: this EXPLAIN is not modelled")),
    }
}

fn no_view(sql: &str, cat: &Catalog, t: &Tbl) -> Result<(), String> {
    if cat.is_view(t) {
        return Err(format!("`{sql}`: SHOW of a view (`{t}`) is not modelled"));
    }
    Ok(())
}

/// SHOW statements.
fn show(
    sql: &str,
    w: &[String],
    db: &str,
    cat: &Catalog,
    has_row: &dyn Fn(&str) -> bool,
) -> Result<Stmt, String> {
    let at = |i: usize| w.get(i).map(String::as_str).unwrap_or("");
    let mut i = 1;
    if matches!(at(i), "full" | "extended") {
        i += 1;
    }
    if let Some(st) = super::show::classify_show(sql, w, i, db, cat) {
        return st;
    }
    match at(i) {
        "create" if at(i + 1) == "table" => {
            let t = table_at(w, i + 2, db).ok_or_else(|| format!("`{sql}`: no table"))?;
            if w.len() != i + 3 {
                return Err(format!("`{sql}`: options of SHOW CREATE TABLE"));
            }
            no_view(sql, cat, &t)?;
            Ok(one_table_plan(Kind::ShowCreate, t, cat, has_row))
        }
        // SHOW CREATE TRIGGER (sql_show.cc, `mysql_show_create_trigger`): the trigger's
        // table found from its .TRN file (`get_trigger_table`), then opened as SHOW
        // CREATE TABLE opens its table (`open_tables` with
        // MYSQL_OPEN_FORCE_SHARED_HIGH_PRIO_MDL): the learned `show_create` row on that
        // table; a trigger that does not exist is ER_TRG_DOES_NOT_EXIST before any open.
        "create" if at(i + 1) == "trigger" && w.len() == i + 3 => {
            let tr = table_at(w, i + 2, db).ok_or_else(|| format!("`{sql}`: no trigger"))?;
            match cat.trigger_table(&tr) {
                Some(t) => {
                    no_view(sql, cat, &t)?;
                    Ok(one_table_plan(Kind::ShowCreate, t, cat, has_row))
                }
                None => Ok(Stmt::Fails(crate::catalog::ER_TRG_DOES_NOT_EXIST)),
            }
        }
        // SHOW CREATE VIEW (mysqld_show_create): the view's SH for the statement, no
        // table of it (learned: `show_create_view`); a table gives ER_WRONG_OBJECT once
        // opened.
        "create" if at(i + 1) == "view" && w.len() == i + 3 => {
            let v = table_at(w, i + 2, db).ok_or_else(|| format!("`{sql}`: no view"))?;
            if !has_row(Kind::ShowCreateView.as_str()) {
                return Err(format!(
                    "`{sql}`: SHOW CREATE VIEW is not in the learned table"
                ));
            }
            let Stmt::Learned(mut p) =
                one_table_plan(Kind::ShowCreateView, v.clone(), cat, has_row)
            else {
                return Err(format!("`{sql}`: SHOW CREATE VIEW"));
            };
            p.parts[0].row = Kind::ShowCreateView.as_str().into();
            p.parts[0].bind = Bind {
                v: Some(v.clone()),
                ..Bind::default()
            };
            if cat.is_table(&v) {
                p.effect = Effect::Fail(crate::catalog::ER_WRONG_OBJECT);
            }
            Ok(Stmt::Learned(p))
        }
        "columns" | "fields" | "index" | "indexes" | "keys" => {
            if !matches!(at(i + 1), "from" | "in") {
                return Err(format!("`{sql}`: expected FROM"));
            }
            let mut t = table_at(w, i + 2, db).ok_or_else(|| format!("`{sql}`: no table"))?;
            let mut j = i + 3;
            if matches!(at(j), "from" | "in") {
                t.db = at(j + 1).to_owned();
                j += 2;
            }
            if j < w.len() && !matches!(at(j), "like" | "where") {
                return Err(format!("`{sql}`: unexpected `{}`", at(j)));
            }
            no_view(sql, cat, &t)?;
            Ok(one_table_plan(Kind::ShowColumns, t, cat, has_row))
        }
        // SHOW [FULL] PROCESSLIST (`mysqld_list_processes`, sql/sql_show.cc) never reaches
        // `open_tables`: the session's HANDLERs another session waits for stay open
        // (random seed 480906, found/seed-480906.mdl).
        "processlist" => Ok(Stmt::Session(SessionStmt::OpensNothing)),
        // Statements that open no table: nothing held past them (sql_show.cc).
        "tables" | "databases" | "schemas" | "variables" | "status" | "engines" | "collation"
        | "character" | "charset" | "plugins" | "session" | "global" | "triggers" | "open" => {
            Ok(Stmt::NoLocks)
        }
        // These never reach `open_tables` either, so the session's HANDLERs another
        // session waits for stay open (`mysql_ha_flush` runs only there; measured:
        // suite/handler-kept-no-open.mdl): SHOW WARNINGS / ERRORS
        // (`mysqld_show_warnings`), GRANTS (`mysql_show_grants`), PRIVILEGES
        // (`mysqld_show_privileges`), MASTER STATUS (`show_binlog_info`), all sql_show.cc /
        // sql_acl.cc / sql_repl.cc; SHOW BINARY | MASTER LOGS (`show_binlogs`,
        // sql/sql_repl.cc) is ER_NO_BINARY_LOGGING with no binary log (the harness's
        // server runs with `--skip-log-bin`, as help_purge.rs says).
        "warnings" | "errors" | "grants" | "privileges" => {
            Ok(Stmt::Session(SessionStmt::OpensNothing))
        }
        "master" if at(i + 1) == "status" => Ok(Stmt::Session(SessionStmt::OpensNothing)),
        "master" | "binary" if at(i + 1) == "logs" => Ok(Stmt::Session(SessionStmt::Fail(
            super::help_purge::ER_NO_BINARY_LOGGING,
        ))),
        "master" | "binary" => Ok(Stmt::NoLocks),
        // SHOW ENGINE ... STATUS / MUTEX (ha_show_status) and SHOW [ALL] SLAVE(S) STATUS
        // (show_master_info / show_all_master_info): no table opened (measured:
        // show-engine-slave-status.mdl).
        // LOGS and MUTEX the same (SQLCOM_SHOW_ENGINE_LOGS / _MUTEX); an engine the server
        // does not have is the parser's ER_UNKNOWN_STORAGE_ENGINE (sql_yacc.yy,
        // `storage_engines` → ha_resolve_by_name; main/show_check.result).
        "engine"
            if w.len() == i + 3
                && matches!(
                    w.last().map(String::as_str),
                    Some("status" | "logs" | "mutex")
                ) =>
        {
            let name = vec!["engine".to_owned(), at(i + 1).to_owned()];
            Ok(match super::engines::clause(&name) {
                super::engines::Clause::Unknown(_) => {
                    Stmt::Fails(super::engines::ER_UNKNOWN_STORAGE_ENGINE)
                }
                _ => Stmt::Session(SessionStmt::OpensNothing),
            })
        }
        "engine" if w.last().is_some_and(|x| x == "status") => {
            Ok(Stmt::Session(SessionStmt::OpensNothing))
        }
        // (No `open_tables`, so no `mysql_ha_flush` of the session's HANDLERs either:
        // measured, suite/handler-kept-no-open.mdl.)
        "slave" | "replica" if w.last().is_some_and(|x| x == "status") => {
            Ok(Stmt::Session(SessionStmt::OpensNothing))
        }
        // SHOW CREATE DATABASE (`mysqld_show_create_db`, sql_show.cc) and SHOW CREATE USER
        // (`mysql_show_create_user`, sql_acl.cc) open no table: no `mysql_ha_flush`.
        "create" if matches!(at(i + 1), "database" | "schema" | "user") => {
            Ok(Stmt::Session(SessionStmt::OpensNothing))
        }
        _ => Err(format!("`{sql}`: this SHOW is not modelled")),
    }
}

/// A SELECT whose every FROM / JOIN names an `information_schema` table.
fn reads_only_information_schema(w: &[String]) -> bool {
    let mut named = 0;
    for (i, x) in w.iter().enumerate() {
        if matches!(x.as_str(), "from" | "join") {
            match w.get(i + 1) {
                Some(t) if t.starts_with("information_schema.") => named += 1,
                Some(t) if t == "(" => {}
                _ => return false,
            }
        }
    }
    named > 0
}

/// `CREATE OR REPLACE TABLE t (...) | LIKE s | [AS] SELECT ...`: of a table that
/// exists, the learned `create_or_replace` (`_like`, `_select`) row: SU then X of the
/// old table and BACKUP_DDL (`mysql_create_table_no_lock` with `or_replace()`, the old
/// table dropped under its X: sql/sql_table.cc, `mysql_create_like_table`, and
/// sql/sql_insert.cc, `select_create::create_table_from_items`), then the source's SR;
/// of one that does not, CREATE TABLE's.
fn create_or_replace(
    sql: &str,
    w: &[String],
    db: &str,
    cat: &Catalog,
    has_row: &dyn Fn(&str) -> bool,
) -> Result<Stmt, String> {
    let t = table_at(w, 4, db).ok_or_else(|| format!("`{sql}`: no table name"))?;
    let low = sql.to_ascii_lowercase();
    let at = low
        .find("replace")
        .ok_or_else(|| format!("`{sql}`: expected REPLACE"))?
        + "replace".len();
    let plain = format!("CREATE{}", &sql[at..]);
    let mut p = match classify(&plain, db, cat, has_row)? {
        Stmt::Learned(p)
            if matches!(
                p.kind,
                Kind::CreateTable | Kind::CreateLike | Kind::CreateSelect
            ) =>
        {
            p
        }
        _ => return Err(format!("`{sql}`: this CREATE OR REPLACE is not modelled")),
    };
    if !cat.exists(&t) {
        return Ok(Stmt::Learned(p));
    }
    let fks = super::fk_replace::keys(sql, &t, cat, &mut p)?;
    let Effect::CreateTable {
        engine,
        partitioned,
        no_columns,
        src,
        ..
    } = &p.effect
    else {
        return Err(format!("`{sql}`: no engine"));
    };
    let (engine, partitioned, src) = (*engine, *partitioned, src.clone());
    if *no_columns {
        // Measured on 10.11.19: the old table is dropped, then ER_TABLE_MUST_HAVE_COLUMNS.
        return Err(format!(
            "`{sql}`: CREATE OR REPLACE of a table with no column (drops it, then fails) is \
             not modelled"
        ));
    }
    let kind = match (p.kind, src.len()) {
        (Kind::CreateTable, _) | (Kind::CreateSelect, 0) => Kind::CreateOrReplace,
        (Kind::CreateLike, 1) => Kind::CreateOrReplaceLike,
        (Kind::CreateSelect, 1) => Kind::CreateOrReplaceSelect,
        _ => {
            return Err(format!(
                "`{sql}`: CREATE OR REPLACE ... SELECT of several tables is not in the learned \
                 table"
            ))
        }
    };
    if cat.is_view(&t) || !has_row(kind.as_str()) {
        return Err(format!(
            "`{sql}`: CREATE OR REPLACE of a view is not modelled"
        ));
    }
    if src.iter().any(|s| *s == t || cat.is_view(s)) {
        // The old table read by its replacement (ER_UPDATE_TABLE_USED), or a view.
        return Err(format!(
            "`{sql}`: CREATE OR REPLACE ... LIKE / SELECT of itself or of a view is not \
             modelled"
        ));
    }
    // Another engine than the old table's: the same locks (the old table is dropped
    // under its X whatever its engine; measured on the corpus, main/create_or_replace.test).
    p.kind = kind;
    p.parts = vec![Part {
        row: kind.as_str().into(),
        kind,
        bind: Bind {
            t: Some(t.clone()),
            t2: src.first().cloned(),
            ..Bind::default()
        },
        set_target: SetTarget::NotInList,
    }];
    p.effect = Effect::Replace {
        t,
        engine,
        partitioned,
        empty: kind != Kind::CreateOrReplaceSelect && !low.contains("select"),
        src,
    };
    if let Some(fks) = fks {
        p.effect = Effect::WithFks(Box::new(p.effect), fks);
    }
    Ok(Stmt::Learned(p))
}

/// `ALTER DATABASE name UPGRADE DATA DIRECTORY NAME` (sql/sql_db.cc, `mysql_upgrade_db`,
/// after the implicit commit of SQLCOM_ALTER_DB_UPGRADE): a name without the `#mysql50#`
/// prefix is ER_WRONG_USAGE and the bare prefix ER_WRONG_DB_NAME (sql_parse.cc,
/// `check_db_name`), both before any lock and under LOCK TABLES too: the learned
/// `flush_status` row (an implicit commit and no lock) with the error; otherwise
/// `lock_schema_name` of the old name (the `alter_db` row: BACKUP_DDL, the schema's X,
/// ER_LOCK_OR_ACTIVE_TRANSACTION under LOCK TABLES), then ER_BAD_DB_ERROR, as no
/// `#mysql50#` directory exists on the harness's server. Measured on 10.11.19:
/// suite/alter-db-upgrade.mdl (main/renamedb.test, main/mdl_sync.test).
fn alter_db_upgrade(w: &[String], has_row: &dyn Fn(&str) -> bool) -> Option<Stmt> {
    if w.len() != 7 || w[3..].join(" ") != "upgrade data directory name" {
        return None;
    }
    let name = &w[2];
    let (kind, s, code) = match name.strip_prefix("#mysql50#") {
        None => (Kind::FlushStatus, None, 1221),
        Some("") => (Kind::FlushStatus, None, 1102),
        Some(_) => (Kind::AlterDb, Some(name.clone()), 1049),
    };
    if !has_row(kind.as_str()) {
        return None;
    }
    let bind = Bind {
        s,
        ..Bind::default()
    };
    Some(Stmt::Learned(Plan::single(kind, bind, Effect::Fail(code))))
}

/// `ALTER DATABASE|SCHEMA [db] options`: the learned `alter_db` row.
fn alter_db(
    sql: &str,
    w: &[String],
    db: &str,
    has_row: &dyn Fn(&str) -> bool,
) -> Result<Stmt, String> {
    if let Some(st) = alter_db_upgrade(w, has_row) {
        return Ok(st);
    }
    const OPTS: &[&str] = &["default", "character", "charset", "collate", "comment"];
    let (s, rest) = match w.get(2) {
        Some(x) if !OPTS.contains(&x.as_str()) => (x.clone(), 3),
        _ => (db.to_owned(), 2),
    };
    if !w.get(rest).is_some_and(|x| OPTS.contains(&x.as_str())) || !has_row(Kind::AlterDb.as_str())
    {
        return Err(format!("`{sql}`: this ALTER DATABASE is not modelled"));
    }
    let bind = Bind {
        s: Some(s.clone()),
        ..Bind::default()
    };
    Ok(Stmt::Learned(Plan::single(
        Kind::AlterDb,
        bind,
        Effect::AlterDb(s),
    )))
}
