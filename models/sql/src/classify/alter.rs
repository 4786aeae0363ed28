//! ALTER TABLE (`mysql_alter_table`, sql/sql_table.cc): the learned kind of each form, in
//! steps. `target` reads the table and hands the forms that are another statement's
//! family (a view, a RENAME, partitions, an unknown engine) to their files;
//! `other_families` does the same for foreign keys, tablespaces and keys;
//! `myisam_forms` the MyISAM paths that are no copy; `by_algorithm` the server's choice of
//! INSTANT, INPLACE or COPY (`alter_algorithm.rs`, `alter_columns.rs`).

use super::{
    alter_charset, alter_cols, alter_fk, alter_keys, alter_rename, alter_tablespace, engines,
    fk_alter, option_value, partition, views, AlterCols, Cur, Cx, Effect, Stmt, Tbl, Tok,
};
use crate::alter_algorithm::Lock;
use crate::catalog::Engine;
use crate::kind::Kind;

/// ER_UNKNOWN_ALTER_ALGORITHM and ER_UNKNOWN_ALTER_LOCK: the parser's errors for an
/// ALGORITHM= or LOCK= of a word it does not know (sql_yacc.yy, `alter_algorithm_option`
/// and `alter_lock_option`: `set_requested_algorithm` / `set_requested_lock` fail), before
/// any lock (measured: main/alter_table.test's `ALGORITHM= INVALID`, `LOCK= INVALID`).
const ER_UNKNOWN_ALTER_ALGORITHM: u32 = 1800;
const ER_UNKNOWN_ALTER_LOCK: u32 = 1801;

/// A plain word (an identifier to the parser), not a string or a number.
fn is_word(v: &str) -> bool {
    v.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
}

/// What the steps after `target` need of the statement.
struct Alter {
    t: Tbl,
    /// The words after the table's name.
    spec: Vec<String>,
    /// The token index of the first word after the table's name.
    spec_at: usize,
    algo: Option<String>,
    lock: Option<Lock>,
    /// ALTER ONLINE TABLE (LOCK=NONE).
    online: bool,
    /// The catalog knows the table's columns (or the table is not there).
    known: bool,
}

/// The result of a step: the statement's plan, or what the next step needs.
enum Step {
    Done(Stmt),
    Next(Alter),
}

pub(super) fn classify_alter(
    cx: &Cx,
    c: &mut Cur,
    toks: &[Tok],
    words: &[String],
) -> Result<Stmt, String> {
    let a = match target(cx, c, toks, words)? {
        Step::Done(st) => return Ok(st),
        Step::Next(a) => a,
    };
    if let Some(st) = other_families(cx, toks, words, &a)? {
        return Ok(st);
    }
    if let Some(st) = myisam_forms(cx, toks, words, &a)? {
        return Ok(st);
    }
    by_algorithm(cx, toks, words, a)
}

/// `ALTER [ONLINE] [IGNORE] TABLE [IF EXISTS] t ...`: the table, its ALGORITHM= and
/// LOCK= clauses; a view, RENAME, an unknown engine and partitions are done here.
fn target(cx: &Cx, c: &mut Cur, toks: &[Tok], words: &[String]) -> Result<Step, String> {
    let sql = cx.sql;
    c.i = 1;
    c.eat("online");
    c.eat("ignore");
    if let Some(st) = views::alter_view(cx, c, toks) {
        return st.map(Step::Done);
    }
    if !c.eat("table") {
        return Err(format!("`{sql}`: only ALTER TABLE is in the learned table"));
    }
    // ALTER TABLE IF EXISTS of a table that is there is the ALTER without it.
    let if_exists = c.eat("if") && {
        c.expect("exists")?;
        true
    };
    let t = c.table(cx.db)?;
    let spec_at = c.i;
    if if_exists && !cx.cat.is_table(&t) {
        return Err(format!(
            "`{sql}`: ALTER TABLE IF EXISTS of a table that is not there is not modelled"
        ));
    }
    let spec = c.rest_words();
    let names = alter_charset::parse_error(&spec).map_err(|e| format!("`{sql}`: {e}"))?;
    if let Some(code) = names {
        return Ok(Step::Done(Stmt::Fails(code)));
    }
    if c.at("rename") {
        if let Some(st) = alter_rename::classify(cx, toks, &t, c.i) {
            return st.map(Step::Done);
        }
    }
    if let Some(st) = engines::unknown_engine(cx, toks, &spec, (Kind::AlterUnknownEngine, &t)) {
        return st.map(Step::Done);
    }
    let algo = option_value(words, "algorithm");
    let lock = match crate::alter_algorithm::lock_clause(&spec) {
        Ok(lock) => lock,
        Err(v) if is_word(&v) => return Ok(Step::Done(Stmt::Fails(ER_UNKNOWN_ALTER_LOCK))),
        Err(v) => {
            return Err(format!(
                "`{sql}`: ALTER TABLE ... LOCK={v} is not in the learned table"
            ))
        }
    };
    const ALGORITHMS: [&str; 5] = ["default", "copy", "inplace", "nocopy", "instant"];
    if algo
        .as_deref()
        .is_some_and(|a| is_word(a) && !ALGORITHMS.contains(&a))
    {
        return Ok(Step::Done(Stmt::Fails(ER_UNKNOWN_ALTER_ALGORITHM)));
    }
    if words.iter().any(|w| w == "sequence")
        && (cx.cat.is_sequence(&t) || !matches!(algo.as_deref(), None | Some("copy" | "default")))
    {
        // (SEQUENCE=0 of a sequence makes it a table; in place: 1846.)
        return Err(format!(
            "`{sql}`: ALTER TABLE ... SEQUENCE=0 of a sequence, or in place, is not modelled"
        ));
    }
    if partition::mentions_partitions(&spec) {
        return partition::classify(cx, &t, &spec, words, toks).map(Step::Done);
    }
    // (A table that is not there fails at open, 1146, whatever its operations.)
    let known = alter_cols::known(cx, &t) || !cx.cat.exists(&t);
    let online = words.get(1).is_some_and(|w| w == "online");
    Ok(Step::Next(Alter {
        t,
        spec,
        spec_at,
        algo,
        lock,
        online,
        known,
    }))
}

