//! Seeded bugs without rebuilding every dependency: `MDL_BUG=NAME cargo test ...` compiles
//! this crate with `--cfg mdl_bug="NAME"`, exactly as
//! `RUSTFLAGS='--cfg mdl_bug="NAME"'` would, but leaves the dependencies' builds alone.

fn main() {
    println!("cargo:rerun-if-env-changed=MDL_BUG");
    println!("cargo:rustc-check-cfg=cfg(mdl_bug, values(any()))");
    if let Ok(bug) = std::env::var("MDL_BUG") {
        let bug = bug.trim();
        if !bug.is_empty() {
            println!("cargo:rustc-cfg=mdl_bug=\"{bug}\"");
            println!("cargo:warning=models built with the seeded bug `{bug}`");
        }
    }
}
