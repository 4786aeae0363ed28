//! The CI's tables, in one place that every consumer reads:
//!
//! - [`bugs`]: the registry of seeded bugs (how to add one: at the top of `bugs.rs`);
//! - [`build_script`]: what every crate's build script does with `MDL_BUG` (call
//!   [`build_script`] from `build.rs`);
//! - [`plan`]: which CI step runs which test file; [`ran`]: the check of a step's log;
//! - [`figures`]: the counts the docs quote; [`render`] and [`sync`]: the generated text.
//!
//! The `mdl-ci` binary prints them for the CI scripts and rewrites the generated parts
//! (`cargo run -p mdl-ci -- help`).

pub mod bugs;
pub mod build_script;
pub mod figures;
pub mod plan;
pub mod ran;
pub mod render;
pub mod sync;

/// A crate's build script: `fn main() { mdl_ci::build_script("CRATE") }` (with `mdl-ci` as
/// a build dependency). See [`build_script::run`].
pub fn build_script(krate: &str) {
    build_script::run(krate, bugs::BUGS);
}

/// The repository root (this crate lives in `ci/registry/`).
pub fn repo_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The package name of the crate holding `file` (a path from the repository root, such as
/// `models/scenario/tests/run_scenarios.rs`), from its `Cargo.toml`.
pub fn package_of(root: &std::path::Path, file: &str) -> Option<String> {
    let mut dir = root.join(file);
    while dir.pop() {
        let manifest = dir.join("Cargo.toml");
        if let Ok(text) = std::fs::read_to_string(&manifest) {
            let mut in_package = false;
            for line in text.lines() {
                let t = line.trim();
                if t.starts_with('[') {
                    in_package = t == "[package]";
                } else if in_package {
                    if let Some(v) = t.strip_prefix("name") {
                        let v = v.trim_start().strip_prefix('=')?.trim();
                        return Some(v.trim_matches('"').to_string());
                    }
                }
            }
            return None;
        }
        if dir == root {
            break;
        }
    }
    None
}