/// Foreign keys, forms the model does not play, tablespaces, RENAME with other
/// operations and operations on keys: each its own file's.
fn other_families(
    cx: &Cx,
    toks: &[Tok],
    words: &[String],
    a: &Alter,
) -> Result<Option<Stmt>, String> {
    let sql = cx.sql;
    let t = &a.t;
    if let Some(st) = fk_alter::classify(cx, toks, t, a.spec_at) {
        return st.map(Some);
    }
    if let Some(st) = alter_fk::classify(cx, toks, t, a.spec_at) {
        return st.map(Some);
    }
    if let Some(why) = crate::alter_algorithm::not_modelled(words, &a.spec, a.known) {
        return Err(format!("`{sql}`: {why}"));
    }
    // RENAME COLUMN / INDEX / KEY are operations on the table; RENAME [TO|AS] renames it.
    let renames_table = words
        .windows(2)
        .any(|w| w[0] == "rename" && !matches!(w[1].as_str(), "column" | "index" | "key"))
        || words.last().is_some_and(|w| w == "rename");
    if let Some(st) = alter_tablespace::classify(cx, toks, t, &a.spec) {
        return st.map(Some);
    }
    if renames_table {
        if let Some(st) = alter_rename::with_operations(cx, toks, t, a.spec_at) {
            return st.map(Some);
        }
    }
    let how = (a.algo.as_deref(), a.lock, a.online);
    if let Some(st) = alter_keys::classify(cx, toks, t, &a.spec, how) {
        return st.map(Some);
    }
    if renames_table
        || words
            .iter()
            .any(|w| w == "partition" || w == "discard" || w == "import")
    {
        return Err(format!(
            "`{sql}`: this ALTER TABLE operation is not in the learned table"
        ));
    }
    Ok(None)
}

/// Of a MyISAM table: DISABLE/ENABLE KEYS and changes of metadata only are refused (no
/// learned row), an in-place ALTER fails.
fn myisam_forms(
    cx: &Cx,
    toks: &[Tok],
    words: &[String],
    a: &Alter,
) -> Result<Option<Stmt>, String> {
    let sql = cx.sql;
    if cx.cat.engine(&a.t) != Some(Engine::MyIsam) {
        return Ok(None);
    }
    let algo = a.algo.as_deref();
    if algo != Some("copy")
        && (words
            .windows(2)
            .any(|w| matches!(w[0].as_str(), "disable" | "enable") && w[1] == "keys")
            || words
                .windows(2)
                .any(|w| matches!(w[0].as_str(), "set" | "drop") && w[1] == "default")
            || words.iter().any(|w| w == "comment"))
    {
        // Of a MyISAM table these are no copies: DISABLE/ENABLE KEYS takes the simple
        // path (mysql_alter_table: SU, then X with no SNW), a change of metadata only is
        // done in place (handler::check_if_supported_inplace_alter; measured:
        // suite/kill-alter-waiting-behind-lock-read.mdl, BACKUP_ALTER_COPY and X behind
        // SU). Neither is a learned row: refused rather than played as a copy.
        return Err(format!(
            "`{sql}`: DISABLE/ENABLE KEYS and changes of metadata only (a column's \
             DEFAULT, COMMENT) of a MyISAM table are not in the learned table (they are \
             not copies); add ALGORITHM=COPY"
        ));
    }
    // ALTER ONLINE TABLE is LOCK=NONE: MyISAM cannot, and fails as ALGORITHM=INPLACE does
    // (ER_ALTER_OPERATION_NOT_SUPPORTED once lock_table_names is through; measured:
    // main/alter_table.test:1549 in the corpus); of InnoDB a COPY is refused below.
    if a.online || matches!(algo, Some("inplace" | "instant" | "nocopy")) {
        // MyISAM has no in-place ALTER: ER_ALTER_OPERATION_NOT_SUPPORTED once
        // lock_table_names is through (measured).
        let p = cx.on_table(Kind::AlterCopy, &a.t)?;
        let effect = Effect::InPlace(a.t.clone());
        return cx.plan(Kind::AlterCopy, vec![p], effect, toks).map(Some);
    }
    Ok(None)
}

