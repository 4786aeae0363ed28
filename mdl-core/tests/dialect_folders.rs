//! Dialect folders of one's own (issue 14, item 1): a dialect declares its lock types
//! (`type ABBREVIATION LONG_NAME [SERVER_NAME]`), so a protocol with READ/WRITE/INTENT
//! types is data; every error in a folder is `FILE:LINE:COL` in the file that has it,
//! never a panic; the built-ins' `type` lines are the built-in types.

use mdl_core::dialect::{Dialect, DialectError};
use mdl_core::LockType;
use std::path::{Path, PathBuf};

/// A reader/writer/intent hierarchy (multi-granularity locking): INTENT on the parent,
/// READ and WRITE on the object. Types are its own; the matrices name only them.
const RWI: &str = "\
# reader/writer/intent
name rwi
type I INTENT
type R READ   ReadLock
type W WRITE  WriteLock
strategy parent I R W
strategy leaf R W
namespace DB     parent db
namespace OBJECT leaf   qualified
unobtrusive parent I
";
const PARENT_G: &str = "request\tI\tR\tW\nI\t+\t-\t-\nR\t-\t+\t-\nW\t-\t-\t-\n";
const PARENT_P: &str = "request\tI\tR\tW\nI\t+\t-\t-\nR\t+\t+\t-\nW\t+\t+\t+\n";
const LEAF_G: &str = "request\tR\tW\nR\t+\t-\nW\t-\t-\n";
const LEAF_P: &str = "request\tR\tW\nR\t+\t-\nW\t+\t+\n";

fn rwi_files() -> Vec<(&'static str, String)> {
    vec![
        ("dialect.txt", RWI.to_owned()),
        ("parent.granted.tsv", PARENT_G.to_owned()),
        ("parent.pending.tsv", PARENT_P.to_owned()),
        ("leaf.granted.tsv", LEAF_G.to_owned()),
        ("leaf.pending.tsv", LEAF_P.to_owned()),
    ]
}

/// Parses the RWI folder with `edit` applied to its files.
fn rwi_with(edit: impl Fn(&str, String) -> Option<String>) -> Result<Dialect, DialectError> {
    let files: Vec<(&str, Option<String>)> = rwi_files()
        .into_iter()
        .map(|(f, t)| (f, edit(f, t)))
        .collect();
    Dialect::parse(&move |f: &str| {
        files
            .iter()
            .find(|(n, _)| *n == f)
            .and_then(|(_, t)| t.clone())
    })
}

/// The error of the RWI folder after replacing `from` by `to` in `file`.
fn rwi_err(file: &str, from: &str, to: &str) -> String {
    let e = rwi_with(|f, t| {
        Some(if f == file {
            assert!(t.contains(from), "{file} has no `{from}`");
            t.replacen(from, to, 1)
        } else {
            t
        })
    })
    .expect_err(&format!("{file}: {from} -> {to}"));
    e.to_string()
}

#[test]
fn a_dialect_declares_its_own_types() {
    let d = rwi_with(|_, t| Some(t)).unwrap();
    assert_eq!(d.name, "rwi");
    let names: Vec<&str> = d.types.iter().map(|t| t.abbrev()).collect();
    assert_eq!(names, ["I", "R", "W"]);
    let r = d.parse_type("read").unwrap();
    assert!(!r.is_builtin());
    assert_eq!(d.parse_type("R"), Some(r));
    assert_eq!(d.parse_type("ReadLock"), Some(r));
    assert_eq!(d.parse_type("MDL_READ"), Some(r));
    assert_eq!((r.long_name(), r.server_name()), ("READ", "ReadLock"));
    let i = d.parse_type("INTENT").unwrap();
    assert_eq!(
        i.server_name(),
        "INTENT",
        "the server name defaults to the long name"
    );
    // The built-in names are not this dialect's.
    assert_eq!(d.parse_type("SR"), None);
    assert_eq!(d.parse_type("X"), None);
    // The matrices, by the declared names.
    let w = d.parse_type("W").unwrap();
    let db = d.namespace_by_name("DB").unwrap();
    let obj = d.namespace_by_name("OBJECT").unwrap();
    let p = d.strategy(db);
    assert!(p.conflicts_granted(i, r) && !p.conflicts_granted(i, i));
    assert!(p.yields_to_pending(0, r, w) && !p.yields_to_pending(0, w, r));
    assert!(p.is_unobtrusive(i));
    assert!(d.allows(obj, r) && !d.allows(obj, i));
    // Loading it again gives the same types (one universe per process).
    let again = rwi_with(|_, t| Some(t)).unwrap();
    assert_eq!(again.types, d.types);
}

