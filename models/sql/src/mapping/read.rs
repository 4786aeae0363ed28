//! The learned table's file: where each dialect's table is, its header (dialect, server
//! version), the reader (errors at FILE:LINE:COL) and the writer.

use super::{KindRow, LockTemplate, Mapping, Op, OpKind, RuleRow};
use crate::kind::parse_row;
use crate::SqlError;
use mdl_core::{Duration, LockType};

pub const STATEMENTS_FILE: &str = "statements.tsv";

/// The MySQL 8.0 statement table, written from the server's source (not learned: no MySQL
/// server is compared); see its header.
pub const STATEMENTS_FILE_MYSQL80: &str = "statements-mysql80.tsv";

/// The header line that names a table's dialect (`# dialect mysql-8.0`); a table without
/// one is in the `mariadb` dialect (the learned table).
const DIALECT_LINE: &str = "dialect ";

/// The statement table of a built-in dialect (by its canonical name), if one is written.
pub fn statements_file(dialect: &str) -> Option<&'static str> {
    match dialect {
        "mariadb" => Some(STATEMENTS_FILE),
        "mysql-8.0" => Some(STATEMENTS_FILE_MYSQL80),
        _ => None,
    }
}

/// The dialect a table's text names in its header (see [`DIALECT_LINE`]).
fn dialect_of_text(text: &str) -> Result<(String, mdl_core::Dialect), String> {
    for l in text.lines() {
        let Some(c) = l.strip_prefix('#') else { break };
        if let Some(n) = c.trim().strip_prefix(DIALECT_LINE) {
            let n = n.trim();
            let d = mdl_core::Dialect::builtin(n)
                .ok_or_else(|| format!("unknown dialect `{n}` (a built-in dialect's name)"))?;
            return Ok((n.to_owned(), d));
        }
    }
    Ok(("mariadb".into(), mdl_core::Dialect::mariadb()))
}

/// The header line that names the server version a table was learned on.
const LEARNED_ON: &str = "Learned by `mdl conform --learn` on MariaDB ";

