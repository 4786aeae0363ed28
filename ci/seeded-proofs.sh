#!/usr/bin/env bash
# Seeded bugs of the concurrent shell (mdl-core/src/manager/mod.rs): each one makes the
# loom and/or shuttle test below fail, and the same test passes without it.
#
#   bug                        harness  test
#   lost_wakeup                loom     release_vs_new_waiter      (loom deadlock: abort)
#   lost_wakeup                shuttle  timeout_or_kill_wakes_the_queue (shuttle deadlock)
#   no_reschedule_on_timeout   loom     timeout_wakes_queue        (check_invariants)
#   no_reschedule_on_timeout   shuttle  timeout_or_kill_wakes_the_queue
#   no_materialize             loom     fast_path_vs_obtrusive     (X beside a fast SR)
#   no_materialize             shuttle  random_mix_of_commands     (check_invariants)
#   used_not_set               loom     fast_path_vs_obtrusive     (X beside a fast SR)
#   used_not_set               shuttle  random_mix_of_commands     (check_invariants)
#   spin_check_then_set        loom     fast_path_vs_obtrusive     (loom: concurrent access
#                                                                   to the spin lock's cell)
#   reclaim_early              loom     reclaim_vs_acquire         (X on a second object)
#   reclaim_early              shuttle  random_mix_of_commands     (check_invariants)
#   two_victims                loom     two_waiters_close_a_cycle  (two Deadlock outcomes)
#   two_victims                shuttle  cycle_has_one_victim
#   grant_after_timeout        loom     timeout_vs_grant           (leaked grant)
#   grant_after_timeout        shuttle  random_mix_of_commands     (locks left at the end)
#
# Each test runs in a child process (a loom deadlock aborts the process) with
# MDL_BUG=NAME (mdl-core's build.rs turns it into --cfg mdl_bug="NAME": only mdl-core and
# the test crate rebuild). Exit 0 when every bug is caught and every test passes clean.
#
#   MDL_SEEDED_BUGS=a,b        only these bugs
#   MDL_SEEDED_HARNESS=loom    loom | shuttle | both (default loom: one rebuild per bug;
#                              the nightly tier sets both)
#   MDL_SHUTTLE_ITERS          shuttle budget per scheduler (default 2000: a bug stops
#                              the search early; grant_after_timeout took 244 here)
#   LOOM_MAX_PREEMPTIONS       as in ci/proofs.sh (default: each model's own)
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 2
only=${MDL_SEEDED_BUGS:-}
harness=${MDL_SEEDED_HARNESS:-loom}
export MDL_SHUTTLE_ITERS=${MDL_SHUTTLE_ITERS:-2000}
loomflags="${RUSTFLAGS:-} --cfg loom"
logdir=${CARGO_TARGET_DIR:-$root/target}/verify/seeded-proofs
mkdir -p "$logdir"

entries=(
  "lost_wakeup|loom|release_vs_new_waiter"
  "lost_wakeup|shuttle|timeout_or_kill_wakes_the_queue"
  "no_reschedule_on_timeout|loom|timeout_wakes_queue"
  "no_reschedule_on_timeout|shuttle|timeout_or_kill_wakes_the_queue"
  "no_materialize|loom|fast_path_vs_obtrusive"
  "no_materialize|shuttle|random_mix_of_commands"
  "used_not_set|loom|fast_path_vs_obtrusive"
  "used_not_set|shuttle|random_mix_of_commands"
  "spin_check_then_set|loom|fast_path_vs_obtrusive"
  "reclaim_early|loom|reclaim_vs_acquire"
  "reclaim_early|shuttle|random_mix_of_commands"
  "two_victims|loom|two_waiters_close_a_cycle"
  "two_victims|shuttle|cycle_has_one_victim"
  "grant_after_timeout|loom|timeout_vs_grant"
  "grant_after_timeout|shuttle|random_mix_of_commands"
)

# run BUG HARNESS TEST: builds, then runs the one test in a child process; prints the
# exit status and the run's seconds; the log goes to $logdir.
run() {
  local bug=$1 h=$2 t=$3 log rc start
  log=$logdir/${bug:-clean}-$h-$t.log
  local -a cmd
  if [ "$h" = loom ]; then
    cmd=(env RUSTFLAGS="$loomflags" cargo test -q -p mdl-proofs --release --test loom)
  else
    cmd=(env -u RUSTFLAGS cargo test -q -p mdl-proofs --release --features shuttle --test shuttle)
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
  secs=$(echo "$(date +%s.%N) - $start" | bc)
  echo "$rc $secs"
}

selected() {
  local bug=$1 h=$2
  if [ -n "$only" ] && [[ ",$only," != *",$bug,"* ]]; then return 1; fi
  [ "$harness" = both ] || [ "$harness" = "$h" ]
}

fail=0
caught_list=""
# Bug-free: every selected test passes.
declare -A clean_done
for e in "${entries[@]}"; do
  IFS='|' read -r bug h t <<<"$e"
  selected "$bug" "$h" || continue
  [ -n "${clean_done[$h-$t]:-}" ] && continue
  clean_done[$h-$t]=1
  read -r rc secs < <(run "" "$h" "$t")
  if [ "$rc" = 0 ]; then
    echo "ok   clean: $h $t passes (${secs}s)"
  else
    echo "!!!  clean: $h $t FAILS without a bug (exit $rc; $logdir/clean-$h-$t.log)"
    tail -30 "$logdir/clean-$h-$t.log"
    fail=1
  fi
done

declare -A caught
for e in "${entries[@]}"; do
  IFS='|' read -r bug h t <<<"$e"
  selected "$bug" "$h" || continue
  read -r rc secs < <(run "$bug" "$h" "$t")
  log=$logdir/$bug-$h-$t.log
  if [ "$rc" != 0 ] && [ "$rc" != 2 ]; then
    how=$(grep -m1 -oE "proof [a-z_]+: FAILED.*" "$log" || true)
    echo "ok   $bug: caught by $h $t (exit $rc, ${secs}s) ${how}"
    caught[$bug]=1
  else
    echo "!!!  $bug: NOT caught by $h $t (exit $rc; $log)"
    fail=1
  fi
done
for e in "${entries[@]}"; do
  IFS='|' read -r bug h _ <<<"$e"
  selected "$bug" "$h" || continue
  if [ -z "${caught[$bug]:-}" ]; then
    echo "!!!  $bug: caught by no harness"
    fail=1
  fi
done
# Leave mdl-core built without a bug (the next bug-free run need not rebuild it).
env -u MDL_BUG RUSTFLAGS="$loomflags" cargo test -q -p mdl-proofs --release --test loom --no-run \
  >/dev/null 2>&1 || true
[ "$fail" = 0 ] && echo "=== every seeded bug was caught" || echo "=== seeded proofs FAILED"
exit $fail
