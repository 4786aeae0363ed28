//! Package statements (MariaDB 10.11: the sql_mode=ORACLE grammar, sql/sql_yacc.yy's
//! Oracle branch; in the default grammar `CREATE PACKAGE` and `DROP PACKAGE` are syntax
//! errors, measured on 10.11.19):
//!
//! - `CREATE [OR REPLACE] [DEFINER = user] PACKAGE [BODY] [IF NOT EXISTS] name
//!   [SQL SECURITY ... | COMMENT '...'] AS | IS ... END [name]` (SQLCOM_CREATE_PACKAGE /
//!   SQLCOM_CREATE_PACKAGE_BODY in sql/sql_parse.cc → `Sp_handler::sp_create_routine`,
//!   sql/sp.cc): the learned `create_package` / `create_package_body` rows
//!   (`lock_object_name`: BACKUP_DDL, the schema's IX, PACKAGE_BODY X), then the
//!   catalog's errors (`crate::packages`). A body's spec is read while the body is parsed
//!   (`sp_cache_routine_reentrant` of the spec, sql/sp.cc), so a body without its spec
//!   is ER_SP_DOES_NOT_EXIST before any lock; OR REPLACE with IF NOT EXISTS is
//!   ER_WRONG_USAGE (1221) from the parser; the text itself: `classify/package_body.rs`.
//! - `DROP PACKAGE [BODY] [IF EXISTS] name` (SQLCOM_DROP_PACKAGE / _BODY →
//!   `Sp_handler::sp_drop_routine`): the learned `drop_package` / `drop_package_body` rows.
//! - `CALL pkg.p[(args)]`, `CALL db.pkg.p`: a package procedure when the session's schema
//!   has a package `pkg` whose spec declares `p` (`Sp_handler::sp_resolve_package_routine`,
//!   sql/sp.cc: only under sql_mode=ORACLE with a current schema), else a standalone
//!   routine as in the default mode. The CALL adds the package body to the routines it
//!   uses (`LEX::call_statement_start`, sql/sql_lex.cc) and `open_and_process_routine`
//!   (sql/sql_base.cc) locks it S until the transaction ends (the learned `call_package`
//!   row; the procedure itself, a top-level CALL's, is not locked); its body then runs.
//!   A missing package body: ER_SP_DOES_NOT_EXIST with nothing locked (the procedure is
//!   looked up first, `sp_find_package_routine`).
//! - `SELECT pkg.f()` / `DO pkg.f()`: the function's S and the package body's S
//!   (`Create_sp_func::create_with_db`, sql/item_create.cc: the function first, then
//!   `sp_handler_package_body.add_used_routine`; measured: both held while the
//!   function's table waits), then the tables its body prelocks.
//! - `SHOW CREATE PACKAGE [BODY] name` (`sp_show_create_routine`, a dirty read of
//!   `mysql.proc`): no lock, ER_SP_DOES_NOT_EXIST when missing; `SHOW PACKAGE [BODY]
//!   STATUS`: no lock; `SHOW PACKAGE [BODY] CODE`: ER_FEATURE_DISABLED (no debug build).
//!   These three in both grammars (measured).

use super::package_body::{read_body, read_spec, Stop};
use super::{kw_eq, Bind, Cur, Cx, Effect, Plan, Stmt, Tbl, Tok};
use crate::catalog::Catalog;
use crate::kind::Kind;
use crate::packages::{PackageOp, Part};
use crate::routines::RoutineKind;

const ER_SP_DOES_NOT_EXIST: u32 = 1305;
const ER_WRONG_USAGE: u32 = 1221;
const ER_FEATURE_DISABLED: u32 = 1289;
const ER_WRONG_DB_NAME: u32 = 1102;
const ER_SP_WRONG_NAME: u32 = 1458;

/// Under sql_mode=ORACLE: the package statement `toks` is, or None for another statement.
pub(super) fn classify_oracle(cx: &Cx, toks: &[Tok]) -> Option<Result<Stmt, String>> {
    let first = toks.first()?;
    if let Some(code) = qualified_call_error(toks) {
        return Some(Ok(Stmt::Fails(code)));
    }
    if kw_eq(first, "create") {
        return create(cx, toks);
    }
    if kw_eq(first, "drop") {
        return drop(cx, toks);
    }
    if kw_eq(first, "call") {
        return call(cx, toks);
    }
    function_call(cx, toks)
}

