//! The statement compatibility matrix: for every ordered pair (A, B) of statement kinds,
//! A in an open transaction (`BEGIN; A`, so it keeps what it holds), then B from another
//! connection (autocommit): does B wait for a metadata lock?
//!
//! Measured cells: `W` B waits on a metadata lock; `-` B finishes; `E<code>` B fails at
//! once (for example 1146, the table A dropped is gone); `B` B blocks on something that is
//! not a metadata lock; `A<code>` A itself failed. Predicted cells (our manager through
//! the mapping): `W` or `-`. A cell agrees when both wait or neither does (`E` counts as
//! not waiting); `models/conformance/matrix-explained.tsv` lists the cells that differ
//! for reasons outside MDL, with the reason.

use super::client::Conn;
use super::learn::{cleanup, fresh, settle, Settled};
use super::server::Server;
use super::ConformError;
use mdl_core::Outcome;
use mdl_sql::mapping::{matrix_kinds, KindDef, Mapping};
use mdl_sql::model::SqlModel;
use std::collections::BTreeMap;
use std::path::PathBuf;

pub const MATRIX_FILE: &str = "statement-matrix.tsv";
pub const EXPLAINED_FILE: &str = "matrix-explained.tsv";

/// A measured matrix: rows A, columns B, cells as text.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Matrix {
    pub header: Vec<String>,
    pub kinds: Vec<String>,
    pub cells: BTreeMap<(String, String), String>,
}

fn a_prefix(k: &KindDef) -> Vec<&'static str> {
    let mut v = Vec::new();
    if k.setup.first() != Some(&"BEGIN") {
        v.push("BEGIN");
    }
    v.extend(k.setup.iter().copied());
    v.push(k.sql);
    v
}

fn b_steps(k: &KindDef) -> Vec<&'static str> {
    let mut v: Vec<&str> = k.setup.to_vec();
    v.push(k.sql);
    v
}

/// The fixture SQL both kinds need (a view or trigger to drop), once each.
fn preps(a: &KindDef, b: &KindDef) -> Vec<&'static str> {
    let mut v: Vec<&'static str> = a.prep.to_vec();
    for p in b.prep {
        if !v.contains(p) {
            v.push(p);
        }
    }
    v
}

/// Measures one cell on the server.
fn measure_cell(
    server: &Server,
    mon: &mut Conn,
    a: &KindDef,
    b: &KindDef,
) -> Result<String, ConformError> {
    fresh(mon)?;
    for p in preps(a, b) {
        mon.query(p)?;
    }
    let mut ca = server.connect()?;
    let mut cell = None;
    for s in a_prefix(a) {
        if let Some((code, _)) = ca.exec(s)?.error {
            cell = Some(format!("A{code}"));
            break;
        }
    }
    let mut cb = server.connect()?;
    if cell.is_none() {
        for s in b_steps(b) {
            cb.send(s)?;
            match settle(mon, &mut cb)? {
                Settled::DoneAfterBlock(_) => {
                    cell = Some("B".into());
                    break;
                }
                Settled::Done(r) => {
                    if let Some((code, _)) = r.error {
                        cell = Some(format!("E{code}"));
                        break;
                    }
                }
                Settled::Waiting => {
                    cell = Some("W".into());
                    break;
                }
                Settled::Blocked => {
                    cell = Some("B".into());
                    break;
                }
            }
        }
    }
    cleanup(mon, cb)?;
    cleanup(mon, ca)?;
    Ok(cell.unwrap_or_else(|| "-".into()))
}

/// Measures the whole matrix.
pub fn measure(server: &Server, progress: &mut dyn std::io::Write) -> Result<Matrix, ConformError> {
    let mut mon = server.connect()?;
    let mut m = Matrix {
        header: vec![
            format!("Measured by `mdl conform --matrix` on MariaDB {}.", server.version()),
            "Rows: A, run as BEGIN; A (after its setup) and left open. Columns: B, from another connection."
                .into(),
            "W: B waits for a metadata lock; -: B finishes; E<code>: B fails at once; B: B blocks outside MDL; A<code>: A failed."
                .into(),
        ],
        kinds: matrix_kinds().map(|k| k.name().to_owned()).collect(),
        cells: BTreeMap::new(),
    };
    for a in matrix_kinds() {
        for b in matrix_kinds() {
            let c = measure_cell(server, &mut mon, a, b)?;
            m.cells.insert((a.name().into(), b.name().into()), c);
        }
        let _ = writeln!(progress, "measured row {}", a.name());
    }
    Ok(m)
}

