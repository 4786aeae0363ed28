//! Seeded bugs: `MDL_BUG=NAME cargo test ...` compiles this crate with
//! `--cfg mdl_bug="NAME"` (as `RUSTFLAGS` would, without rebuilding the dependencies);
//! an unregistered name fails the build (ci/registry/src/bugs.rs).

fn main() {
    mdl_ci::build_script("mdl-sql");
}