fn templates_text(v: &[LockTemplate]) -> String {
    if v.is_empty() {
        return "-".into();
    }
    v.iter()
        .map(|t| t.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

fn parse_templates(d: &mdl_core::Dialect, s: &str) -> Result<Vec<LockTemplate>, String> {
    if s == "-" {
        return Ok(Vec::new());
    }
    s.split(',')
        .map(|x| {
            let w: Vec<&str> = x.split(' ').collect();
            let [ns, key, ty] = w.as_slice() else {
                return Err(format!("expected `NAMESPACE KEY TYPE`, found `{x}`"));
            };
            let n = d
                .namespace_by_name(ns)
                .ok_or_else(|| format!("unknown namespace `{ns}`"))?;
            let ty = LockType::parse(ty).ok_or_else(|| format!("unknown lock type `{ty}`"))?;
            if !d.allows(n, ty) {
                return Err(format!("namespace {ns} does not take {ty}"));
            }
            Ok(LockTemplate {
                ns: (*ns).into(),
                key: (*key).into(),
                ty,
            })
        })
        .collect()
}

/// The 1-based column where field `i` (0-based, tab-separated) of `raw` starts.
fn column_of(raw: &str, i: usize) -> usize {
    raw.split('\t')
        .take(i)
        .map(|f| f.chars().count() + 1)
        .sum::<usize>()
        + 1
}

impl Mapping {
    /// The server version the table was learned on (from its header).
    pub fn version(&self) -> Option<&str> {
        self.header
            .iter()
            .find_map(|h| h.strip_prefix(LEARNED_ON))
            .map(|v| v.trim_end_matches('.'))
    }

    /// The warning `mdl conform` gives when the running server is not the one the table
    /// was learned on (none when they match or the table names no version).
    pub fn version_warning(&self, running: &str) -> Option<String> {
        let learned = self.version()?;
        (learned != running).then(|| {
            format!(
                "the statement table was learned on MariaDB {learned}; this server is \
                 {running} (mdl conform --learn to learn it again)"
            )
        })
    }

    pub fn header_for(version: &str) -> Vec<String> {
        vec![
            format!("{LEARNED_ON}{version}."),
            "Regenerate: cargo run -p mdl --bin mdl -- conform --learn".into(),
            "Format: see models/sql/src/mapping.rs and models/conformance/README.md.".into(),
        ]
    }

    /// The dialect the table is written in (its `# dialect NAME` header line; `mariadb`
    /// when it has none).
    pub fn dialect_name(&self) -> &str {
        self.header
            .iter()
            .find_map(|h| h.strip_prefix(DIALECT_LINE))
            .map(str::trim)
            .unwrap_or("mariadb")
    }

    /// The dialect the table is written in, loaded.
    pub fn dialect(&self) -> mdl_core::Dialect {
        mdl_core::Dialect::builtin(self.dialect_name()).unwrap_or_else(mdl_core::Dialect::mariadb)
    }

    /// What the table is, for messages: `the learned MariaDB statement table` or `the MySQL
    /// 8.0 statement table (written from source)`.
    pub fn describe(&self) -> String {
        match self.dialect_name() {
            "mariadb" => "the learned MariaDB statement table (mdl conform --learn)".into(),
            "mysql-8.0" => format!(
                "the MySQL 8.0 statement table (models/conformance/{STATEMENTS_FILE_MYSQL80}, \
                 written from the server's source)"
            ),
            d => format!("the `{d}` statement table"),
        }
    }

    /// The error for a statement kind the table does not have.
    pub fn missing_kind(&self, kind: &str) -> String {
        format!("the statement kind `{kind}` is not in {}", self.describe())
    }

    /// The committed table of a built-in dialect (`mariadb`, `mysql-8.0`).
    pub fn load_for(dialect: &str) -> Result<Mapping, SqlError> {
        let f = statements_file(dialect).ok_or_else(|| {
            SqlError::Io(format!(
                "no statement table is written for dialect `{dialect}` (there are tables for \
                 `mariadb`, learned, and `mysql-8.0`, written from source)"
            ))
        })?;
        let p = crate::data_dir().join(f);
        let text = std::fs::read_to_string(&p)
            .map_err(|e| SqlError::Io(format!("{}: {e}", p.display())))?;
        let m = Mapping::parse(&p.display().to_string(), &text)?;
        if m.dialect_name() != dialect {
            return Err(SqlError::Data {
                file: p.display().to_string(),
                line: 1,
                col: 1,
                msg: format!(
                    "the table is in dialect `{}`, expected `{dialect}`",
                    m.dialect_name()
                ),
            });
        }
        Ok(m)
    }

    /// The committed table.
    pub fn load() -> Result<Mapping, SqlError> {
        let p = crate::data_dir().join(STATEMENTS_FILE);
        let text = std::fs::read_to_string(&p)
            .map_err(|e| SqlError::Io(format!("{}: {e}", p.display())))?;
        Mapping::parse(&p.display().to_string(), &text)
    }

    pub fn parse(file: &str, text: &str) -> Result<Mapping, SqlError> {
        let mut m = Mapping::default();
        let err_at = |line: usize, col: usize, msg: String| SqlError::Data {
            file: file.into(),
            line,
            col,
            msg,
        };
        let err = |line: usize, msg: String| err_at(line, 1, msg);
        let (_, d) = dialect_of_text(text).map_err(|e| err(1, e))?;
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            if let Some(c) = raw.strip_prefix('#') {
                let c2 = c.trim();
                if m.kinds.is_empty()
                    && !c2.starts_with("kind\t")
                    && !c2.starts_with("op\t")
                    && !c2.starts_with("rule\t")
                {
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
                    let (kind, variant) = parse_row(name)
                        .map_err(|e| err_at(line, column_of(raw, 1), e.to_string()))?;
                    let implicit_commit = match *ic {
                        "yes" => true,
                        "no" => false,
                        x => return Err(err(line, format!("expected yes or no, not `{x}`"))),
                    };
                    m.kinds.push(KindRow {
                        name: (*name).into(),
                        kind,
                        variant,
                        implicit_commit,
                        sql: (*sql).into(),
                        ops: Vec::new(),
                    });
                }
                ["op", name, seq, op, ns, key, ty, dur, ev] => {
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
                ["rule", state, kind, result, added, removed] => {
                    if m.kind(kind).is_none() {
                        return Err(err(line, format!("rule for unknown kind `{kind}`")));
                    }
                    if m.rule(state, kind).is_some() {
                        return Err(err(line, format!("rule `{state}` `{kind}` twice")));
                    }
                    let error = match *result {
                        "ok" => None,
                        r => Some(
                            r.strip_prefix('E')
                                .and_then(|c| c.parse().ok())
                                .ok_or_else(|| {
                                    err(line, format!("expected ok or E<code>, not `{r}`"))
                                })?,
                        ),
                    };
                    m.rules.push(RuleRow {
                        state: (*state).into(),
                        kind: (*kind).into(),
                        error,
                        added: parse_templates(&d, added).map_err(|e| err(line, e))?,
                        removed: parse_templates(&d, removed).map_err(|e| err(line, e))?,
                    });
                }
                _ => {
                    return Err(err(
                        line,
                        "expected a `kind`, an `op` or a `rule` row".into(),
                    ))
                }
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
        s.push_str("# rule\tSTATE\tNAME\tRESULT\tADDED\tREMOVED\n");
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
        for r in &self.rules {
            s.push_str(&format!(
                "rule\t{}\t{}\t{}\t{}\t{}\n",
                r.state,
                r.kind,
                r.error.map(|c| format!("E{c}")).unwrap_or("ok".into()),
                templates_text(&r.added),
                templates_text(&r.removed)
            ));
        }
        s
    }
}
