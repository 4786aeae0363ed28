//! Soundness of the reductions, checked: every bundled scenario (`models/scenarios/`, with
//! its subfolders such as `mysql-unit/`) and every model-checker test scenario
//! (`tests/check_scenarios/`) is checked in seven configurations (the default: breadth-first
//! with symmetry, partial-order reduction and keys quiet from a state on; `--no-por`;
//! `--no-symmetry`; both off; `--dfs`; `--no-dynamic-quiet`; all three off), and every
//! property's verdict must be the same in all seven.
//!
//! This test runs in every build, the seeded-bug builds included (`MDL_BUG=NAME`): with a
//! seeded bug of the lock core the scenarios that catch it are violated, and the
//! reductions must still give those violations in every configuration. With the seeded
//! bug of the reduction itself (`por_release_independent`: a dependent pair taken for
//! independent) or of keys quiet from a state on (`quiet_ignores_future`) the comparison
//! must find a difference: the test then asserts that it does.
//!
//! A file whose search is cut by the state bound in some configuration (the longest
//! MySQL unit-test ports without reductions) is not compared in that configuration; the
//! test lists them and requires them to be few. (Speed is measured by the benchmark over
//! `models/scale/`, not asserted here.)

use mdl_check::model::check::{check, Options};
use mdl_check::model::result::Status;
use mdl_check::model::MdlModel;
use mdl_scenario::parse::parse;
use std::path::{Path, PathBuf};

/// States per configuration and file (a debug build: about a minute for everything).
const MAX_STATES: u64 = 60_000;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn load(path: &Path) -> MdlModel {
    let text = std::fs::read_to_string(path).expect("scenario file");
    let sc = parse(&path.display().to_string(), &text).unwrap_or_else(|e| panic!("{e}"));
    MdlModel::new(&sc).unwrap_or_else(|e| panic!("{e}"))
}

fn mdl_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = e.expect("entry").path();
        if p.is_dir() {
            mdl_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "mdl") {
            out.push(p);
        }
    }
}

fn scenario_files() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for d in ["models/scenarios", "models/mdl/tests/check_scenarios"] {
        mdl_files(&root().join(d), &mut v);
    }
    // SQL sessions (`models/scenarios/sql/`, `sql-mysql8/`) are searched without these
    // reductions (`mdl_check::sql`; models/check/tests/sql_check.rs, sql_mysql8.rs).
    v.retain(|p| {
        !p.components()
            .any(|c| c.as_os_str() == "sql" || c.as_os_str() == "sql-mysql8")
    });
    v.sort();
    v
}

fn configs() -> Vec<(&'static str, Options)> {
    let base = Options {
        max_states: Some(MAX_STATES),
        ..Options::default()
    };
    vec![
        ("default", base.clone()),
        (
            "--no-por",
            Options {
                por: false,
                ..base.clone()
            },
        ),
        (
            "--no-symmetry",
            Options {
                symmetry: false,
                ..base.clone()
            },
        ),
        (
            "--no-por --no-symmetry",
            Options {
                por: false,
                symmetry: false,
                ..base.clone()
            },
        ),
        (
            "--dfs",
            Options {
                dfs: true,
                ..base.clone()
            },
        ),
        (
            "--no-dynamic-quiet",
            Options {
                dynamic_quiet: false,
                ..base.clone()
            },
        ),
        (
            "--no-por --no-symmetry --no-dynamic-quiet",
            Options {
                por: false,
                symmetry: false,
                dynamic_quiet: false,
                ..base
            },
        ),
    ]
}

/// What the comparison found.
struct Comparison {
    files: usize,
    /// `FILE: CONFIG gives [..], the default gives [..]`
    differences: Vec<String>,
    /// `FILE CONFIG` pairs cut by the state bound (not compared).
    cut: Vec<String>,
    /// Files the partial-order reduction / symmetry / keys quiet from a state on made
    /// smaller.
    por_smaller: usize,
    sym_smaller: usize,
    quiet_smaller: usize,
    /// Files with a violated property (in the default configuration).
    violated: usize,
}

fn compare() -> Comparison {
    let files = scenario_files();
    let mut c = Comparison {
        files: files.len(),
        differences: Vec::new(),
        cut: Vec::new(),
        por_smaller: 0,
        sym_smaller: 0,
        quiet_smaller: 0,
        violated: 0,
    };
    let configs = configs();
    for f in &files {
        let name = f.strip_prefix(root()).unwrap_or(f).display().to_string();
        let m = load(f);
        let mut base: Option<(Vec<Status>, u64)> = None;
        for (i, (label, o)) in configs.iter().enumerate() {
            let r = check(&m, o);
            if r.limited {
                c.cut.push(format!("{name} {label}"));
                if i == 0 {
                    break;
                }
                continue;
            }
            let got: Vec<Status> = r.props.iter().map(|p| p.status).collect();
            match &base {
                None => {
                    if r.any_violated() {
                        c.violated += 1;
                    }
                    base = Some((got, r.unique_states));
                }
                Some((want, states)) => {
                    if &got != want {
                        c.differences.push(format!(
                            "{name}: {label} gives {got:?}, the default gives {want:?}"
                        ));
                    }
                    if i == 1 && r.unique_states > *states {
                        c.por_smaller += 1;
                    }
                    if i == 2 && r.unique_states > *states {
                        c.sym_smaller += 1;
                    }
                    if i == 5 && r.unique_states > *states {
                        c.quiet_smaller += 1;
                    }
                }
            }
        }
    }
    c
}

#[cfg(not(any(mdl_bug = "por_release_independent", mdl_bug = "quiet_ignores_future")))]
#[test]
fn reductions_keep_every_verdict() {
    let c = compare();
    assert!(c.files >= 80, "{} scenario files", c.files);
    assert!(
        c.differences.is_empty(),
        "the reductions changed verdicts:\n{}",
        c.differences.join("\n")
    );
    // Only the longest ports go past the bound, and only without a reduction.
    assert!(c.cut.len() <= 8, "cut by --max-states: {:?}", c.cut);
    assert!(
        c.por_smaller >= 5,
        "partial-order reduction shrank {} files",
        c.por_smaller
    );
    assert!(
        c.sym_smaller >= 5,
        "symmetry reduction shrank {} files",
        c.sym_smaller
    );
    assert!(
        c.quiet_smaller >= 5,
        "keys quiet from a state on shrank {} files",
        c.quiet_smaller
    );
    eprintln!(
        "{} files, 7 configurations, identical verdicts ({} with a violation); cut: {:?}",
        c.files, c.violated, c.cut
    );
}

/// The seeded bug of the reduction (a commit's released keys left out of its footprint:
/// a dependent pair taken for independent) is caught by the comparison.
#[cfg(mdl_bug = "por_release_independent")]
#[test]
fn the_comparison_catches_the_seeded_reduction_bug() {
    let c = compare();
    assert!(
        c.differences
            .iter()
            .any(|d| d.contains("por_release.mdl: --no-por")),
        "the verdict comparison missed the reduction's seeded bug: {:?}",
        c.differences
    );
}

/// The seeded bug of keys quiet from a state on (the remaining requests left out: a key
/// two sessions will ask for in conflicting types taken for quiet) is caught by the
/// comparison.
#[cfg(mdl_bug = "quiet_ignores_future")]
#[test]
fn the_comparison_catches_the_seeded_quiet_bug() {
    let c = compare();
    assert!(
        c.differences
            .iter()
            .any(|d| d.contains("quiet_future.mdl: --no-dynamic-quiet")),
        "the verdict comparison missed the seeded bug of quiet keys: {:?}",
        c.differences
    );
}
