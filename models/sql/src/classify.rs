//! The SQL classifier: one statement to what our model needs to play it.
//!
//! A statement the learned table covers becomes a [`Plan`]: the learned rows it is made
//! of ([`Part`]s, each with the objects it names bound to the row's key templates), its
//! own wait clause, GET_LOCK's timeout, and what it does to the catalog when it succeeds.
//! Control statements (BEGIN, COMMIT, UNLOCK TABLES, HANDLER ... CLOSE, RELEASE_LOCK, SET
//! lock_wait_timeout, USE) are their own variants of [`Stmt`]; their effects are written
//! in [`crate::model`] from the server source.
//!
//! The classifier reads only what decides the locks: the statement's kind, the tables it
//! names and the role of each (a table read, written, created, dropped, renamed), its
//! `ALGORITHM`, `WAIT n` / `NOWAIT`. Anything it cannot decide is an error that names
//! what is missing, never a guess: a statement outside the table, an `ALTER TABLE`
//! without an algorithm it can tell, a view read by a statement, a temporary table.

use super::catalog::{Catalog, Engine};
pub use crate::effect::{AlterCols, Effect};
pub use crate::kind::Kind;
use crate::kind::RowVariant;
pub use crate::objects::{ForeignKey, Tbl, ViewDef, ViewMode};
pub use crate::stmt::{Bind, LtMode, Part, Plan, SetTarget, Stmt, UserLockCall, XaOp, XaStmt};

mod admin;
mod admin_view;
mod alter;
mod alter_charset;
mod alter_cols;
mod alter_fk;
mod alter_keys;
mod alter_rename;
mod alter_tablespace;
mod analyze_persistent;
mod call_arg_errors;
mod cast_length;
mod column_types;
pub mod columns;
mod control;
mod create_parse;
mod cte_recursion;
mod data_directory;
mod ddl;
mod dml;
mod drop_index;
pub mod dynamic;
mod engines;
mod event_schedule;
mod execute_params;
mod fk;
mod fk_alter;
mod fk_replace;
mod fk_vcol;
mod function_names;
mod global_timeout;
mod help_purge;
mod into_outfile;
mod keywords;
mod lex;
mod lock_alias;
mod lock_scope;
mod misc;
mod missing_function;
mod one_offs;
mod oracle_block;
mod oracle_decl;
mod oracle_flow;
mod oracle_labels;
mod oracle_names;
mod oracle_routine;
mod oracle_top;
mod package;
mod package_body;
mod parse_errors;
mod partition;
mod partition_clause;
mod partition_select;
mod query_ctes;
mod query_shapes;
mod query_values;
mod read_only;
mod reload;
mod reserved;
mod reset_replica;
mod routine;
mod routine_anchor;
mod routine_anon;
mod routine_block;
mod routine_body;
mod routine_call;
mod routine_cond;
mod routine_decl;
mod routine_diag;
mod routine_dups;
pub mod routine_expr;
mod routine_flow;
mod routine_flow_data;
mod routine_flow_stmt;
mod routine_for;
mod routine_for_cursor;
mod routine_keywords;
mod routine_nested;
mod routine_prelock;
pub mod routine_program;
mod routine_reader;
mod routine_rows;
mod routine_set_ident;
mod routine_text;
mod select;
mod select_no_from;
mod select_order;
mod sequence;
mod sequence_alter;
mod sequence_calls;
mod sequence_columns;
mod sequence_ctas;
mod sequence_cte;
mod sequence_engine;
mod sequence_table;
mod sequence_vcol;
mod sequence_write;
mod servers;
mod session;
mod set_global_expr;
mod set_global_forms;
mod set_global_vars;
mod set_session_values;
mod set_stmt_refused;
pub(crate) mod show;
mod show_status;
mod sp_var_keywords;
mod syntax;
mod sys_routines;
pub(crate) mod system_tables;
mod tables;
mod union_tail;
mod update_derived;
mod user_locks;
mod views;
mod xa;
pub use crate::errors::{ER_NOT_SEQUENCE, ER_NOT_SEQUENCE2, ER_UNKNOWN_SEQUENCES};
use admin::classify_admin;
use alter::classify_alter;
use control::{
    chain_or_release, classify_backup, classify_flush, classify_handler, classify_lock,
    classify_use,
};
pub use data_directory::ER_WRONG_ARGUMENTS;
use ddl::{classify_create, classify_drop, classify_rename, classify_truncate, instance_plan};
use dml::{classify_delete, classify_insert, classify_update};
use lex::{kw_eq, kw_eq_at, option_value, tokens, wait_clause, Cur, Tok};
pub use parse_errors::mariadb_parse_error;
pub use routine_call::call_instructions;

