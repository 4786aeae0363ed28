//! The registry checks a `--cfg mdl_bug="..."` of `RUSTFLAGS` for itself too, with the
//! code every other crate's build script calls (`mdl_ci::build_script`).

#[allow(dead_code)]
#[path = "src/bugs.rs"]
mod bugs;
#[allow(dead_code)]
#[path = "src/build_script.rs"]
mod build_script;

fn main() {
    println!("cargo:rerun-if-changed=src/bugs.rs");
    println!("cargo:rerun-if-changed=src/build_script.rs");
    build_script::run_for_registry(bugs::BUGS);
}
