#!/usr/bin/env bash
# The nightly verification tier: the quick jobs with big budgets (a few hours in all with
# the defaults). Every budget comes from the environment; MDL_NIGHTLY_TINY=1 switches every
# default to a tiny one (a few minutes in all: for trying the job out).
#
#   MDL_PROPTEST_CASES=4096     PROPTEST_CASES for cargo test (tiny: 32)
#   MDL_CHECK_MAX_STATES=20000000  per scenario, release build (tiny: 200000)
#   LOOM_MAX_PREEMPTIONS=4      loom's preemption bound (tiny: 1)
#   MDL_SHUTTLE_ITERS=1000000   shuttle iterations per test and run (tiny: 200)
#   MDL_PCT_DEPTHS="2 3"        one shuttle run per PCT depth (MDL_PCT_DEPTH for proofs.sh)
#   MDL_SHUTTLE_SHARDS=4        seeds split into shards, one step each (tiny: 2);
#   MDL_SHUTTLE_SHARD=K         run only shard K (the hosted matrix sets it)
#   MDL_SHUTTLE_SEED            base seed (default: today's date, YYYYMMDD, so each night
#                               explores new schedules; the summary records it)
#   MDL_RUN_RANDOM=3000         random scenarios of the run-determinism test (tiny: 300)
#   MDL_RUN_REPEAT=50           manager runs per scenario in that test (tiny: 10)
#   MDL_CONFORM_RANDOM_FULL=2000  random SQL scenarios against MariaDB, from seed
#                               MDL_CONFORM_SEED_FULL (default: a new one each night, the
#                               day number times 10,000; printed, and the differences found
#                               kept as the step's artifact found/) (tiny: only the quick
#                               set's MDL_CONFORM_RANDOM, 30); see ci/conformance.sh
#   MDL_FUZZ_SECONDS=1800       per fuzz target, then corpus merge (tiny: 5)
#   MDL_FUZZ_SECONDS_cli=3600   the `cli` fuzz target's own budget (tiny: 5)
#   MDL_FUZZ_TARGETS=a,b        only these fuzz targets (default: every [[bin]] of fuzz/)
#   MDL_FUZZ_MERGE_INTO=DIR     merge new inputs into DIR/T (default fuzz/corpus)
#   MDL_MUTANTS_*               see ci/mutants.sh (tiny: MDL_MUTANTS_TINY=1)
#   MDL_STEP_TIMEOUT=14400      hard limit of any one step, in seconds
# Step selection: MDL_STEPS / MDL_SKIP_STEPS (comma lists of step names or groups: fmt
# clippy test check zoo explore loom shuttle seeded fuzz coverage conformance semver
# mutants).
# Nothing is skipped silently (ci/README.md); MDL_ALLOW_SKIP=a,b accepts that steps a, b
# cannot run here (a tool that cannot exist on this machine).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export MDL_STEP_TIMEOUT=${MDL_STEP_TIMEOUT:-14400}
# shellcheck source=ci/lib/common.sh
. "$here/lib/common.sh" || exit 2
# shellcheck source=ci/lib/mdl.sh
. "$here/lib/mdl.sh" || exit 2
# shellcheck source=ci/lib/fuzz.sh
. "$here/lib/fuzz.sh" || exit 2
cd "$MDL_ROOT" || exit 2

tiny=${MDL_NIGHTLY_TINY:-0}
pick() { # big tiny
  if [ "$tiny" = 1 ]; then echo "$2"; else echo "$1"; fi
}
proptest_cases=${MDL_PROPTEST_CASES:-$(pick 4096 32)}
check_max_states=${MDL_CHECK_MAX_STATES:-$(pick 20000000 200000)}
check_profile=$(pick release debug)
loom_preemptions=${LOOM_MAX_PREEMPTIONS:-$(pick 4 1)}
export MDL_SHUTTLE_ITERS=${MDL_SHUTTLE_ITERS:-$(pick 1000000 200)}
pct_depths=${MDL_PCT_DEPTHS:-2 3}
shards=${MDL_SHUTTLE_SHARDS:-$(pick 4 2)}
seed=${MDL_SHUTTLE_SEED:-$(date -u +%Y%m%d)}
export MDL_FUZZ_SECONDS=${MDL_FUZZ_SECONDS:-$(pick 1800 5)}
export MDL_FUZZ_SECONDS_cli=${MDL_FUZZ_SECONDS_cli:-$(pick 3600 5)}
run_random=${MDL_RUN_RANDOM:-$(pick 3000 300)}
run_repeat=${MDL_RUN_REPEAT:-$(pick 50 10)}
[ "$tiny" = 1 ] && export MDL_MUTANTS_TINY=${MDL_MUTANTS_TINY:-1}
export CARGO_TERM_COLOR=${CARGO_TERM_COLOR:-never}

verify_init nightly
echo "budgets: proptest=$proptest_cases check<=$check_max_states loom=$loom_preemptions" \
  "shuttle=$MDL_SHUTTLE_ITERS pct=[$pct_depths] shards=$shards seed=$seed fuzz=${MDL_FUZZ_SECONDS}s" \
  "tiny=$tiny"

if want_step fmt; then
  run_step fmt "rustfmt check" required "" cargo fmt --all -- --check --color never
