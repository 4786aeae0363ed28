//! Statement kinds, the SQL classifier, and the learned statement-to-lock table.
//!
//! The table (`models/conformance/statements.tsv`, written by `mdl conform --learn`) has
//! two kinds of rows, tab-separated:
//!
//! ```text
//! kind  NAME  IMPLICIT_COMMIT(yes|no)  SQL
//! op    NAME  SEQ  acquire|backoff|upgrade|release  NAMESPACE  KEY  TYPE  DURATION  EVIDENCE
//! ```
//!
//! `KEY` is a template: `-` (BACKUP), `$db` (the statement's schema), `$db.$t` (its first
//! table), `$db.$t2` (the second, RENAME's target), `$lock` (GET_LOCK's name) or a literal
//! `db.name`. Control statements (BEGIN, COMMIT, ROLLBACK, UNLOCK TABLES, HANDLER ...
//! CLOSE, RELEASE_LOCK, SET lock_wait_timeout) are not learned: their effect on locks is
//! fixed by the server's documented semantics and written in [`crate::model`].

use super::ConformError;
use mdl_core::{Duration, LockType};

/// A learned statement kind: its name, the SQL the learner and the matrix run (on the
/// fixture tables `t0`, `t1`, `t2` of schema `test`), and statements the same session runs
/// first (the earlier BACKUP stages).
#[derive(Clone, Copy, Debug)]
pub struct KindDef {
    pub name: &'static str,
    pub sql: &'static str,
    pub setup: &'static [&'static str],
}

pub const KINDS: &[KindDef] = &[
    k("select", "SELECT * FROM t1", &[]),
    k(
        "select_for_update",
        "SELECT * FROM t1 WHERE a=3 FOR UPDATE",
        &[],
    ),
    k("insert", "INSERT INTO t1 (b) VALUES (0)", &[]),
    k("update", "UPDATE t1 SET b=b+1 WHERE a=1", &[]),
    k("delete", "DELETE FROM t1 WHERE a=2", &[]),
    k("lock_read", "LOCK TABLES t1 READ", &[]),
    k("lock_write", "LOCK TABLES t1 WRITE", &[]),
    k("alter_copy", "ALTER TABLE t1 FORCE, ALGORITHM=COPY", &[]),
    k(
        "alter_inplace",
        "ALTER TABLE t1 FORCE, ALGORITHM=INPLACE",
        &[],
    ),
    k("create_index", "CREATE INDEX ib ON t1 (b)", &[]),
    k("truncate", "TRUNCATE TABLE t1", &[]),
    k("rename", "RENAME TABLE t1 TO t1r", &[]),
    k("drop", "DROP TABLE t1", &[]),
    k("ftwrl", "FLUSH TABLES WITH READ LOCK", &[]),
    k("backup_start", "BACKUP STAGE START", &[]),
    k(
        "backup_flush",
        "BACKUP STAGE FLUSH",
        &["BACKUP STAGE START"],
    ),
    k(
        "backup_block_ddl",
        "BACKUP STAGE BLOCK_DDL",
        &["BACKUP STAGE START", "BACKUP STAGE FLUSH"],
    ),
    k(
        "backup_block_commit",
        "BACKUP STAGE BLOCK_COMMIT",
        &[
            "BACKUP STAGE START",
            "BACKUP STAGE FLUSH",
            "BACKUP STAGE BLOCK_DDL",
        ],
    ),
    k(
        "backup_end",
        "BACKUP STAGE END",
        &[
            "BACKUP STAGE START",
            "BACKUP STAGE FLUSH",
            "BACKUP STAGE BLOCK_DDL",
            "BACKUP STAGE BLOCK_COMMIT",
        ],
    ),
    k("get_lock", "SELECT GET_LOCK('u1', 100000)", &[]),
    k("handler_open", "HANDLER t1 OPEN", &[]),
    // Not a matrix kind: what COMMIT of a transaction that wrote requests.
    k(
        "commit_write",
        "COMMIT",
        &["BEGIN", "INSERT INTO t1 (b) VALUES (0)"],
    ),
];

/// The kinds of the statement compatibility matrix (all but `commit_write`).
pub fn matrix_kinds() -> impl Iterator<Item = &'static KindDef> {
    KINDS.iter().filter(|k| k.name != "commit_write")
}

const fn k(name: &'static str, sql: &'static str, setup: &'static [&'static str]) -> KindDef {
    KindDef { name, sql, setup }
}

pub fn kind_def(name: &str) -> Option<&'static KindDef> {
    KINDS.iter().find(|k| k.name == name)
}

