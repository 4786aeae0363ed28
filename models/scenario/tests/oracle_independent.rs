//! The reference oracle is independent of the code it checks: its model files (every
//! file under `src/oracle/`, subfolders included, but `program.rs`, the runner that drives the lock table beside
//! it) take from `mdl_core` only the vocabulary (lock types, durations, keys, outcomes,
//! wait options, namespaces) and the raw text of the built-in dialects
//! (`Dialect::builtin_text`); never the decision modules (`lock`, `book`, `deadlock`,
//! `step`, `table`, `manager`, ...) nor a parsed `Dialect`. The check reads the sources as
//! text (comments stripped) and reports each offence at FILE:LINE:COL. Seeded bug
//! `oracle_imports_decision` (ci/registry/src/bugs.rs) compiles a forbidden import into
//! `src/oracle/brute.rs`; `seeded_oracle_imports_decision_is_caught` watches this check
//! catch it.

use std::path::Path;

/// Items a model file may name, through the crate root or these modules.
const VOCABULARY: &[&str] = &[
    "LockType",
    "LockDuration",
    "Duration",
    "MdlKey",
    "Outcome",
    "WaitOption",
    "Namespace",
    "Dialect",
];
const VOCABULARY_MODULES: &[&str] = &["types", "key", "dialect"];
/// The only `Dialect` functions a model file may call: the raw text of a dialect file.
const DIALECT_CALLS: &[&str] = &["builtin_text"];
/// The oracle's file that is allowed to drive the lock table (the comparison runner).
const HARNESS: &str = "program.rs";
const SEEDED: &str = "oracle_imports_decision";

#[derive(Debug, Clone, PartialEq, Eq)]
enum Offence {
    /// A path into the core that is not vocabulary.
    DecisionPath(String),
    /// `Dialect` used other than for `Dialect::builtin_text`.
    ParsedDialect(String),
    /// `mdl_core` not followed by `::` (an alias or `extern crate`): unreadable.
    Alias,
    /// A `cfg(mdl_bug = ...)` item that is not a `use` line: unreadable.
    UnreadableCfg,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Finding {
    at: String,
    offence: Offence,
}

/// The source with comments blanked (line numbers and columns kept) and the items under
/// a `cfg(mdl_bug = "X")` that is not compiled in blanked too.
fn code_of(src: &str, active_bug: Option<&str>, file: &str, out: &mut Vec<Finding>) -> String {
    let mut lines: Vec<String> = src.lines().map(strip_comment).collect();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i].trim().to_owned();
        let bug = l
            .strip_prefix("#[cfg(mdl_bug = \"")
            .and_then(|r| r.strip_suffix("\")]"));
        if let Some(bug) = bug {
            let mut j = i + 1;
            while j < lines.len() && lines[j].trim().starts_with("#[") {
                j += 1;
            }
            if j >= lines.len() || !lines[j].trim().starts_with("use ") {
                let at = format!("{file}:{}:1", i + 1);
                out.push(Finding {
                    at,
                    offence: Offence::UnreadableCfg,
                });
            } else if active_bug != Some(bug) {
                for line in &mut lines[i..=j] {
                    line.clear();
                }
            }
            i = j;
        }
        i += 1;
    }
    lines.join("\n")
}

/// `line` up to a `//` outside a string literal.
fn strip_comment(line: &str) -> String {
    let mut in_str = false;
    let b = line.as_bytes();
    for i in 0..b.len() {
        match b[i] {
            b'"' if i == 0 || b[i - 1] != b'\\' => in_str = !in_str,
            b'/' if !in_str && b.get(i + 1) == Some(&b'/') => return line[..i].to_owned(),
            _ => {}
        }
    }
    line.to_owned()
}

/// Expands a path tree (`a::{b, c::{d, e}}`) starting at `s`: the full paths, and where
/// the tree ends.
fn expand(s: &str, prefix: &str) -> (Vec<String>, usize) {
    let b = s.as_bytes();
    let mut i = 0;
    let mut path = prefix.to_owned();
    loop {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i < b.len() && b[i] == b'{' {
            let mut all = Vec::new();
            i += 1;
            loop {
                let (mut paths, used) = expand(&s[i..], &path);
                all.append(&mut paths);
                i += used;
                while i < b.len() && (b[i].is_ascii_whitespace() || b[i] == b',') {
                    i += 1;
                }
                if i >= b.len() || b[i] == b'}' {
                    return (all, i + 1);
                }
            }
        }
        let start = i;
        while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'*') {
            i += 1;
        }
        if !path.is_empty() {
            path.push_str("::");
        }
        path.push_str(&s[start..i]);
        if s[i..].starts_with("::") {
            i += 2;
        } else {
            return (vec![path], i);
        }
    }
}

