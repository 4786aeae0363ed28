//! The registry agrees with the tree: the `cfg(mdl_bug = ...)` names in the source, the
//! `check-cfg` lists, the build scripts, the catches' files and tests, the generated docs,
//! the quoted figures, the test files and the CI scripts.

use mdl_ci::bugs::{Harness, BUGS};
use mdl_ci::plan::{self, TEST_FILES};
use mdl_ci::sync;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    mdl_ci::repo_root()
}

fn read(rel: &str) -> String {
    let p = root().join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn rel(p: &Path) -> String {
    p.strip_prefix(root())
        .unwrap_or(p)
        .to_string_lossy()
        .into_owned()
}

/// The names after every `mdl_bug = "` / `mdl_bug="` in `text`, with the line of each.
fn bug_names(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let mut rest = line;
        while let Some(at) = rest.find("mdl_bug") {
            rest = &rest[at + "mdl_bug".len()..];
            let t = rest.trim_start();
            let Some(t) = t.strip_prefix('=') else {
                continue;
            };
            let t = t.trim_start().trim_start_matches('\\');
            let Some(t) = t.strip_prefix('"') else {
                continue;
            };
            let name: String = t
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            // Placeholders in docs: NAME, ...
            if !name.is_empty() && name.chars().next().is_some_and(|c| c.is_ascii_lowercase()) {
                out.push((n + 1, name));
            }
        }
    }
    out
}

/// Every file of the repository with one of `exts`.
fn files(exts: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    sync::walk(&root(), &mut |p| {
        if p.extension()
            .and_then(|x| x.to_str())
            .is_some_and(|x| exts.contains(&x))
        {
            out.push(p.to_path_buf());
        }
    });
    out
}

fn is_comment(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("//") || t.starts_with('#') && !t.starts_with("#[") && !t.starts_with("#!")
}

#[test]
fn registry_rows_are_well_formed() {
    let mut seen = BTreeSet::new();
    for b in BUGS {
        assert!(seen.insert(b.name), "`{}` is registered twice", b.name);
        assert!(
            !b.name.is_empty()
                && b.name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
            "`{}`: a bug's name is lower_snake_case",
            b.name
        );
        assert!(
            !b.catches.is_empty(),
            "`{}` has no catch: who catches it?",
            b.name
        );
        assert!(!b.breaks.is_empty() && !b.site.is_empty(), "`{}`", b.name);
    }
}