/// The algorithm the statement runs with: its ALGORITHM=, or the server's choice per
/// operation (`alter_cols`, `alter_algorithm::default_kind`); its LOCK= clause's row.
fn by_algorithm(cx: &Cx, toks: &[Tok], words: &[String], a: Alter) -> Result<Stmt, String> {
    let sql = cx.sql;
    let t = a.t;
    let algo = a.algo.as_deref();
    let pk_copy = cx.cat.engine(&t) == Some(Engine::InnoDb)
        && crate::alter_algorithm::drops_primary_key(&a.spec, cx.cat.primary_key(&t))
            .map_err(|e| format!("`{sql}`: {e}"))?;
    if pk_copy && !matches!(algo, None | Some("default" | "copy")) {
        return Err(format!(
            "`{sql}`: dropping a primary key column with ALGORITHM other than COPY fails \
             (not measured)"
        ));
    }
    // (LOCK= clauses follow the learned rows of alter_algorithm::lock_row, ENGINE= the
    // engines' rows of classify/engines.rs.)
    let engine_clause = !matches!(engines::clause(words), engines::Clause::Absent);
    if a.known && a.lock.is_none() && !engine_clause {
        let st = alter_cols::classify(
            cx,
            &t,
            &a.spec,
            alter_cols::Asked {
                algo,
                pk_copy,
                online: a.online,
            },
            toks,
        );
        if let Some(st) = st {
            return st.map_err(|e| format!("`{sql}`: {e}"));
        }
    }
    let kind = match algo {
        Some("copy") => Kind::AlterCopy,
        _ if pk_copy => Kind::AlterCopy,
        Some("inplace") | Some("nocopy") => Kind::AlterInplace,
        Some("instant") => Kind::AlterInstant,
        Some("default") | None => {
            // The server's choice per operation (measured): alter_algorithm.rs.
            let engine = cx.cat.engine(&t).unwrap_or(Engine::InnoDb);
            crate::alter_algorithm::default_kind(&a.spec, engine)
                .map_err(|e| format!("`{sql}`: {e}; add ALGORITHM=COPY, INPLACE or INSTANT"))?
        }
        Some(other) => return Err(format!("`{sql}`: unknown ALGORITHM={other}")),
    };
    if a.online && kind == Kind::AlterCopy {
        return Err(format!(
            "`{sql}`: ALTER ONLINE TABLE (LOCK=NONE) of an operation that copies is not \
             modelled"
        ));
    }
    let forget_pk = crate::alter_algorithm::may_change_pk(&a.spec, cx.cat.primary_key(&t));
    if let Some(st) = engines::alter_engine(cx, toks, words, &t, kind) {
        return st;
    }
    if let Some(lock) = a.lock {
        return alter_with_lock(cx, toks, words, (t, forget_pk), kind, lock);
    }
    let p = cx.on_table(kind, &t)?;
    let cols = AlterCols::Forget;
    cx.plan(kind, vec![p], Effect::Alter { t, forget_pk, cols }, toks)
}

/// ALTER TABLE ... LOCK=NONE | SHARED | EXCLUSIVE of the algorithm `kind`: its learned
/// row (`alter_algorithm::lock_row`), played as that algorithm's ALTER.
fn alter_with_lock(
    cx: &Cx,
    toks: &[Tok],
    words: &[String],
    (t, forget_pk): (Tbl, bool),
    kind: Kind,
    lock: Lock,
) -> Result<Stmt, String> {
    let sql = cx.sql;
    if lock == Lock::None
        && kind == Kind::AlterInplace
        && words.iter().any(|w| w == "fulltext" || w == "spatial")
    {
        // InnoDB builds these under a shared lock at least (1846 for LOCK=NONE).
        return Err(format!(
            "`{sql}`: LOCK=NONE of a FULLTEXT / SPATIAL index is not in the learned table"
        ));
    }
    let (row, fail) = crate::alter_algorithm::lock_row(kind, lock);
    let mut p = cx.on_table(row, &t)?;
    if let Some(code) = fail {
        let effect = if cx.cat.exists(&t) {
            Effect::Fail(code)
        } else {
            Effect::NeedTables(vec![t])
        };
        return cx.plan(row, vec![p], effect, toks);
    }
    // The model's rules of the algorithm (its steps, LOCK TABLES) are the plan's kind's.
    p.kind = kind;
    let cols = AlterCols::Forget;
    cx.plan(kind, vec![p], Effect::Alter { t, forget_pk, cols }, toks)
}
