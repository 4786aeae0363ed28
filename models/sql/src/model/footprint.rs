//! Footprints: what `mdl check`'s lock-key reduction needs of the model (issue 28; the
//! check's side is `mdl_check::sql::key_por`).
//!
//! A [`Footprint`] over-approximates the lock keys, with their types, that some
//! statements may request, on every catalog the scenario can reach and in every mode the
//! session can be in (in LOCK TABLES or not, in a transaction or not), the
//! statement-duration locks included (MDL_BACKUP_DML and its kind are taken and given back
//! inside one step: `open_table`'s protection request in sql/sql_base.cc, released by
//! `MDL_context::release_statement_locks` at the statement's end, sql/mdl.cc). It is read
//! from the statement's text alone, as a bound:
//!
//! - **objects** (TABLE and the other object namespaces): every word of the text that is
//!   not a reserved word of MariaDB 10.11 (a reserved word names an object only quoted,
//!   and quoted words are always kept), lower-cased, whatever its namespace and type. A
//!   statement locks only objects its text names (`open_tables` of its table list,
//!   `lock_table_names`) unless the catalog links objects to others: triggers, views,
//!   foreign keys, stored routines, sequences and MERGE tables (sql/sql_base.cc,
//!   `open_and_process_table`, `add_used_routine`, `prepare_fk_prelocking_list`). A
//!   statement that could create such a link has no footprint; when the `setup` lines may
//!   have made one, every statement that names anything may touch any object
//!   ([`Footprint::any_object`]);
//! - **BACKUP**: the types a statement of an ordinary kind requests are the dialect's
//!   *unobtrusive* BACKUP types (BACKUP_DML, _TRANS_DML, _SYS_DML, _DDL, _ALTER_COPY,
//!   _COMMIT: every learned row of a kind other than FTWRL and BACKUP STAGE keeps to them,
//!   a test below checks it); FLUSH TABLES WITH READ LOCK may request any BACKUP type
//!   (`lock_global_read_lock`, `make_global_read_lock_block_commit`, sql/lock.cc) and no
//!   object: its `close_cached_tables` waits for the statements in progress
//!   (sql/sql_reload.cc `reload_acl_and_cache`), whose bounds all carry BACKUP types
//!   FTWRL's conflict with;
//! - **SCHEMA**: IX on any schema (`lock_table_names`; only CREATE/ALTER/DROP DATABASE take
//!   S or X, and they have no footprint);
//! - DDL and the admin statements may also touch the `mysql` schema's tables and
//!   temporary `#sql` names ([`Footprint::system`]).
//!
//! `None` (no sound bound from the text): statements other than SELECT-like DML,
//! transaction statements, LOCK/UNLOCK TABLES, FTWRL, table DDL, the admin statements and
//! session `SET`s; any statement naming a trigger, view, routine, package, event,
//! sequence, foreign key, MERGE table, user lock, HANDLER, XA, savepoint, KILL, prepared or
//! dynamic SQL, a schema or account statement, a global variable, or the system schemas;
//! statements with comments or several statements; the MySQL 8.0 table (its GLOBAL and
//! COMMIT namespaces are not bounded here).

use super::SqlModel;
use mdl_core::key::MdlKey;
use mdl_core::types::TypeSet;
use mdl_core::{Dialect, LockType};
use std::collections::BTreeSet;

/// The keys and types some statements may request (see the module documentation).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Footprint {
    /// Types on the BACKUP key.
    pub backup: TypeSet,
    /// Types on any SCHEMA key.
    pub schema: TypeSet,
    /// Object names (any object namespace, any type), lower-cased.
    pub names: BTreeSet<String>,
    /// Any object at all (the catalog may link the named ones to others).
    pub any_object: bool,
    /// Keys in the `mysql` schema and `#sql` names.
    pub system: bool,
}

/// Which of the two typed keys are quiet: every type requested on them, by every
/// session, compatible with every other (nobody waits there, grants commute).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Quiet {
    pub backup: bool,
    pub schema: bool,
}