/// Every name used in the source is registered, and every registered bug is used (outside
/// comments) in the file or folder its row names.
#[test]
fn source_names_and_the_registry_agree() {
    let registered: BTreeSet<&str> = BUGS.iter().map(|b| b.name).collect();
    let mut used: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut unknown = Vec::new();
    for p in files(&["rs", "sh", "toml", "yml", "md"]) {
        let r = rel(&p);
        let Ok(text) = std::fs::read_to_string(&p) else {
            continue;
        };
        let lines: Vec<&str> = text.lines().collect();
        for (n, name) in bug_names(&text) {
            if !registered.contains(name.as_str()) {
                unknown.push(format!("{r}:{n}: mdl_bug = \"{name}\""));
            } else if r.ends_with(".rs") && !is_comment(lines[n - 1]) {
                used.entry(name).or_default().insert(r.clone());
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "seeded bugs used but not registered in ci/registry/src/bugs.rs:\n{}",
        unknown.join("\n")
    );
    for b in BUGS {
        let site = b.site.split(" (").next().unwrap();
        let files = used.get(b.name).cloned().unwrap_or_default();
        assert!(
            files.iter().any(|f| f.starts_with(site)),
            "`{}` is registered at {site} but no code there uses cfg(mdl_bug = \"{}\") (used in {files:?})",
            b.name,
            b.name
        );
    }
}

/// The `check-cfg` lists of both workspaces are exactly the registry, and an unexpected
/// cfg is an error there.
#[test]
fn check_cfg_lists_are_the_registry() {
    let want: BTreeSet<String> = BUGS.iter().map(|b| b.name.to_string()).collect();
    for manifest in ["Cargo.toml", "fuzz/Cargo.toml"] {
        let text = read(manifest);
        let mut got = BTreeSet::new();
        for line in text.lines() {
            let t = line.trim();
            if let Some(rest) = t.strip_prefix("'cfg(mdl_bug") {
                let v = rest
                    .strip_prefix(", values(\"")
                    .and_then(|r| r.strip_suffix("\"))',"))
                    .unwrap_or_else(|| panic!("{manifest}: `{t}`: want one name per entry"));
                assert!(got.insert(v.to_string()), "{manifest}: `{v}` twice");
            }
            assert!(
                !(t.contains("mdl_bug") && t.contains("any()")),
                "{manifest}: `{t}` accepts any bug name"
            );
        }
        assert_eq!(got, want, "{manifest}: run `cargo run -p mdl-ci -- sync`");
        let lints = text
            .split_once("unexpected_cfgs]")
            .unwrap_or_else(|| panic!("{manifest}: no [...lints.rust.unexpected_cfgs] table"))
            .1;
        assert!(
            lints.trim_start().starts_with("level = \"deny\""),
            "{manifest}: unexpected_cfgs must be denied (a misspelt bug fails the build)"
        );
    }
}

/// The workspace's members, from the root manifest.
fn members() -> Vec<String> {
    let text = read("Cargo.toml");
    let list = text
        .split_once("members = [")
        .expect("members")
        .1
        .split_once(']')
        .expect("]")
        .0;
    list.split(',')
        .map(|m| m.trim().trim_matches('"').to_string())
        .filter(|m| !m.is_empty())
        .collect()
}

/// `MDL_BUG` reaches every crate: each has a build script that calls the registry's,
/// but mdl-core (published: no build dependency on CI tooling), whose build script takes
/// the names from the workspace's check-cfg, which `sync` writes from the registry.
#[test]
fn every_crate_takes_mdl_bug_from_the_registry() {
    for m in members() {
        if m == "ci/registry" {
            assert!(read("ci/registry/build.rs").contains("run_for_registry"));
            continue;
        }
        if m == "mdl-core" {
            let build = read("mdl-core/build.rs");
            assert!(build.contains("MDL_BUG") && build.contains("'cfg(mdl_bug, values("));
            assert!(
                build.contains("std::process::exit(1)"),
                "an unknown name must fail"
            );
            let manifest = read("mdl-core/Cargo.toml");
            assert!(
                !manifest.contains("[build-dependencies]"),
                "mdl-core: no build deps"
            );
            assert!(
                !manifest.contains("mdl-ci"),
                "mdl-core must not depend on mdl-ci"
            );
            continue;
        }
        let pkg = mdl_ci::package_of(&root(), &format!("{m}/Cargo.toml")).expect("package");
        let build = read(&format!("{m}/build.rs"));
        assert!(
            build.contains(&format!("mdl_ci::build_script(\"{pkg}\")")),
            "{m}/build.rs must call mdl_ci::build_script(\"{pkg}\") (else MDL_BUG does not reach {pkg})"
        );
        let manifest = read(&format!("{m}/Cargo.toml"));
        let deps = manifest
            .split_once("[build-dependencies]")
            .unwrap_or_else(|| panic!("{m}/Cargo.toml: no [build-dependencies]"))
            .1;
        assert!(deps.contains("mdl-ci = { path ="), "{m}/Cargo.toml: mdl-ci");
        assert!(
            !build.contains("values(any())"),
            "{m}/build.rs accepts any bug name"
        );
    }
}

/// Every catch names a scenario, file and test that exist, and a seeded test is compiled
/// only with its bug.
#[test]
fn catches_name_real_things() {
    let props = read("models/check/src/model/mod.rs");
    for b in BUGS {
        for c in b.catches {
            let at = format!("`{}` ({})", b.name, c.harness.name());
            match c.harness {
                Harness::Check => {
                    let scen = read(&format!("models/mdl/tests/check_scenarios/{}", c.file));
                    if let Some(a) = c.test.strip_prefix("assert ") {
                        assert!(scen.contains(&format!("assert {a}")), "{at}: {}", c.test);
                    } else {
                        assert!(
                            props.contains(&format!("\"{}\"", c.test)),
                            "{at}: {}",
                            c.test
                        );
                    }
                }
                Harness::Differential => {
                    read("models/scenario/tests/prop_sequence.rs");
                    assert!(read("fuzz/Cargo.toml").contains("name = \"sequence\""));
                }
                Harness::Loom | Harness::Shuttle | Harness::SeededTest => {
                    let text = read(c.file);
                    let lines: Vec<&str> = text.lines().collect();
                    let i = lines
                        .iter()
                        .position(|l| l.trim_start().starts_with(&format!("fn {}(", c.test)))
                        .unwrap_or_else(|| panic!("{at}: no fn {} in {}", c.test, c.file));
                    let attrs = &lines[i.saturating_sub(4)..i];
                    assert!(
                        attrs.iter().any(|l| l.trim() == "#[test]"),
                        "{at}: {} is not a #[test]",
                        c.test
                    );
                    if c.harness == Harness::SeededTest {
                        assert!(
                            attrs
                                .iter()
                                .any(|l| l.trim() == format!("#[cfg(mdl_bug = \"{}\")]", b.name)),
                            "{at}: {} must be compiled only with its bug",
                            c.test
                        );
                    }
                    assert!(
                        mdl_ci::package_of(&root(), c.file).is_some(),
                        "{at}: no crate holds {}",
                        c.file
                    );
                }
            }
            assert!(
                root().join(c.harness.script()).exists(),
                "{at}: {} is missing",
                c.harness.script()
            );
        }
    }
}

#[test]
fn generated_docs_manifests_and_figures_are_fresh() {
    match sync::plan(&root()) {
        Ok(changes) => {
            let stale: Vec<String> = changes.iter().map(|(p, _)| rel(p)).collect();
            assert!(
                stale.is_empty(),
                "stale (run `cargo run -p mdl-ci -- sync`): {stale:?}"
            );
        }
        Err(errors) => panic!("{}", errors.join("\n")),
    }
}

/// The test files of every crate (and of fuzz/), from the repository root.
fn test_files_on_disk() -> Vec<String> {
    let mut dirs = members();
    dirs.push("fuzz".into());
    let mut out = Vec::new();
    for d in dirs {
        let Ok(rd) = std::fs::read_dir(root().join(&d).join("tests")) else {
            continue;
        };
        for e in rd.filter_map(Result::ok) {
            let p = e.path();
            if p.is_file() && p.extension().is_some_and(|x| x == "rs") {
                out.push(rel(&p));
            }
        }
    }
    out.sort();
    out
}

/// Every test file is a row of the plan, and every row a file.
#[test]
fn every_test_file_is_planned() {
    let disk = test_files_on_disk();
    let planned: Vec<String> = TEST_FILES.iter().map(|t| t.path.to_string()).collect();
    let missing: Vec<&String> = disk.iter().filter(|f| !planned.contains(f)).collect();
    let gone: Vec<&String> = planned.iter().filter(|f| !disk.contains(f)).collect();
    assert!(
        missing.is_empty(),
        "test files that no step is planned to run (ci/registry/src/plan.rs): {missing:?}"
    );
    assert!(
        gone.is_empty(),
        "planned test files that do not exist: {gone:?}"
    );
    let mut stems = BTreeSet::new();
    for t in TEST_FILES {
        assert!(
            stems.insert(plan::stem(t.path)),
            "two test files named {}: a step's log could not tell them apart",
            plan::stem(t.path)
        );
    }
}

/// The step names the job scripts define (`run_step NAME` / `run_script NAME`), with the
/// nightly shuttle shards as `shuttle-*`.
fn steps(job: &str) -> BTreeSet<String> {
    let text = read(job);
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let t = line.trim_start();
        for cmd in ["run_step ", "run_script ", "cannot_run "] {
            if let Some(rest) = t.strip_prefix(cmd) {
                let name = rest.split_whitespace().next().unwrap_or("");
                let name = name.trim_matches('"');
                let name = match name.split_once('$') {
                    Some((prefix, _)) => format!("{prefix}*"),
                    None => name.to_string(),
                };
                out.insert(name);
            }
        }
    }
    out
}

/// Each planned step exists, and each test file runs in the quick tier (on every change).
#[test]
fn planned_steps_exist_and_each_file_runs_on_every_change() {
    let quick = steps("ci/quick.sh");
    let nightly = steps("ci/nightly.sh");
    for t in TEST_FILES {
        for s in t.run_by.iter().chain(t.empty_in) {
            assert!(
                quick.contains(*s) || nightly.contains(*s),
                "{}: no step `{s}` in ci/quick.sh or ci/nightly.sh ({quick:?}, {nightly:?})",
                t.path
            );
        }
        assert!(
            t.run_by.iter().any(|s| quick.contains(*s)),
            "{}: no step of ci/quick.sh runs it",
            t.path
        );
    }
}

/// The `ci/...` scripts the jobs run or source, by a plain scan.
fn referenced_scripts(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for word in text.split(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '(' | ')')) {
        let w = word
            .trim_start_matches("$here/")
            .trim_start_matches("$root/")
            .trim_start_matches("$MDL_ROOT/");
        let w = if let Some(lib) = w.strip_prefix("lib/") {
            format!("ci/lib/{lib}")
        } else {
            w.to_string()
        };
        if w.starts_with("ci/") && w.ends_with(".sh") {
            out.insert(w);
        }
    }
    out
}