/// Whether `sql` is a compound statement outside any stored program (`FOR ... END FOR`,
/// `BEGIN NOT ATOMIC ... END`, ...: `classify/routine_anon.rs`), which runs as a CALL does.
pub fn is_compound_statement(sql: &str) -> bool {
    tokens(sql).is_ok_and(|t| routine_anon::is_compound(&t))
}
use select::{classify_set, subquery_reads};
pub(crate) use sequence_engine::is_engine_table;
use tables::{
    delete_targets_unknown, from_tables, from_tables_aliased, locking_clauses, set_targets,
};
pub use user_locks::get_lock_columns;

pub use crate::objects::is_system_schema;
use crate::objects::SYSTEM_SCHEMAS;

/// ER_PARSE_ERROR.
pub const ER_PARSE_ERROR: u32 = 1064;
/// ER_DBACCESS_DENIED_ERROR.
pub const ER_DBACCESS_DENIED: u32 = 1044;
/// ER_TABLEACCESS_DENIED_ERROR.
pub const ER_TABLEACCESS_DENIED: u32 = 1142;

/// Why MariaDB's parser rejects `sql` as a syntax error (ER_PARSE_ERROR), for the
/// statements the classifier would otherwise take: see `classify/syntax.rs`. None when
/// none of its rules applies (or the statement does not tokenize: `classify` says why).
pub fn mariadb_syntax_error(sql: &str) -> Option<&'static str> {
    // The text rules read the comments (a `;` inside an executable one), the others the
    // code behind them (`crate::comments`).
    if let Some(code) = crate::comments::code(sql) {
        return syntax::text_rejects(sql).or_else(|| mariadb_syntax_error(&code));
    }
    let toks = tokens(sql).ok()?;
    syntax::mariadb_rejects(sql, &toks)
}

/// The classifier's view of one statement.
struct Cx<'a> {
    sql: &'a str,
    db: &'a str,
    cat: &'a Catalog,
    has_row: &'a dyn Fn(&str) -> bool,
}

impl Cx<'_> {
    /// The row for `kind` on table `t`: `kind.myisam` when `t` is a MyISAM table and that
    /// row exists.
    fn row(&self, kind: Kind, t: Option<&Tbl>) -> String {
        if let Some(t) = t {
            if self.cat.engine(t) == Some(Engine::MyIsam) {
                let r = kind.row_name(RowVariant::MyIsam);
                if (self.has_row)(r) {
                    return r.to_owned();
                }
            }
        }
        kind.as_str().to_owned()
    }

    fn part(&self, kind: Kind, bind: Bind) -> Part {
        Part {
            row: self.row(kind, bind.t.as_ref()),
            kind,
            bind,
            set_target: SetTarget::NotInList,
        }
    }

    fn on_table(&self, kind: Kind, t: &Tbl) -> Result<Part, String> {
        if self.cat.is_view(t)
            && matches!(
                kind,
                Kind::Select | Kind::Insert | Kind::Update | Kind::Delete
            )
        {
            return views::dml_part(self, kind, t);
        }
        if !routine_prelock::fires_no_trigger(kind) || self.cat.is_view(t) {
            self.no_view(t)?;
        }
        Ok(self.part(
            kind,
            Bind {
                t: Some(t.clone()),
                ..Bind::default()
            },
        ))
    }

    fn no_view(&self, t: &Tbl) -> Result<(), String> {
        if self.cat.has_prelocking_trigger(t) {
            return Err(format!(
                "`{}`: `{t}` has a trigger whose body uses tables: their prelocking is not \
                 modelled",
                self.sql
            ));
        }
        if self.cat.is_view(t) {
            return Err(format!(
                "`{}`: statements that read or write a view (`{t}`) are not in the learned \
                 table",
                self.sql
            ));
        }
        Ok(())
    }

    fn plan(
        &self,
        kind: Kind,
        parts: Vec<Part>,
        effect: Effect,
        toks: &[Tok],
    ) -> Result<Stmt, String> {
        let wait = wait_clause(toks)?;
        let effect = partition_select::effect(self, effect, toks);
        let aliased = from_tables_aliased(toks, self.db)?
            .into_iter()
            .find_map(|(t, a)| a.filter(|a| *a != t.name).map(|a| format!("{t} AS {a}")));
        Ok(Stmt::Learned(Plan {
            wait,
            aliased,
            ..Plan::of(kind, parts, effect)
        }))
    }
}