fi
if want_step clippy; then
  run_step clippy "-D warnings" required "" \
    cargo clippy --workspace --all-targets -- -D warnings
fi
if want_step test; then
  run_step test "PROPTEST_CASES=$proptest_cases MDL_RUN_RANDOM=$run_random" required \
    '^test result:' env PROPTEST_CASES="$proptest_cases" MDL_RUN_RANDOM="$run_random" \
    MDL_RUN_REPEAT="$run_repeat" cargo test --workspace --no-fail-fast
fi
if want_step check; then
  shopt -s nullglob
  scenarios=(models/scenarios/*.mdl models/scenarios/nightly/*.mdl)
  shopt -u nullglob
  run_step check "${#scenarios[@]} files ($check_profile), max $check_max_states states each" \
    required "" mdl_check_step "$check_profile" "$check_max_states" "${scenarios[@]}"
fi
if want_step zoo; then
  run_step zoo "all designs ($check_profile)" required "" mdl_zoo_step "$check_profile"
fi
if want_step explore; then
  run_script explore "mdl explore on loopback (curl)" required ci/explore-smoke.sh
fi

# loom once with the raised bound; then shuttle per PCT depth and seed shard.
if want_step loom proofs; then
  run_script loom "LOOM_MAX_PREEMPTIONS=$loom_preemptions" required \
    env MDL_PROOFS_PART=loom LOOM_MAX_PREEMPTIONS="$loom_preemptions" ci/proofs.sh
fi
if want_step shuttle proofs; then
  if [ -n "${MDL_SHUTTLE_SHARD:-}" ]; then
    shard_list=$MDL_SHUTTLE_SHARD
  else
    shard_list=$(seq 0 $((shards - 1)))
  fi
  for d in $pct_depths; do
    for k in $shard_list; do
      run_script "shuttle-d$d-s$k" \
        "iters=$MDL_SHUTTLE_ITERS pct=$d seed=$seed shard=$k/$shards" required \
        env MDL_PROOFS_PART=shuttle MDL_PCT_DEPTH="$d" MDL_SHUTTLE_SEED="$seed" \
        MDL_SHUTTLE_SHARD="$k" MDL_SHUTTLE_SHARDS="$shards" LOOM_MAX_PREEMPTIONS=1 \
        ci/proofs.sh
    done
  done
fi
if want_step seeded-model seeded; then
  run_script seeded-model "each seeded bug once" required ci/seeded-model.sh
fi
if want_step seeded-fuzz seeded; then
  run_script seeded-fuzz "each seeded bug" required ci/seeded-fuzz.sh
fi
if want_step seeded-proofs seeded; then
  # Both harnesses (loom and shuttle) at night; tiny: loom only, as in the quick tier.
  run_script seeded-proofs "each seeded bug ($(pick "loom and shuttle" loom))" required \
    env MDL_SEEDED_HARNESS="$(pick both loom)" ci/seeded-proofs.sh
fi
if want_step fuzz; then
  targets=$(fuzz_targets)
  if ! have_nightly; then
    cannot_run fuzz "${MDL_FUZZ_SECONDS}s per target" required \
      "no nightly toolchain (rustup toolchain install nightly)"
  elif [ -z "$targets" ]; then
    echo "<-- [fuzz] FAIL: no fuzz target (fuzz/Cargo.toml [[bin]], MDL_FUZZ_TARGETS=${MDL_FUZZ_TARGETS:-})"
    printf '%s\n' "no fuzz target" >"$LOG_DIR/fuzz.log"
    _record fuzz "${MDL_FUZZ_SECONDS}s per target" required fail "" "" 0 \
      "no fuzz target (fuzz/Cargo.toml [[bin]], MDL_FUZZ_TARGETS)"
  else
    for t in $targets; do
      own="MDL_FUZZ_SECONDS_$t"
      secs=${!own:-$MDL_FUZZ_SECONDS}
      run_step "fuzz-$t" "${secs}s + merge" required "" fuzz_long_step "$t" "$secs"
    done
  fi
fi
if want_step coverage; then
  if have_nightly; then
    run_step coverage "cargo fuzz coverage, every target" optional "" fuzz_coverage_step
  else
    cannot_run coverage "cargo fuzz coverage" optional "no nightly toolchain"
  fi
fi
if want_step conformance; then
  # Tiny: the quick SQL set (the full one learns the whole statement matrix).
  conform_full=$(pick 1 0)
  run_script conformance "$(pick "full SQL set" "quick SQL set")" required \
    env MDL_CONFORM_FULL="$conform_full" ci/conformance.sh
fi
if want_step seeded-tests seeded; then
  run_script seeded-tests "each seeded bug's own test" required ci/seeded-tests.sh
fi
if want_step semver; then
  # The public API against the newest release tag (none before the first release).
  if [ -n "$(git -C "$here/.." tag --list 'mdl-core-v*')" ]; then
    run_script semver "cargo semver-checks against the newest mdl-core-v* tag" optional ci/semver.sh
  else
    cannot_run semver "cargo semver-checks" optional "no mdl-core-v* version tag yet"
  fi
fi
if want_step mutants; then
  run_script mutants "mdl-core decision code${MDL_MUTANTS_TINY:+ (tiny)}" optional ci/mutants.sh
fi

verify_finish
