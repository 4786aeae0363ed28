//! Errors MariaDB 10.11 gives before a statement opens or locks anything, other than the
//! syntax errors of `classify/syntax.rs`: the statement fails with its code, takes no
//! lock, and keeps the session's transaction (no implicit commit runs first). Each is
//! measured on 10.11.19 (`models/conformance/suite/parse-errors-before-locks.mdl`).
//!
//! - ER_NONUNIQ_TABLE (1066): one name twice in a statement's table list.
//!   `st_select_lex::add_table_to_list` (sql/sql_parse.cc) compares each new table's
//!   alias and schema with those already in the list (case-sensitively with
//!   `lower_case_table_names=0`) and fails in the parser: `DROP TABLE t1, t1`,
//!   `DROP TABLE t1, test.t1`, `CREATE [TEMPORARY] TABLE t1 LIKE t1`.
//! - ER_SUBQUERIES_NOT_SUPPORTED (1970): a subquery in a HANDLER ... READ's WHERE (the
//!   parser's check of `expr_allows_subselect` for HANDLER), before `mysql_ha_read`
//!   looks for the HANDLER.
//! - ER_DBACCESS_DENIED_ERROR (1044): FLUSH TABLES of an `information_schema` table WITH
//!   READ LOCK: `check_table_access` refuses any right but SELECT on
//!   `information_schema` (sql/sql_parse.cc, `check_access`), before the statement's
//!   implicit commit (measured: the session's SR of a table read in its transaction
//!   stays). The same for DROP TABLE (not TEMPORARY) of a list naming an
//!   `information_schema` table and TRUNCATE of one (`check_table_access` /
//!   `check_one_table_access` asking DROP_ACL; measured on 10.11.19:
//!   `DROP TABLE information_schema.tables` and `TRUNCATE information_schema.table_privileges`
//!   (main/is_table_privileges.test:326) fail with 1044 and the session keeps the SR of
//!   its transaction; `suite/information-schema-drop-truncate.mdl`). ALTER TABLE of an
//!   `information_schema` table alike (`alter_information_schema`).

use super::{kw_eq, tokens, Tbl, Tok};

pub const ER_NONUNIQ_TABLE: u32 = 1066;
pub const ER_SUBQUERIES_NOT_SUPPORTED: u32 = 1970;
pub const ER_DBACCESS_DENIED: u32 = 1044;

/// The error MariaDB gives `sql` (session schema `db`) before any lock, or None.
pub fn mariadb_parse_error(sql: &str, db: &str) -> Option<u32> {
    let toks = tokens(sql).ok()?;
    let first = toks.first()?;
    if kw_eq(first, "drop") {
        let list = drop_list(&toks, db)?;
        let temporary = toks.get(1).is_some_and(|t| kw_eq(t, "temporary"));
        return duplicate(&list).or_else(|| {
            let is = list.iter().any(is_information_schema);
            (is && !temporary).then_some(ER_DBACCESS_DENIED)
        });
    }
    if kw_eq(first, "truncate") {
        let at = if toks.get(1).is_some_and(|t| kw_eq(t, "table")) {
            2
        } else {
            1
        };
        let (t, next) = table_at(&toks, at, db)?;
        return (next == toks.len() && is_information_schema(&t)).then_some(ER_DBACCESS_DENIED);
    }
    // A column's data type the parser refuses (classify/column_types.rs); the columns
    // come before a PARTITION BY clause.
    if let Some(code) = super::column_types::error(&toks) {
        return Some(code);
    }
    // A PARTITION BY clause the parser refuses (classify/partition_clause.rs).
    if let Some(code) = super::partition_clause::error(&toks) {
        return Some(code);
    }
    if kw_eq(first, "create") {
        return create_like_itself(&toks, db);
    }
    if let Some(code) = super::cast_length::error(&toks) {
        return Some(code);
    }
    if let Some(code) = super::call_arg_errors::error(&toks) {
        return Some(code);
    }
    if let Some(code) = super::union_tail::order_names_table(&toks) {
        return Some(code);
    }
    if let Some(code) = super::select_no_from::error(&toks) {
        return Some(code);
    }
    if kw_eq(first, "handler") {
        return handler_where_subquery(&toks);
    }
    if kw_eq(first, "alter") {
        return alter_information_schema(&toks, db);
    }
    if kw_eq(first, "flush") {
        return ftwrl_information_schema(&toks);
    }
    None
}

fn is_information_schema(t: &Tbl) -> bool {
    t.db.eq_ignore_ascii_case("information_schema")
}

