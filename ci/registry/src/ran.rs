//! What a step's log says its test binaries ran (`mdl-ci ran`): libtest's `running N
//! tests` lines, each tied to the cargo line before it that names the binary.

use crate::plan::{self, TestFile};

/// A test binary, as cargo names it in its `Running` / `Doc-tests` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Binary {
    /// `Running tests/NAME.rs (...)`: an integration test file (its stem).
    Integration(String),
    /// `Running unittests src/...rs (.../deps/CRATE-HASH)`: a crate's unit tests.
    Unit(String),
    /// `Doc-tests CRATE`.
    Doc(String),
    /// `running N tests` with no cargo line before it (`cargo test -q`).
    Unnamed,
}

impl std::fmt::Display for Binary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Binary::Integration(s) => write!(f, "tests/{s}.rs"),
            Binary::Unit(c) => write!(f, "unit tests of {c}"),
            Binary::Doc(c) => write!(f, "doc tests of {c}"),
            Binary::Unnamed => write!(f, "a test binary (cargo test -q names none)"),
        }
    }
}

/// Every test binary run in `log`, with the number of tests it ran, in order.
pub fn runs(log: &str) -> Vec<(Binary, usize)> {
    let mut out = Vec::new();
    let mut pending: Option<Binary> = None;
    for line in log.lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("Running ") {
            pending = Some(running_line(rest));
        } else if let Some(krate) = t.strip_prefix("Doc-tests ") {
            pending = Some(Binary::Doc(krate.trim().to_string()));
        } else if let Some(n) = count_line(line) {
            out.push((pending.take().unwrap_or(Binary::Unnamed), n));
        }
    }
    out
}

/// `running N tests` / `running 1 test`, at the start of a line (libtest's own).
fn count_line(line: &str) -> Option<usize> {
    let rest = line.strip_prefix("running ")?;
    let (n, word) = rest.split_once(' ')?;
    if word.trim_end() != "tests" && word.trim_end() != "test" {
        return None;
    }
    n.parse().ok()
}

fn running_line(rest: &str) -> Binary {
    // `tests/NAME.rs (target/...)` or `unittests src/lib.rs (target/.../deps/CRATE-HASH)`.
    let (what, bin) = match rest.split_once(" (") {
        Some((w, b)) => (w.trim(), b.trim_end_matches(')')),
        None => (rest.trim(), ""),
    };
    if let Some(src) = what.strip_prefix("unittests ") {
        let file = bin.rsplit('/').next().unwrap_or(bin);
        let krate = file.rsplit_once('-').map_or(file, |(c, _)| c);
        let krate = if krate.is_empty() { src } else { krate };
        return Binary::Unit(krate.to_string());
    }
    Binary::Integration(plan::stem(what).to_string())
}

/// What is wrong with step `step`'s runs: a binary that ran no test (unless its row says
/// it is empty there by design), and a test file planned for the step that did not run.
/// With `planned` false, only the first check (for logs of other commands).
pub fn problems(step: &str, runs: &[(Binary, usize)], planned: bool) -> Vec<String> {
    let mut out = Vec::new();
    for (bin, n) in runs {
        if *n > 0 {
            continue;
        }
        match bin {
            // A crate without unit tests or doc tests has an empty binary of each.
            Binary::Unit(_) | Binary::Doc(_) => {}
            Binary::Integration(s) => {
                let row: Option<&TestFile> = plan::by_stem(s);
                let empty_ok =
                    row.is_some_and(|r| r.empty_in.iter().any(|p| plan::matches(p, step)));
                if !empty_ok {
                    out.push(format!("{bin} ran 0 tests in step `{step}`"));
                }
            }
            Binary::Unnamed => out.push(format!("{bin} ran 0 tests in step `{step}`")),
        }
    }
    if planned {
        for row in plan::TEST_FILES {
            if !row.run_by.iter().any(|p| plan::matches(p, step)) {
                continue;
            }
            let s = plan::stem(row.path);
            let ran: usize = runs
                .iter()
                .filter(|(b, _)| *b == Binary::Integration(s.to_string()))
                .map(|(_, n)| n)
                .sum();
            if ran == 0 {
                out.push(format!(
                    "{} is planned for step `{step}` (ci/registry/src/plan.rs) but ran no test there",
                    row.path
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = "\
     Running unittests src/lib.rs (target/debug/deps/mdl_core-c2f6938473e92a31)

running 9 tests
test result: ok. 9 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s

     Running tests/manager_shuttle.rs (target/debug/deps/manager_shuttle-e1c841733a94ea74)

running 0 tests
     Running tests/table.rs (target/debug/deps/table-8aee397d46aa2ca6)

running 1 test
   Doc-tests mdl_check

running 0 tests
";

    #[test]
    fn binaries_and_counts() {
        assert_eq!(
            runs(LOG),
            vec![
                (Binary::Unit("mdl_core".into()), 9),
                (Binary::Integration("manager_shuttle".into()), 0),
                (Binary::Integration("table".into()), 1),
                (Binary::Doc("mdl_check".into()), 0),
            ]
        );
        assert_eq!(runs("running 0 tests\n"), vec![(Binary::Unnamed, 0)]);
    }

    #[test]
    fn empty_binaries_fail_unless_planned_so() {
        let r = runs(LOG);
        // In `test`, manager_shuttle is empty by design; files planned for `test` that
        // this log does not show are reported.
        let p = problems("test", &r, false);
        assert!(p.is_empty(), "{p:?}");
        let p = problems("proofs", &r, false);
        assert_eq!(p.len(), 1, "{p:?}");
        assert!(p[0].contains("manager_shuttle"));
        let p = problems("test", &r, true);
        assert!(
            p.iter().any(|s| s.contains("mdl-core/tests/reference.rs")),
            "{p:?}"
        );
        assert!(
            !p.iter().any(|s| s.contains("mdl-core/tests/table.rs")),
            "{p:?}"
        );
    }
}
