//! ANALYZE, OPTIMIZE, CHECK, REPAIR TABLE (`mysql_admin_table`, sql/sql_admin.cc): the
//! learned row of each table named, and the options after the table list.

use super::{Cur, Cx, Effect, Stmt, Tok, ER_PARSE_ERROR};
use crate::kind::{Kind, RowVariant};

/// ANALYZE, OPTIMIZE, CHECK, REPAIR TABLE (`mysql_admin_table`, sql/sql_admin.cc).
pub(super) fn classify_admin(
    cx: &Cx,
    c: &mut Cur,
    toks: &[Tok],
    words: &[String],
) -> Result<Stmt, String> {
    let sql = cx.sql;
    let db = cx.db;
    let first = words[0].as_str();
    let not_in = || format!("statement not in the learned table: `{}`", cx.sql);
    c.i = 1;
    c.eat("no_write_to_binlog");
    c.eat("local");
    if matches!(first, "check" | "repair") && c.eat("view") {
        return super::admin_view::classify(cx, c, toks, first == "repair");
    }
    if !c.eat("table") && !c.eat("tables") {
        return Err(not_in());
    }
    let kind = match first {
        "analyze" => Kind::Analyze,
        "optimize" => Kind::Optimize,
        "check" => Kind::CheckTable,
        "repair" => Kind::Repair,
        _ => return Err(not_in()),
    };
    let mut parts = Vec::new();
    let mut ts = Vec::new();
    loop {
        let t = c.table(db)?;
        // OPTIMIZE of an InnoDB table is open, recreate, analyze (the `optimize` row's
        // three sequences, written by models/conform/src/learn/optimize.rs from
        // `mysql_admin_table` and `mysql_recreate_table`). Of several tables each is
        // done in turn, a statement of its own (compose.rs `admin_one_by_one`; measured:
        // suite/optimize-several-tables.mdl).
        let mut part = cx.on_table(kind, &t)?;
        if kind == Kind::Optimize && cx.cat.engine(&t).is_none() {
            // A table that does not exist: no engine decides anything, the
            // statement's own open fails (ER_NO_SUCH_TABLE in its result row).
            // MyISAM's row is that single lock sequence (measured: the same
            // locks and outcomes as the server for OPTIMIZE of a dropped table).
            part.row = Kind::Optimize.row_name(RowVariant::MyIsam).to_owned();
        }
        parts.push(part);
        ts.push(t);
        if !c.eat_p(',') {
            break;
        }
    }
    // CHECK's options (sql_yacc.yy `mi_check_type`) and ANALYZE's PERSISTENT FOR
    // ALL change what is checked or collected, not the open: mysql_check_table and
    // mysql_analyze_table pass the same lock type to mysql_admin_table whatever
    // they are (sql/sql_admin.cc; measured: suite/admin-options.mdl).
    let kind = match options(c, kind)? {
        Some(kind) => kind,
        None => return Ok(Stmt::Fails(ER_PARSE_ERROR)),
    };
    if kind == Kind::AnalyzePersistent {
        parts = super::analyze_persistent::parts(cx, &ts)?;
        super::analyze_persistent::spec(cx, c, &ts)?;
    }
    if !c.done() && !c.at("wait") && !c.at("nowait") {
        return Err(format!(
            "`{sql}`: options after the table list are not in the learned table"
        ));
    }
    cx.plan(kind, parts, Effect::NeedTables(ts), toks)
}

/// The options after the table list (sql_yacc.yy): CHECK's `mi_check_type` (QUICK,
/// FAST, MEDIUM, EXTENDED, CHANGED, FOR UPGRADE), REPAIR's `mi_repair_type` (QUICK,
/// EXTENDED, USE_FRM), ANALYZE's `opt_persistent_stat_clause` (the kind becomes
/// `analyze_persistent`; its spec is read by the caller); OPTIMIZE has none. None: an
/// option word of another admin statement where this one has none, which the parser
/// refuses (ER_PARSE_ERROR before any lock: main/analyze.test, `analyze table t1
/// extended`; main/mysql_upgrade_view.test, `repair table t1 from mysql`).
fn options(c: &mut Cur, kind: Kind) -> Result<Option<Kind>, String> {
    match kind {
        Kind::CheckTable => loop {
            if c.eat("for") {
                c.expect("upgrade")?;
            } else if !["quick", "fast", "medium", "extended", "changed"]
                .iter()
                .any(|o| c.eat(o))
            {
                break;
            }
        },
        Kind::Repair => while ["quick", "extended", "use_frm"].iter().any(|o| c.eat(o)) {},
        Kind::Analyze if c.eat("persistent") => {
            c.expect("for")?;
            return Ok(Some(Kind::AnalyzePersistent));
        }
        _ => {}
    }
    const OTHERS: [&str; 9] = [
        "quick",
        "fast",
        "medium",
        "extended",
        "changed",
        "for",
        "use_frm",
        "from",
        "persistent",
    ];
    Ok((!OTHERS.iter().any(|o| c.at(o))).then_some(kind))
}