/// The fixture every learner probe and matrix cell starts from.
pub const FIXTURE: &str = "DROP TABLE IF EXISTS t0, t1, t2, t1r; \
CREATE TABLE t0 (a INT PRIMARY KEY) ENGINE=InnoDB; \
CREATE TABLE t1 (a INT AUTO_INCREMENT PRIMARY KEY, b INT) ENGINE=InnoDB; \
INSERT INTO t1 VALUES (1,1),(2,2),(3,3),(4,4); \
CREATE TABLE t2 LIKE t1; INSERT INTO t2 SELECT * FROM t1";

/// What a statement is, for our side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    /// A learned kind with its bindings.
    Kind {
        kind: String,
        /// `(db, table)` in order; LOCK TABLES may list several (each with its kind).
        tables: Vec<(String, String, String)>,
        lock: Option<String>,
    },
    Begin,
    Commit,
    Rollback,
    UnlockTables,
    HandlerClose(String, String),
    ReleaseLock(String),
    /// `SET [SESSION] lock_wait_timeout = N` (seconds).
    SetTimeout(u64),
    /// A statement that takes no metadata locks we model (`SELECT 1`, other `SET`s).
    NoLocks,
}

fn words(sql: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    for c in sql.trim().trim_end_matches(';').chars() {
        match quote {
            Some(q) => {
                cur.push(c);
                if c == q {
                    quote = None;
                }
            }
            None if c == '\'' || c == '`' || c == '"' => {
                cur.push(c);
                quote = Some(c);
            }
            None if c.is_whitespace() || c == ',' || c == '(' || c == ')' || c == '=' => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                if !c.is_whitespace() {
                    out.push(c.to_string());
                }
            }
            None => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn unquote(s: &str) -> String {
    s.trim_matches(|c| c == '`' || c == '\'' || c == '"')
        .to_owned()
}

/// `db.t`, `t`, with backticks.
fn table_name(w: &str, db: &str) -> (String, String) {
    match w.split_once('.') {
        Some((d, t)) => (unquote(d), unquote(t)),
        None => (db.to_owned(), unquote(w)),
    }
}

/// Classifies one SQL statement. `db` is the session's default schema.
pub fn classify(sql: &str, db: &str) -> Result<Stmt, String> {
    let w = words(sql);
    let l: Vec<String> = w.iter().map(|x| x.to_ascii_lowercase()).collect();
    let ls: Vec<&str> = l.iter().map(String::as_str).collect();
    let has = |x: &str| ls.contains(&x);
    let after = |x: &str| ls.iter().position(|y| *y == x).and_then(|i| w.get(i + 1));
    let one = |kind: &str, t: Option<&String>| -> Result<Stmt, String> {
        let t = t.ok_or_else(|| format!("no table name in `{sql}`"))?;
        let (d, n) = table_name(t, db);
        Ok(Stmt::Kind {
            kind: kind.into(),
            tables: vec![(d, n, kind.into())],
            lock: None,
        })
    };
    let first_string = || {
        w.iter()
            .find(|x| x.starts_with('\''))
            .map(|x| unquote(x))
            .ok_or_else(|| format!("no lock name in `{sql}`"))
    };
    match ls.as_slice() {
        [] => Err("empty statement".into()),
        ["begin"] | ["begin", "work"] | ["start", "transaction", ..] => Ok(Stmt::Begin),
        ["commit", ..] => Ok(Stmt::Commit),
        ["rollback", ..] => Ok(Stmt::Rollback),
        ["unlock", "tables" | "table"] => Ok(Stmt::UnlockTables),
        ["handler", _, "close"] => {
            let (d, n) = table_name(&w[1], db);
            Ok(Stmt::HandlerClose(d, n))
        }
        ["handler", _, "open", ..] => one("handler_open", w.get(1)),
        ["select", "release_lock", ..] => Ok(Stmt::ReleaseLock(first_string()?)),
        ["select", "get_lock", ..] => Ok(Stmt::Kind {
            kind: "get_lock".into(),
            tables: vec![],
            lock: Some(first_string()?),
        }),
        ["select", ..] if has("from") && has("for") && has("update") => {
            one("select_for_update", after("from"))
        }
        ["select", ..] if has("from") => one("select", after("from")),
        ["select", ..] => Ok(Stmt::NoLocks),
        ["insert", "into", ..] => one("insert", w.get(2)),
        ["insert", ..] => one("insert", w.get(1)),
        ["update", ..] => one("update", w.get(1)),
        ["delete", "from", ..] => one("delete", w.get(2)),
        ["lock", "tables" | "table", ..] => {
            let mut tables = Vec::new();
            let mut i = 2;
            while i < w.len() {
                let (d, n) = table_name(&w[i], db);
                let mode = l.get(i + 1).map(String::as_str);
                let kind = match mode {
                    Some("read") => "lock_read",
                    Some("write") => "lock_write",
                    _ => return Err(format!("LOCK TABLES: expected READ or WRITE in `{sql}`")),
                };
                tables.push((d, n, kind.into()));
                i += 2;
                while i < w.len() && l[i] != "," {
                    i += 1; // LOCAL, NOWAIT, WAIT n
                }
                i += 1;
            }
            let kind = if tables.iter().any(|t| t.2 == "lock_write") {
                "lock_write"
            } else {
                "lock_read"
            };
            if tables.is_empty() {
                return Err(format!("LOCK TABLES without tables: `{sql}`"));
            }
            Ok(Stmt::Kind {
                kind: kind.into(),
                tables,
                lock: None,
            })
        }
        ["alter", "table", ..] => {
            let copy = ls
                .windows(3)
                .any(|x| x[0] == "algorithm" && x[1] == "=" && x[2] == "copy");
            one(if copy { "alter_copy" } else { "alter_inplace" }, w.get(2))
        }
        ["create", "index", _, "on", ..] => one("create_index", w.get(4)),
        ["create", "unique", "index", _, "on", ..] => one("create_index", w.get(5)),
        ["truncate", "table", ..] => one("truncate", w.get(2)),
        ["truncate", ..] => one("truncate", w.get(1)),
        ["rename", "table", _, "to", _, ..] => {
            let a = table_name(&w[2], db);
            let b = table_name(&w[4], db);
            Ok(Stmt::Kind {
                kind: "rename".into(),
                tables: vec![(a.0, a.1, "rename".into()), (b.0, b.1, "rename".into())],
                lock: None,
            })
        }
        ["drop", "table", "if", "exists", ..] => one("drop", w.get(4)),
        ["drop", "table", ..] => one("drop", w.get(2)),
        ["flush", "tables" | "table", "with", "read", "lock"] => Ok(Stmt::Kind {
            kind: "ftwrl".into(),
            tables: vec![],
            lock: None,
        }),
        ["backup", "stage", st] => {
            let kind = format!("backup_{st}");
            if kind_def(&kind).is_none() {
                return Err(format!("unknown backup stage `{st}`"));
            }
            Ok(Stmt::Kind {
                kind,
                tables: vec![],
                lock: None,
            })
        }
        ["set", "session", "lock_wait_timeout", "=", n] | ["set", "lock_wait_timeout", "=", n] => n
            .parse()
            .map(Stmt::SetTimeout)
            .map_err(|_| format!("bad lock_wait_timeout `{n}`")),
        ["set", ..] => Ok(Stmt::NoLocks),
        _ => Err(format!("statement not in the mapping: `{sql}`")),
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum OpKind {
    Acquire,
    /// Acquire without waiting; on a conflict give back the statement's locks, wait for
    /// this one alone, then take the others again.
    Backoff,
    Upgrade,
    Release,
}

impl OpKind {
    pub fn name(self) -> &'static str {
        match self {
            OpKind::Acquire => "acquire",
            OpKind::Backoff => "backoff",
            OpKind::Upgrade => "upgrade",
            OpKind::Release => "release",
        }
    }
    fn parse(s: &str) -> Option<OpKind> {
        Some(match s {
            "acquire" => OpKind::Acquire,
            "backoff" => OpKind::Backoff,
            "upgrade" => OpKind::Upgrade,
            "release" => OpKind::Release,
            _ => return None,
        })
    }
}

/// One lock operation of a statement kind, with a key template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Op {
    pub op: OpKind,
    pub ns: String,
    pub key: String,
    pub ty: LockType,
    pub dur: Duration,
    pub evidence: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KindRow {
    pub name: String,
    pub implicit_commit: bool,
    pub sql: String,
    pub ops: Vec<Op>,
}

/// The learned table.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Mapping {
    /// The header comment lines (server version, date).
    pub header: Vec<String>,
    pub kinds: Vec<KindRow>,
}

pub const STATEMENTS_FILE: &str = "statements.tsv";

impl Mapping {
    pub fn kind(&self, name: &str) -> Option<&KindRow> {
        self.kinds.iter().find(|k| k.name == name)
    }

    /// The committed table.
    pub fn load() -> Result<Mapping, ConformError> {
        let p = super::data_dir().join(STATEMENTS_FILE);
        let text = std::fs::read_to_string(&p)
            .map_err(|e| ConformError::Io(format!("{}: {e}", p.display())))?;
        Mapping::parse(&p.display().to_string(), &text)
    }

    pub fn parse(file: &str, text: &str) -> Result<Mapping, ConformError> {
        let mut m = Mapping::default();
        let err = |line: usize, msg: String| ConformError::Data {
            file: file.into(),
            line,
            msg,
        };
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            if let Some(c) = raw.strip_prefix('#') {
                let c2 = c.trim();
                if m.kinds.is_empty() && !c2.starts_with("kind\t") && !c2.starts_with("op\t") {
                    m.header.push(c.trim().to_owned());
                }
                continue;
            }
            if raw.trim().is_empty() {
                continue;
            }
            let f: Vec<&str> = raw.split('\t').collect();
            match f.as_slice() {
                ["kind", name, ic, sql] => {
                    if m.kind(name).is_some() {
                        return Err(err(line, format!("kind `{name}` twice")));
                    }
                    let implicit_commit = match *ic {
                        "yes" => true,
                        "no" => false,
                        x => return Err(err(line, format!("expected yes or no, not `{x}`"))),
                    };
                    m.kinds.push(KindRow {
                        name: (*name).into(),
                        implicit_commit,
                        sql: (*sql).into(),
                        ops: Vec::new(),
                    });
                }
                ["op", name, seq, op, ns, key, ty, dur, ev] => {
                    let d = mdl_core::Dialect::mariadb();
                    let k = m
                        .kinds
                        .iter_mut()
                        .find(|k| k.name == *name)
                        .ok_or_else(|| err(line, format!("op of unknown kind `{name}`")))?;
                    let seq: usize = seq
                        .parse()
                        .map_err(|_| err(line, format!("bad sequence number `{seq}`")))?;
                    if seq != k.ops.len() + 1 {
                        return Err(err(line, format!("expected op {}", k.ops.len() + 1)));
                    }
                    let op =
                        OpKind::parse(op).ok_or_else(|| err(line, format!("unknown op `{op}`")))?;
                    let n = d
                        .namespace_by_name(ns)
                        .ok_or_else(|| err(line, format!("unknown namespace `{ns}`")))?;
                    let ty = LockType::parse(ty)
                        .ok_or_else(|| err(line, format!("unknown lock type `{ty}`")))?;
                    if !d.allows(n, ty) {
                        return Err(err(line, format!("namespace {ns} does not take {ty}")));
                    }
                    let dur = Duration::parse(dur)
                        .ok_or_else(|| err(line, format!("unknown duration `{dur}`")))?;
                    k.ops.push(Op {
                        op,
                        ns: (*ns).into(),
                        key: (*key).into(),
                        ty,
                        dur,
                        evidence: (*ev).into(),
                    });
                }
                _ => return Err(err(line, "expected a `kind` or an `op` row".into())),
            }
        }
        Ok(m)
    }

    pub fn to_text(&self) -> String {
        let mut s = String::new();
        for h in &self.header {
            s.push_str(&format!("# {h}\n"));
        }
        s.push_str("# kind\tNAME\tIMPLICIT_COMMIT\tSQL\n");
        s.push_str("# op\tNAME\tSEQ\tOP\tNAMESPACE\tKEY\tTYPE\tDURATION\tEVIDENCE\n");
        for k in &self.kinds {
            s.push_str(&format!(
                "kind\t{}\t{}\t{}\n",
                k.name,
                if k.implicit_commit { "yes" } else { "no" },
                k.sql
            ));
            for (i, o) in k.ops.iter().enumerate() {
                s.push_str(&format!(
                    "op\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
                    k.name,
                    i + 1,
                    o.op.name(),
                    o.ns,
                    o.key,
                    o.ty.abbrev(),
                    o.dur.name(),
                    o.evidence
                ));
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies() {
        let c = |s| classify(s, "test").unwrap();
        assert!(matches!(c("SELECT * FROM t1"), Stmt::Kind { kind, .. } if kind == "select"));
        assert!(
            matches!(c("select * from test.t1 where a=1 for update"), Stmt::Kind { kind, .. } if kind == "select_for_update")
        );
        assert!(
            matches!(c("LOCK TABLES t1 READ, t2 WRITE"), Stmt::Kind { kind, tables, .. } if kind == "lock_write" && tables.len() == 2)
        );
        assert!(
            matches!(c("ALTER TABLE t1 FORCE, ALGORITHM=COPY"), Stmt::Kind { kind, .. } if kind == "alter_copy")
        );
        assert!(
            matches!(c("select get_lock('x', 10)"), Stmt::Kind { lock: Some(l), .. } if l == "x")
        );
        assert_eq!(c("SET lock_wait_timeout=0"), Stmt::SetTimeout(0));
        assert_eq!(c("BEGIN"), Stmt::Begin);
        assert!(classify("GRANT ALL ON *.* TO x", "test").is_err());
        for k in matrix_kinds() {
            match c(k.sql) {
                Stmt::Kind { kind, .. } => assert_eq!(kind, k.name),
                s => panic!("{} classified as {s:?}", k.sql),
            }
        }
    }
}
