//! Seeded bugs: `MDL_BUG=NAME cargo test ...` compiles this crate with
//! `--cfg mdl_bug="NAME"` (as `RUSTFLAGS` would, without rebuilding the dependencies).
//! The registered names are the workspace's `check-cfg` (the root Cargo.toml, written by
//! `cargo run -p mdl-ci -- sync`): inside the workspace an unregistered name fails the
//! build; the published crate (no workspace) takes no `MDL_BUG`. No build dependency on
//! the workspace's CI tooling.

use std::path::Path;

fn main() {
    println!("cargo:rerun-if-env-changed=MDL_BUG");
    let Ok(value) = std::env::var("MDL_BUG") else {
        return;
    };
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    let workspace = Path::new(&dir).join("../Cargo.toml");
    println!("cargo:rerun-if-changed={}", workspace.display());
    let registered = std::fs::read_to_string(&workspace).unwrap_or_default();
    let mut bad = Vec::new();
    for n in value.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        if registered.contains(&format!("'cfg(mdl_bug, values(\"{n}\"))'")) {
            println!("cargo:rustc-cfg=mdl_bug=\"{n}\"");
            println!("cargo:warning=mdl-core built with the seeded bug `{n}`");
        } else {
            bad.push(n);
        }
    }
    if !bad.is_empty() {
        eprintln!(
            "mdl-core: MDL_BUG names {bad:?}, not in the workspace's check-cfg ({}); \
             register them in ci/registry/src/bugs.rs and run `cargo run -p mdl-ci -- sync`",
            workspace.display()
        );
        std::process::exit(1);
    }
}