/// Measures again the rows `rows` (every column) of `base`, the other rows kept: for a
/// row whose measurement the machine's load upset. An unknown row name is an error.
pub fn measure_rows(
    server: &Server,
    base: &Matrix,
    rows: &[String],
    progress: &mut dyn std::io::Write,
) -> Result<Matrix, ConformError> {
    for r in rows {
        if !base.kinds.contains(r) {
            return Err(ConformError::Io(format!(
                "--rows: `{r}` is not a row of the measured matrix"
            )));
        }
    }
    let mut mon = server.connect()?;
    let mut m = base.clone();
    m.header.push(format!(
        "Rows {} measured again by `mdl conform --matrix --rows` on MariaDB {}.",
        rows.join(", "),
        server.version()
    ));
    for a in matrix_kinds().filter(|k| rows.iter().any(|r| r == k.name())) {
        for b in matrix_kinds() {
            let c = measure_cell(server, &mut mon, a, b)?;
            m.cells.insert((a.name().into(), b.name().into()), c);
        }
        let _ = writeln!(progress, "measured row {}", a.name());
    }
    Ok(m)
}

/// Our prediction for one cell: `W` or `-`.
pub fn predict_cell(map: &Mapping, a: &KindDef, b: &KindDef) -> Result<String, String> {
    let mut model = SqlModel::new(map.clone());
    for p in preps(a, b) {
        model.setup(p)?;
    }
    let sa = model.add_session();
    let sb = model.add_session();
    for s in a_prefix(a) {
        model.step(sa, s)?;
    }
    for s in b_steps(b) {
        if model.step(sb, s)? == Outcome::Waiting {
            return Ok("W".into());
        }
    }
    Ok("-".into())
}

pub fn predict(map: &Mapping) -> Result<Matrix, String> {
    let mut m = Matrix {
        header: vec!["Predicted by our manager (mariadb dialect) through statements.tsv.".into()],
        kinds: matrix_kinds().map(|k| k.name().to_owned()).collect(),
        cells: BTreeMap::new(),
    };
    for a in matrix_kinds() {
        for b in matrix_kinds() {
            m.cells
                .insert((a.name().into(), b.name().into()), predict_cell(map, a, b)?);
        }
    }
    Ok(m)
}

/// Both wait, or neither does. (`E` on the server: B failed at once, which is no wait.)
pub fn agree(measured: &str, predicted: &str) -> bool {
    (measured == "W") == (predicted == "W") && measured != "B"
}

impl Matrix {
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        for h in &self.header {
            s.push_str(&format!("# {h}\n"));
        }
        s.push_str("A\\B");
        for k in &self.kinds {
            s.push_str(&format!("\t{k}"));
        }
        s.push('\n');
        for a in &self.kinds {
            s.push_str(a);
            for b in &self.kinds {
                s.push('\t');
                s.push_str(
                    self.cells
                        .get(&(a.clone(), b.clone()))
                        .map(String::as_str)
                        .unwrap_or("?"),
                );
            }
            s.push('\n');
        }
        s
    }

    pub fn parse(file: &str, text: &str) -> Result<Matrix, ConformError> {
        let mut m = Matrix::default();
        let err = |line: usize, msg: String| ConformError::Data {
            file: file.into(),
            line,
            msg,
        };
        for (i, l) in text.lines().enumerate() {
            if let Some(h) = l.strip_prefix('#') {
                m.header.push(h.trim().into());
                continue;
            }
            if l.trim().is_empty() {
                continue;
            }
            let f: Vec<&str> = l.split('\t').collect();
            if m.kinds.is_empty() {
                if f[0] != "A\\B" {
                    return Err(err(i + 1, "expected the `A\\B` header row".into()));
                }
                m.kinds = f[1..].iter().map(|s| (*s).to_owned()).collect();
                continue;
            }
            if f.len() != m.kinds.len() + 1 {
                return Err(err(i + 1, format!("expected {} cells", m.kinds.len())));
            }
            for (b, c) in m.kinds.iter().zip(&f[1..]) {
                m.cells
                    .insert((f[0].to_owned(), b.clone()), (*c).to_owned());
            }
        }
        Ok(m)
    }

    pub fn load() -> Result<Matrix, ConformError> {
        let p = super::data_dir().join(MATRIX_FILE);
        let t = std::fs::read_to_string(&p)
            .map_err(|e| ConformError::Io(format!("{}: {e}", p.display())))?;
        Matrix::parse(&p.display().to_string(), &t)
    }
}

