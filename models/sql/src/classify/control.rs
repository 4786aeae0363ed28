//! LOCK TABLES, FLUSH and the words of COMMIT / ROLLBACK (`sql/sql_parse.cc`,
//! `sql/lock.cc`, `sql/sql_reload.cc`).

use super::SYSTEM_SCHEMAS;
use super::{
    instance_plan, kw_eq, Bind, Cur, Cx, Effect, LtMode, Stmt, Tok, ER_DBACCESS_DENIED,
    ER_PARSE_ERROR, ER_TABLEACCESS_DENIED,
};
use crate::kind::Kind;

pub(super) fn classify_lock(cx: &Cx, c: &mut Cur, toks: &[Tok]) -> Result<Stmt, String> {
    let sql = cx.sql;
    c.i = 1;
    if c.eat("instance") {
        // LOCK INSTANCE FOR BACKUP (MySQL 8.0: Sql_cmd_lock_instance::execute).
        if !(c.eat("for") && c.eat("backup") && c.done()) {
            return Err(format!("statement not in the learned table: `{sql}`"));
        }
        return instance_plan(cx, Kind::InstanceLock, toks);
    }
    if !c.eat("tables") && !c.eat("table") {
        return Err(format!("statement not in the learned table: `{sql}`"));
    }
    let mut parts = Vec::new();
    let mut lt = Vec::new();
    let mut plain_seen = Vec::new();
    let mut aliases = Vec::new();
    loop {
        let t = c.table(cx.db)?;
        cx.no_view(&t)?;
        if t.db.eq_ignore_ascii_case("information_schema") {
            // lock_tables_precheck (sql_parse.cc) refuses it with ER_DBACCESS_DENIED_ERROR
            // after the statement's implicit commit and UNLOCK TABLES: not modelled.
            return Err(format!(
                "`{sql}`: LOCK TABLES of an information_schema table (error 1044 after the \
                 implicit commit) is not modelled"
            ));
        }
        let aliased = c.eat("as") || !(c.at("read") || c.at("write") || c.at("low_priority"));
        let alias = if aliased { Some(c.ident()?) } else { None };
        let plain = alias
            .as_ref()
            .is_none_or(|a| a.eq_ignore_ascii_case(&t.name));
        if super::lock_alias::duplicate(&mut aliases, &t, alias.as_deref()) {
            return Ok(Stmt::Fails(super::parse_errors::ER_NONUNIQ_TABLE));
        }
        let kind = if c.eat("read") {
            if c.eat("local") {
                Kind::LockReadLocal
            } else {
                Kind::LockRead
            }
        } else {
            c.eat("low_priority");
            if !c.eat("write") {
                return Err(format!("LOCK TABLES: expected READ or WRITE in `{sql}`"));
            }
            if c.eat("concurrent") {
                Kind::LockWriteConcurrent
            } else {
                Kind::LockWrite
            }
        };
        let mode = if matches!(kind, Kind::LockRead | Kind::LockReadLocal) {
            LtMode::Read
        } else if kind == Kind::LockWriteConcurrent {
            LtMode::WriteConcurrent
        } else {
            LtMode::Write
        };
        super::lock_alias::merge(&mut lt, &mut plain_seen, &t, mode, plain);
        parts.push(cx.on_table(kind, &t)?);
        if !c.eat_p(',') {
            break;
        }
    }
    if !c.done() && !c.at("wait") && !c.at("nowait") {
        return Err(format!(
            "LOCK TABLES: unexpected words at the end of `{sql}`"
        ));
    }
    let kind = if lt.iter().any(|(_, m)| *m != LtMode::Read) {
        Kind::LockWrite
    } else {
        Kind::LockRead
    };
    let need = lt.iter().map(|(t, _)| t.clone()).collect();
    let Stmt::Learned(mut p) = cx.plan(kind, parts, Effect::NeedTables(need), toks)? else {
        unreachable!()
    };
    p.lock_tables = lt;
    Ok(Stmt::Learned(p))
}

