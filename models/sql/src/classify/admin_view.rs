//! CHECK VIEW and REPAIR VIEW (sql/sql_admin.cc `mysql_admin_table`): the learned rows
//! `check_view` / `repair_view` (a view of one table) and `check_view_const` /
//! `repair_view_const` (a view of no table), one view after the other.
//!
//! `mysql_admin_table` sets the view's MDL request to MDL_SHARED_READ for CHECK and
//! MDL_SHARED_NO_READ_WRITE for REPAIR, and `open_only_one_table` opens it with
//! `required_type= FRMTYPE_VIEW` (`lex->only_view`); the view's tables are opened with it
//! (measured on 10.11.19: CHECK VIEW, the view SR then its table SR; REPAIR VIEW, the
//! schema's IX, the view SNRW, the BACKUP_DDL back-off, then its table SNRW; no X, as
//! `view_repair` only rewrites the .frm; an implicit commit; E1100 under LOCK TABLES of
//! other tables, CHECK allowed under FTWRL and the BACKUP stages, REPAIR error 1 there).
//!
//! The grammar (sql_yacc.yy): `CHECK VIEW list [FOR UPGRADE]` (`opt_view_check_type`),
//! `REPAIR [NO_WRITE_TO_BINLOG | LOCAL] VIEW list [FROM MYSQL]` (`opt_view_repair_type`);
//! a table option (QUICK, EXTENDED, USE_FRM, ...) is ER_PARSE_ERROR before any lock
//! (main/mysql_upgrade_view.test).
//!
//! A name the catalog does not know is played with the view-only rows (`*_const`): the
//! server takes the same locks, then the open fails and the error is the name's result
//! row (ER_NO_SUCH_TABLE as the harness reads it, measured).
//!
//! Not modelled (refused by name): a table (the server checks or repairs the table), a
//! view of several tables, of a view, of a MyISAM table, of a table in another schema, or
//! that is not mergeable.

use super::{Bind, Cur, Cx, Effect, Part, SetTarget, Stmt, Tbl, Tok, ER_PARSE_ERROR};
use crate::kind::Kind;

/// `CHECK VIEW ...` / `REPAIR ... VIEW ...`, the cursor after VIEW; `repair` tells which.
pub(super) fn classify(cx: &Cx, c: &mut Cur, toks: &[Tok], repair: bool) -> Result<Stmt, String> {
    let mut views = Vec::new();
    loop {
        views.push(c.table(cx.db)?);
        if !c.eat_p(',') {
            break;
        }
    }
    let option_ok = if repair {
        !c.eat("from") || c.eat("mysql")
    } else {
        !c.eat("for") || c.eat("upgrade")
    };
    if !option_ok || !c.done() {
        return Ok(Stmt::Fails(ER_PARSE_ERROR));
    }
    let parts = views
        .iter()
        .map(|v| part(cx, v, repair))
        .collect::<Result<Vec<_>, _>>()?;
    let kind = if repair {
        Kind::RepairView
    } else {
        Kind::CheckView
    };
    // A name that is not there: its result row's error, which the harness reads as the
    // statement's (ER_NO_SUCH_TABLE, as for CHECK TABLE of a missing table).
    cx.plan(kind, parts, Effect::NeedTables(views), toks)
}

/// The learned row of one view: `$v` the view, `$t` its table.
fn part(cx: &Cx, v: &Tbl, repair: bool) -> Result<Part, String> {
    let refuse = |what: &str| {
        Err(format!(
            "`{}`: {} VIEW of `{v}`, {what}, is not modelled",
            cx.sql,
            if repair { "REPAIR" } else { "CHECK" }
        ))
    };
    let const_kind = if repair {
        Kind::RepairViewConst
    } else {
        Kind::CheckViewConst
    };
    let Some(def) = cx.cat.view_def(v) else {
        if cx.cat.exists(v) {
            return refuse("a table");
        }
        // A missing name: the view's locks, then the open fails and the error is the
        // name's result row ("doesn't exist": ER_NO_SUCH_TABLE, measured on 10.11.19
        // with the `*_const` rows' locks, `suite/admin-check-repair-view.mdl`).
        return Ok(one(const_kind, v, None));
    };
    let (kind, t) = match def.bases.as_slice() {
        [] => (const_kind, None),
        [t] => {
            if !def.merge {
                return refuse("a view that is not mergeable");
            }
            if cx.cat.engine(t) != Some(super::Engine::InnoDb) || t.db != v.db {
                return refuse("a view of a table that is not an InnoDB table of its schema");
            }
            let kind = if repair {
                Kind::RepairView
            } else {
                Kind::CheckView
            };
            (kind, Some(t.clone()))
        }
        _ => return refuse("a view of several tables"),
    };
    Ok(one(kind, v, t))
}

fn one(kind: Kind, v: &Tbl, t: Option<Tbl>) -> Part {
    Part {
        row: kind.as_str().to_owned(),
        kind,
        bind: Bind {
            v: Some(v.clone()),
            t,
            ..Bind::default()
        },
        set_target: SetTarget::NotInList,
    }
}
