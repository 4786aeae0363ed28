//! `mdl conform --corpus DIR`: the statements of MariaDB's own test suite
//! (`mariadb-test-data`, `mysql-test/`), each played alone.
//!
//! - [`extract`]: the statements of the `*.test` files the list names
//!   (`models/conformance/corpus-files.txt`), distinct;
//! - offline, each is played alone on the model (a fresh [`SqlModel`] with the harness's
//!   catalog, [`mdl_sql::catalog`]): accepted, or refused with the model's reason;
//! - with a server, each accepted statement runs as a one-statement scenario on the server
//!   and on the model ([`crate::scenario`]): inside `BEGIN` when the model keeps locks
//!   after it, otherwise (DDL, which commits) while it waits behind another session's
//!   `BEGIN; SELECT` of every fixture table, so that its whole lock list (the pending lock
//!   too) is compared. A disagreement is written as that one-statement scenario file.
//!
//! The catalog is the harness's fixture (t0, t1, t2 InnoDB; m1, m2 MyISAM; db `test`):
//! what a test file created before the statement (other tables, views, triggers,
//! sequences, partitions, temporary tables, other schemas) is not there, so such a
//! statement meets a missing object on both sides.

pub mod extract;

use super::scenario;
use super::server::Server;
use super::ConformError;
use mdl_core::Outcome;
use mdl_sql::mapping::Mapping;
use mdl_sql::model::SqlModel;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The committed list of the suite's locking-related files, relative to `mysql-test/`.
pub const LIST_FILE: &str = "corpus-files.txt";

/// One distinct statement: where it was first seen.
#[derive(Clone, Debug)]
pub struct Entry {
    pub file: String,
    pub line: usize,
    pub sql: String,
    /// Run under `sql_mode=ORACLE`: the file set it before (`mdl_sql::sql_mode`).
    pub oracle: bool,
}

/// The files of the list (`#` comments, blank lines skipped), relative to `dir`; a
/// listed file that is missing is an error (fail closed).
pub fn files(dir: &Path, list: &Path) -> Result<Vec<PathBuf>, ConformError> {
    let io = |e: std::io::Error| ConformError::Io(format!("{}: {e}", list.display()));
    let text = std::fs::read_to_string(list).map_err(io)?;
    let mut out = Vec::new();
    for (n, l) in text.lines().enumerate() {
        let l = l.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        let p = dir.join(l);
        if !p.is_file() {
            return Err(ConformError::Data {
                file: list.display().to_string(),
                line: n + 1,
                msg: format!("{} not found", p.display()),
            });
        }
        out.push(p);
    }
    Ok(out)
}

/// Every `*.test` file under `dir` (the whole suite: `main/` and every `suite/`),
/// relative paths sorted so that a run is reproducible; none is an error (fail closed:
/// a wrong directory must not read as an empty, agreeing corpus).
pub fn every_test(dir: &Path) -> Result<Vec<PathBuf>, ConformError> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let rd =
            std::fs::read_dir(&d).map_err(|e| ConformError::Io(format!("{}: {e}", d.display())))?;
        for e in rd {
            let p = e
                .map_err(|e| ConformError::Io(format!("{}: {e}", d.display())))?
                .path();
            if p.is_dir() {
                todo.push(p);
            } else if p.extension().is_some_and(|x| x == "test") {
                out.push(p);
            }
        }
    }
    out.sort();
    if out.is_empty() {
        return Err(ConformError::Io(format!(
            "{}: no *.test file under it (is it mysql-test/?)",
            dir.display()
        )));
    }
    Ok(out)
}

/// The distinct statements of the files, in file order.
pub fn statements(dir: &Path, files: &[PathBuf]) -> Result<Vec<Entry>, ConformError> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for f in files {
        let bytes =
            std::fs::read(f).map_err(|e| ConformError::Io(format!("{}: {e}", f.display())))?;
        let text = String::from_utf8_lossy(&bytes);
        let rel = f.strip_prefix(dir).unwrap_or(f).display().to_string();
        // Each file begins in the server's default sql_mode (mysqltest's new connection).
        let mut oracle = false;
        for s in extract::extract(&text) {
            if let Some(o) = mdl_sql::sql_mode::sets_oracle(&s.sql) {
                oracle = o;
            }
            // A statement read in the Oracle grammar is another statement.
            let key = format!(
                "{}{}",
                if oracle { "oracle:" } else { "" },
                s.sql.to_ascii_lowercase()
            );
            if seen.insert(key) {
                out.push(Entry {
                    file: rel.clone(),
                    line: s.line,
                    sql: s.sql,
                    oracle,
                });
            }
        }
    }
    Ok(out)
}