/// Words that make a statement unbounded here (and, in `setup` lines, may link objects).
const UNBOUNDED: &[&str] = &[
    "trigger",
    "triggers",
    "view",
    "views",
    "function",
    "procedure",
    "package",
    "event",
    "events",
    "sequence",
    "references",
    "foreign",
    "nextval",
    "setval",
    "lastval",
    "merge",
    "mrg_myisam",
    "call",
    "execute",
    "prepare",
    "deallocate",
    "get_lock",
    "release_lock",
    "release_all_locks",
    "is_free_lock",
    "is_used_lock",
    "information_schema",
    "performance_schema",
    "mysql",
    "sys",
    "global",
    "handler",
    "xa",
    "savepoint",
    "kill",
    "database",
    "databases",
    "schema",
    "schemas",
    "user",
    "role",
    "server",
    "plugin",
    "tablespace",
    "password",
    "grant",
    "revoke",
    "statement",
    "release",
    "backup",
    "master",
    "slave",
    "replica",
    "binlog",
    "definer",
    "connect",
];

/// Reserved words of MariaDB 10.11 (`sql/lex.h` words the grammar does not take as a
/// bare identifier): never an object's name unless quoted.
const RESERVED: &[&str] = &[
    "add",
    "all",
    "alter",
    "analyze",
    "and",
    "as",
    "asc",
    "before",
    "between",
    "bigint",
    "binary",
    "blob",
    "both",
    "by",
    "cascade",
    "case",
    "change",
    "char",
    "character",
    "check",
    "collate",
    "column",
    "constraint",
    "convert",
    "create",
    "cross",
    "current_date",
    "current_time",
    "current_timestamp",
    "current_user",
    "default",
    "delayed",
    "delete",
    "desc",
    "describe",
    "distinct",
    "div",
    "double",
    "drop",
    "dual",
    "else",
    "elseif",
    "exists",
    "explain",
    "false",
    "float",
    "for",
    "force",
    "from",
    "fulltext",
    "group",
    "having",
    "high_priority",
    "if",
    "ignore",
    "in",
    "index",
    "inner",
    "insert",
    "int",
    "integer",
    "interval",
    "into",
    "is",
    "join",
    "key",
    "keys",
    "left",
    "like",
    "limit",
    "lock",
    "longtext",
    "low_priority",
    "mod",
    "natural",
    "not",
    "null",
    "on",
    "optimize",
    "or",
    "order",
    "outer",
    "primary",
    "read",
    "rename",
    "replace",
    "right",
    "select",
    "set",
    "show",
    "smallint",
    "straight_join",
    "table",
    "then",
    "tinyint",
    "to",
    "true",
    "union",
    "unique",
    "unlock",
    "update",
    "use",
    "using",
    "values",
    "varchar",
    "when",
    "where",
    "with",
    "write",
];

/// The words of a statement, lower-cased: runs of letters, digits, `_` and `$` (pure
/// numbers left out), and the whole text of each quoted part (backquotes, double and
/// single quotes) as well as its own runs. `None` for a comment or a `;` inside.
fn words(sql: &str) -> Option<Vec<(String, bool)>> {
    let t = sql.trim().trim_end_matches(';');
    if t.contains("/*") || t.contains('#') || t.contains("--") || t.contains(';') {
        return None;
    }
    let mut out = Vec::new();
    let mut cs = t.chars().peekable();
    let word_char = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let push_runs = |s: &str, out: &mut Vec<(String, bool)>, quoted: bool| {
        for w in s.split(|c: char| !word_char(c)).filter(|w| !w.is_empty()) {
            if !w.chars().all(|c| c.is_ascii_digit()) {
                out.push((w.to_lowercase(), quoted));
            }
        }
    };
    while let Some(c) = cs.next() {
        if c == '`' || c == '"' || c == '\'' {
            let mut q = String::new();
            for d in cs.by_ref() {
                if d == c {
                    break;
                }
                q.push(d);
            }
            out.push((q.to_lowercase(), true));
            push_runs(&q, &mut out, true);
        } else if word_char(c) {
            let mut w = String::from(c);
            while let Some(&d) = cs.peek() {
                if !word_char(d) {
                    break;
                }
                w.push(d);
                cs.next();
            }
            push_runs(&w, &mut out, false);
        }
    }
    Some(out)
}

