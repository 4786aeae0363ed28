//! The `ENGINE=` clause of CREATE / ALTER TABLE, and the tables whose engine the model
//! does not play.
//!
//! MariaDB 10.11.19 loads InnoDB, MyISAM, Aria, MEMORY, CSV, MRG_MyISAM, SEQUENCE and
//! PERFORMANCE_SCHEMA (`information_schema.ENGINES` of the harness's server; ARCHIVE,
//! BLACKHOLE, FEDERATED, EXAMPLE are plugins it does not load). A table of a loaded engine
//! follows the learned rows of its class (`catalog::Engine::class`).
//!
//! - An engine that is not loaded: ER_UNKNOWN_STORAGE_ENGINE (1286) once the statement's
//!   implicit commit ran, before any lock (the parser keeps the name; the statement
//!   resolves it, `Storage_engine_name::resolve_storage_engine_with_error`, sql/handler.cc,
//!   an error under the default sql_mode's NO_ENGINE_SUBSTITUTION; measured:
//!   `models/conformance/suite/engine-classes.mdl`, the session's transaction ends). With
//!   NO_ENGINE_SUBSTITUTION off the server substitutes the default engine with a
//!   warning: the model does not follow `SET sql_mode`.
//! - SEQUENCE and PERFORMANCE_SCHEMA make no table of CREATE TABLE's (errors the model
//!   does not play): refused.
//! - A MERGE (MRG_MyISAM) table opens its children with itself
//!   (`ha_myisammrg::add_children_list`, storage/myisammrg/ha_myisammrg.cc, called by
//!   `open_tables` in sql/sql_base.cc); Aria and MEMORY tables follow neither InnoDB's
//!   nor MyISAM's rows (measured: `engine-classes.mdl`). The statements that open one are
//!   refused ([`not_opened`]); creating, dropping and renaming one is played. CSV follows
//!   MyISAM's rows.

use super::{Catalog, Cx, Effect, Stmt, Tbl, Tok};
use crate::catalog::Engine;
use crate::kind::Kind;

/// ER_UNKNOWN_STORAGE_ENGINE.
pub const ER_UNKNOWN_STORAGE_ENGINE: u32 = 1286;

/// What a statement's `ENGINE [=] name` says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Clause {
    /// No ENGINE clause.
    Absent,
    /// A loaded engine the model plays.
    Loaded(Engine),
    /// A loaded engine the model does not play (SEQUENCE, PERFORMANCE_SCHEMA).
    NotPlayed(String),
    /// An engine the server does not have: error 1286 in the parser.
    Unknown(String),
}

/// The engine name of the first table option `ENGINE [=] name` of `words` (lower case),
/// unquoted: outside parentheses (a column named `engine` is not one), before a SELECT,
/// and not a column an operation names (`DROP engine`, `CHANGE engine ...`).
fn named(words: &[String]) -> Option<String> {
    const VERBS: &[&str] = &[
        "add", "column", "change", "modify", "drop", "alter", "rename", "to", "by", "as",
    ];
    let mut depth = 0i32;
    let mut at = None;
    for (i, w) in words.iter().enumerate() {
        match w.as_str() {
            "(" => depth += 1,
            ")" => depth -= 1,
            "select" if depth == 0 => break,
            "engine" if depth == 0 => {
                let before = i.checked_sub(1).map(|j| words[j].as_str()).unwrap_or("");
                if !VERBS.contains(&before) {
                    at = Some(i);
                    break;
                }
            }
            _ => {}
        }
    }
    let i = at?;
    let j = if words.get(i + 1).is_some_and(|w| w == "=") {
        i + 2
    } else {
        i + 1
    };
    let name = words.get(j)?;
    Some(
        name.trim_matches(|c| c == '\'' || c == '"' || c == '`')
            .to_owned(),
    )
}

