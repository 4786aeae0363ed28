#!/usr/bin/env bash
# The quick verification tier, for every change (target: 15-20 minutes on 2 cores).
#
# Every step is timed, logged to target/verify/logs/STEP.log, and run even after an
# earlier one failed; the job exits 1 when a required step failed. Summary:
# target/verify/summary.{json,md}. Budgets (environment, small defaults):
#   MDL_FUZZ_SECONDS=15        per cargo-fuzz target (ci/fuzz-quick.sh)
#   LOOM_MAX_PREEMPTIONS=2     loom's preemption bound (ci/proofs.sh)
#   MDL_SHUTTLE_ITERS=1000     shuttle iterations per test (ci/proofs.sh)
#   MDL_PCT_DEPTH=2            shuttle PCT depth (ci/proofs.sh)
#   MDL_SHUTTLE_SEED           shuttle seed (default: the script's)
#   MDL_CHECK_MAX_STATES=2000000  state limit per scenario for `mdl check`
#   MDL_STEP_TIMEOUT=5400      hard limit of any one step, in seconds
# Step selection: MDL_STEPS=a,b (only these) and MDL_SKIP_STEPS=a,b. Steps: fmt clippy
# test publish docs outside check zoo explore proofs seeded-model seeded-fuzz seeded-proofs fuzz conformance
# seeded-tests.
# Nothing is skipped silently (ci/README.md): a missing script, an empty scenario list, a
# stub subcommand, a test binary that ran no test, a seeded bug not caught, a tool that
# cannot exist here: each fails its step. MDL_ALLOW_SKIP=a,b accepts the last for steps
# a, b (the fuzz steps without a nightly toolchain, conformance without MariaDB).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=ci/lib/common.sh
. "$here/lib/common.sh" || exit 2
# shellcheck source=ci/lib/mdl.sh
. "$here/lib/mdl.sh" || exit 2
cd "$MDL_ROOT" || exit 2

export MDL_FUZZ_SECONDS=${MDL_FUZZ_SECONDS:-15}
export LOOM_MAX_PREEMPTIONS=${LOOM_MAX_PREEMPTIONS:-2}
export MDL_SHUTTLE_ITERS=${MDL_SHUTTLE_ITERS:-1000}
export MDL_PCT_DEPTH=${MDL_PCT_DEPTH:-2}
MDL_CHECK_MAX_STATES=${MDL_CHECK_MAX_STATES:-2000000}
export CARGO_TERM_COLOR=${CARGO_TERM_COLOR:-never}

verify_init quick

if want_step fmt; then
  run_step fmt "rustfmt check" required "" cargo fmt --all -- --check --color never
fi
if want_step clippy; then
  run_step clippy "-D warnings" required "" \
    cargo clippy --workspace --all-targets -- -D warnings
fi
if want_step test; then
  run_step test "cargo test --workspace --no-fail-fast" required '^test result:' \
    cargo test --workspace --no-fail-fast
fi
if want_step publish; then
  run_step publish "cargo publish --dry-run -p mdl-core" required "" \
    cargo publish --dry-run -p mdl-core --allow-dirty
fi
if want_step docs; then
  run_step docs "cargo doc -p mdl-core, -D missing_docs" required "" \
    env RUSTDOCFLAGS="-D missing_docs" cargo doc -p mdl-core --no-deps
fi
if want_step outside; then
  run_script outside "mdl-core from outside the workspace" required ci/outside.sh
fi
if want_step check; then
  shopt -s nullglob
  scenarios=(models/scenarios/*.mdl)
  shopt -u nullglob
  run_step check "${#scenarios[@]} files, max ${MDL_CHECK_MAX_STATES} states each" required "" \
    mdl_check_step debug "$MDL_CHECK_MAX_STATES" "${scenarios[@]}"
fi
if want_step zoo; then
  run_step zoo "all designs" required "" mdl_zoo_step debug
fi
if want_step explore; then
  run_script explore "mdl explore on loopback (curl)" required ci/explore-smoke.sh
fi
if want_step proofs; then
  run_script proofs "loom preemptions=$LOOM_MAX_PREEMPTIONS, shuttle iters=$MDL_SHUTTLE_ITERS pct=$MDL_PCT_DEPTH seed=${MDL_SHUTTLE_SEED:-default}" \
    required ci/proofs.sh
fi
if want_step seeded-model seeded; then
  run_script seeded-model "each seeded bug once" required ci/seeded-model.sh
fi
if want_step seeded-fuzz seeded; then
  run_script seeded-fuzz "each seeded bug (fuzz: until caught, at most 120 s)" required ci/seeded-fuzz.sh
fi
if want_step seeded-proofs seeded; then
  run_script seeded-proofs "each seeded bug once" required ci/seeded-proofs.sh
fi
if want_step fuzz; then
  if have_nightly; then
    run_script fuzz "${MDL_FUZZ_SECONDS}s per target" required ci/fuzz-quick.sh
  else
    cannot_run fuzz "${MDL_FUZZ_SECONDS}s per target" required \
      "no nightly toolchain (rustup toolchain install nightly)"
  fi
fi
if want_step conformance; then
  run_script conformance "quick SQL set" required ci/conformance.sh
fi
# After conformance, which installs the MariaDB server that one of them needs.
if want_step seeded-tests seeded; then
  run_script seeded-tests "each seeded bug's own test" required ci/seeded-tests.sh
fi

verify_finish
