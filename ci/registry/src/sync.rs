//! The generated parts of the repository (`mdl-ci sync` writes them, `mdl-ci sync --check`
//! and the tests compare):
//!
//! - in Markdown files, the blocks between `<!-- BEGIN mdl-ci: bugs FILTER -->` and
//!   `<!-- END mdl-ci -->`: the seeded-bug table of the rows FILTER keeps
//!   ([`crate::render::Filter`]); between `<!-- BEGIN mdl-ci: test-files -->` and
//!   `<!-- END mdl-ci -->`: the table of test files and the steps that run them;
//! - in `Cargo.toml` and `fuzz/Cargo.toml`, the lines between `# BEGIN mdl-ci: check-cfg`
//!   and `# END mdl-ci`: one `check-cfg` entry per registered bug;
//! - the figures quoted in the docs ([`crate::figures::QUOTES`]).

use crate::figures;
use crate::render::{self, Filter};
use std::path::{Path, PathBuf};

const MD_BEGIN: &str = "<!-- BEGIN mdl-ci: ";
const MD_END: &str = "<!-- END mdl-ci -->";
const TOML_BEGIN: &str = "# BEGIN mdl-ci: check-cfg";
const TOML_END: &str = "# END mdl-ci";

/// Files that must hold a generated block (file, the block's filter or `check-cfg`).
pub const REQUIRED: &[(&str, &str)] = &[
    ("Cargo.toml", "check-cfg"),
    ("fuzz/Cargo.toml", "check-cfg"),
    ("ci/README.md", "bugs all"),
    ("ci/README.md", "test-files"),
    ("proofs/README.md", "bugs harness=loom,shuttle"),
    ("models/MODEL.md", "bugs harness=check"),
    ("fuzz/README.md", "bugs harness=differential"),
    ("models/conformance/README.md", "bugs layer=conformance"),
];

/// Every Markdown file of the repository (not under `target/`, `.git/`, fuzz corpora).
pub fn markdown_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    walk(root, &mut |p| {
        if p.extension().is_some_and(|x| x == "md") {
            out.push(p.to_path_buf());
        }
    });
    out.sort();
    out
}

/// Calls `f` for every file under `dir`, skipping build output and corpora.
pub fn walk(dir: &Path, f: &mut dyn FnMut(&Path)) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = rd.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if p.is_dir() {
            if matches!(
                name,
                "target" | ".git" | "corpus" | "artifacts" | "regressions"
            ) {
                continue;
            }
            walk(&p, f);
        } else {
            f(&p);
        }
    }
}

/// `text` with every generated Markdown block regenerated; the filters found.
pub fn markdown(text: &str) -> Result<(String, Vec<String>), String> {
    regenerate(text, MD_BEGIN, MD_END, |spec, _indent| {
        let spec = spec.trim().trim_end_matches("-->").trim();
        if spec == "test-files" {
            return Ok(render::test_files());
        }
        let Some(filter) = spec.strip_prefix("bugs") else {
            return Err(format!(
                "unknown generated block `{spec}`: want bugs FILTER or test-files"
            ));
        };
        let f = Filter::parse(filter)?;
        if f.rows().is_empty() {
            return Err(format!("the block `{spec}` keeps no seeded bug"));
        }
        Ok(render::table(&f))
    })
}

/// `text` (a Cargo manifest) with its `check-cfg` block regenerated.
pub fn manifest(text: &str) -> Result<(String, Vec<String>), String> {
    regenerate(text, TOML_BEGIN, TOML_END, |_spec, indent| {
        Ok(render::check_cfg_lines(indent))
    })
}