/// Whether a path below `mdl_core::` is vocabulary.
fn vocabulary(path: &str) -> bool {
    let mut segs = path
        .split("::")
        .skip_while(|s| VOCABULARY_MODULES.contains(s));
    match segs.next() {
        Some("Dialect") => segs.next().is_none_or(|f| DIALECT_CALLS.contains(&f)),
        Some(item) => VOCABULARY.contains(&item),
        None => false,
    }
}

fn line_col(code: &str, at: usize) -> (usize, usize) {
    let before = &code[..at];
    let line = before.matches('\n').count() + 1;
    let col = at - before.rfind('\n').map_or(0, |n| n + 1) + 1;
    (line, col)
}

/// The offences of one model file, and how many vocabulary paths it names.
fn scan(file: &str, src: &str, active_bug: Option<&str>) -> (Vec<Finding>, usize) {
    let mut out = Vec::new();
    let code = code_of(src, active_bug, file, &mut out);
    let mut seen = 0;
    for (at, _) in code.match_indices("mdl_core") {
        let (line, col) = line_col(&code, at);
        let here = format!("{file}:{line}:{col}");
        let rest = &code[at + "mdl_core".len()..];
        let Some(rest) = rest.strip_prefix("::") else {
            out.push(Finding {
                at: here,
                offence: Offence::Alias,
            });
            continue;
        };
        for path in expand(rest, "").0 {
            if vocabulary(&path) {
                seen += 1;
            } else {
                let offence = Offence::DecisionPath(path);
                out.push(Finding {
                    at: here.clone(),
                    offence,
                });
            }
        }
    }
    for (at, _) in code.match_indices("Dialect") {
        let word_start = at == 0 || !code.as_bytes()[at - 1].is_ascii_alphanumeric();
        let tail = &code[at + "Dialect".len()..];
        let word_end = !tail.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
        let imported = code[..at].ends_with("dialect::") || code[..at].ends_with("mdl_core::");
        if !word_start || !word_end || imported {
            continue;
        }
        let call = tail.strip_prefix("::").map(|t| {
            let n = t.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'));
            &t[..n.unwrap_or(t.len())]
        });
        if !call.is_some_and(|f| DIALECT_CALLS.contains(&f)) {
            let (line, col) = line_col(&code, at);
            let what = format!("Dialect{}", tail.chars().take(20).collect::<String>());
            out.push(Finding {
                at: format!("{file}:{line}:{col}"),
                offence: Offence::ParsedDialect(what),
            });
        }
    }
    (out, seen)
}

/// The `.rs` files under `dir`, subfolders included, as paths relative to `dir`, sorted.
fn rust_files(dir: &Path, rel: &str, out: &mut Vec<String>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for p in entries.filter_map(|e| e.ok()).map(|e| e.path()) {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let rel = format!("{rel}{name}");
        if p.is_dir() {
            rust_files(&p, &format!("{rel}/"), out)?;
        } else if name.ends_with(".rs") {
            out.push(rel);
        }
    }
    out.sort();
    Ok(())
}

/// Every model file of the oracle (in its subfolders too), scanned; fails closed when it
/// finds none.
fn scan_oracle(active_bug: Option<&str>) -> Result<(Vec<Finding>, usize), String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/oracle");
    let (mut all, mut seen, mut files) = (Vec::new(), 0, 0);
    let mut names = Vec::new();
    rust_files(&dir, "", &mut names)?;
    for name in names {
        if name == HARNESS {
            continue;
        }
        let p = dir.join(&name);
        let src = std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))?;
        let (mut f, s) = scan(&format!("src/oracle/{name}"), &src, active_bug);
        all.append(&mut f);
        seen += s;
        files += 1;
    }
    if files < 3 || seen == 0 {
        return Err(format!(
            "read {files} model files naming {seen} vocabulary paths: the oracle's layout changed, fix this check"
        ));
    }
    Ok((all, seen))
}

