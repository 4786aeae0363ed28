//! Nothing in mdl-core outside `src/sync/` names std's (or parking_lot's) synchronisation
//! primitives: everything goes through `mdl_core::sync`, so loom and shuttle explore the
//! code that ships. (`DataArc`, the facade's name for std's `Arc` on immutable data, is
//! the one allowed exception, and it is only named through the facade.)

use std::path::{Path, PathBuf};

const FORBIDDEN_SYNC: [&str; 10] = [
    "Mutex",
    "MutexGuard",
    "Condvar",
    "RwLock",
    "RwLockReadGuard",
    "RwLockWriteGuard",
    "atomic",
    "Arc",
    "Weak",
    "Barrier",
];

/// The code of a line without its `//` comment (good enough: no `//` in our strings).
fn code(line: &str) -> &str {
    match line.find("//") {
        Some(i) => &line[..i],
        None => line,
    }
}

/// Violations in one file's text: (line number, what was named).
fn violations(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    // Join the file so that `use std::sync::{\n Mutex,\n ...}` groups are seen whole.
    let lines: Vec<&str> = text.lines().map(code).collect();
    for (i, line) in lines.iter().enumerate() {
        let n = i + 1;
        let squashed: String = line.split_whitespace().collect();
        if squashed.contains("std::thread") {
            out.push((n, "std::thread".into()));
        }
        if squashed.contains("parking_lot") {
            out.push((n, "parking_lot".into()));
        }
        let mut rest = squashed.as_str();
        while let Some(p) = rest.find("std::sync::") {
            rest = &rest[p + "std::sync::".len()..];
            let names: Vec<String> = if let Some(group) = rest.strip_prefix('{') {
                // The group may span lines: gather up to the closing brace.
                let mut g = group.to_owned();
                let mut j = i + 1;
                while !g.contains('}') && j < lines.len() {
                    g.extend(lines[j].split_whitespace());
                    j += 1;
                }
                let g = g.split('}').next().unwrap_or("");
                g.split(',').map(|s| s.trim().to_owned()).collect()
            } else {
                vec![rest.to_owned()]
            };
            for name in names {
                let first: String = name
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if FORBIDDEN_SYNC.contains(&first.as_str()) {
                    out.push((n, format!("std::sync::{first}")));
                }
            }
        }
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn only_the_facade_names_sync_primitives() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let facade = src.join("sync");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 5, "found the sources");
    let mut bad = Vec::new();
    for f in files.iter().filter(|f| !f.starts_with(&facade)) {
        let text = std::fs::read_to_string(f).unwrap();
        for (line, what) in violations(&text) {
            bad.push(format!("{}:{line}: names {what}", f.display()));
        }
    }
    assert!(
        bad.is_empty(),
        "use mdl_core::sync instead:\n{}",
        bad.join("\n")
    );
}

#[test]
fn the_lint_sees_what_it_must() {
    assert_eq!(violations("use std::sync::Mutex;").len(), 1);
    assert_eq!(violations("let a = std::sync::Arc::new(1);").len(), 1);
    assert_eq!(
        violations("use std::sync::{\n    atomic::AtomicU64,\n    Condvar,\n};").len(),
        2
    );
    assert_eq!(violations("use std :: thread;").len(), 1);
    assert_eq!(violations("type M = parking_lot::Mutex<u8>;").len(), 1);
    assert!(violations("use crate::sync::{Arc, Mutex, DataArc};").is_empty());
    assert!(violations("pub use std::sync::OnceLock;").is_empty());
    assert!(violations("// std::sync::Mutex in a comment").is_empty());
    assert!(violations("let x = crate::sync::DataArc::new(1);").is_empty());
}
