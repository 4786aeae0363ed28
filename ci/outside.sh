#!/usr/bin/env bash
# mdl-core as a dependency: builds, runs and tests the crate outside the workspace
# (mdl-core/tests/outside/, written from mdl-core's public docs only), after checking that
# it names root-level items only (no `mdl_core::MODULE::` path). It handles a deadlock
# with `?`; a test that ran nothing fails the step.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 2
dir=mdl-core/tests/outside
if [ ! -f "$dir/Cargo.toml" ]; then
  echo "outside: $dir/Cargo.toml is missing"
  exit 1
fi
if grep -nE 'mdl_core::[a-z_]+::' -r "$dir/src"; then
  echo "outside: the lines above name a module of mdl-core; only root-level items are public API"
  exit 1
fi
export CARGO_TARGET_DIR="$root/target/outside"
cargo run --locked --manifest-path "$dir/Cargo.toml" || exit 1
out=$(cargo test --locked --manifest-path "$dir/Cargo.toml" 2>&1)
rc=$?
printf '%s\n' "$out"
[ $rc -eq 0 ] || exit 1
if ! printf '%s\n' "$out" | grep -qE '^test result: ok\. [1-9][0-9]* passed'; then
  echo "outside: no test ran"
  exit 1
fi
echo "outside: root-level API only, deadlock handled with ?"