/// Classifies one SQL statement. `db` is the session's default schema; `cat` the tables,
/// views and triggers that exist; `has_row` says whether the learned table has a row.
pub fn classify(
    sql: &str,
    db: &str,
    cat: &Catalog,
    has_row: &dyn Fn(&str) -> bool,
) -> Result<Stmt, String> {
    // The code behind the statement's comments (`crate::comments`, sql_lex.cc's
    // `lex_one_token`); only comments: SQLCOM_EMPTY_QUERY, no error when the lexer found a
    // comment (sql_yacc.yy, `query: END_OF_INPUT`), nothing opened.
    if let Some(code) = crate::comments::code(sql) {
        if code.trim().trim_end_matches(';').trim().is_empty() {
            return Ok(Stmt::Session(crate::stmt::SessionStmt::OpensNothing));
        }
        return classify(&code, db, cat, has_row);
    }
    if SYSTEM_SCHEMAS.iter().any(|x| db.eq_ignore_ascii_case(x)) {
        // After `USE mysql` (the server's own schemas exist; USE takes no lock): their
        // tables are not in the catalog, so only statements that name none are played.
        let first = sql
            .split_whitespace()
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        if !matches!(
            first.as_str(),
            "use" | "begin" | "start" | "commit" | "rollback" | "unlock" | "xa"
        ) {
            return Err(format!(
                "`{sql}`: the session's default schema `{db}` is a system schema, whose \
                 tables are not in the catalog"
            ));
        }
    }
    let st = classify_inner(sql, db, cat, has_row)?;
    engines::not_opened(sql, cat, &st)?;
    fk::apply(sql, &tokens(sql)?, db, cat, st)
}

/// The statements whose grammar differs under `sql_mode=ORACLE` and that the model reads
/// in that mode (`classify/oracle_routine.rs`); None for any other statement, which is
/// classified as in the default mode.
pub fn classify_oracle(
    sql: &str,
    db: &str,
    cat: &Catalog,
    has_row: &dyn Fn(&str) -> bool,
) -> Option<Result<Stmt, String>> {
    let code = crate::comments::code(sql);
    let sql = code.as_deref().unwrap_or(sql);
    let toks = tokens(sql).ok()?;
    let cx = Cx {
        sql,
        db,
        cat,
        has_row,
    };
    package::classify_oracle(&cx, &toks).or_else(|| oracle_routine::classify(&cx, &toks))
}

/// The default grammar's text (`BEGIN NOT ATOMIC ... END`) of an anonymous block under
/// `sql_mode=ORACLE` (`classify/oracle_block.rs`); None when `sql` is no such block or
/// the model does not follow it (then `classify_oracle` refuses it with the reason).
pub fn oracle_block_text(sql: &str) -> Option<String> {
    let code = crate::comments::code(sql);
    let toks = tokens(code.as_deref().unwrap_or(sql)).ok()?;
    oracle_block::translate(&toks)?.ok()
}

fn classify_inner(
    sql: &str,
    db: &str,
    cat: &Catalog,
    has_row: &dyn Fn(&str) -> bool,
) -> Result<Stmt, String> {
    let toks = tokens(sql)?;
    sys_routines::refuse(sql, &toks)?;
    if let Some(st) = query_shapes::prefixed(sql, db, cat, has_row) {
        return st;
    }
    match query_shapes::cte_outside_query(sql, &toks) {
        None => {}
        Some(Ok(query_shapes::CteFree::Fails(code))) => return Ok(Stmt::Fails(code)),
        Some(Ok(query_shapes::CteFree::Text(text))) => {
            return classify_plain(&text, &tokens(&text)?, db, cat, has_row)
        }
        Some(Err(e)) => return Err(e),
    }
    classify_plain(sql, &toks, db, cat, has_row)
}

