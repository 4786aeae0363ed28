//! Views (MariaDB 10.11, `sql/sql_view.cc`).
//!
//! - `CREATE [OR REPLACE] VIEW` / `ALTER VIEW` (`mysql_create_view`): the view's name is
//!   locked X by `open_and_lock_tables`' `lock_table_names` (with its schema's IX and the
//!   BACKUP_DDL back-off), then the tables its SELECT reads are opened SR one after the
//!   other; a view it reads is opened with its own tables after it (`mysql_make_view`
//!   puts a view's tables right after the view in the table list). Learned rows:
//!   `create_view` (one table), `create_view_const` (none), `create_or_replace_view`,
//!   `alter_view`; several tables are composed from `create_view` parts (one per table:
//!   [`crate::compose`] requests the view's X once).
//! - `DROP VIEW v1, v2, ...` (`mysql_drop_view`): one `lock_table_names` call for every
//!   name, then each is dropped if it is a view; names that are not views (tables too,
//!   on 10.11) give ER_UNKNOWN_VIEW, the views that exist are dropped all the same; IF
//!   EXISTS makes it notes.
//! - DML through a view (`open_table` → `mysql_make_view`): the view's own MDL of the
//!   statement's type, then its tables with the same type for a mergeable view
//!   (`tbl->mdl_request.set_type(table->mdl_request.type)`), SR for a TEMPTABLE one.
//!   Learned rows `select_view`, `insert_view`, `update_view`, `delete_view`,
//!   `select_view_temptable` on a view of one table; a view of several tables, or of a
//!   view, is refused for DML (not measured).

use super::function_names::{callee_of_call, Callee};
use super::{from_tables, kw_eq, Bind, Cur, Cx, Effect, Part, Stmt, Tbl, Tok};
use crate::kind::Kind;
pub use crate::objects::{ViewDef, ViewMode};

/// Words of a view's SELECT that stop a merge (`LEX::can_be_merged`, sql_lex.cc) or
/// that this model cannot see through.
const NO_MERGE: &[&str] = &[
    "distinct", "group", "having", "limit", "union", "count", "sum", "min", "max", "avg", "window",
    "over",
];

/// Words after which `(` opens a list or a subquery, not a call.
const NOT_CALL: &[&str] = &[
    "as",
    "in",
    "exists",
    "from",
    "select",
    "join",
    "on",
    "and",
    "or",
    "not",
    "where",
    "using",
    "values",
    "any",
    "all",
    "some",
    "view",
    "like",
    "partition",
    // Non-reserved keywords that the grammar reads before `(` in a clause, not as a call
    // (function-names.tsv lists them as stored-function names when written `word()`
    // alone): `LIKE ... ESCAPE (...)`, `MATCH ... AGAINST (...)`, `JSON_TABLE(...
    // COLUMNS (... NESTED PATH ... COLUMNS (...)))`.
    "escape",
    "against",
    "json_table",
    "columns",
    "nested",
];

/// DROP VIEW [IF EXISTS] v1 [, v2 ...] [RESTRICT | CASCADE], after IF EXISTS.
pub(super) fn drop_views(cx: &Cx, c: &mut Cur, toks: &[Tok], ie: bool) -> Result<Stmt, String> {
    let mut vs: Vec<Tbl> = Vec::new();
    loop {
        let v = c.table(cx.db)?;
        if vs.contains(&v) {
            return Err(format!(
                "`{}`: DROP VIEW naming `{v}` twice is not modelled",
                cx.sql
            ));
        }
        vs.push(v);
        if !c.eat_p(',') {
            break;
        }
    }
    // sql_yacc.yy: opt_restrict, parsed and ignored.
    let _ = c.eat("restrict") || c.eat("cascade");
    if !c.done() {
        return Err(format!("statement not in the learned table: `{}`", cx.sql));
    }
    let parts = vs
        .iter()
        .map(|v| {
            cx.part(
                Kind::DropView,
                Bind {
                    v: Some(v.clone()),
                    ..Bind::default()
                },
            )
        })
        .collect();
    cx.plan(
        Kind::DropView,
        parts,
        Effect::DropView { vs, if_exists: ie },
        toks,
    )
}