/// What a statement is, for its bound: by its first word.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// SELECT-like DML: its named objects, ordinary BACKUP types.
    Dml,
    /// A bare transaction statement: no object.
    Transaction,
    /// UNLOCK TABLES: gives back (the session's holds), requests nothing.
    Unlock,
    /// FLUSH TABLES WITH READ LOCK.
    Ftwrl,
    /// Table DDL and the admin statements.
    Ddl,
}

fn shape(w: &[&str]) -> Option<Shape> {
    const TXN: &[&str] = &[
        "begin",
        "start",
        "transaction",
        "commit",
        "rollback",
        "work",
    ];
    let first = *w.first()?;
    Some(match first {
        "select" | "insert" | "replace" | "update" | "delete" | "do" | "values" | "with"
        | "explain" | "describe" | "desc" => Shape::Dml,
        "begin" | "start" | "commit" | "rollback" if w.iter().all(|x| TXN.contains(x)) => {
            Shape::Transaction
        }
        "lock" => Shape::Dml,
        "unlock" if w == ["unlock", "tables"] || w == ["unlock", "table"] => Shape::Unlock,
        "flush" if w == ["flush", "tables", "with", "read", "lock"] => Shape::Ftwrl,
        "flush" if w == ["flush", "table", "with", "read", "lock"] => Shape::Ftwrl,
        "set" => Shape::Dml,
        "create" | "alter" | "drop" | "rename" | "truncate" | "analyze" | "optimize" | "repair"
        | "check" | "checksum" => Shape::Ddl,
        _ => return None,
    })
}

/// The BACKUP types of an ordinary statement: the dialect's unobtrusive ones.
fn ordinary_backup(d: &Dialect) -> Option<TypeSet> {
    let ns = d.namespace_by_name("BACKUP")?;
    Some(d.strategy(ns).unobtrusive)
}

/// SCHEMA IX.
fn schema_ix() -> Option<TypeSet> {
    let ix = LockType::parse("IX")?;
    Some([ix].into_iter().collect())
}

/// The bound of one statement's requests (`linked`: the setup lines may have linked
/// objects to others); `None` where the text gives no sound bound.
pub fn statement_footprint(d: &Dialect, sql: &str, linked: bool) -> Option<Footprint> {
    if d.name != "mariadb" {
        return None;
    }
    let ws = words(sql)?;
    if ws.iter().any(|(w, _)| UNBOUNDED.contains(&w.as_str())) {
        return None;
    }
    let bare: Vec<&str> = ws
        .iter()
        .filter(|(_, q)| !q)
        .map(|(w, _)| w.as_str())
        .collect();
    let shape = shape(&bare)?;
    let mut f = Footprint::default();
    let names = || {
        ws.iter()
            .filter(|(w, q)| *q || !RESERVED.contains(&w.as_str()))
            .map(|(w, _)| w.clone())
            .collect::<BTreeSet<String>>()
    };
    match shape {
        Shape::Transaction | Shape::Unlock => f.backup = ordinary_backup(d)?,
        Shape::Ftwrl => {
            let ns = d.namespace_by_name("BACKUP")?;
            // Its requests are BACKUP locks only (the learned `ftwrl` row); its
            // `close_cached_tables` waits for the statements in progress, whose bounds
            // carry the ordinary BACKUP types, which FTWRL1 and FTWRL2 conflict with.
            f.backup = d.strategy(ns).allowed;
        }
        Shape::Dml | Shape::Ddl => {
            f.backup = ordinary_backup(d)?;
            f.schema = schema_ix()?;
            f.names = names();
            f.any_object = linked;
            f.system = shape == Shape::Ddl;
        }
    }
    Some(f)
}