/// The statement's family for the report: its first keyword, with the object word of
/// CREATE / DROP / ALTER / SHOW / FLUSH / BACKUP / LOCK (`CREATE TABLE`, `FLUSH TABLES`).
pub fn family(sql: &str) -> String {
    // Behind its comments (`mdl_sql::comments`: `/*!50003 CREATE FUNCTION ...*/` is a
    // CREATE FUNCTION).
    let code = mdl_sql::comments::code(sql);
    let sql = code.as_deref().unwrap_or(sql);
    let words: Vec<String> = sql
        .split(|c: char| c.is_whitespace() || c == '(' || c == ';')
        .filter(|w| !w.is_empty())
        .map(|w| w.to_ascii_uppercase())
        .collect();
    let Some(first) = words.first() else {
        return String::new();
    };
    if !matches!(
        first.as_str(),
        "CREATE" | "DROP" | "ALTER" | "SHOW" | "FLUSH" | "BACKUP" | "LOCK" | "RENAME" | "XA"
    ) {
        return first.clone();
    }
    let skip = [
        "OR",
        "REPLACE",
        "TEMPORARY",
        "ONLINE",
        "IGNORE",
        "IF",
        "NOT",
        "EXISTS",
        "LOCAL",
        "NO_WRITE_TO_BINLOG",
        "UNIQUE",
        "FULLTEXT",
        "SPATIAL",
        "ALGORITHM",
        "SQL",
        "SECURITY",
        "DEFINER",
        "INVOKER",
        "MERGE",
        "UNDEFINED",
        "TEMPTABLE",
        "AGGREGATE",
    ];
    let obj = words[1..]
        .iter()
        .find(|w| !skip.contains(&w.as_str()) && !w.contains('=') && !w.contains('@'))
        .cloned()
        .unwrap_or_default();
    format!("{first} {obj}").trim().to_string()
}

