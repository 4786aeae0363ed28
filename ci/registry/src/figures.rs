//! The figures the docs quote, counted from the repository (`mdl-ci figures`), and where
//! the docs quote them ([`QUOTES`]; `mdl-ci sync` rewrites the quotes, and a test fails
//! while one disagrees).

use crate::bugs::{Layer, BUGS};
use crate::plan::TEST_FILES;
use std::path::Path;

/// A figure: its key, its value, and what it counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Figure {
    pub key: &'static str,
    pub value: String,
    pub what: &'static str,
}

fn count_files(dir: &Path, ext: &str) -> usize {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .filter(|e| e.path().is_file() && e.path().extension().is_some_and(|x| x == ext))
                .count()
        })
        .unwrap_or(0)
}

/// The numbered `## N. ` sections of the zoo's generated page.
fn zoo_designs(root: &Path) -> usize {
    std::fs::read_to_string(root.join("models/zoo/README.md"))
        .map(|t| {
            t.lines()
                .filter(|l| {
                    l.strip_prefix("## ").is_some_and(|r| {
                        r.split_once(". ")
                            .is_some_and(|(n, _)| n.parse::<u32>().is_ok())
                    })
                })
                .count()
        })
        .unwrap_or(0)
}

/// "7 core decision, 8 concurrent shell, ...": the layers that have bugs.
fn by_layer() -> String {
    Layer::ALL
        .iter()
        .filter_map(|l| {
            let n = BUGS.iter().filter(|b| b.layer == *l).count();
            (n > 0).then(|| format!("{n} {}", l.name()))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Every figure, counted under `root`.
pub fn all(root: &Path) -> Vec<Figure> {
    let shell = BUGS
        .iter()
        .filter(|b| b.layer == Layer::ConcurrentShell)
        .count();
    vec![
        Figure {
            key: "scenarios",
            value: count_files(&root.join("models/scenarios"), "mdl").to_string(),
            what: "bundled scenarios (models/scenarios/*.mdl), checked by the `check` step",
        },
        Figure {
            key: "nightly_scenarios",
            value: count_files(&root.join("models/scenarios/nightly"), "mdl").to_string(),
            what: "nightly-only scenarios (models/scenarios/nightly/*.mdl)",
        },
        Figure {
            key: "sql_scenarios",
            value: count_files(&root.join("models/conformance"), "mdl").to_string(),
            what: "SQL scenarios of the conformance quick set (models/conformance/*.mdl)",
        },
        Figure {
            key: "zoo_designs",
            value: zoo_designs(root).to_string(),
            what: "historical designs of the bug zoo (models/zoo/README.md sections)",
        },
        Figure {
            key: "reference_files",
            value: count_files(&root.join("mdl-core/tests/reference"), "tsv").to_string(),
            what: "reference matrices (mdl-core/tests/reference/*.tsv)",
        },
        Figure {
            key: "seeded_bugs",
            value: BUGS.len().to_string(),
            what: "seeded bugs (ci/registry/src/bugs.rs)",
        },
        Figure {
            key: "seeded_bugs_by_layer",
            value: by_layer(),
            what: "seeded bugs per layer",
        },
        Figure {
            key: "seeded_shell_bugs",
            value: shell.to_string(),
            what: "seeded bugs of the concurrent shell",
        },
        Figure {
            key: "seeded_catches",
            value: BUGS
                .iter()
                .map(|b| b.catches.len())
                .sum::<usize>()
                .to_string(),
            what: "(bug, harness) catches the seeded steps check",
        },
        Figure {
            key: "test_files",
            value: TEST_FILES.len().to_string(),
            what: "test files (tests/*.rs), each run by a step (ci/registry/src/plan.rs)",
        },
    ]
}

/// Where the docs quote a figure: (file, figure key, the text with `{}` for the value).
/// Each `{}` must be followed by some text, which ends the value.
pub const QUOTES: &[(&str, &str, &str)] = &[
    ("README.md", "scenarios", "| {} files: every property"),
    ("README.md", "zoo_designs", "| {}/{} historical designs"),
    ("README.md", "sql_scenarios", "| {}/{} SQL scenarios agree"),
    ("README.md", "reference_files", "| {} files, every cell"),
    ("README.md", "seeded_bugs", "| {} bugs ("),
    (
        "README.md",
        "seeded_bugs_by_layer",
        " bugs ({}), each caught",
    ),
    ("README.md", "seeded_catches", "in {} (bug, harness) pairs"),
    (
        "ci/README.md",
        "seeded_bugs",
        "The registry holds {} seeded bugs",
    ),
    ("ci/README.md", "test_files", "all {} test files"),
];

/// `text` with every quote of `template` set to `value`; `None` when `text` does not
/// quote it at all.
pub fn requote(text: &str, template: &str, value: &str) -> Option<String> {
    let parts: Vec<&str> = template.split("{}").collect();
    let mut out = String::with_capacity(text.len());
    let mut found = false;
    for line in text.split_inclusive('\n') {
        out.push_str(&requote_line(line, &parts, value, &mut found));
    }
    found.then_some(out)
}

/// Whether `s` can be a quoted figure (a number, or a few words and commas).
fn is_value(s: &str) -> bool {
    !s.is_empty() && s.len() <= 120 && !s.contains(['|', '`', '(', ')', '\n'])
}

fn requote_line(line: &str, parts: &[&str], value: &str, found: &mut bool) -> String {
    let mut out = String::new();
    let mut rest = line;
    'outer: while let Some(at) = rest.find(parts[0]) {
        let mut cur = &rest[at + parts[0].len()..];
        let mut rebuilt = String::from(parts[0]);
        for p in &parts[1..] {
            match cur.find(p) {
                // The old value: a figure, not a stretch of the line.
                Some(end) if is_value(&cur[..end]) => {
                    rebuilt.push_str(value);
                    rebuilt.push_str(p);
                    cur = &cur[end + p.len()..];
                }
                _ => {
                    out.push_str(&rest[..at + parts[0].len()]);
                    rest = &rest[at + parts[0].len()..];
                    continue 'outer;
                }
            }
        }
        *found = true;
        out.push_str(&rest[..at]);
        out.push_str(&rebuilt);
        rest = cur;
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requote_sets_every_value() {
        let t = "a | 17 files: every property\nb | 11/11 historical designs x\n";
        assert_eq!(
            requote(t, "| {} files: every property", "18").unwrap(),
            "a | 18 files: every property\nb | 11/11 historical designs x\n"
        );
        assert_eq!(
            requote(t, "| {}/{} historical designs", "12").unwrap(),
            "a | 17 files: every property\nb | 12/12 historical designs x\n"
        );
        assert_eq!(requote(t, "| {} bugs (", "3"), None);
    }
}