pub(super) fn classify_flush(
    cx: &Cx,
    c: &mut Cur,
    toks: &[Tok],
    words: &[String],
) -> Result<Stmt, String> {
    let sql = cx.sql;
    c.i = 1;
    c.eat("no_write_to_binlog");
    c.eat("local");
    if !c.eat("tables") && !c.eat("table") {
        return Err(format!(
            "`{sql}`: only FLUSH TABLES is in the learned table"
        ));
    }
    let mut ts = Vec::new();
    while !c.done() && !c.at("with") && !c.at("for") {
        ts.push(c.table(cx.db)?);
        if !c.eat_p(',') {
            break;
        }
    }
    let rl = words
        .windows(3)
        .any(|w| w[0] == "with" && w[1] == "read" && w[2] == "lock");
    // FOR EXPORT: `flush_tables_with_read_lock` as WITH READ LOCK (`classify/misc.rs`);
    // the parser takes it only after a table list (sql_yacc.yy, `flush_lock`).
    // Measured (main/flush-innodb.test): `FLUSH TABLES FOR EXPORT`, `... WITH EXPORT`
    // are ER_PARSE_ERROR.
    let export = c.eat("for") && c.eat("export");
    let rest = &toks[c.i.min(toks.len())..];
    if (export && (ts.is_empty() || !c.done()))
        || rest.iter().any(|t| kw_eq(t, "export") || kw_eq(t, "for"))
    {
        return Ok(Stmt::Fails(ER_PARSE_ERROR));
    }
    // WITH READ LOCK / FOR EXPORT of a system schema's table: check_table_access
    // (sql_parse.cc, SQLCOM_FLUSH, before flush_tables_with_read_lock) refuses LOCK TABLES
    // there, before any lock (measured: ER_DBACCESS_DENIED_ERROR for information_schema,
    // ER_TABLEACCESS_DENIED_ERROR for performance_schema).
    if rl || export {
        let db = |n: &str| ts.iter().any(|t| t.db.eq_ignore_ascii_case(n));
        if db("information_schema") {
            return Ok(Stmt::Fails(ER_DBACCESS_DENIED));
        }
        if db("performance_schema") {
            return Ok(Stmt::Fails(ER_TABLEACCESS_DENIED));
        }
    }
    match (rl || export, ts.is_empty()) {
        (true, true) => cx.plan(
            Kind::Ftwrl,
            vec![cx.part(Kind::Ftwrl, Bind::default())],
            Effect::None,
            toks,
        ),
        (true, false) => {
            // FOR EXPORT: its own learned rows (the same as WITH READ LOCK's), played as
            // WITH READ LOCK (the plan's kind).
            let row = if export {
                Kind::FlushExport
            } else {
                Kind::FtwrlTable
            };
            let mut parts = Vec::new();
            for t in &ts {
                parts.push(cx.on_table(row, t)?);
            }
            let Stmt::Learned(mut p) = cx.plan(
                Kind::FtwrlTable,
                parts,
                Effect::NeedTables(ts.clone()),
                toks,
            )?
            else {
                unreachable!()
            };
            p.lock_tables = ts.into_iter().map(|t| (t, LtMode::Read)).collect();
            Ok(Stmt::Learned(p))
        }
        (false, true) => cx.plan(
            Kind::FlushTables,
            vec![cx.part(Kind::FlushTables, Bind::default())],
            Effect::None,
            toks,
        ),
        (false, false) => {
            let mut parts = Vec::new();
            for t in &ts {
                parts.push(cx.on_table(Kind::FlushTable, t)?);
            }
            cx.plan(Kind::FlushTable, parts, Effect::None, toks)
        }
    }
}

/// `COMMIT` / `ROLLBACK` with `[AND] CHAIN` or `RELEASE` (not `NO CHAIN`, `NO RELEASE`).
pub(super) fn chain_or_release(words: &[String]) -> bool {
    words
        .iter()
        .enumerate()
        .any(|(i, w)| (w == "chain" || w == "release") && (i == 0 || words[i - 1] != "no"))
}