/// The `setup` lines may have linked objects to others (a trigger, a view, a foreign
/// key, ...): any line with a word that makes a statement unbounded.
pub fn setup_links(setup: &[&str]) -> bool {
    setup.iter().any(|q| match words(q) {
        Some(ws) => ws.iter().any(|(w, _)| UNBOUNDED.contains(&w.as_str())),
        None => true,
    })
}

impl Footprint {
    pub fn union(&mut self, o: &Footprint) {
        self.backup = TypeSet(self.backup.0 | o.backup.0);
        self.schema = TypeSet(self.schema.0 | o.schema.0);
        self.names.extend(o.names.iter().cloned());
        self.any_object |= o.any_object;
        self.system |= o.system;
    }

    /// Adds a key held or waited for, with its type.
    pub fn add_key(&mut self, d: &Dialect, key: &MdlKey, ty: LockType) {
        match d.namespace(key.namespace()).name.as_str() {
            "BACKUP" => self.backup.insert(ty),
            "SCHEMA" => self.schema.insert(ty),
            _ => {
                self.names.insert(key.name().to_lowercase());
                if key.db().eq_ignore_ascii_case("mysql") || key.name().starts_with('#') {
                    self.system = true;
                }
            }
        }
    }

    fn has_object(&self) -> bool {
        self.any_object || self.system || !self.names.is_empty()
    }

    /// Some key both may request, other than a quiet one.
    pub fn meets(&self, o: &Footprint, q: Quiet) -> bool {
        (!q.backup && !self.backup.is_empty() && !o.backup.is_empty())
            || (!q.schema && !self.schema.is_empty() && !o.schema.is_empty())
            || (self.any_object && o.has_object())
            || (o.any_object && self.has_object())
            || (self.system && o.system)
            || self.names.iter().any(|n| o.names.contains(n))
    }
}

/// No two of `types` conflict (granted, either way) or yield to each other (pending).
fn compatible(d: &Dialect, ns: &str, types: TypeSet) -> bool {
    let Some(n) = d.namespace_by_name(ns) else {
        return false;
    };
    let s = d.strategy(n);
    types.iter().all(|a| {
        types.iter().all(|b| {
            !s.conflicts_granted(a, b)
                && (0..s.pending.len()).all(|i| !s.yields_to_pending(i, a, b))
        })
    })
}

/// Which typed keys are quiet given every footprint in play.
pub fn quiet(d: &Dialect, all: &[&Footprint]) -> Quiet {
    let (mut b, mut s) = (TypeSet::EMPTY, TypeSet::EMPTY);
    for f in all {
        b = TypeSet(b.0 | f.backup.0);
        s = TypeSet(s.0 | f.schema.0);
    }
    Quiet {
        backup: compatible(d, "BACKUP", b),
        schema: compatible(d, "SCHEMA", s),
    }
}

impl SqlModel {
    /// Session `s`'s locks in the table: held, waited for, and the rest of a bulk
    /// acquire it goes on with.
    pub fn lock_footprint(&self, s: usize) -> Footprint {
        let mut f = Footprint::default();
        let Some(t) = self.table.session(self.sessions[s].id) else {
            return f;
        };
        for h in t.book.held() {
            f.add_key(&self.dialect, &h.key, h.ty);
        }
        if let Some(w) = &t.wait {
            f.add_key(&self.dialect, &w.key, w.ticket.ty);
        }
        if let Some(r) = &t.resume {
            for b in &r.rest {
                f.add_key(&self.dialect, &b.key, b.ty);
            }
        }
        f
    }