/// Every script of ci/ is run or sourced by a job (so removing one fails the job that
/// needs it), and every script a job names exists (so the `test` step fails at once when
/// one is removed, nightly-only ones included).
#[test]
fn every_ci_script_is_used_and_exists() {
    // The jobs, then what they run or source, and so on.
    let mut named: BTreeSet<String> = ["ci/quick.sh", "ci/nightly.sh"].map(String::from).into();
    let mut todo: Vec<String> = named.iter().cloned().collect();
    while let Some(s) = todo.pop() {
        let p = root().join(&s);
        assert!(p.is_file(), "{s} is named by a CI job but missing");
        for r in referenced_scripts(&read(&s)) {
            if named.insert(r.clone()) {
                todo.push(r);
            }
        }
    }
    let mut on_disk = Vec::new();
    for dir in ["ci", "ci/lib"] {
        for e in std::fs::read_dir(root().join(dir))
            .unwrap()
            .filter_map(Result::ok)
        {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "sh") {
                on_disk.push(rel(&p));
            }
        }
    }
    for s in on_disk {
        assert!(
            named.contains(&s),
            "{s} is run by no CI job (ci/quick.sh, ci/nightly.sh)"
        );
    }
    for h in Harness::ALL {
        assert!(
            read("ci/quick.sh").contains(h.script()),
            "{}: the seeded bugs of harness `{}` are not run on every change",
            h.script(),
            h.name()
        );
    }
}
