#!/usr/bin/env bash
# loom and shuttle over the real manager (proofs/README.md), with quick budgets that the
# environment raises for the nightly tier: proofs/tests/loom.rs under --cfg loom,
# proofs/tests/shuttle.rs, proofs/tests/latch.rs and mdl-core/tests/manager_shuttle.rs (mdl-core's shuttle smoke
# tests) with the `shuttle` feature. Exits non-zero when any model fails. (cargo without
# -q: the step's check, `mdl-ci ran`, reads cargo's lines that name each test binary, and
# fails the step when one of them ran no test.)
#
#   LOOM_MAX_PREEMPTIONS   loom's preemption bound (default: each model's own, 2-3)
#   MDL_SHUTTLE_ITERS      shuttle schedules per scheduler per test (default 300)
#   MDL_PCT_DEPTH          PCT depth (default 2)
#   MDL_SHUTTLE_SEED       base seed (default 1)
#   MDL_SHUTTLE_SHARD / MDL_SHUTTLE_SHARDS   run seed shard K of N
#   MDL_PROOFS_PART        loom | shuttle | all (default all)
#   CARGO_TARGET_DIR       where to build (default target/); failing shuttle schedules
#                          are saved under $CARGO_TARGET_DIR/verify/artifacts/
#
# MDL_BUG is cleared: this is the bug-free run (ci/seeded-proofs.sh runs the bugs).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 2
unset MDL_BUG
export MDL_SHUTTLE_ITERS=${MDL_SHUTTLE_ITERS:-300}
part=${MDL_PROOFS_PART:-all}
fail=0

if [ "$part" = all ] || [ "$part" = loom ]; then
  echo "=== loom (preemption bound: ${LOOM_MAX_PREEMPTIONS:-per model})"
  start=$(date +%s)
  if ! RUSTFLAGS="${RUSTFLAGS:-} --cfg loom" cargo test -p mdl-proofs --release --test loom \
      -- --nocapture; then
    echo "!!! loom failed"
    fail=1
  fi
  echo "=== loom took $(( $(date +%s) - start ))s"
fi

if [ "$part" = all ] || [ "$part" = shuttle ]; then
  echo "=== shuttle (iters=$MDL_SHUTTLE_ITERS pct=${MDL_PCT_DEPTH:-2} seed=${MDL_SHUTTLE_SEED:-1}" \
    "shard=${MDL_SHUTTLE_SHARD:-0}/${MDL_SHUTTLE_SHARDS:-1})"
  start=$(date +%s)
  if ! cargo test -p mdl-proofs --release --features shuttle --test shuttle -- --nocapture; then
    echo "!!! shuttle failed (schedules under ${CARGO_TARGET_DIR:-target}/verify/artifacts/)"
    fail=1
  fi
  # The latch-level zoo (the old designs are seeded bugs; ci/seeded-proofs.sh).
  if ! cargo test -p mdl-proofs --release --features shuttle --test latch -- --nocapture; then
    echo "!!! the latch-level shuttle harnesses failed"
    fail=1
  fi
  # mdl-core's own shuttle smoke tests (a fixed 3,000 random schedules each).
  if ! cargo test -p mdl-core --release --features shuttle --test manager_shuttle; then
    echo "!!! mdl-core's shuttle smoke tests failed"
    fail=1
  fi
  echo "=== shuttle took $(( $(date +%s) - start ))s"
fi
exit $fail
