#!/usr/bin/env bash
# Seeded bugs of the concurrent shell: each catch of harness `loom` or `shuttle` in the
# registry (ci/registry/src/bugs.rs; `mdl-ci bugs --harness loom,shuttle`) names a test
# that must fail with the bug and pass without it.
#
# Each test runs in a child process (a loom deadlock aborts the process) with
# MDL_BUG=NAME (the crates' build scripts turn it into --cfg mdl_bug="NAME": only the
# workspace crates rebuild). A run counts only when its test ran (`running 1 test`): a
# test that the filter does not find is a failure, not a pass. Exit 0 when every bug is
# caught by every selected catch and every test passes clean.
#
#   MDL_SEEDED_BUGS=a,b        only these bugs (an unregistered name fails)
#   MDL_SEEDED_HARNESS=loom    loom | shuttle | both (default loom: one rebuild per bug;
#                              the nightly tier sets both)
#   MDL_SHUTTLE_ITERS          shuttle budget per scheduler (default 2000: a bug stops
#                              the search early; grant_after_timeout took 244 here)
#   LOOM_MAX_PREEMPTIONS       as in ci/proofs.sh (default: each model's own)
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 2
# shellcheck source=ci/lib/registry.sh
. "$root/ci/lib/registry.sh" || exit 2
harness=${MDL_SEEDED_HARNESS:-loom}
case $harness in
  loom | shuttle) harnesses=$harness ;;
  both) harnesses=loom,shuttle ;;
  *)
    echo "!!! MDL_SEEDED_HARNESS=$harness: want loom, shuttle or both"
    exit 2
    ;;
esac
export MDL_SHUTTLE_ITERS=${MDL_SHUTTLE_ITERS:-2000}
loomflags="${RUSTFLAGS:-} --cfg loom"
logdir=${CARGO_TARGET_DIR:-$root/target}/verify/seeded-proofs
mkdir -p "$logdir"

# NAME HARNESS PACKAGE FILE TEST ENV LAYER, one line per catch.
if ! rows=$(mdl_ci bugs --harness "$harnesses" --only "${MDL_SEEDED_BUGS:-}"); then
  echo "!!! no seeded bug to run (mdl-ci bugs --harness $harnesses --only '${MDL_SEEDED_BUGS:-}')"
  exit 1
fi

# run BUG HARNESS PACKAGE TEST_TARGET TEST: builds, then runs the one test in a child
# process; prints its exit status (2 for a build failure, 3 when the test did not run)
# and the run's seconds; the log goes to $logdir.
run() {
  local bug=$1 h=$2 pkg=$3 target=$4 t=$5 log rc start
  log=$logdir/${bug:-clean}-$h-$target-$t.log
  local -a cmd
  if [ "$h" = loom ]; then
    cmd=(env RUSTFLAGS="$loomflags" cargo test -p "$pkg" --release --test "$target")
  else
    cmd=(env -u RUSTFLAGS cargo test -p "$pkg" --release --features shuttle --test "$target")
  fi
  if [ -n "$bug" ]; then cmd=(env MDL_BUG="$bug" "${cmd[@]}"); else cmd=(env -u MDL_BUG "${cmd[@]}"); fi
  if ! "${cmd[@]}" --no-run >"$log.build" 2>&1; then
    echo "!!! build failed (${bug:-clean}, $h): see $log.build" >&2
    tail -20 "$log.build" >&2
    echo "2 0"
    return 0
  fi
  start=$(date +%s.%N)
  ( "${cmd[@]}" -- --exact "$t" --nocapture ) >"$log" 2>&1
  rc=$?
  secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
  if ! grep -qE '^running 1 test$' "$log"; then
    echo "!!! $pkg --test $target: no test \`$t\` ran (${bug:-clean}; $log)" >&2
    rc=3
  fi
  echo "$rc $secs"
}

fail=0
total=0
# Bug-free: every selected test passes.
declare -A clean_done
while IFS=$'\t' read -r bug h pkg file t _ _; do
  target=$(basename "$file" .rs)
  [ -n "${clean_done[$h-$pkg-$target-$t]:-}" ] && continue
  clean_done[$h-$pkg-$target-$t]=1
  read -r rc secs < <(run "" "$h" "$pkg" "$target" "$t")
  if [ "$rc" = 0 ]; then
    echo "ok   clean: $h $t ($file) passes (${secs}s)"
  else
    echo "!!!  clean: $h $t ($file) FAILS without a bug (exit $rc; $logdir/clean-$h-$target-$t.log)"
    tail -30 "$logdir/clean-$h-$target-$t.log"
    fail=1
  fi
done <<<"$rows"

caught=0
while IFS=$'\t' read -r bug h pkg file t _ _; do
  total=$((total + 1))
  target=$(basename "$file" .rs)
  read -r rc secs < <(run "$bug" "$h" "$pkg" "$target" "$t")
  log=$logdir/$bug-$h-$target-$t.log
  if [ "$rc" != 0 ] && [ "$rc" != 2 ] && [ "$rc" != 3 ]; then
    how=$(grep -m1 -oE "proof [a-z_]+: FAILED.*" "$log" || true)
    echo "ok   $bug: caught by $h $t ($file; exit $rc, ${secs}s) ${how}"
    caught=$((caught + 1))
  else
    echo "!!!  $bug: NOT caught by $h $t ($file; exit $rc; $log)"
    fail=1
  fi
done <<<"$rows"
# (The target is left built with the last bug: the next bug-free build rebuilds it when
# it is needed, not here, where nothing needs it.)
echo "MDL_COUNT: $caught catches"
if [ "$total" = 0 ]; then
  echo "!!! no seeded bug was run"
  fail=1
fi
[ "$fail" = 0 ] && echo "=== every seeded bug was caught ($caught/$total catches)" || echo "=== seeded proofs FAILED"
exit $fail