/// USE (`mysql_change_db`, sql/sql_db.cc).
pub(super) fn classify_use(cx: &Cx, c: &mut Cur, toks: &[Tok]) -> Result<Stmt, String> {
    let sql = cx.sql;
    c.i = 1;
    if c.peek() == Some(&Tok::P('/')) && toks.get(2) == Some(&Tok::P('*')) {
        // A comment (`USE /* 1 */ test`, main/partition_csv.test): whitespace to
        // the server's lexer.
        let end = (3..toks.len())
            .find(|&j| toks[j] == Tok::P('*') && toks.get(j + 1) == Some(&Tok::P('/')))
            .ok_or_else(|| format!("`{sql}`: an unterminated comment"))?;
        c.i = end + 2;
    }
    let d = c.ident()?;
    if d.chars().count() > NAME_CHAR_LEN {
        // mysql_change_db (sql_db.cc) checks the name first: check_db_name refuses one
        // longer than NAME_CHAR_LEN characters with ER_WRONG_DB_NAME, before it looks
        // for the schema (main/create.test:996).
        return Ok(Stmt::Fails(ER_WRONG_DB_NAME));
    }
    if SYSTEM_SCHEMAS.iter().any(|x| d.eq_ignore_ascii_case(x)) {
        // The server's own schemas exist and USE takes no lock (sql_db.cc,
        // `mysql_change_db`); their tables are not in the catalog, so the
        // statements after it that name tables are refused (`classify`).
        return Ok(Stmt::Use(d.to_ascii_lowercase()));
    }
    Ok(Stmt::Use(d))
}

/// An identifier's longest length in characters (NAME_CHAR_LEN, mysql_com.h).
const NAME_CHAR_LEN: usize = 64;
/// ER_WRONG_DB_NAME.
const ER_WRONG_DB_NAME: u32 = 1102;

/// HANDLER ... OPEN / READ / CLOSE (`sql/sql_handler.cc`).
pub(super) fn classify_handler(cx: &Cx, c: &mut Cur, toks: &[Tok]) -> Result<Stmt, String> {
    let db = cx.db;
    let not_in = || format!("statement not in the learned table: `{}`", cx.sql);
    c.i = 1;
    let name = c.ident()?;
    let name = if c.eat_p('.') { c.ident()? } else { name };
    match c.peek() {
        Some(t) if kw_eq(t, "close") => Ok(Stmt::HandlerClose(name)),
        Some(t) if kw_eq(t, "read") => Ok(Stmt::HandlerRead(name)),
        Some(t) if kw_eq(t, "open") => {
            c.i += 1;
            // HANDLER t OPEN [[AS] alias] (sql_yacc.yy: handler_tail).
            c.eat("as");
            let alias = if c.done() { None } else { Some(c.ident()?) };
            if !c.done() {
                return Err(not_in());
            }
            c.i = 1;
            let t = c.table(db)?;
            cx.no_view(&t)?;
            let mut p = cx.on_table(Kind::HandlerOpen, &t)?;
            p.bind.alias = alias;
            cx.plan(
                Kind::HandlerOpen,
                vec![p],
                Effect::NeedTables(vec![t]),
                toks,
            )
        }
        _ => Err(not_in()),
    }
}

/// BACKUP STAGE / LOCK / UNLOCK (sql/backup.cc).
pub(super) fn classify_backup(cx: &Cx, c: &mut Cur, toks: &[Tok]) -> Result<Stmt, String> {
    let sql = cx.sql;
    let db = cx.db;
    let not_in = || format!("statement not in the learned table: `{}`", cx.sql);
    c.i = 1;
    if c.eat("stage") {
        let st = c.ident()?.to_ascii_lowercase();
        if !(cx.has_row)(Kind::BackupStart.as_str()) {
            return Err(format!(
                "`{sql}`: BACKUP STAGE (MariaDB) is not in this dialect's statement \
                 table"
            ));
        }
        let Some(kind) = Kind::backup_stage(&st) else {
            return Err(format!("unknown backup stage `{st}` in `{sql}`"));
        };
        return cx.plan(
            kind,
            vec![cx.part(kind, Bind::default())],
            Effect::None,
            toks,
        );
    }
    if c.eat("lock") {
        // BACKUP LOCK [db.]t: a lock on the table, held until BACKUP UNLOCK.
        let t = c.table(db)?;
        if !c.done() {
            return Err(not_in());
        }
        let p = cx.on_table(Kind::TableBackupLock, &t)?;
        return cx.plan(Kind::TableBackupLock, vec![p], Effect::None, toks);
    }
    if c.eat("unlock") && c.done() {
        return Ok(Stmt::BackupUnlock);
    }
    Err(not_in())
}
