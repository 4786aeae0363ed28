//! What every crate's build script does with seeded bugs ([`run`]).
//!
//! `MDL_BUG=NAME[,NAME...]` compiles the crate with `--cfg mdl_bug="NAME"`, as
//! `RUSTFLAGS='--cfg mdl_bug="NAME"'` would, but without rebuilding the dependencies. A
//! name that is not in the registry fails the build, from `MDL_BUG` and from `RUSTFLAGS`
//! alike (cargo shows the build script a `--cfg` of `RUSTFLAGS` as `CARGO_CFG_MDL_BUG`;
//! rustc itself does not check command-line `--cfg` values against `check-cfg`).

use crate::bugs::Bug;

/// The `check-cfg` of the seeded bugs: exactly the registered names.
pub fn check_cfg(bugs: &[Bug]) -> String {
    let names: Vec<String> = bugs.iter().map(|b| format!("\"{}\"", b.name)).collect();
    format!("cfg(mdl_bug, values({}))", names.join(", "))
}

/// The names in `value` (comma separated, as `MDL_BUG` and `CARGO_CFG_MDL_BUG` give them)
/// that are not registered.
pub fn unknown<'a>(bugs: &[Bug], value: &'a str) -> Vec<&'a str> {
    names(value)
        .filter(|n| !bugs.iter().any(|b| b.name == *n))
        .collect()
}

fn names(value: &str) -> impl Iterator<Item = &str> {
    value.split(',').map(str::trim).filter(|n| !n.is_empty())
}

/// The build script of crate `krate`: passes the registered names to `check-cfg`, turns
/// `MDL_BUG` into `--cfg mdl_bug="NAME"`, and fails the build on an unregistered name.
pub fn run(krate: &str, bugs: &[Bug]) {
    println!("cargo:rerun-if-env-changed=MDL_BUG");
    println!("cargo:rustc-check-cfg={}", check_cfg(bugs));
    let mut errors = Vec::new();
    if let Ok(value) = std::env::var("MDL_BUG") {
        let bad = unknown(bugs, &value);
        if bad.is_empty() {
            for n in names(&value) {
                println!("cargo:rustc-cfg=mdl_bug=\"{n}\"");
                println!("cargo:warning={krate} built with the seeded bug `{n}`");
            }
        } else {
            errors.push(unregistered("MDL_BUG", &bad, bugs));
        }
    }
    errors.extend(rustflags(bugs));
    fail(krate, &errors);
}

/// The registry's own build script: only the `--cfg mdl_bug` of `RUSTFLAGS` (the registry
/// uses no seeded bug, and rerunning it on every `MDL_BUG` would rebuild every build
/// script; the crates that use `MDL_BUG` check it).
pub fn run_for_registry(bugs: &[Bug]) {
    println!("cargo:rustc-check-cfg={}", check_cfg(bugs));
    fail("mdl-ci", rustflags(bugs).as_slice());
}

/// The `--cfg mdl_bug` values of `RUSTFLAGS` that are not registered, as an error.
fn rustflags(bugs: &[Bug]) -> Option<String> {
    let value = std::env::var("CARGO_CFG_MDL_BUG").ok()?;
    let bad = unknown(bugs, &value);
    (!bad.is_empty()).then(|| unregistered("--cfg mdl_bug", &bad, bugs))
}

fn unregistered(from: &str, bad: &[&str], bugs: &[Bug]) -> String {
    let registered: Vec<&str> = bugs.iter().map(|b| b.name).collect();
    format!(
        "{from} names an unregistered seeded bug: {} (registered in ci/registry/src/bugs.rs: {})",
        bad.join(", "),
        registered.join(", ")
    )
}

fn fail(krate: &str, errors: &[String]) {
    if errors.is_empty() {
        return;
    }
    // `cargo::error` (cargo 1.84 and later; the workspace needs 1.88) fails the build once
    // the script has finished, with just this message.
    for e in errors {
        println!("cargo::error={krate}: {e}");
    }
}