/// Replaces the lines between each `begin` line and the next `end` line by
/// `gen(rest of the begin line, its indentation)`.
fn regenerate(
    text: &str,
    begin: &str,
    end: &str,
    gen: impl Fn(&str, &str) -> Result<String, String>,
) -> Result<(String, Vec<String>), String> {
    let mut out = String::with_capacity(text.len());
    let mut specs = Vec::new();
    let mut lines = text.split_inclusive('\n').enumerate();
    while let Some((n, line)) = lines.next() {
        out.push_str(line);
        let t = line.trim_start();
        let Some(spec) = t.strip_prefix(begin) else {
            continue;
        };
        let indent = &line[..line.len() - t.len()];
        let body = gen(spec, indent).map_err(|e| format!("line {}: {e}", n + 1))?;
        specs.push(spec.trim().trim_end_matches("-->").trim().to_string());
        let mut closed = false;
        for (_, l) in lines.by_ref() {
            if l.trim_start().starts_with(end) {
                out.push_str(&body);
                out.push_str(l);
                closed = true;
                break;
            }
        }
        if !closed {
            return Err(format!("line {}: `{begin}` without `{end}`", n + 1));
        }
    }
    Ok((out, specs))
}

/// What `sync` would change: (file, new text) for every stale file; errors for missing
/// blocks and quotes.
pub fn plan(root: &Path) -> Result<Vec<(PathBuf, String)>, Vec<String>> {
    let mut changes = Vec::new();
    let mut errors = Vec::new();
    let mut found: Vec<(String, String)> = Vec::new();
    let rel = |p: &Path| {
        p.strip_prefix(root)
            .unwrap_or(p)
            .to_string_lossy()
            .into_owned()
    };
    let mut files: Vec<PathBuf> = markdown_files(root);
    files.push(root.join("Cargo.toml"));
    files.push(root.join("fuzz/Cargo.toml"));
    for p in files {
        let Ok(old) = std::fs::read_to_string(&p) else {
            errors.push(format!("{}: cannot read", rel(&p)));
            continue;
        };
        let r = if p.extension().is_some_and(|x| x == "toml") {
            manifest(&old).map(|(t, s)| (t, s.into_iter().map(|_| "check-cfg".into()).collect()))
        } else {
            markdown(&old)
        };
        let (mut new, specs): (String, Vec<String>) = match r {
            Ok(x) => x,
            Err(e) => {
                errors.push(format!("{}: {e}", rel(&p)));
                continue;
            }
        };
        for s in specs {
            found.push((rel(&p), s));
        }
        for (file, key, template) in figures::QUOTES {
            if Path::new(file) != p.strip_prefix(root).unwrap_or(&p) {
                continue;
            }
            let value = figures::all(root)
                .into_iter()
                .find(|f| f.key == *key)
                .map(|f| f.value)
                .unwrap_or_default();
            match figures::requote(&new, template, &value) {
                Some(t) => new = t,
                None => errors.push(format!(
                    "{file}: no longer quotes the figure `{key}` as `{template}` (ci/registry/src/figures.rs QUOTES)"
                )),
            }
        }
        if new != old {
            changes.push((p, new));
        }
    }
    for (file, spec) in REQUIRED {
        if !found.iter().any(|(f, s)| f == file && s == spec) {
            let begin = if *spec == "check-cfg" {
                TOML_BEGIN.to_string()
            } else {
                format!("{MD_BEGIN}{spec} -->")
            };
            errors.push(format!("{file}: no generated block `{begin}`"));
        }
    }
    if errors.is_empty() {
        Ok(changes)
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_replaced_between_their_markers() {
        let t = "x\n<!-- BEGIN mdl-ci: bugs harness=check -->\nold\n<!-- END mdl-ci -->\ny\n";
        let (new, specs) = markdown(t).unwrap();
        assert_eq!(specs, vec!["bugs harness=check".to_string()]);
        assert!(new.starts_with("x\n<!-- BEGIN mdl-ci: bugs harness=check -->\n| bug |"));
        assert!(new.contains("`skip_second_waiter`"));
        assert!(!new.contains("`fifo`"));
        assert!(new.ends_with("<!-- END mdl-ci -->\ny\n"));
        assert!(markdown("<!-- BEGIN mdl-ci: bugs all -->\n").is_err());
        assert!(
            markdown("<!-- BEGIN mdl-ci: bugs harness=nope -->\n<!-- END mdl-ci -->\n").is_err()
        );
        let m = "a = [\n    # BEGIN mdl-ci: check-cfg\n    'x',\n    # END mdl-ci\n]\n";
        let (new, _) = manifest(m).unwrap();
        assert!(new.contains("    'cfg(mdl_bug, values(\"fifo\"))',\n"));
        assert!(!new.contains("'x'"));
    }
}
