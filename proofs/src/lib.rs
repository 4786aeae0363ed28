//! # mdl-proofs
//!
//! loom and shuttle harnesses over the real `mdl-core` (its `sync` facade backs onto loom
//! under `--cfg loom` and onto shuttle with this crate's `shuttle` feature). The tests
//! live in `tests/loom.rs` and `tests/shuttle.rs`; `ci/proofs.sh` runs them and
//! `ci/seeded-proofs.sh` shows that each seeded bug (`MDL_BUG=NAME`) makes its harness
//! fail. This library holds what the harnesses share.

use std::time::Instant;

/// A budget from the environment, or the default.
pub fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

/// Prints how long a harness took, for `proofs/README.md` and the CI summary.
pub fn report(name: &str, start: Instant, what: &str) {
    eprintln!(
        "proof {name}: {what} in {:.2}s",
        start.elapsed().as_secs_f64()
    );
}