/// In the default grammar: `CREATE ... PACKAGE` and `DROP PACKAGE` are syntax errors (no
/// PACKAGE keyword there in 10.11; measured: 1064).
pub(super) fn classify_default(toks: &[Tok]) -> Option<Stmt> {
    let first = toks.first()?;
    let mut c = Cur {
        t: toks,
        i: 1,
        sql: "",
    };
    let package = if kw_eq(first, "create") {
        let _ = c.eat("or") && c.eat("replace");
        super::routine::skip_definer(&mut c).is_ok() && c.at("package")
    } else {
        kw_eq(first, "drop") && c.at("package")
    };
    package.then_some(Stmt::Fails(super::ER_PARSE_ERROR))
}

fn refuse<T>(cx: &Cx, why: &str) -> Result<T, String> {
    Err(format!("`{}`: {why} (classify/package.rs)", cx.sql))
}

fn stopped(cx: &Cx, s: Stop) -> Result<Stmt, String> {
    match s {
        Stop::Fails(code) => Ok(Stmt::Fails(code)),
        Stop::Refused(why) => refuse(cx, &why),
    }
}

/// `CREATE ... PACKAGE [BODY] ...`.
fn create(cx: &Cx, toks: &[Tok]) -> Option<Result<Stmt, String>> {
    let mut c = Cur {
        t: toks,
        i: 1,
        sql: cx.sql,
    };
    let or_replace = c.eat("or") && c.eat("replace");
    if super::routine::skip_definer(&mut c).is_err() || !c.eat("package") {
        return None;
    }
    let body = c.eat("body");
    Some(create_rest(cx, &mut c, body, or_replace))
}

fn create_rest(cx: &Cx, c: &mut Cur, body: bool, or_replace: bool) -> Result<Stmt, String> {
    let if_not_exists = c.at("if");
    if if_not_exists && !(c.eat("if") && c.eat("not") && c.eat("exists")) {
        return Ok(Stmt::Fails(super::ER_PARSE_ERROR));
    }
    if or_replace && if_not_exists {
        return Ok(Stmt::Fails(ER_WRONG_USAGE));
    }
    let Some(p) = package_name(c, cx.db) else {
        return Ok(Stmt::Fails(super::ER_PARSE_ERROR));
    };
    if p.name.contains('.') {
        // `"p1.p1"`: the server splits such a name at its dot when it looks the package
        // up (`Prefix_name_buf`, sql/sp.cc; measured: its body is ER_SP_DOES_NOT_EXIST).
        return refuse(cx, "a package name with a dot");
    }
    if let Err(s) = characteristics(c) {
        return stopped(cx, s);
    }
    if !(c.eat("as") || c.eat("is")) {
        return Ok(Stmt::Fails(super::ER_PARSE_ERROR));
    }
    let rest = &c.t[c.i..];
    let op = if body {
        let Some(spec) = cx.cat.packages.spec(&p) else {
            // The spec is read while the body is parsed: before any lock.
            return Ok(Stmt::Fails(ER_SP_DOES_NOT_EXIST));
        };
        match read_body(cx, rest, &p, spec) {
            Ok(b) => PackageOp::CreateBody {
                p: p.clone(),
                body: b,
                or_replace,
                if_not_exists,
            },
            Err(s) => return stopped(cx, s),
        }
    } else {
        match read_spec(rest, &p) {
            Ok(spec) => PackageOp::CreateSpec {
                p: p.clone(),
                spec,
                or_replace,
                if_not_exists,
            },
            Err(s) => return stopped(cx, s),
        }
    };
    let row = if body {
        Kind::CreatePackageBody
    } else {
        Kind::CreatePackage
    };
    learned(cx, row, p, Effect::Package(op))
}

/// `[db.]name`, each a word or a `"quoted"` name (ANSI_QUOTES, part of sql_mode=ORACLE).
fn package_name(c: &mut Cur, db: &str) -> Option<Tbl> {
    let mut name = || match c.peek() {
        Some(Tok::Word { text, .. } | Tok::Str(text)) => {
            c.i += 1;
            Some(text.clone())
        }
        _ => None,
    };
    let a = name()?;
    if c.peek() != Some(&Tok::P('.')) {
        return Some(Tbl {
            db: db.to_owned(),
            name: a,
        });
    }
    c.i += 1;
    let b = match c.peek() {
        Some(Tok::Word { text, .. } | Tok::Str(text)) => text.clone(),
        _ => return None,
    };
    c.i += 1;
    Some(Tbl { db: a, name: b })
}