fn duplicate(ts: &[Tbl]) -> Option<u32> {
    ts.iter()
        .enumerate()
        .any(|(i, t)| ts[..i].contains(t))
        .then_some(ER_NONUNIQ_TABLE)
}

/// `name` or `db.name` at `i`: the table and the index after it.
fn table_at(toks: &[Tok], i: usize, db: &str) -> Option<(Tbl, usize)> {
    let Some(Tok::Word { text: a, .. }) = toks.get(i) else {
        return None;
    };
    if toks.get(i + 1) == Some(&Tok::P('.')) {
        let Some(Tok::Word { text: b, .. }) = toks.get(i + 2) else {
            return None;
        };
        return Some((
            Tbl {
                db: a.clone(),
                name: b.clone(),
            },
            i + 3,
        ));
    }
    Some((
        Tbl {
            db: db.to_owned(),
            name: a.clone(),
        },
        i + 1,
    ))
}

/// DROP [TEMPORARY] TABLE[S] [IF EXISTS] list: its tables.
fn drop_list(toks: &[Tok], db: &str) -> Option<Vec<Tbl>> {
    let mut i = 1;
    if toks.get(i).is_some_and(|t| kw_eq(t, "temporary")) {
        i += 1;
    }
    if !toks
        .get(i)
        .is_some_and(|t| kw_eq(t, "table") || kw_eq(t, "tables"))
    {
        return None;
    }
    i += 1;
    if toks.get(i).is_some_and(|t| kw_eq(t, "if")) {
        i += 2;
    }
    let mut out = Vec::new();
    loop {
        let (t, next) = table_at(toks, i, db)?;
        out.push(t);
        if toks.get(next) != Some(&Tok::P(',')) {
            return Some(out);
        }
        i = next + 1;
    }
}

/// CREATE [OR REPLACE] [TEMPORARY] TABLE [IF NOT EXISTS] t LIKE t (or `(LIKE t)`).
fn create_like_itself(toks: &[Tok], db: &str) -> Option<u32> {
    let at = toks.iter().take(6).position(|t| kw_eq(t, "table"))?;
    let mut i = at + 1;
    if toks.get(i).is_some_and(|t| kw_eq(t, "if")) {
        i += 3;
    }
    let (t, mut next) = table_at(toks, i, db)?;
    if toks.get(next) == Some(&Tok::P('(')) {
        next += 1;
    }
    if !toks.get(next).is_some_and(|t| kw_eq(t, "like")) {
        return None;
    }
    let (src, _) = table_at(toks, next + 1, db)?;
    (src == t).then_some(ER_NONUNIQ_TABLE)
}

/// HANDLER t READ ... WHERE with a subquery.
fn handler_where_subquery(toks: &[Tok]) -> Option<u32> {
    if !toks.get(2).is_some_and(|t| kw_eq(t, "read")) {
        return None;
    }
    let w = toks.iter().position(|t| kw_eq(t, "where"))?;
    toks[w..]
        .iter()
        .any(|t| kw_eq(t, "select"))
        .then_some(ER_SUBQUERIES_NOT_SUPPORTED)
}

/// ALTER [ONLINE] [IGNORE] TABLE of an `information_schema` table: the ALTER right on
/// it is checked (`check_access`, sql/sql_parse.cc), which `information_schema` refuses
/// before any lock and before the implicit commit (measured on 10.11.19: 1044, the
/// session's SR of its transaction kept; a rename of another table *into*
/// `information_schema` commits first, then 1044: refused, `classify/alter_rename.rs`;
/// suite/funcs_1/t/is_character_sets.test's `ALTER TABLE information_schema.character_sets
/// RENAME db_datadict.character_sets`; `suite/alter-rename-schema.mdl`).
fn alter_information_schema(toks: &[Tok], db: &str) -> Option<u32> {
    let at = toks.iter().take(4).position(|t| kw_eq(t, "table"))?;
    let (t, _) = table_at(toks, at + 1, db)?;
    is_information_schema(&t).then_some(ER_DBACCESS_DENIED)
}

/// FLUSH TABLE[S] ... information_schema.x ... WITH READ LOCK.
fn ftwrl_information_schema(toks: &[Tok]) -> Option<u32> {
    let read_lock = toks
        .windows(3)
        .any(|w| kw_eq(&w[0], "with") && kw_eq(&w[1], "read") && kw_eq(&w[2], "lock"));
    let is = toks.windows(2).any(|w| {
        matches!(&w[0], Tok::Word { text, .. } if text.eq_ignore_ascii_case("information_schema"))
            && w[1] == Tok::P('.')
    });
    (read_lock && is).then_some(ER_DBACCESS_DENIED)
}