#[test]
fn the_built_ins_declare_the_built_in_types() {
    let m = Dialect::mysql80();
    assert_eq!(m.types, (0..11).map(LockType).collect::<Vec<_>>());
    let d = Dialect::mariadb();
    assert_eq!(d.types.len(), 24);
    assert!(d.types.iter().all(|t| t.is_builtin()));
    assert!(!d.types.contains(&LockType::SWLP));
    assert_eq!(d.parse_type("DML"), Some(LockType::BACKUP_DML));
    assert_eq!(m.parse_type("BACKUP_DML"), None);
    // A folder without `type` lines uses the built-in names, as before version 3.
    let tiny = "name tiny\nnamespace GLOBAL scoped single\nstrategy scoped IX S X\n";
    let d = Dialect::parse(&|f| {
        if f == "dialect.txt" {
            Some(tiny.to_owned())
        } else {
            Dialect::builtin_text("mysql-8.0", f).map(str::to_owned)
        }
    })
    .unwrap();
    assert_eq!(d.types, vec![LockType::IX, LockType::S, LockType::X]);
}

#[test]
fn every_error_in_a_folder_is_at_its_file_line_and_column() {
    let cases: &[(&str, &str, &str, &str)] = &[
        // dialect.txt
        ("dialect.txt", "strategy leaf R W", "strategy leaf R Q", "dialect.txt:7:17: unknown lock type `Q`: not a `type` of this dialect"),
        ("dialect.txt", "type W WRITE  WriteLock", "type W WRITE WriteLock extra", "dialect.txt:5:1: expected `type ABBREVIATION LONG_NAME [SERVER_NAME]`"),
        ("dialect.txt", "type W WRITE", "type W READ", "dialect.txt:5:8: `READ` already names the type declared at line 4"),
        ("dialect.txt", "type W WRITE", "type 9W WRITE", "dialect.txt:5:6: a type's abbreviation is letters"),
        ("dialect.txt", "strategy leaf R W", "strategy leaf R W R", "dialect.txt:7:19: type `R` is listed twice"),
        ("dialect.txt", "namespace OBJECT leaf ", "namespace OBJECT twig ", "dialect.txt:9:18: unknown strategy `twig`"),
        ("dialect.txt", "namespace OBJECT leaf   qualified", "namespace OBJECT leaf   qualified  fast", "dialect.txt:9:36: unknown namespace flag `fast`"),
        ("dialect.txt", "namespace OBJECT", "namespace db", "dialect.txt:9:11: namespace `db` is already declared at line 8"),
        ("dialect.txt", "namespace OBJECT leaf   qualified", "namespace OBJECT leaf   nested", "dialect.txt:9:25: unknown key form `nested`"),
        ("dialect.txt", "unobtrusive parent I", "unobtrusive parent I R", "dialect.txt:10:22: parent: unobtrusive types I and R conflict"),
        ("dialect.txt", "unobtrusive parent I", "unobtrusive leaf I", "dialect.txt:10:18: `I` is not a type of strategy leaf"),
        ("dialect.txt", "name rwi", "nam rwi", "dialect.txt:2:1: cannot read `nam rwi`"),
        ("dialect.txt", "strategy leaf R W", "strategy leaf R W\npending leaf 2", "dialect.txt:8:9: strategy `leaf` needs the matrix file leaf.pending0.tsv: missing"),
        // the matrices
        ("leaf.granted.tsv", "request\tR\tW", "request\tW\tR", "leaf.granted.tsv:1:9: columns must be the strategy's types in order: expected R here, found `W`"),
        ("leaf.granted.tsv", "request\tR\tW", "request\tR", "leaf.granted.tsv:1:10: columns must be the strategy's types in order: W is missing"),
        ("leaf.granted.tsv", "W\t-\t-", "W\t-\tx", "leaf.granted.tsv:3:5: cell `x` is neither + nor -"),
        ("leaf.granted.tsv", "W\t-\t-", "W\t-", "leaf.granted.tsv:3:4: expected 2 cells, found 1"),
        ("leaf.granted.tsv", "W\t-\t-", "W\t-\t-\t+", "leaf.granted.tsv:3:7: expected 2 cells, found more"),
        ("leaf.granted.tsv", "W\t-\t-", "R\t+\t-", "leaf.granted.tsv:3:1: a second row for R"),
        ("leaf.granted.tsv", "W\t-\t-", "Z\t-\t-", "leaf.granted.tsv:3:1: unknown row type `Z`"),
        ("leaf.granted.tsv", "W\t-\t-\n", "", "leaf.granted.tsv:1:11: the row of W is missing"),
        ("leaf.pending.tsv", "R\t+\t-", "R\t-\t-", "leaf.pending.tsv:2:3: leaf: pending matrix 0 row R is not a subset of the granted row"),
    ];
    for (file, from, to, want) in cases {
        let got = rwi_err(file, from, to);
        assert!(
            got.starts_with(want),
            "{file}: `{from}` -> `{to}`\n got: {got}\nwant: {want}"
        );
    }
    // A missing matrix file: at the `strategy` line that needs it.
    let e = rwi_with(|f, t| (f != "leaf.granted.tsv").then_some(t)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "dialect.txt:7:10: strategy `leaf` needs the matrix file leaf.granted.tsv: missing"
    );
    // No dialect.txt: the file, no line.
    let e = rwi_with(|f, t| (f != "dialect.txt").then_some(t)).unwrap_err();
    assert_eq!(e.to_string(), "dialect.txt: missing");
}