/// The rest of `CREATE [OR REPLACE] [ALGORITHM=...] VIEW` / `ALTER [...] VIEW`, the
/// cursor after VIEW. `temptable`: the statement said ALGORITHM=TEMPTABLE.
pub(super) fn create_view(
    cx: &Cx,
    c: &mut Cur,
    toks: &[Tok],
    mode: ViewMode,
    temptable: bool,
) -> Result<Stmt, String> {
    let sql = cx.sql;
    let v = c.table(cx.db)?;
    let as_at = toks
        .iter()
        .position(|t| kw_eq(t, "as"))
        .ok_or_else(|| format!("no AS in `{sql}`"))?;
    let body = &toks[as_at + 1..];
    // `SELECT ... INTO` in a view is a syntax error (sql_yacc.yy: view_select has no
    // INTO; main/view.test expects ER_PARSE_ERROR): refused, not played.
    if body.iter().any(|t| kw_eq(t, "into")) {
        return Err(format!(
            "`{sql}`: SELECT ... INTO in a view is a syntax error"
        ));
    }
    let calls = stored_calls(sql, body)?;
    let mut bases: Vec<Tbl> = Vec::new();
    for t in from_tables(body, cx.db)? {
        // A system schema's table: no lock the harness compares (`system_tables.rs`),
        // so the view is played as a view of its other tables; one the server does not
        // have is refused (1109 / 1146 after the view's X).
        if super::system_tables::is_system(&t) {
            if !super::system_tables::exists(&t) {
                return Err(format!(
                    "`{sql}`: a view of `{t}`, which the system schema does not have, is \
                     not modelled"
                ));
            }
            continue;
        }
        if !bases.contains(&t) {
            bases.push(t);
        }
    }
    let mut missing = missing_function(cx, &v, &calls, &bases)?;
    if missing && mode == ViewMode::Alter {
        // `missing` says the view is not there either: ALTER VIEW of a missing view fails
        // with ER_NO_SUCH_TABLE before the function is looked for (measured on 10.11.19:
        // `ALTER VIEW v1 AS SELECT f1()` is 1146 with no v1, 1305 with one), as it does
        // with no function call (`mysql_create_view`, sql/sql_view.cc; main/mdl_sync.test).
        missing = false;
    }
    let merge = !temptable
        && !body.iter().any(|t| NO_MERGE.iter().any(|w| kw_eq(t, w)))
        && !select_list_subquery(body);
    let kind = match (mode, bases.is_empty()) {
        // Of no table: the view's X group alone, as CREATE (the learned OR REPLACE and
        // ALTER rows are CREATE's; measured: views-or-replace-const.mdl).
        (_, true) => Kind::CreateViewConst,
        (ViewMode::Create, false) => Kind::CreateView,
        (ViewMode::OrReplace, false) => Kind::CreateOrReplaceView,
        (ViewMode::Alter, false) => Kind::AlterView,
    };
    if !(cx.has_row)(kind.as_str()) {
        return Err(format!("`{sql}`: `{kind}` is not in the learned table"));
    }
    // The tables opened after the view's X: each base, a view followed by its own.
    let mut opened: Vec<Tbl> = Vec::new();
    for b in &bases {
        expand(cx, b, &mut opened, 0)?;
    }
    let mut parts: Vec<Part> = Vec::new();
    if opened.is_empty() {
        parts.push(cx.part(
            kind,
            Bind {
                v: Some(v.clone()),
                ..Bind::default()
            },
        ));
    }
    for t in &opened {
        // The first table with the statement's own row; the others' SR from
        // `create_view` rows (the view's X and the back-off are requested once). A table
        // of another schema: its SR alone (a `select` row; the statement commits at its
        // end, so its transaction duration ends there too), as `lock_table_names` locks
        // only the view's schema IX, not the tables'.
        if t.db != v.db {
            if parts.is_empty() {
                if mode != ViewMode::Create {
                    return Err(format!(
                        "`{sql}`: CREATE OR REPLACE / ALTER VIEW of a table of another \
                         schema (`{t}`) first is not in the learned table"
                    ));
                }
                parts.push(cx.part(
                    Kind::CreateViewConst,
                    Bind {
                        v: Some(v.clone()),
                        ..Bind::default()
                    },
                ));
            }
            parts.push(cx.part(
                Kind::Select,
                Bind {
                    t: Some(t.clone()),
                    ..Bind::default()
                },
            ));
            continue;
        }
        let k = if parts.is_empty() {
            kind
        } else {
            Kind::CreateView
        };
        parts.push(cx.part(
            k,
            Bind {
                v: Some(v.clone()),
                t: Some(t.clone()),
                ..Bind::default()
            },
        ));
    }
    let effect = if missing {
        // (After every lock: the routine is looked for once the tables are open.)
        Effect::Routine(crate::routines::RoutineOp::Use {
            kind: crate::routines::RoutineKind::Function,
            r: Tbl {
                db: cx.db.to_owned(),
                name: calls[0].clone(),
            },
        })
    } else {
        Effect::CreateView {
            v,
            def: ViewDef { bases, merge },
            mode,
        }
    };
    cx.plan(kind, parts, effect, toks)
}