/// [`classify_inner`] once the prefixes (ANALYZE, EXPLAIN) and the CTEs of a statement
/// other than a query are dealt with.
fn classify_plain(
    sql: &str,
    toks: &[Tok],
    db: &str,
    cat: &Catalog,
    has_row: &dyn Fn(&str) -> bool,
) -> Result<Stmt, String> {
    let toks = toks.to_vec();
    let cx = Cx {
        sql,
        db,
        cat,
        has_row,
    };
    let mut c = Cur {
        t: &toks,
        i: 0,
        sql,
    };
    let first = match c.peek() {
        Some(Tok::Word { text, .. }) => text.to_ascii_lowercase(),
        // A parenthesised query expression (`classify/query_shapes.rs`).
        Some(Tok::P('(')) if query_ctes::starts_query(&toks, 0) => "(".to_owned(),
        _ => {
            return Err(if toks.is_empty() {
                "empty statement".into()
            } else {
                format!("statement not in the learned table: `{sql}`")
            })
        }
    };
    let words: Vec<String> = c.rest_words();
    let not_in = || format!("statement not in the learned table: `{sql}`");
    if let Some(st) = sequence::classify_sequence(sql, db, cat, has_row) {
        return st;
    }
    if let Some(st) = session::classify_session(sql, db, cat, has_row) {
        return st;
    }
    if let Some(st) = misc::classify_misc(&cx, &toks, &words) {
        return st;
    }
    if let Some(st) = one_offs::classify(&cx, &toks, &words) {
        return st;
    }
    if let Some(st) = servers::classify(&cx, &toks, &words) {
        return st;
    }
    if let Some(st) = help_purge::classify(sql, &toks, &words) {
        return st;
    }
    if let Some(st) = package::classify_default(&toks) {
        return Ok(st);
    }
    if let Some(st) = routine::classify_routine(&cx, &toks) {
        return st;
    }
    if let Some(st) = routine::function_calls(&cx, &toks) {
        return st;
    }
    if let Some(st) = routine_prelock::triggers(&cx, &toks) {
        return st;
    }
    match first.as_str() {
        "begin" => Ok(Stmt::Begin),
        "start" if words.get(1).is_some_and(|w| w == "transaction") => Ok(Stmt::Begin),
        // COMMIT / ROLLBACK AND CHAIN begin the next transaction (`trans_begin` after the
        // commit when `tx_chain`, SQLCOM_COMMIT / SQLCOM_ROLLBACK in sql/sql_parse.cc;
        // measured: open/refused/seed-330020, then a SELECT ... FOR UPDATE keeps its
        // lock), and RELEASE ends the session: neither is modelled.
        "commit" | "rollback" if chain_or_release(&words) => Err(format!(
            "`{sql}`: {} AND CHAIN / RELEASE (the next transaction begins, or the session \
             ends) is not modelled",
            first.to_uppercase()
        )),
        "commit" => Ok(Stmt::Commit),
        "rollback" => Ok(Stmt::Rollback),
        "unlock" if words.get(1).is_some_and(|w| w == "tables" || w == "table") => {
            Ok(Stmt::UnlockTables)
        }
        // UNLOCK INSTANCE (MySQL 8.0: Sql_cmd_unlock_instance::execute).
        "unlock" if words.get(1).is_some_and(|w| w == "instance") && words.len() == 2 => {
            instance_plan(&cx, Kind::InstanceUnlock, &toks)
        }
        "use" => classify_use(&cx, &mut c, &toks),
        // An INSERT ... SELECT GET_LOCK(...) takes the user lock beside the table's
        // (suite/binlog/include/mix_innodb_myisam_binlog.test:231): refused, not played
        // without it.
        "do" | "set" | "insert" | "replace" | "update" | "delete"
            if user_locks::mentions(&toks) =>
        {
            Err(format!(
                "`{sql}`: user-lock functions are modelled only as the columns of a SELECT \
                 with no FROM"
            ))
        }
        "do" => subquery_reads(&cx, &toks).unwrap_or(Ok(Stmt::NoLocks)),
        "set" => match classify_set(&words, sql)? {
            Stmt::NoLocks => subquery_reads(&cx, &toks).unwrap_or(Ok(Stmt::NoLocks)),
            st => Ok(st),
        },
        "handler" => classify_handler(&cx, &mut c, &toks),
        // WITH, VALUES and parenthesised queries read their tables as a SELECT does
        // (`classify/query_shapes.rs`).
        "select" | "with" | "values" | "(" => query_shapes::query(&cx, &toks, &words),
        "insert" | "replace" => {
            classify_insert(&cx, &mut c, &toks).and_then(|st| sequence_write::insert_rows(st, cat))
        }
        "update" => classify_update(&cx, &mut c, &toks),
        "delete" => classify_delete(&cx, &mut c, &toks),
        "lock" => classify_lock(&cx, &mut c, &toks).and_then(|st| sequence::lock_rows(st, cat)),
        "alter" => classify_alter(&cx, &mut c, &toks, &words),
        "create" => classify_create(&cx, &mut c, &toks, &words).map(|st| sequence::like(st, cat)),
        "drop" => classify_drop(&cx, &mut c, &toks, &words),
        "truncate" => classify_truncate(&cx, &mut c, &toks),
        "rename" => classify_rename(&cx, &mut c, &toks),
        "analyze" | "optimize" | "check" | "repair" => classify_admin(&cx, &mut c, &toks, &words),
        "flush" => classify_flush(&cx, &mut c, &toks, &words),
        "backup" => classify_backup(&cx, &mut c, &toks),
        _ => Err(not_in()),
    }
}
