//! The hosted CI workflows (`.github/workflows/{ci,nightly}.yml`) only call scripts in
//! `ci/`, and every `ci/...` path they name exists (the scripts they run are executable).
//! A plain line scan: the workflows are written in a simple, regular style.

use std::path::{Path, PathBuf};

const WORKFLOWS: [&str; 2] = [".github/workflows/ci.yml", ".github/workflows/nightly.yml"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(rel: &str) -> String {
    let p = root().join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Every `ci/...` path in `text` (not `.ci/...`), with its 1-based line number.
fn ci_paths(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let b = line.as_bytes();
        let mut i = 0;
        while let Some(off) = line[i..].find("ci/") {
            let at = i + off;
            let before = if at == 0 { b' ' } else { b[at - 1] };
            let mut end = at + 3;
            while end < b.len()
                && (b[end].is_ascii_alphanumeric() || matches!(b[end], b'_' | b'-' | b'.' | b'/'))
            {
                end += 1;
            }
            let word_start =
                !(before.is_ascii_alphanumeric() || matches!(before, b'.' | b'_' | b'-' | b'/'));
            if word_start && end > at + 3 {
                out.push((n + 1, line[at..end].trim_end_matches('.').to_string()));
            }
            i = end;
        }
    }
    out
}

/// The commands of every `run:` key: one-line values, and the lines of `run: |` blocks.
fn run_commands(text: &str) -> Vec<(usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let t = line.trim_start().trim_start_matches("- ").trim_start();
        if let Some(v) = t.strip_prefix("run:") {
            let v = v.trim();
            if v == "|" || v == ">" || v.starts_with("|-") || v.starts_with(">-") {
                let indent = line.len() - line.trim_start().len();
                i += 1;
                while i < lines.len() {
                    let l = lines[i];
                    let li = l.len() - l.trim_start().len();
                    if !l.trim().is_empty() && li <= indent {
                        break;
                    }
                    if !l.trim().is_empty() && !l.trim_start().starts_with('#') {
                        out.push((i + 1, l.trim().to_string()));
                    }
                    i += 1;
                }
                continue;
            }
            out.push((i + 1, v.trim_matches('"').trim_matches('\'').to_string()));
        }
        i += 1;
    }
    out
}

/// The script a command runs: `ci/x.sh ...` or `bash ci/x.sh ...`.
fn script_of(cmd: &str) -> Option<&str> {
    let mut words = cmd.split_whitespace();
    let first = words.next()?;
    let w = if first == "bash" {
        words.next()?
    } else {
        first
    };
    w.starts_with("ci/").then_some(w)
}

#[test]
fn workflows_run_only_existing_ci_scripts() {
    let mut problems = Vec::new();
    for wf in WORKFLOWS {
        let text = read(wf);
        let cmds = run_commands(&text);
        assert!(!cmds.is_empty(), "{wf}: no `run:` step found");
        for (line, cmd) in &cmds {
            match script_of(cmd) {
                None => problems.push(format!("{wf}:{line}: `{cmd}` does not call a ci/ script")),
                Some(s) => {
                    let p = root().join(s);
                    if !p.is_file() {
                        problems.push(format!("{wf}:{line}: {s} does not exist"));
                    } else if !is_executable(&p) {
                        problems.push(format!("{wf}:{line}: {s} is not executable"));
                    }
                }
            }
        }
        for (line, path) in ci_paths(&text) {
            if !root().join(&path).exists() {
                problems.push(format!("{wf}:{line}: {path} does not exist"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[cfg(unix)]
fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata()
        .map(|m| m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

#[cfg(not(unix))]
fn is_executable(_: &Path) -> bool {
    true
}

/// The `[[bin]]` names of `fuzz/Cargo.toml`.
fn fuzz_bins(toml: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_bin = false;
    for line in toml.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            in_bin = t == "[[bin]]";
            continue;
        }
        if in_bin {
            if let Some(v) = t.strip_prefix("name") {
                let v = v.trim_start();
                if let Some(v) = v.strip_prefix('=') {
                    out.push(v.trim().trim_matches('"').to_string());
                }
            }
        }
    }
    out
}

#[test]
fn nightly_fuzz_matrix_names_real_targets() {
    let text = read(".github/workflows/nightly.yml");
    let matrix: Vec<String> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("target: ["))
        .flat_map(|v| {
            v.trim_end_matches(']')
                .split(',')
                .map(|s| s.trim().to_string())
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(!matrix.is_empty(), "nightly.yml: no fuzz target matrix");
    let toml = root().join("fuzz/Cargo.toml");
    let toml = std::fs::read_to_string(&toml).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (the fuzz targets are checked, not skipped)",
            toml.display()
        )
    });
    let bins = fuzz_bins(&toml);
    for t in &matrix {
        assert!(
            bins.contains(t),
            "nightly.yml fuzz matrix names `{t}`, not a [[bin]] of fuzz/Cargo.toml ({bins:?})"
        );
    }
}

#[test]
fn the_scanner_sees_what_it_should() {
    let y = "jobs:\n  a:\n    steps:\n      - run: ci/quick.sh\n      - name: x\n        run: |\n          bash ci/nightly.sh --x\n          # comment\n          ci/lib/x\n      - run: .ci/run\n";
    let cmds = run_commands(y);
    assert_eq!(
        cmds,
        vec![
            (4, "ci/quick.sh".to_string()),
            (7, "bash ci/nightly.sh --x".to_string()),
            (9, "ci/lib/x".to_string()),
            (10, ".ci/run".to_string()),
        ]
    );
    assert_eq!(script_of(&cmds[1].1), Some("ci/nightly.sh"));
    assert_eq!(script_of(".ci/run"), None);
    let paths: Vec<String> = ci_paths(y).into_iter().map(|p| p.1).collect();
    assert_eq!(paths, vec!["ci/quick.sh", "ci/nightly.sh", "ci/lib/x"]);
    assert_eq!(
        fuzz_bins("[package]\nname = \"f\"\n[[bin]]\nname = \"sequence\"\npath = \"x\"\n"),
        vec!["sequence"]
    );
}