/// A refusal reason without the statement's own words (backtick-quoted parts), so that
/// reasons count together.
pub fn reason(msg: &str) -> String {
    if msg.starts_with("statement not in the learned table") {
        return "statement not in the learned table".into();
    }
    let mut out = String::new();
    let mut inside = false;
    for c in msg.chars() {
        if c == '`' {
            if !inside {
                out.push_str("`…`");
            }
            inside = !inside;
        } else if !inside {
            out.push(c);
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Plays a statement alone on a fresh model: its outcome, or the model's refusal.
pub fn offline(map: &Mapping, sql: &str) -> Result<Outcome, String> {
    offline_in(map, sql, false)
}

/// [`offline`] in a session whose sql_mode is ORACLE when `oracle`.
pub fn offline_in(map: &Mapping, sql: &str, oracle: bool) -> Result<Outcome, String> {
    let mut m = SqlModel::new(map.clone());
    let s = m.add_session();
    if oracle {
        m.step(s, ORACLE)?;
    }
    m.step(s, sql)
}

/// The statement that puts a scenario's session in Oracle mode.
const ORACLE: &str = "SET sql_mode=ORACLE";

/// Statements not run on the server: they change it for the statements after them (or
/// for the harness), or sleep.
fn unsafe_on_server(sql: &str) -> bool {
    let u = sql.to_ascii_uppercase();
    [
        "GLOBAL",
        "SHUTDOWN",
        "KILL",
        "SLEEP(",
        "BENCHMARK(",
        "INSTALL",
        "RESET",
        "PURGE",
        "MASTER",
        "SLAVE",
        "REPLICA",
        "GRANT",
        "REVOKE",
        " USER",
        // CREATE / ALTER / DROP SERVER: the servers made stay on the server for the
        // statements after them, while each scenario's model starts with none
        // (suite/servers-and-help.mdl compares them in order).
        " SERVER",
        // The connected account's password (SET PASSWORD = ..., h-acct) would lock the
        // harness out; roles made stay for the statements after them
        // (suite/accounts-roles-proxy.mdl compares them in order).
        "PASSWORD",
        " ROLE",
        "DEBUG",
        "PERFORMANCE_SCHEMA",
        "MYSQL.",
        "#",
        "--",
    ]
    .iter()
    .any(|w| u.contains(w))
}

/// The one-statement scenario that compares `sql`'s locks: inside BEGIN when the model
/// keeps locks after it, else behind another session's read of every fixture table.
pub fn scenario_text(map: &Mapping, sql: &str) -> String {
    scenario_text_in(map, sql, false)
}

/// [`scenario_text`] with its session in Oracle mode first when `oracle`.
pub fn scenario_text_in(map: &Mapping, sql: &str, oracle: bool) -> String {
    let mut m = SqlModel::new(map.clone());
    let s = m.add_session();
    if oracle {
        let _ = m.step(s, ORACLE);
    }
    let keeps = m.step(s, "BEGIN").is_ok()
        && m.step(s, sql) == Ok(Outcome::Ok)
        && !m.locks_of(s).is_empty();
    let mut t = String::from("dialect mariadb\n");
    if oracle {
        t.push_str(&format!("s1: sql {ORACLE}\n"));
    }
    if keeps {
        t.push_str(&format!("s1: sql BEGIN\ns1: sql {sql}\n"));
    } else {
        t.push_str("s2: sql BEGIN\n");
        for (tbl, _) in mdl_sql::mapping::FIXTURE_TABLES {
            t.push_str(&format!("s2: sql SELECT * FROM {tbl}\n"));
        }
        t.push_str(&format!("s1: sql {sql}\n"));
    }
    t
}

/// Server errors about columns, values, keys, syntax, partitions (1747, 1480-1530) and
/// sequences (4089, 4091: not a SEQUENCE): the catalog knows tables, not their columns,
/// partitions or sequences (the suite's statements were written for their own tables),
/// and a statement played alone meets user variables its file set earlier unset (1231,
/// 1232: `SET sql_mode = @saved`), so the model cannot give them (1222: the SELECTs of a
/// UNION have different numbers of columns); also 1314 (a statement
/// not allowed in a trigger body) and 1616 (INSERT DELAYED on InnoDB). A difference whose server side is one of these, and
/// ours not an error, is counted as explained, not as a lock difference.
pub const OUTSIDE: &[u32] = &[
    1048, 1222, 1231, 1232, 1241, 1314, 1616, 1054, 1059, 1060, 1061, 1062, 1064, 1067, 1068, 1072,
    1074, 1075, 1089, 1091, 1101, 1102, 1103, 1118, 1136, 1163, 1166, 1170, 1171, 1176, 1178, 1215,
    1216, 1217, 1221, 1235, 1253, 1264, 1265, 1280, 1292, 1305, 1364, 1366, 1406, 1451, 1452, 1690,
    1747, 1846, 4025, 4089, 4091,
    // Columns and data the fixture does not have: 1052 (a column name two tables have),
    // 1242 (a subquery gave several rows), 1659 (a column type a partition function
    // refuses), 4078 (a function's argument of the wrong data type); 1298: the server's
    // time zone tables are not loaded (its configuration, not MDL).
    1052, 1242, 1298, 1659, 4078,
    // 4002: a CTE's column list whose length is not its SELECT list's (`WITH c(a) AS
    // (SELECT * FROM t1)`: the fixture's tables have other columns).
    4002,
    // Functions, values and types the model does not evaluate (found on the whole suite,
    // `--whole-suite`): 1582 / 1583 a native function's parameter count or parameters,
    // 4079 an operation's parameter data types, 1210 a function's arguments, 1921 a
    // dynamic column's value, 1273 an unknown collation, 1300 an invalid character string,
    // 4161 an unknown data type, 1191 a FULLTEXT index the fixture lacks, 3028 an
    // aggregate in a UNION's ORDER BY, 1386 ORDER BY with PROCEDURE ANALYSE, 1691 a
    // non-integer variable in a routine's LIMIT.
    1191, 1210, 1273, 1300, 1386, 1582, 1583, 1691, 1921, 3028, 4079, 4161,
    // System variables' names and scopes, which the model does not carry (1193 unknown,
    // 1229 a GLOBAL one set per session, 1238 the wrong scope, 1621 read-only, 1925 the
    // query cache disabled globally, 1115 an unknown character set); system versioning
    // and periods the fixture's tables lack (4124, 4156); a stored function's parameters
    // (1584), a handler's SQLSTATE (1407), a decimal's scale (1425).
    1115, 1193, 1229, 1238, 1407, 1425, 1584, 1621, 1925, 4124, 4156,
    // 1290 (ER_OPTION_PREVENTS_STATEMENT, --secure-file-priv): the throwaway server
    // refuses the suite's data files to LOAD DATA / LOAD XML (`mysql_load`,
    // sql/sql_load.cc, after the tables are opened): its configuration, not MDL.
    1290,
    // Found by the whole-suite sample of 2000 (h-srv): 1172, a SELECT ... INTO that found
    // several rows (the fixture's four rows, like 1242); 1267 / 1270 / 1271, an
    // expression mixing collations (`Item_func::agg_arg_charsets`, sql/item.cc, while the
    // statement's items are fixed: values the model does not evaluate, like 4079), and
    // 1250, a UNION's ORDER BY naming one SELECT's table (`find_field_in_tables` after the
    // tables are opened: names the model does not resolve, like 1054).
    1172, 1250, 1267, 1270, 1271,
    // 1977 (ER_CANNOT_CONVERT_CHARACTER): a value that has no character in the target
    // character set (`String_copier::well_formed_copy` while the value is copied; main/
    // cast.test's `CAST(_utf8 0xD18F AS CHAR(1) CHARACTER SET latin1)` in a body): values
    // the model does not evaluate, like 1267.
    1977,
    // Found by the `main/` sample of 3000 (h-srv, issue 27): values the model does not
    // evaluate, checked while the statement runs: 1919 (ER_DYN_COL_WRONG_FORMAT, a
    // dynamic column's bytes, `COLUMN_GET` / `COLUMN_JSON` in dyncol.test), 3034
    // (ER_GIS_UNSUPPORTED_ARGUMENT, `ST_DISTANCE_SPHERE` of MULTIPOINTs, gis-precise.test)
    // and 1105 (ER_UNKNOWN_ERROR, which `Item_xml_str_func::fix_fields` raises for an
    // XPATH syntax error, xml.test:261; the server's catch-all code, so counted only
    // where ours is no error).
    1105, 1919, 3034,
    // 1005 (ER_CANT_CREATE_TABLE, errno 150): a foreign key to a fixture's InnoDB table
    // naming columns or an index it lacks (`create_table_info_t::create_foreign_keys`,
    // ha_innodb.cc: the parent's columns, which the catalog does not keep).
    1005,
];

/// Is the report's difference only the server's error of [`OUTSIDE`]?
fn explained(rep: &scenario::Report) -> bool {
    rep.diverged.is_none()
        && rep.invalid.is_none()
        && rep.diffs.iter().any(|d| {
            d.split("the server gave error ")
                .nth(1)
                .and_then(|r| r.split(',').next())
                .and_then(|c| c.trim().parse::<u32>().ok())
                .is_some_and(|c| OUTSIDE.contains(&c) || (1480..=1530).contains(&c))
                && !d.ends_with("ours error")
                && !d.contains(", ours error")
        })
}

/// Counts of one statement family.
#[derive(Clone, Debug, Default)]
pub struct Counts {
    pub total: usize,
    pub accepted: usize,
    pub compared: usize,
    pub agreed: usize,
    /// Differences where the server failed with an error the model does not model
    /// ([`OUTSIDE`]): the statement meets the fixture's columns and values, not its own.
    pub explained: usize,
}

/// What a corpus run measured.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub files: usize,
    pub statements: usize,
    pub by_family: BTreeMap<String, Counts>,
    pub reasons: BTreeMap<String, usize>,
    /// Accepted statements not run on the server ([`unsafe_on_server`], or not a scenario
    /// line).
    pub skipped: usize,
    /// The disagreements, as one-statement scenario files written.
    pub differences: Vec<PathBuf>,
}

impl Summary {
    pub fn total(&self) -> Counts {
        let mut c = Counts::default();
        for v in self.by_family.values() {
            c.total += v.total;
            c.accepted += v.accepted;
            c.compared += v.compared;
            c.agreed += v.agreed;
            c.explained += v.explained;
        }
        c
    }
}

/// Options of a corpus run.
pub struct Options<'a> {
    /// At most this many statements (evenly spread over the whole list), or all.
    pub sample: Option<usize>,
    /// Where disagreements are written (one `.mdl` file each).
    pub out_dir: PathBuf,
    pub server: Option<&'a Server>,
}

fn pct(a: usize, b: usize) -> f64 {
    if b == 0 {
        0.0
    } else {
        100.0 * a as f64 / b as f64
    }
}

/// Runs the corpus: offline play of every statement, and with a server the comparison of
/// every accepted one.
pub fn run(
    map: &Mapping,
    entries: &[Entry],
    opts: &Options,
    log: &mut dyn Write,
) -> Result<Summary, ConformError> {
    let mut sum = Summary::default();
    let picked: Vec<&Entry> = match opts.sample {
        Some(n) if n > 0 && n < entries.len() => {
            let step = entries.len() as f64 / n as f64;
            (0..n)
                .map(|i| &entries[(i as f64 * step) as usize])
                .collect()
        }
        _ => entries.iter().collect(),
    };
    sum.statements = picked.len();
    sum.files = picked
        .iter()
        .map(|e| &e.file)
        .collect::<BTreeSet<_>>()
        .len();
    for e in picked {
        let fam = family(&e.sql);
        let c = sum.by_family.entry(fam).or_default();
        c.total += 1;
        if let Err(r) = offline_in(map, &e.sql, e.oracle) {
            let _ = writeln!(log, "{}:{}: refused: {r}", e.file, e.line);
            *sum.reasons.entry(reason(&r)).or_default() += 1;
            continue;
        }
        c.accepted += 1;
        let Some(server) = opts.server else { continue };
        if unsafe_on_server(&e.sql) {
            sum.skipped += 1;
            continue;
        }
        let name = format!("{}:{}", e.file, e.line);
        let text = scenario_text_in(map, &e.sql, e.oracle);
        let Ok(sc) = scenario::load_text(&name, &text, map) else {
            sum.skipped += 1;
            continue;
        };
        let rep = scenario::run_scenario(server, map, &sc, false, &mut std::io::sink())?;
        c.compared += 1;
        if rep.agrees() {
            c.agreed += 1;
            continue;
        }
        if explained(&rep) {
            c.explained += 1;
            continue;
        }
        let path = write_difference(&opts.out_dir, e, &text, &rep, sum.differences.len())?;
        let _ = writeln!(log, "{name}: differs: {}", path.display());
        sum.differences.push(path);
    }
    Ok(sum)
}

fn write_difference(
    dir: &Path,
    e: &Entry,
    text: &str,
    rep: &scenario::Report,
    n: usize,
) -> Result<PathBuf, ConformError> {
    let io = |err: std::io::Error| ConformError::Io(format!("{}: {err}", dir.display()));
    std::fs::create_dir_all(dir).map_err(io)?;
    let stem: String = Path::new(&e.file)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let path = dir.join(format!("corpus-{n:04}-{stem}-{}.mdl", e.line));
    let mut body = format!(
        "# From mysql-test/{}:{} (`mdl conform --corpus`), played alone. Differences:\n",
        e.file, e.line
    );
    for d in rep.diffs.iter().chain(rep.diverged.iter()) {
        body.push_str(&format!("#   {}\n", d.replace('\n', " ")));
    }
    body.push_str(text);
    std::fs::write(&path, body).map_err(io)?;
    Ok(path)
}

/// The report: totals, per family, the top refusal reasons.
pub fn report(sum: &Summary, server: Option<&str>, out: &mut dyn Write) -> std::io::Result<()> {
    let t = sum.total();
    writeln!(
        out,
        "{} distinct statements from {} files: {} accepted ({:.1} %), {} refused",
        sum.statements,
        sum.files,
        t.accepted,
        pct(t.accepted, t.total),
        t.total - t.accepted
    )?;
    if let Some(v) = server {
        writeln!(
            out,
            "on MariaDB {v}: {} of {} compared agree ({:.1} %); {} differ only by a server \
             error about columns, values or syntax the catalog does not represent; of the \
             rest {} agree ({:.1} %); {} accepted not run on the server (they change it, or \
             sleep); {} differences",
            t.agreed,
            t.compared,
            pct(t.agreed, t.compared),
            t.explained,
            t.agreed,
            pct(t.agreed, t.compared - t.explained),
            sum.skipped,
            sum.differences.len()
        )?;
    }
    writeln!(
        out,
        "\nfamily\tstatements\taccepted\taccepted %\tcompared\tagree\texplained\tagree % (of not explained)"
    )?;
    let mut fams: Vec<_> = sum.by_family.iter().collect();
    fams.sort_by(|a, b| b.1.total.cmp(&a.1.total).then(a.0.cmp(b.0)));
    for (f, c) in fams {
        writeln!(
            out,
            "{f}\t{}\t{}\t{:.0}\t{}\t{}\t{}\t{:.0}",
            c.total,
            c.accepted,
            pct(c.accepted, c.total),
            c.compared,
            c.agreed,
            c.explained,
            pct(c.agreed, c.compared - c.explained)
        )?;
    }
    writeln!(out, "\ntop refusal reasons:")?;
    let mut rs: Vec<_> = sum.reasons.iter().collect();
    rs.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    for (r, n) in rs.into_iter().take(15) {
        writeln!(out, "{n:6}  {r}")?;
    }
    Ok(())
}