fn temp_folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir()
        .join(format!("mdl-core-dialects-{}", std::process::id()))
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_folder_on_disk_names_its_files_by_path() {
    let dir = temp_folder("rwi");
    for (f, t) in rwi_files() {
        std::fs::write(dir.join(f), t).unwrap();
    }
    let d = Dialect::from_dir(&dir).unwrap();
    assert_eq!(d.name, "rwi");
    // A bad cell, at its path, line and column.
    std::fs::write(
        dir.join("leaf.pending.tsv"),
        LEAF_P.replace("W\t+\t+", "W\t+\t?"),
    )
    .unwrap();
    let e = Dialect::from_dir(&dir).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "{}:3:5: cell `?` is neither + nor -",
            dir.join("leaf.pending.tsv").display()
        )
    );
    // Not UTF-8, a folder instead of a file: said so, at the line that asks for it.
    std::fs::write(dir.join("leaf.pending.tsv"), b"request\t\xff\n").unwrap();
    let e = Dialect::from_dir(&dir).unwrap_err();
    assert!(e.msg.ends_with("is not UTF-8 text"), "{e}");
    assert_eq!((e.line, e.col), (7, 10), "{e}");
    std::fs::remove_file(dir.join("leaf.pending.tsv")).unwrap();
    std::fs::create_dir(dir.join("leaf.pending.tsv")).unwrap();
    let e = Dialect::from_dir(&dir).unwrap_err();
    assert!(e.msg.ends_with("it is a folder"), "{e}");
    // `load`: a built-in name is the built-in, whatever folder has that name.
    std::fs::create_dir_all(dir.join("mariadb")).unwrap();
    assert_eq!(Dialect::load("mariadb", &dir).unwrap().types.len(), 24);
    let e = Dialect::load("nowhere", &dir).unwrap_err();
    assert!(e.to_string().contains("neither a built-in dialect"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_bundled_example_and_the_built_in_folders_load() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let pg = Dialect::from_dir(&root.join("models/examples/postgresql/dialect")).unwrap();
    let names: Vec<&str> = pg.types.iter().map(|t| t.server_name()).collect();
    assert_eq!(
        names,
        [
            "AccessShareLock",
            "RowShareLock",
            "RowExclusiveLock",
            "ShareUpdateExclusiveLock",
            "ShareLock",
            "ShareRowExclusiveLock",
            "ExclusiveLock",
            "AccessExclusiveLock"
        ]
    );
    // Its X is PostgreSQL's EXCLUSIVE, not MySQL's.
    let x = pg.parse_type("X").unwrap();
    assert_ne!(x, LockType::X);
    assert_eq!(x.abbrev(), "X");
    let bad = Dialect::from_dir(&root.join("models/examples/postgresql/dialect-bad")).unwrap();
    assert_eq!(bad.types, pg.types);
    let srx = pg.parse_type("SRX").unwrap();
    assert!(pg.strategies[0].conflicts_granted(srx, srx));
    assert!(!bad.strategies[0].conflicts_granted(srx, srx));
    for b in mdl_core::dialect::BUILTIN {
        let d = Dialect::from_dir(&root.join("mdl-core/dialects").join(b)).unwrap();
        assert_eq!(d.types, Dialect::builtin(b).unwrap().types);
    }
}

/// Every one-character edit of the READ/WRITE/INTENT folder (outside its `type` lines,
/// which would add types to the process's table) loads or is refused with a position
/// inside the file that has the problem: never a panic, never an error without a line
/// and column.
#[test]
fn no_edit_of_a_folder_panics_or_loses_its_position() {
    let edits = ['\0', '-', '+', 'X', 'R', ' ', '\t', '#', '\n', 'é', '9'];
    let files = rwi_files();
    let mut refused = 0;
    let mut loaded = 0;
    for (fi, (file, text)) in files.iter().enumerate() {
        let chars: Vec<char> = text.chars().collect();
        // The characters of `type` lines are left alone.
        let mut in_type = vec![false; chars.len()];
        let mut start = 0;
        for (i, c) in chars.iter().enumerate() {
            if *c == '\n' || i + 1 == chars.len() {
                let line: String = chars[start..=i].iter().collect();
                if line.starts_with("type") {
                    in_type[start..=i].iter_mut().for_each(|x| *x = true);
                }
                start = i + 1;
            }
        }
        for pos in 0..chars.len() {
            if in_type[pos] {
                continue;
            }
            for e in edits {
                let mut v = chars.clone();
                if e == '\0' {
                    v.remove(pos);
                } else {
                    v[pos] = e;
                }
                let edited: String = v.into_iter().collect();
                let mut set = files.clone();
                set[fi].1 = edited.clone();
                let r =
                    Dialect::parse(&|f| set.iter().find(|(n, _)| *n == f).map(|(_, t)| t.clone()));
                let Err(err) = r else {
                    loaded += 1;
                    continue;
                };
                refused += 1;
                let text_of = |f: &str| set.iter().find(|(n, _)| *n == f).map(|(_, t)| t.clone());
                let t = text_of(&err.file)
                    .unwrap_or_else(|| panic!("{file}@{pos}={e:?}: {err}: no such file"));
                let lines: Vec<&str> = t.lines().collect();
                assert!(
                    err.line >= 1 && err.line <= lines.len().max(1),
                    "{file}@{pos}={e:?}: {err}: line out of the file"
                );
                let width = lines.get(err.line - 1).map_or(0, |l| l.chars().count());
                assert!(
                    err.col >= 1 && err.col <= width + 1,
                    "{file}@{pos}={e:?}: {err}: column out of the line"
                );
            }
        }
    }
    // Both kinds happen (the loop is not vacuous).
    assert!(
        refused > 500 && loaded > 50,
        "refused {refused}, loaded {loaded}"
    );
}