/// The ENGINE clause of a CREATE or ALTER TABLE's words (lower case).
pub fn clause(words: &[String]) -> Clause {
    let Some(name) = named(words) else {
        return Clause::Absent;
    };
    if let Some(e) = Engine::parse(&name) {
        return Clause::Loaded(e);
    }
    match name.as_str() {
        // (The sequences' own engine, `sql_sequence`, is not selectable: 1286 before any
        // lock, as for an engine the server does not load; measured:
        // suite/sequence-engine-create.mdl. The Sequence engine's CREATE is 1005 and its
        // ALTER takes the ALTER's locks: not played.)
        "sequence" | "performance_schema" => Clause::NotPlayed(name),
        // A word the parser does not take for a name (`ENGINE=(`, a number): the
        // model's syntax check or the server's 1064, not 1286.
        n if n.is_empty() || !n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => {
            Clause::NotPlayed(name)
        }
        _ => Clause::Unknown(name),
    }
}

/// ER_UNKNOWN_STORAGE_ENGINE for a CREATE / ALTER TABLE of `t` (`kind` the learned
/// `create_unknown_engine` or `alter_unknown_engine`: the implicit commit, no lock)
/// naming an engine the server does not load.
pub fn unknown_engine(
    cx: &Cx,
    toks: &[Tok],
    words: &[String],
    (kind, t): (Kind, &Tbl),
) -> Option<Result<Stmt, String>> {
    if !matches!(clause(words), Clause::Unknown(_)) {
        return None;
    }
    let bind = super::Bind {
        t: Some(t.clone()),
        ..super::Bind::default()
    };
    let p = cx.part(kind, bind);
    Some(cx.plan(kind, vec![p], Effect::Fail(ER_UNKNOWN_STORAGE_ENGINE), toks))
}

/// ER_WRONG_VALUE_FOR_VAR.
const ER_WRONG_VALUE_FOR_VAR: u32 = 1231;
/// ER_WRONG_TYPE_FOR_VAR.
const ER_WRONG_TYPE_FOR_VAR: u32 = 1232;

/// `SET [SESSION] default_storage_engine | storage_engine | default_tmp_storage_engine =
/// name` of an engine the server does not load: ER_UNKNOWN_STORAGE_ENGINE (1286) from the
/// variable's check (`Sys_var_plugin::do_check`, sql/sys_vars.inl: `ha_resolve_by_name`
/// finds no such plugin), no lock and no implicit commit as for any SET (measured:
/// main/parser.test:757, `set default_storage_engine = "a.MYISAM"`;
/// suite/set-unknown-engine.mdl). `value` is the SET's value word (`'x'` for a string); a
/// variable, DEFAULT or an expression is no engine name: None.
pub fn set_engine_error(var: &str, value: &str) -> Option<u32> {
    const VARS: &[&str] = &[
        "default_storage_engine",
        "storage_engine",
        "default_tmp_storage_engine",
    ];
    if !VARS.contains(&var) {
        return None;
    }
    // NULL for the two that may not be unset, ER_WRONG_VALUE_FOR_VAR (their ON_CHECK
    // `check_not_null`, sql/sys_vars.cc; default_tmp_storage_engine's NULL means "as
    // default_storage_engine"); a number is no engine name, ER_WRONG_TYPE_FOR_VAR
    // (`Sys_var_plugin::check_update_type`: not a STRING_RESULT). Measured:
    // main/func_time.test:1031, sys_vars/default_storage_engine_basic.test:86-90,
    // suite/set-engine-null.mdl.
    if value == "null" {
        return (var != "default_tmp_storage_engine").then_some(ER_WRONG_VALUE_FOR_VAR);
    }
    if !value.is_empty() && value.chars().all(|c| c.is_ascii_digit()) {
        return Some(ER_WRONG_TYPE_FOR_VAR);
    }
    let name = match value.strip_prefix('\'') {
        Some(s) => s.strip_suffix('\'')?,
        None if value.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => value,
        None => return None,
    };
    let known = Engine::parse(name).is_some()
        || ["default", "sequence", "performance_schema"]
            .iter()
            .any(|e| name.eq_ignore_ascii_case(e));
    (!known && !name.is_empty()).then_some(ER_UNKNOWN_STORAGE_ENGINE)
}

