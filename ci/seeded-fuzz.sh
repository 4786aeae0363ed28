#!/usr/bin/env bash
# The differential harness must catch its seeded bugs: the registry's catches of harness
# `differential` (ci/registry/src/bugs.rs; `mdl-ci bugs --harness differential`). For each
# bug, build with MDL_BUG=NAME (the crates' build scripts turn it into
# --cfg mdl_bug="NAME"; dependencies are not rebuilt), run the proptest
# (models/scenario/tests/prop_sequence.rs) and the `sequence` fuzz target within the quick
# budget, and require both to fail; without the bug both must pass. Prints the time each
# took. The fuzz builds use `-s none` in their own target directory: the seeded bugs are
# logic errors, and without AddressSanitizer the target runs 4-7 times faster (measured
# 2026-12-03: `fifo` after 8,346 executions took 60 s with it, 11,134 took 10 s without),
# which keeps the time to find far below the budget on a loaded machine.
#
#   MDL_SEEDED_FUZZ_SECONDS  fuzz budget of a run with a seeded bug (default 120): the
#                      run stops at the first disagreement, so the budget is spent only
#                      when the bug is missed (a harness that misses its seeded bug for
#                      want of time shows nothing; on a loaded machine `fifo` needed more
#                      than 15 s)
#   MDL_FUZZ_SECONDS   fuzz budget of the bug-free run (default 15, never under 15)
#   MDL_SEEDED_BUGS=a,b  only these bugs (an unregistered name fails)
#   MDL_BUG_TARGET_ROOT  the proptest builds with a bug go to its seeded/ (default
#                      CARGO_TARGET_DIR, target/), shared with the other seeded steps, so
#                      that the bug-free build of target/ is not rebuilt
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
# shellcheck source=ci/lib/registry.sh
. "$root/ci/lib/registry.sh" || exit 2
unset MDL_BUG
clean_secs="${MDL_FUZZ_SECONDS:-15}"
[ "$clean_secs" -ge 15 ] 2>/dev/null || clean_secs=15
bug_secs="${MDL_SEEDED_FUZZ_SECONDS:-120}"
if ! bugs=$(mdl_ci bugs --harness differential --only "${MDL_SEEDED_BUGS:-}" --format names); then
    echo "!!! no seeded bug to run (mdl-ci bugs --harness differential --only '${MDL_SEEDED_BUGS:-}')"
    exit 1
fi
base="${CARGO_TARGET_DIR:-$root/target}"
seeded="${MDL_BUG_TARGET_ROOT:-$base}/seeded"
# Logs and scratch corpora, kept for a look after a miss.
scratch="$base/verify/seeded-fuzz"
rm -rf "$scratch" && mkdir -p "$scratch"
status=0

if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install --locked cargo-fuzz
fi

now() { date +%s.%N; }
# with_bug NAME-OR-EMPTY: MDL_BUG=NAME, or no MDL_BUG at all (an empty one is another
# value to cargo, and would rebuild the bug-free builds of the other steps).
with_bug() {
    if [ -n "$1" ]; then export MDL_BUG="$1"; else unset MDL_BUG; fi
}
took() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", b - a }'; }

# run_prop NAME-OR-EMPTY -> 0 the proptest ran and passed, 1 it ran and failed, 2 it did
# not run (a build failure, or no test matched)
run_prop() {
    local bug="$1" dir="$base" log="$scratch/prop-$1.log" rc
    [ -z "$bug" ] || dir="$seeded"
    ( cd "$root" && with_bug "$bug" && CARGO_TARGET_DIR="$dir" \
        cargo test -q -p mdl-scenario --test prop_sequence >"$log" 2>&1 )
    rc=$?
    if ! grep -qE '^running [1-9][0-9]* tests?$' "$log"; then
        tail -20 "$log"; echo "   proptest: no test ran (exit $rc)"; return 2
    fi
    [ "$rc" = 0 ] && return 0
    grep -qE '^test result: FAILED' "$log" && return 1
    return 2
}

# run_fuzz NAME-OR-EMPTY -> exit status of `cargo fuzz run sequence`
run_fuzz() {
    local bug="$1" dir="$base/fuzz-seeded" secs="$bug_secs"
    [ -n "$bug" ] || secs="$clean_secs"
    rm -rf "$scratch/corpus-$bug" && mkdir -p "$scratch/corpus-$bug"
    ( cd "$root/fuzz" && with_bug "$bug" && CARGO_TARGET_DIR="$dir" cargo +nightly fuzz build -s none sequence \
        >"$scratch/fuzz-build-$bug.log" 2>&1 ) || { tail -20 "$scratch/fuzz-build-$bug.log"; return 2; }
    local start; start="$(now)"
    ( cd "$root/fuzz" && with_bug "$bug" && CARGO_TARGET_DIR="$dir" cargo +nightly fuzz run -s none sequence \
        "$scratch/corpus-$bug" corpus/sequence -- -max_total_time="$secs" -seed=1 \
        -artifact_prefix="$scratch/" >"$scratch/fuzz-$bug.log" 2>&1 )
    local rc=$?
    FUZZ_TOOK="$(took "$start")"
    return $rc
}

caught=0
for bug in $bugs; do
    echo "== seeded bug $bug"
    missed=0
    # Build first so that the time measured is the search, not the compile.
    ( cd "$root" && with_bug "$bug" && CARGO_TARGET_DIR="$seeded" \
        cargo test -q -p mdl-scenario --test prop_sequence --no-run >/dev/null 2>&1 )
    start="$(now)"
    run_prop "$bug"
    rc=$?
    if [ "$rc" != 1 ]; then
        echo "   proptest: MISSED the bug (exit $rc)"; status=1; missed=1
    else
        echo "   proptest: caught it ($(took "$start"), including shrinking)"
        grep -m1 -E "^(outcome|events|lock|session).*differ" "$scratch/prop-$bug.log" | sed 's/^/     /' || true
    fi
    if run_fuzz "$bug"; then
        tail -5 "$scratch/fuzz-$bug.log"
        echo "   fuzz sequence: MISSED the bug in ${bug_secs}s ($scratch/fuzz-$bug.log)"; status=1; missed=1
    elif grep -q "disagree" "$scratch/fuzz-$bug.log"; then
        # Wall time includes any rebuild by `cargo fuzz run`; libFuzzer's own count of
        # executions before the crash is the time-to-find.
        execs="$(grep -E '^#[0-9]+' "$scratch/fuzz-$bug.log" | tail -1 | cut -d' ' -f1)"
        echo "   fuzz sequence: caught it ($FUZZ_TOOK wall; after ${execs:-?} executions)"
    else
        tail -20 "$scratch/fuzz-$bug.log"; echo "   fuzz sequence: failed for another reason"; status=1; missed=1
    fi
    [ "$missed" = 1 ] || caught=$((caught + 1))
done

echo "== without a seeded bug"
if run_prop ""; then echo "   proptest: passes"; else tail -30 "$scratch/prop-.log"; echo "   proptest: FAILS"; status=1; fi
if run_fuzz ""; then echo "   fuzz sequence: no crash in ${clean_secs}s"; else tail -30 "$scratch/fuzz-.log"; echo "   fuzz sequence: CRASH"; status=1; fi
echo "MDL_COUNT: $caught seeded bugs caught"
exit "$status"