    /// `self` is `pre` after a step of session `s` that left every other session's
    /// state and the clock as they were (shared, not copied) and ended nobody's
    /// statement.
    pub fn others_untouched(&self, pre: &SqlModel, s: usize) -> bool {
        use super::encode::Shared;
        self.now == pre.now
            && self.events.is_empty()
            && self.sessions.len() == pre.sessions.len()
            && (0..self.sessions.len())
                .all(|o| o == s || Shared::same(&self.sessions[o], &pre.sessions[o]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mapping::Mapping;

    fn dialect() -> Dialect {
        Mapping::load().expect("the learned table").dialect()
    }

    #[test]
    fn ordinary_kinds_keep_to_the_unobtrusive_backup_types_and_schema_ix() {
        let map = Mapping::load().expect("the learned table");
        let d = map.dialect();
        let ordinary = ordinary_backup(&d).expect("BACKUP");
        let ix = schema_ix().expect("IX");
        for k in &map.kinds {
            let special = k.name.starts_with("backup_") || k.name.starts_with("ftwrl");
            let db = k.name.ends_with("_db");
            for op in &k.ops {
                if op.ns == "BACKUP" && !special {
                    assert!(ordinary.contains(op.ty), "{}: {:?}", k.name, op.ty);
                }
                if op.ns == "SCHEMA" && !db {
                    assert!(ix.contains(op.ty), "{}: {:?}", k.name, op.ty);
                }
            }
        }
        for t in ["BACKUP_DML", "BACKUP_TRANS_DML", "BACKUP_DDL"] {
            assert!(ordinary.contains(LockType::parse(t).expect("type")), "{t}");
        }
    }

    #[test]
    fn statements_are_bounded_by_their_words() {
        let d = dialect();
        let f = statement_footprint(&d, "INSERT INTO `T1` VALUES (1)", false).expect("bound");
        assert!(f.names.contains("t1") && !f.names.contains("insert"));
        assert!(!f.backup.is_empty() && !f.any_object && !f.system);
        let f = statement_footprint(&d, "LOCK TABLES t1 READ, t2 WRITE", false).expect("b");
        assert!(f.names.contains("t1") && f.names.contains("t2"));
        let f = statement_footprint(&d, "SELECT * FROM t1", true).expect("bound");
        assert!(f.any_object);
        let f = statement_footprint(&d, "FLUSH TABLES WITH READ LOCK", false).expect("b");
        assert!(f.names.is_empty() && f.backup.0.count_ones() > 6);
        let f = statement_footprint(&d, "ALTER TABLE t1 ENGINE=InnoDB", false).expect("b");
        assert!(f.system);
        for q in [
            "CREATE VIEW v AS SELECT * FROM t1",
            "CALL p()",
            "SELECT GET_LOCK('a', 0)",
            "DROP DATABASE d",
            "SET GLOBAL lock_wait_timeout = 1",
            "SELECT * FROM t1 /* x */",
            "HANDLER t1 OPEN",
            "SHOW TABLES",
            "FLUSH TABLES",
            "ROLLBACK TO SAVEPOINT a",
            "SELECT 1; SELECT 2",
        ] {
            assert!(statement_footprint(&d, q, false).is_none(), "{q}");
        }
        assert!(setup_links(&[
            "CREATE TRIGGER tr BEFORE INSERT ON t1 FOR EACH ROW SET @a=1"
        ]));
        assert!(!setup_links(&["CREATE TABLE t3 (a INT)"]));
    }

    #[test]
    fn ftwrl_meets_dml_and_dml_on_other_tables_is_quiet() {
        let d = dialect();
        let a = statement_footprint(&d, "INSERT INTO t1 VALUES (1)", false).expect("a");
        let b = statement_footprint(&d, "DELETE FROM t2", false).expect("b");
        let f = statement_footprint(&d, "FLUSH TABLES WITH READ LOCK", false).expect("f");
        let q = quiet(&d, &[&a, &b]);
        assert!(q.backup && q.schema);
        assert!(!a.meets(&b, q));
        let q = quiet(&d, &[&a, &b, &f]);
        assert!(!q.backup);
        assert!(a.meets(&f, q) && a.meets(&b, q));
    }
}