/// The engine of a CREATE TABLE (`words` lower case): InnoDB by default; `Err` with the
/// reason for an engine the model does not play.
pub fn create_engine(sql: &str, words: &[String]) -> Result<Engine, String> {
    match clause(words) {
        Clause::Absent => Ok(Engine::InnoDb),
        Clause::Loaded(e) => Ok(e),
        Clause::NotPlayed(n) | Clause::Unknown(n) => Err(format!(
            "`{sql}`: engine `{n}` is not modelled (InnoDB, MyISAM, Aria, MEMORY, CSV, MERGE)"
        )),
    }
}

/// The engines whose tables the model does not open (`not_opened`).
fn not_played(e: Engine) -> Option<&'static str> {
    match e {
        Engine::Merge => Some("a MERGE table, which opens its children (ha_myisammrg::add_children_list)"),
        // Measured (engine-classes.mdl): their DML passes BACKUP STAGE FLUSH as InnoDB's
        // does (BACKUP_TRANS_DML: the engines flagged HA_CAN_ONLINE_BACKUPS, open_tables
        // in sql/sql_base.cc), and an Aria copy takes no BACKUP_DML, but their ALTER
        // copies as MyISAM's: neither engine's learned rows fit.
        Engine::Aria | Engine::Memory => Some("an Aria or MEMORY table, whose rows (InnoDB's backup locks, MyISAM's ALTER algorithms) are not learned"),
        _ => None,
    }
}

/// Refuses a statement that opens a MERGE, Aria or MEMORY table; DROP, RENAME and CREATE
/// of one only take its name's locks and are played.
pub fn not_opened(sql: &str, cat: &Catalog, st: &Stmt) -> Result<(), String> {
    let Stmt::Learned(p) = st else { return Ok(()) };
    if matches!(p.kind, Kind::Drop | Kind::Rename | Kind::CreateTable) {
        return Ok(());
    }
    let hit = p
        .parts
        .iter()
        .flat_map(|part| part.bind.tables())
        .chain(p.lock_tables.iter().map(|(t, _)| t))
        .find_map(|t| Some((t, not_played(cat.engine_exact(t)?)?)));
    match hit {
        Some((t, what)) => Err(format!("`{sql}`: `{t}` is {what}: not modelled")),
        None => Ok(()),
    }
}

/// ALTER TABLE `t` ... ENGINE= another engine than `t`'s, its algorithm `kind` (a copy,
/// `alter_algorithm.rs`): the copy's learned row of `t`'s engine, and the catalog follows
/// the new engine. `None` when the statement names no other engine.
pub fn alter_engine(
    cx: &Cx,
    toks: &[Tok],
    words: &[String],
    t: &Tbl,
    kind: Kind,
) -> Option<Result<Stmt, String>> {
    let Clause::Loaded(e) = clause(words) else {
        return None;
    };
    let old = cx.cat.engine_exact(t)?;
    if e == old {
        return None;
    }
    let sql = cx.sql;
    if e == Engine::Csv {
        // CSV takes no index, no nullable and no AUTO_INCREMENT column: the server's
        // error before the copy (1164, 1178, 1069: measured, `alter table t1
        // engine=csv` of the fixture's t1) depends on the columns.
        return Some(Err(format!(
            "`{sql}`: ALTER TABLE ... ENGINE=CSV (its errors depend on the columns) is not \
             modelled"
        )));
    }
    if kind != Kind::AlterCopy || e == Engine::Merge || old == Engine::Merge {
        // An in-place ALGORITHM cannot change the engine (1845); a MERGE table has no rows
        // of its own.
        return Some(Err(format!(
            "`{sql}`: ALTER TABLE ... ENGINE= another engine in place, or to or from MERGE, \
             is not modelled"
        )));
    }
    if words.iter().any(|w| w == "lock") {
        return Some(Err(format!(
            "`{sql}`: ALTER TABLE ... ENGINE= another engine with LOCK= is not modelled"
        )));
    }
    let p = match cx.on_table(Kind::AlterCopy, t) {
        Ok(p) => p,
        Err(e) => return Some(Err(e)),
    };
    let effect = Effect::AlterEngine {
        t: t.clone(),
        engine: e,
    };
    Some(cx.plan(Kind::AlterCopy, vec![p], effect, toks))
}