/// `(A, B) -> reason` for the cells that differ for reasons outside MDL.
pub fn load_explained() -> Result<BTreeMap<(String, String), String>, ConformError> {
    let p = super::data_dir().join(EXPLAINED_FILE);
    let t = std::fs::read_to_string(&p)
        .map_err(|e| ConformError::Io(format!("{}: {e}", p.display())))?;
    let mut out = BTreeMap::new();
    for (i, l) in t.lines().enumerate() {
        if l.starts_with('#') || l.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = l.splitn(3, '\t').collect();
        if f.len() != 3 {
            return Err(ConformError::Data {
                file: p.display().to_string(),
                line: i + 1,
                msg: "expected A, B, reason".into(),
            });
        }
        out.insert((f[0].to_owned(), f[1].to_owned()), f[2].to_owned());
    }
    Ok(out)
}

/// The comparison: (agreeing cells, differing cells as (A, B, measured, predicted)).
pub fn compare(
    measured: &Matrix,
    predicted: &Matrix,
) -> (usize, Vec<(String, String, String, String)>) {
    let mut ok = 0;
    let mut diff = Vec::new();
    for a in &measured.kinds {
        for b in &measured.kinds {
            let k = (a.clone(), b.clone());
            let m = measured.cells.get(&k).cloned().unwrap_or_default();
            let p = predicted.cells.get(&k).cloned().unwrap_or_default();
            if agree(&m, &p) {
                ok += 1;
            } else {
                diff.push((a.clone(), b.clone(), m, p));
            }
        }
    }
    (ok, diff)
}

/// Both matrices as one table: `measured/predicted`, `*` where they differ.
pub fn side_by_side(measured: &Matrix, predicted: &Matrix) -> String {
    let short = |k: &str| k.chars().take(9).collect::<String>();
    let mut s = format!("{:<20}", "A \\ B");
    for k in &measured.kinds {
        s.push_str(&format!(" {:>9}", short(k)));
    }
    s.push('\n');
    for a in &measured.kinds {
        s.push_str(&format!("{a:<20}"));
        for b in &measured.kinds {
            let k = (a.clone(), b.clone());
            let m = measured.cells.get(&k).cloned().unwrap_or_default();
            let p = predicted.cells.get(&k).cloned().unwrap_or_default();
            let mark = if agree(&m, &p) { " " } else { "*" };
            s.push_str(&format!(" {:>9}", format!("{m}/{p}{mark}")));
        }
        s.push('\n');
    }
    s
}

pub fn main(
    map: &Mapping,
    offline: bool,
    out: Option<PathBuf>,
    rows: &[String],
) -> Result<i32, ConformError> {
    let measured = if offline {
        Matrix::load()?
    } else if !rows.is_empty() {
        let p = out.unwrap_or_else(|| super::data_dir().join(MATRIX_FILE));
        let t = std::fs::read_to_string(&p)
            .map_err(|e| ConformError::Io(format!("{}: {e}", p.display())))?;
        let base = Matrix::parse(&p.display().to_string(), &t)?;
        let server = Server::start()?;
        let m = measure_rows(&server, &base, rows, &mut std::io::stderr())?;
        std::fs::write(&p, m.to_text()).map_err(|e| ConformError::Io(e.to_string()))?;
        eprintln!("wrote {}", p.display());
        m
    } else {
        let server = Server::start()?;
        let m = measure(&server, &mut std::io::stderr())?;
        let p = out.unwrap_or_else(|| super::data_dir().join(MATRIX_FILE));
        std::fs::write(&p, m.to_text()).map_err(|e| ConformError::Io(e.to_string()))?;
        eprintln!("wrote {}", p.display());
        m
    };
    let predicted = predict(map).map_err(ConformError::Io)?;
    print!("{}", side_by_side(&measured, &predicted));
    let (ok, diff) = compare(&measured, &predicted);
    let explained = load_explained().unwrap_or_default();
    let total = ok + diff.len();
    println!("\n{ok}/{total} cells agree (measured/predicted; * marks a difference)");
    let mut unexplained = 0;
    for (a, b, m, p) in &diff {
        match explained.get(&(a.clone(), b.clone())) {
            Some(r) => println!("  {a} then {b}: server {m}, ours {p}: explained: {r}"),
            None => {
                unexplained += 1;
                println!("  {a} then {b}: server {m}, ours {p}: NOT EXPLAINED")
            }
        }
    }
    Ok(if unexplained == 0 { 0 } else { 1 })
}