/// The scan reads subfolders: a model file moved into one is still checked.
#[test]
fn the_scan_reads_the_oracles_subfolders() {
    let dir = std::env::temp_dir().join(format!("oracle-scan-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("model")).unwrap();
    std::fs::write(dir.join("a.rs"), "").unwrap();
    std::fs::write(dir.join("model/b.rs"), "").unwrap();
    std::fs::write(dir.join("model/notes.md"), "").unwrap();
    let mut names = Vec::new();
    let read = rust_files(&dir, "", &mut names);
    std::fs::remove_dir_all(&dir).unwrap();
    read.unwrap();
    assert_eq!(names, ["a.rs", "model/b.rs"]);
    // And the oracle's own subfolder is among the files scanned.
    let mut real = Vec::new();
    rust_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src/oracle"),
        "",
        &mut real,
    )
    .unwrap();
    assert!(real.iter().any(|n| n.starts_with("model/")), "{real:?}");
}

#[cfg(not(mdl_bug = "oracle_imports_decision"))]
#[test]
fn the_oracle_takes_only_vocabulary_from_the_core() {
    let (found, seen) = scan_oracle(None).expect("the oracle's files");
    assert!(
        found.is_empty(),
        "the oracle names decision code: {found:#?}"
    );
    assert!(seen >= 5, "only {seen} vocabulary paths seen");
}

#[test]
fn the_check_reports_decision_paths_dialect_calls_and_aliases_where_they_are() {
    let src = "use mdl_core::{LockType, step::{Lock, rules}};\n\
               // use mdl_core::lock::LockState; (a comment)\n\
               fn f() { let d = mdl_core::Dialect::mysql80(); let t = Dialect::builtin_text(\"a\", \"b\"); }\n\
               use mdl_core as core;\n\
               #[cfg(BUG = \"other\")]\nuse mdl_core::table::LockTable;\n"
        // Spelt apart so that the registry's scan of the tree sees no seeded-bug name.
        .replace("BUG", concat!("mdl_", "bug"));
    let (found, seen) = scan("x.rs", &src, None);
    let want = [
        ("x.rs:1:5", Offence::DecisionPath("step::Lock".into())),
        ("x.rs:1:5", Offence::DecisionPath("step::rules".into())),
        (
            "x.rs:3:18",
            Offence::DecisionPath("Dialect::mysql80".into()),
        ),
        ("x.rs:4:5", Offence::Alias),
    ];
    let want: Vec<Finding> = want
        .into_iter()
        .map(|(at, offence)| Finding {
            at: at.into(),
            offence,
        })
        .collect();
    assert_eq!(found, want);
    assert_eq!(seen, 1, "LockType");
    let (found, _) = scan("x.rs", &src, Some("other"));
    assert!(found.contains(&Finding {
        at: "x.rs:6:5".into(),
        offence: Offence::DecisionPath("table::LockTable".into()),
    }));
    let (found, _) = scan("y.rs", "fn g(d: &Dialect) {}\n", None);
    assert_eq!(found.len(), 1, "a parsed dialect: {found:?}");
}

/// Passes when the check catches the seeded import (`MDL_BUG=oracle_imports_decision`).
#[cfg(mdl_bug = "oracle_imports_decision")]
#[test]
fn seeded_oracle_imports_decision_is_caught() {
    let (found, _) = scan_oracle(Some(SEEDED)).expect("the oracle's files");
    let caught = found.iter().any(|f| {
        f.at.starts_with("src/oracle/brute.rs:")
            && f.offence == Offence::DecisionPath("deadlock::find_cycle".into())
    });
    assert!(caught, "the seeded import was not reported: {found:#?}");
}

#[test]
fn the_scan_reports_the_seeded_import_when_its_bug_is_on() {
    let (found, _) = scan_oracle(Some(SEEDED)).expect("the oracle's files");
    assert!(
        found
            .iter()
            .any(|f| f.at.starts_with("src/oracle/brute.rs:")),
        "with {SEEDED} on, brute.rs's seeded import must be an offence: {found:#?}"
    );
}
