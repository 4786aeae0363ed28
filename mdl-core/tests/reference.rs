//! Every cell of every matrix of the built-in dialects agrees with the reference tables
//! (read from the servers' code): the project's copy of `shared/reference/` in
//! `tests/reference/`, or `MDL_REFERENCE_DIR`. A missing folder is a failure, not a skip.

use mdl_core::dialect::Dialect;
use mdl_core::LockType;
use std::path::PathBuf;

fn reference_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("MDL_REFERENCE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/reference"));
    assert!(
        dir.join("README.md").exists(),
        "no reference folder at {} (MDL_REFERENCE_DIR)",
        dir.display()
    );
    Some(dir)
}

/// Parses a reference TSV into (request, column, compatible) cells.
fn cells(text: &str) -> Vec<(LockType, LockType, bool)> {
    let mut header: Vec<LockType> = Vec::new();
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        if header.is_empty() {
            header = f[1..]
                .iter()
                .map(|c| LockType::parse(c).expect("type"))
                .collect();
            continue;
        }
        let req = LockType::parse(f[0]).expect("row type");
        for (c, col) in f[1..].iter().zip(&header) {
            out.push((req, *col, *c == "+"));
        }
    }
    out
}

#[test]
fn matrices_agree_with_the_reference() {
    let Some(dir) = reference_dir() else { return };
    let mut checked = 0usize;
    let mut files = 0usize;
    for entry in std::fs::read_dir(&dir).expect("read reference dir") {
        let path = entry.expect("entry").path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let Some(stem) = name.strip_suffix(".tsv") else {
            continue;
        };
        // DIALECT.STRATEGY.MATRIX
        let (dialect, rest) = if let Some(r) = stem.strip_prefix("mysql-8.0.") {
            ("mysql-8.0", r)
        } else if let Some(r) = stem.strip_prefix("mariadb.") {
            ("mariadb", r)
        } else {
            panic!("unexpected reference file {name}");
        };
        let (strategy, matrix) = rest.split_once('.').expect("STRATEGY.MATRIX");
        let d = Dialect::builtin(dialect).expect("dialect");
        let s = d
            .strategies
            .iter()
            .find(|s| s.name == strategy)
            .unwrap_or_else(|| panic!("{dialect} has no strategy {strategy}"));
        let text = std::fs::read_to_string(&path).expect("read");
        let cells = cells(&text);
        assert_eq!(cells.len(), s.types.len() * s.types.len(), "{name}: size");
        for (req, col, compatible) in cells {
            let ours = match matrix {
                "granted" => !s.conflicts_granted(req, col),
                m => {
                    let idx: usize = m.strip_prefix("pending").unwrap().parse().unwrap_or(0);
                    assert!(idx < s.pending.len(), "{name}: no pending matrix {idx}");
                    !s.yields_to_pending(idx, req, col)
                }
            };
            assert_eq!(ours, compatible, "{name}: request {req} vs {col}");
            checked += 1;
        }
        files += 1;
    }
    assert_eq!(files, 13, "every reference matrix file was compared");
    eprintln!("{checked} cells in {files} files agree");
}

#[test]
fn unobtrusive_sets_match_the_reference() {
    let m = Dialect::mysql80();
    let scoped = &m.strategies[m.namespace(m.namespace_by_name("GLOBAL").unwrap()).strategy];
    let object = m.strategy(m.namespace_by_name("TABLE").unwrap());
    let names = |s: &mdl_core::dialect::Strategy| {
        s.unobtrusive.iter().map(|t| t.abbrev()).collect::<Vec<_>>()
    };
    assert_eq!(names(scoped), ["IX"]);
    assert_eq!(names(object), ["S", "SH", "SR", "SW", "SWLP"]);
    let hogs: Vec<_> = object.hogs.iter().map(|t| t.abbrev()).collect();
    assert_eq!(hogs, ["SNW", "SNRW", "X"]);
    assert_eq!(
        object.piglet.iter().map(|t| t.abbrev()).collect::<Vec<_>>(),
        ["SW"]
    );
    // ACL_CACHE is not affected by max_write_lock_count; TABLE is.
    assert!(
        !m.namespace(m.namespace_by_name("ACL_CACHE").unwrap())
            .starvation
    );
    assert!(
        m.namespace(m.namespace_by_name("TABLE").unwrap())
            .starvation
    );
}

#[test]
fn namespaces_of_the_spec() {
    let m = Dialect::mysql80();
    let names: Vec<&str> = m.namespaces.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "GLOBAL",
            "BACKUP_LOCK",
            "TABLESPACE",
            "SCHEMA",
            "TABLE",
            "FUNCTION",
            "PROCEDURE",
            "TRIGGER",
            "EVENT",
            "COMMIT",
            "USER_LEVEL_LOCK",
            "LOCKING_SERVICE",
            "SRID",
            "ACL_CACHE",
            "COLUMN_STATISTICS",
            "RESOURCE_GROUPS",
            "FOREIGN_KEY",
            "CHECK_CONSTRAINT"
        ]
    );
    let d = Dialect::mariadb();
    let names: Vec<&str> = d.namespaces.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "BACKUP",
            "SCHEMA",
            "TABLE",
            "FUNCTION",
            "PROCEDURE",
            "PACKAGE_BODY",
            "TRIGGER",
            "EVENT",
            "USER_LOCK"
        ]
    );
}

#[test]
fn pending_is_a_subset_of_granted() {
    for d in [Dialect::mysql80(), Dialect::mariadb()] {
        for s in &d.strategies {
            for p in &s.pending {
                for t in &s.types {
                    assert!(
                        p[t.0 as usize].is_subset(s.granted[t.0 as usize]),
                        "{} {} {t}",
                        d.name,
                        s.name
                    );
                }
            }
        }
    }
}

#[test]
fn a_broken_table_is_an_error_not_a_panic() {
    let base = |f: &str| Dialect::builtin_text("mysql-8.0", f).map(str::to_owned);
    // A cell that is neither + nor -.
    let bad = Dialect::parse(&|f| {
        let t = base(f)?;
        Some(if f == "object.granted.tsv" {
            t.replacen("\t+", "\t?", 1)
        } else {
            t
        })
    });
    assert!(bad.unwrap_err().to_string().contains("object.granted.tsv"));
    // An unobtrusive set that conflicts.
    let bad = Dialect::parse(&|f| {
        let t = base(f)?;
        Some(if f == "dialect.txt" {
            t.replace(
                "unobtrusive object S SH SR SW SWLP",
                "unobtrusive object S SR X",
            )
        } else {
            t
        })
    });
    assert!(bad.unwrap_err().msg.contains("conflict"));
    // A missing file.
    let bad = Dialect::parse(&|f| {
        if f == "object.pending2.tsv" {
            None
        } else {
            base(f)
        }
    });
    assert!(bad.is_err());
}