/// `t`, and when it is a view, the tables it reads after it (recursively).
fn expand(cx: &Cx, t: &Tbl, out: &mut Vec<Tbl>, depth: usize) -> Result<(), String> {
    if depth > 8 {
        return Err(format!("`{}`: views nested too deep", cx.sql));
    }
    if !out.contains(t) {
        out.push(t.clone());
    }
    if let Some(def) = cx.cat.view_def(t) {
        for b in &def.bases {
            expand(cx, b, out, depth + 1)?;
        }
    }
    Ok(())
}

/// The calls of functions that may be stored ones (not built in), by name; a sequence's
/// NEXT VALUE / NEXTVAL is refused.
fn stored_calls(sql: &str, body: &[Tok]) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    // A CTE's name before its column list (`WITH t(c) AS (...)`) calls nothing.
    let ctes = super::query_ctes::cte_names(body);
    for (i, w) in body.windows(2).enumerate() {
        if let (
            Tok::Word {
                text,
                quoted: false,
            },
            Tok::P('('),
        ) = (&w[0], &w[1])
        {
            let l = text.to_ascii_lowercase();
            let has_args = body.get(i + 2).is_some_and(|t| *t != Tok::P(')'));
            let stored = matches!(callee_of_call(&l, has_args), Callee::Stored { .. });
            if stored && !NOT_CALL.contains(&l.as_str()) && !ctes.contains(text) {
                if i > 0 && body[i - 1] == Tok::P('.') {
                    return Err(format!(
                        "`{sql}`: a view calling `{text}` of another schema is not modelled"
                    ));
                }
                out.push(text.clone());
            }
        }
        if kw_eq(&w[0], "next") && kw_eq(&w[1], "value")
            || kw_eq(&w[0], "nextval")
            || kw_eq(&w[0], "lastval")
            || kw_eq(&w[0], "setval")
        {
            return Err(format!("`{sql}`: a view using a sequence is not modelled"));
        }
    }
    Ok(out)
}

/// A view calling functions that are not built in: ER_SP_DOES_NOT_EXIST once its locks
/// are taken when none of them exists (measured on 10.11.19: BACKUP_DDL, the schema's IX,
/// the view's X and its tables' SR, waiting for another session's LOCK TABLES WRITE,
/// then 1305 with nothing kept: `open_and_process_routine` finds no routine;
/// suite/view-calling-missing-function.mdl). A function that exists (its S and the
/// prelocking of its body), a view that exists or a table that does not (which error
/// comes first) are refused.
fn missing_function(cx: &Cx, v: &Tbl, calls: &[String], bases: &[Tbl]) -> Result<bool, String> {
    if calls.is_empty() {
        return Ok(false);
    }
    let sql = cx.sql;
    let kind = crate::routines::RoutineKind::Function;
    if let Some(f) = calls.iter().find(|f| {
        cx.cat
            .routines
            .get(
                kind,
                &Tbl {
                    db: cx.db.to_owned(),
                    name: (*f).clone(),
                },
            )
            .is_some()
    }) {
        return Err(format!(
            "`{sql}`: a view calling the stored function `{f}` is not modelled"
        ));
    }
    if cx.cat.exists(v) || bases.iter().any(|b| !cx.cat.exists(b)) {
        return Err(format!(
            "`{sql}`: a view calling a missing function `{}` with a name that exists or a \
             table that does not is not modelled",
            calls[0]
        ));
    }
    Ok(true)
}

/// A subquery in the select list (before the first FROM): stops a merge.
fn select_list_subquery(body: &[Tok]) -> bool {
    let end = body
        .iter()
        .position(|t| kw_eq(t, "from"))
        .unwrap_or(body.len());
    body[..end]
        .windows(2)
        .any(|w| w[0] == Tok::P('(') && kw_eq(&w[1], "select"))
}

/// The part of a DML statement's `kind` (`select`, `insert`, `update`, `delete`) on a
/// view `v`: the learned `KIND_view` row with the view and its one table.
pub(super) fn dml_part(cx: &Cx, kind: Kind, v: &Tbl) -> Result<Part, String> {
    let sql = cx.sql;
    let def = cx
        .cat
        .view_def(v)
        .ok_or_else(|| format!("`{sql}`: `{v}` is not a view"))?;
    let row = match (kind, def.merge) {
        (Kind::Select, true) => Kind::SelectView,
        (Kind::Select, false) => Kind::SelectViewTemptable,
        (Kind::Insert, true) => Kind::InsertView,
        (Kind::Update, true) => Kind::UpdateView,
        (Kind::Delete, true) => Kind::DeleteView,
        _ => {
            return Err(format!(
                "`{sql}`: {} through the view `{v}` is not in the learned table",
                kind.as_str().to_ascii_uppercase()
            ))
        }
    };
    let [t] = def.bases.as_slice() else {
        return Err(format!(
            "`{sql}`: a statement on the view `{v}` of {} tables is not in the learned \
             table (one table)",
            def.bases.len()
        ));
    };
    if cx.cat.is_view(t) || !cx.cat.exists(t) {
        return Err(format!(
            "`{sql}`: a statement on the view `{v}` of a view or of a missing table is not \
             in the learned table"
        ));
    }
    if cx.cat.engine(t) != Some(super::Engine::InnoDb) {
        return Err(format!(
            "`{sql}`: a statement on the view `{v}` of a table not InnoDB is not in the \
             learned table"
        ));
    }
    if cx.cat.has_triggers(t) {
        return Err(format!(
            "`{sql}`: a statement on the view `{v}` of a table with triggers is not modelled"
        ));
    }
    if !(cx.has_row)(row.as_str()) {
        return Err(format!("`{sql}`: `{row}` is not in the learned table"));
    }
    Ok(Part {
        row: row.as_str().to_owned(),
        kind: row,
        bind: Bind {
            v: Some(v.clone()),
            t: Some(t.clone()),
            ..Bind::default()
        },
        set_target: super::SetTarget::NotInList,
    })
}

