# shellcheck shell=bash
# The CI's tables (crate mdl-ci in ci/registry: the seeded bugs, which step runs which test
# file, the figures) for the shell scripts. Sourced by common.sh and the seeded-bug scripts.
#   mdl_ci_build     builds the mdl-ci binary once, unless $MDL_CI already names one;
#                    exports MDL_CI
#   mdl_ci ARGS...   runs it (`mdl_ci help`)

mdl_ci_build() {
  if [ -n "${MDL_CI:-}" ] && [ -x "$MDL_CI" ]; then
    return 0
  fi
  local root target
  root=${MDL_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
  target=${CARGO_TARGET_DIR:-$root/target}
  case $target in /*) ;; *) target=$root/$target ;; esac
  (cd "$root" && cargo build -q -p mdl-ci --bin mdl-ci) >&2 || return 1
  MDL_CI=$target/debug/mdl-ci
  export MDL_CI
}

mdl_ci() {
  mdl_ci_build || return 2
  "$MDL_CI" "$@"
}