/// `SQL SECURITY DEFINER | INVOKER`, `COMMENT '...'` before AS / IS (`sp_c_chistics`).
fn characteristics(c: &mut Cur) -> Result<(), Stop> {
    loop {
        if c.eat("sql") {
            if !(c.eat("security") && (c.eat("definer") || c.eat("invoker"))) {
                return Err(Stop::Fails(super::ER_PARSE_ERROR));
            }
        } else if c.eat("comment") {
            if !matches!(c.peek(), Some(Tok::Str(_))) {
                return Err(Stop::Fails(super::ER_PARSE_ERROR));
            }
            c.i += 1;
        } else {
            return Ok(());
        }
    }
}

/// A plan of one learned row on the package `p`.
fn learned(cx: &Cx, row: Kind, p: Tbl, effect: Effect) -> Result<Stmt, String> {
    if !(cx.has_row)(row.as_str()) {
        return refuse(
            cx,
            &format!("`{row}` is not in this dialect's statement table"),
        );
    }
    let part = cx.part(
        row,
        Bind {
            r: Some(p),
            ..Bind::default()
        },
    );
    Ok(Stmt::Learned(Plan::of(row, vec![part], effect)))
}

/// `DROP PACKAGE [BODY] [IF EXISTS] name`.
fn drop(cx: &Cx, toks: &[Tok]) -> Option<Result<Stmt, String>> {
    let mut c = Cur {
        t: toks,
        i: 1,
        sql: cx.sql,
    };
    if !c.eat("package") {
        return None;
    }
    let part = if c.eat("body") {
        Part::Body
    } else {
        Part::Spec
    };
    let if_exists = c.at("if");
    if if_exists && !(c.eat("if") && c.eat("exists")) {
        return Some(Ok(Stmt::Fails(super::ER_PARSE_ERROR)));
    }
    let Some(p) = package_name(&mut c, cx.db) else {
        return Some(Ok(Stmt::Fails(super::ER_PARSE_ERROR)));
    };
    if p.name.contains('.') {
        return Some(refuse(cx, "a package name with a dot"));
    }
    c.eat_p(';');
    if !c.done() {
        return Some(Ok(Stmt::Fails(super::ER_PARSE_ERROR)));
    }
    let row = match part {
        Part::Spec => Kind::DropPackage,
        Part::Body => Kind::DropPackageBody,
    };
    let op = PackageOp::Drop {
        p: p.clone(),
        part,
        if_exists,
    };
    Some(learned(cx, row, p, Effect::Package(op)))
}

/// A routine name `pkg.r` or `db.pkg.r` at `toks[i..]` that names a routine of kind `kind`
/// declared by a package's spec: the package and the routine's name as written
/// (`sp_resolve_package_routine_explicit`: `pkg` a package of the current schema).
fn package_routine(
    cx: &Cx,
    toks: &[Tok],
    i: usize,
    kind: RoutineKind,
) -> Option<(Tbl, String, usize)> {
    let word = |k: usize| match toks.get(k) {
        Some(Tok::Word { text, .. }) => Some(text.clone()),
        _ => None,
    };
    let dot = |k: usize| toks.get(k) == Some(&Tok::P('.'));
    let (db, pkg, name, next) = match (word(i), dot(i + 1), word(i + 2), dot(i + 3)) {
        (Some(d), true, Some(p), true) => (d, p, word(i + 4)?, i + 5),
        (Some(p), true, Some(n), false) => (cx.db.to_owned(), p, n, i + 3),
        _ => return None,
    };
    if cx.db.is_empty() {
        return None;
    }
    let p = Tbl { db, name: pkg };
    let spec = cx.cat.packages.spec(&p)?;
    spec.declares(kind, &name).then_some((p, name, next))
}