/// `DEFINER = user` and `SQL SECURITY {DEFINER | INVOKER}` before VIEW: skipped (the
/// definer decides privileges, not locks; an unknown definer is a note, ER_NO_SUCH_USER
/// as a warning in `mysql_create_view`). Other objects keep their refusal.
pub(super) fn skip_view_definer(c: &mut Cur) {
    let start = c.i;
    let mut i = c.i;
    let t = c.t;
    if t.get(i).is_some_and(|x| kw_eq(x, "definer")) {
        i += 1;
        if t.get(i) == Some(&Tok::P('=')) {
            i += 1;
        }
        // user, user@host, 'user'@'host', CURRENT_USER[()]
        while let Some(x) = t.get(i) {
            if kw_eq(x, "sql") || kw_eq(x, "view") {
                break;
            }
            i += 1;
        }
    }
    if t.get(i).is_some_and(|x| kw_eq(x, "sql"))
        && t.get(i + 1).is_some_and(|x| kw_eq(x, "security"))
        && t.get(i + 2)
            .is_some_and(|x| kw_eq(x, "definer") || kw_eq(x, "invoker"))
    {
        i += 3;
    }
    if t.get(i).is_some_and(|x| kw_eq(x, "view")) {
        c.i = i;
    } else {
        c.i = start;
    }
}

/// `ALTER [ALGORITHM=...] [DEFINER=...] [SQL SECURITY ...] VIEW v [(cols)] AS SELECT ...`
/// (`mysql_create_view`, VIEW_ALTER): None when the statement is not an ALTER VIEW.
pub(super) fn alter_view(cx: &Cx, c: &mut Cur, toks: &[Tok]) -> Option<Result<Stmt, String>> {
    let start = c.i;
    let mut temptable = false;
    while c.eat("algorithm") || c.eat_p('=') || c.eat("undefined") || c.eat("merge") {
        temptable |= c.eat("temptable");
    }
    temptable |= c.eat("temptable");
    skip_view_definer(c);
    if !c.eat("view") {
        c.i = start;
        return None;
    }
    Some(create_view(cx, c, toks, ViewMode::Alter, temptable))
}

/// The parts of a plain SELECT of `v`: a view of several InnoDB tables (no view among
/// them) is `select_view` (or `select_view_temptable`) on its first table, then each
/// other table's SR in the view's order (`mysql_make_view` puts the view's tables after
/// it; measured: views-select-two-tables.mdl); any other view, [`dml_part`].
pub(super) fn select_parts(cx: &Cx, v: &Tbl) -> Result<Vec<Part>, String> {
    let Some(def) = cx.cat.view_def(v) else {
        return Ok(vec![dml_part(cx, Kind::Select, v)?]);
    };
    let [first, rest @ ..] = def.bases.as_slice() else {
        return Ok(vec![dml_part(cx, Kind::Select, v)?]);
    };
    if rest.is_empty() {
        return Ok(vec![dml_part(cx, Kind::Select, v)?]);
    }
    for t in &def.bases {
        if cx.cat.engine(t) != Some(super::Engine::InnoDb) {
            return Err(format!(
                "`{}`: a SELECT of the view `{v}` of `{t}`, not an InnoDB table of the \
                 catalog, is not in the learned table",
                cx.sql
            ));
        }
    }
    let row = if def.merge {
        Kind::SelectView
    } else {
        Kind::SelectViewTemptable
    };
    let mut parts = vec![Part {
        row: row.as_str().to_owned(),
        kind: row,
        bind: Bind {
            v: Some(v.clone()),
            t: Some(first.clone()),
            ..Bind::default()
        },
        set_target: super::SetTarget::NotInList,
    }];
    for t in rest {
        parts.push(cx.part(
            Kind::Select,
            Bind {
                t: Some(t.clone()),
                ..Bind::default()
            },
        ));
    }
    Ok(parts)
}