/// The parser's errors of a call `db.pkg.r(...)` (`CALL db.pkg.p`, or a function in a
/// SELECT / DO), whatever exists: a schema name ending in a space is ER_WRONG_DB_NAME
/// (`check_db_name`), a package or routine name ending in one ER_SP_WRONG_NAME
/// (`check_routine_name`); a function's argument with an alias (`'x' AS a`) is
/// ER_PARSE_ERROR (no aliases in a stored function's arguments). Measured on 10.11.19:
/// sp-package.test, MDEV-28166 (`db.pkg.func()`).
fn qualified_call_error(toks: &[Tok]) -> Option<u32> {
    let call = kw_eq(toks.first()?, "call");
    let func = kw_eq(&toks[0], "select") || kw_eq(&toks[0], "do");
    if !call && !func {
        return None;
    }
    let word = |k: usize| match toks.get(k) {
        Some(Tok::Word { text, .. } | Tok::Str(text)) => Some(text.as_str()),
        _ => None,
    };
    let dot = |k: usize| toks.get(k) == Some(&Tok::P('.'));
    let at = (1..toks.len()).find(|&i| {
        word(i).is_some()
            && dot(i + 1)
            && word(i + 2).is_some()
            && dot(i + 3)
            && word(i + 4).is_some()
    })?;
    let open = toks.get(at + 5) == Some(&Tok::P('('));
    if (call && at != 1) || (func && !open) {
        return None;
    }
    let [db, pkg, r] = [at, at + 2, at + 4].map(|k| word(k).unwrap_or(""));
    if db.ends_with(' ') {
        return Some(ER_WRONG_DB_NAME);
    }
    if pkg.ends_with(' ') || r.ends_with(' ') {
        return Some(ER_SP_WRONG_NAME);
    }
    if func {
        let end = super::lex::matching_paren(toks, at + 5)?;
        let mut depth = 0usize;
        for t in &toks[at + 6..end] {
            match t {
                Tok::P('(') => depth += 1,
                Tok::P(')') => depth = depth.saturating_sub(1),
                t if depth == 0 && kw_eq(t, "as") => return Some(super::ER_PARSE_ERROR),
                _ => {}
            }
        }
    }
    None
}

/// `CALL pkg.p[(args)]` of a package procedure.
fn call(cx: &Cx, toks: &[Tok]) -> Option<Result<Stmt, String>> {
    let (p, name, next) = package_routine(cx, toks, 1, RoutineKind::Procedure)?;
    let rest = &toks[next..];
    if super::routine::body_uses_tables(rest) {
        return Some(refuse(
            cx,
            "a CALL of a package procedure with a subquery or a function in its arguments",
        ));
    }
    Some(call_plan(cx, &p, &name))
}

fn call_plan(cx: &Cx, p: &Tbl, name: &str) -> Result<Stmt, String> {
    let Some(body) = cx.cat.packages.body(p) else {
        return Ok(Stmt::Fails(ER_SP_DOES_NOT_EXIST));
    };
    if body.init_uses_tables {
        return refuse(cx, "a package whose initialisation uses tables");
    }
    let Some(b) = body.routine(RoutineKind::Procedure, name) else {
        return Ok(Stmt::Fails(ER_SP_DOES_NOT_EXIST));
    };
    let pkg_part = package_part(cx, p)?;
    if !b.uses_tables && !b.flow {
        return Ok(Stmt::Learned(Plan::of(
            Kind::CallPackage,
            vec![pkg_part],
            Effect::None,
        )));
    }
    let r = Tbl {
        db: p.db.clone(),
        name: format!("{}.{name}", p.name),
    };
    match super::routine_prelock::call_one_statement(&r, b, cx.cat, cx.has_row) {
        Ok(Stmt::Learned(inner)) => {
            let mut parts = vec![pkg_part];
            parts.extend(inner.parts);
            Ok(Stmt::Learned(Plan::of(
                Kind::CallPackage,
                parts,
                inner.effect,
            )))
        }
        Ok(_) => refuse(cx, "a package procedure's body the model does not play"),
        Err(e) => refuse(cx, &e),
    }
}

/// The package body's S of a call (the learned `call_package` row).
fn package_part(cx: &Cx, p: &Tbl) -> Result<super::Part, String> {
    if !(cx.has_row)(Kind::CallPackage.as_str()) {
        return refuse(
            cx,
            "`call_package` is not in this dialect's statement table",
        );
    }
    Ok(cx.part(
        Kind::CallPackage,
        Bind {
            r: Some(p.clone()),
            ..Bind::default()
        },
    ))
}

/// A statement naming a package function: `SELECT pkg.f()` / `DO pkg.f()` is played; any
/// other naming one is refused. None when it names none.
fn function_call(cx: &Cx, toks: &[Tok]) -> Option<Result<Stmt, String>> {
    let at = (1..toks.len()).find_map(|i| {
        let (p, name, next) = package_routine(cx, toks, i, RoutineKind::Function)?;
        (toks.get(next) == Some(&Tok::P('('))).then_some((i, p, name, next))
    })?;
    let (i, p, name, next) = at;
    let simple = i == 1
        && (kw_eq(&toks[0], "select") || kw_eq(&toks[0], "do"))
        && toks.get(next + 1) == Some(&Tok::P(')'))
        && toks.len() == next + 2;
    if !simple {
        return Some(refuse(
            cx,
            "a statement calling a package function (other than `SELECT pkg.f()`)",
        ));
    }
    Some(function_plan(cx, &p, &name))
}

fn function_plan(cx: &Cx, p: &Tbl, name: &str) -> Result<Stmt, String> {
    let Some(body) = cx.cat.packages.body(p) else {
        return Ok(Stmt::Fails(ER_SP_DOES_NOT_EXIST));
    };
    if body.init_uses_tables {
        return refuse(cx, "a package whose initialisation uses tables");
    }
    let Some(b) = body.routine(RoutineKind::Function, name) else {
        return Ok(Stmt::Fails(ER_SP_DOES_NOT_EXIST));
    };
    if b.uses_tables && b.stmts.is_empty() {
        return refuse(
            cx,
            "a package function whose body has control flow and uses tables",
        );
    }
    if !(cx.has_row)(Kind::SelectFunction.as_str()) {
        return refuse(
            cx,
            "`select_function` is not in this dialect's statement table",
        );
    }
    // The function's key is `pkg.f` in its schema (`sp_name::make_package_routine_name`).
    let f = Tbl {
        db: p.db.clone(),
        name: format!("{}.{name}", p.name),
    };
    let mut parts = vec![
        cx.part(
            Kind::SelectFunction,
            Bind {
                r: Some(f.clone()),
                ..Bind::default()
            },
        ),
        package_part(cx, p)?,
    ];
    if b.uses_tables {
        let body_parts = super::routine_prelock::body_parts(&f, &b.stmts, cx.cat, cx.has_row)
            .map_err(|e| format!("`{}`: {e}", cx.sql))?;
        parts.extend(body_parts);
    }
    Ok(Stmt::Learned(Plan::of(
        Kind::SelectFunction,
        parts,
        Effect::None,
    )))
}

/// `SHOW CREATE PACKAGE [BODY] name`, `SHOW PACKAGE [BODY] STATUS | CODE ...` from `w[i..]`
/// (the words after SHOW); None for another SHOW.
pub(super) fn show(
    sql: &str,
    w: &[String],
    i: usize,
    db: &str,
    cat: &Catalog,
) -> Option<Result<Stmt, String>> {
    let at = |j: usize| w.get(j).map(String::as_str).unwrap_or("");
    let (create, mut j) = match (at(i), at(i + 1)) {
        ("create", "package") => (true, i + 2),
        ("package", _) => (false, i + 1),
        _ => return None,
    };
    let body = at(j) == "body";
    if body {
        j += 1;
    }
    if !create {
        return Some(Ok(match at(j) {
            "status" => Stmt::NoLocks,
            "code" => Stmt::Fails(ER_FEATURE_DISABLED),
            _ => Stmt::Fails(super::ER_PARSE_ERROR),
        }));
    }
    let Some(p) = crate::words::table_at(w, j, db) else {
        return Some(Err(format!("`{sql}`: expected a name")));
    };
    let exists = if body {
        cat.packages.body(&p).is_some()
    } else {
        cat.packages.spec(&p).is_some()
    };
    Some(Ok(if exists {
        Stmt::NoLocks
    } else {
        Stmt::Fails(ER_SP_DOES_NOT_EXIST)
    }))
}

#[cfg(test)]
#[path = "package_tests.rs"]
mod tests;
