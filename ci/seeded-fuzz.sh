#!/usr/bin/env bash
# The differential harness must catch its seeded bugs: for each bug, build with
# MDL_BUG=NAME (the crates' build scripts turn it into --cfg mdl_bug="NAME"; dependencies
# are not rebuilt), run the proptest
# (tests/prop_sequence.rs) and the `sequence` fuzz target within the quick budget, and
# require both to fail; without the bug both must pass. Prints the time each took. The
# fuzz builds use `-s none`: the seeded bugs are logic errors, and no sanitizer is needed.
#
#   MDL_SEEDED_FUZZ_SECONDS  fuzz budget per run (default MDL_FUZZ_SECONDS, else 15; never
#                      under 15: the tiny nightly's 5 s fuzz budget is too short for `fifo`,
#                      and a harness that misses its seeded bug for want of time shows
#                      nothing)
#   MDL_SEEDED_BUGS    bugs to check (default "pending_cell fifo")
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
secs="${MDL_SEEDED_FUZZ_SECONDS:-${MDL_FUZZ_SECONDS:-15}}"
[ "$secs" -ge 15 ] 2>/dev/null || secs=15
bugs="${MDL_SEEDED_BUGS:-pending_cell fifo}"
base="${CARGO_TARGET_DIR:-$root/target}"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
status=0

if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install --locked cargo-fuzz
fi

now() { date +%s.%N; }
took() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", b - a }'; }

# run_prop NAME-OR-EMPTY -> exit status of the proptest
run_prop() {
    local bug="$1" dir="$base"
    ( cd "$root" && MDL_BUG="$bug" CARGO_TARGET_DIR="$dir" \
        cargo test -q -p mdl-scenario --test prop_sequence >"$scratch/prop-$bug.log" 2>&1 )
}

# run_fuzz NAME-OR-EMPTY -> exit status of `cargo fuzz run sequence`
run_fuzz() {
    local bug="$1" dir="$base/fuzz-seeded"
    rm -rf "$scratch/corpus-$bug" && mkdir -p "$scratch/corpus-$bug"
    ( cd "$root/fuzz" && MDL_BUG="$bug" CARGO_TARGET_DIR="$dir" cargo +nightly fuzz build -s none sequence \
        >"$scratch/fuzz-build-$bug.log" 2>&1 ) || { tail -20 "$scratch/fuzz-build-$bug.log"; return 2; }
    local start; start="$(now)"
    ( cd "$root/fuzz" && MDL_BUG="$bug" CARGO_TARGET_DIR="$dir" cargo +nightly fuzz run -s none sequence \
        "$scratch/corpus-$bug" corpus/sequence -- -max_total_time="$secs" -seed=1 \
        -artifact_prefix="$scratch/" >"$scratch/fuzz-$bug.log" 2>&1 )
    local rc=$?
    FUZZ_TOOK="$(took "$start")"
    return $rc
}

for bug in $bugs; do
    echo "== seeded bug $bug"
    # Build first so that the time measured is the search, not the compile.
    ( cd "$root" && MDL_BUG="$bug" CARGO_TARGET_DIR="$base" \
        cargo test -q -p mdl-scenario --test prop_sequence --no-run >/dev/null 2>&1 )
    start="$(now)"
    if run_prop "$bug"; then
        echo "   proptest: MISSED the bug"; status=1
    else
        echo "   proptest: caught it ($(took "$start"), including shrinking)"
        grep -m1 -E "^(outcome|events|lock|session).*differ" "$scratch/prop-$bug.log" | sed 's/^/     /' || true
    fi
    if run_fuzz "$bug"; then
        echo "   fuzz sequence: MISSED the bug in ${secs}s"; status=1
    elif grep -q "disagree" "$scratch/fuzz-$bug.log"; then
        # Wall time includes any rebuild by `cargo fuzz run`; libFuzzer's own count of
        # executions before the crash is the time-to-find.
        execs="$(grep -E '^#[0-9]+' "$scratch/fuzz-$bug.log" | tail -1 | cut -d' ' -f1)"
        echo "   fuzz sequence: caught it ($FUZZ_TOOK wall; after ${execs:-?} executions)"
    else
        tail -20 "$scratch/fuzz-$bug.log"; echo "   fuzz sequence: failed for another reason"; status=1
    fi
done

echo "== without a seeded bug"
if run_prop ""; then echo "   proptest: passes"; else tail -30 "$scratch/prop-.log"; echo "   proptest: FAILS"; status=1; fi
if run_fuzz ""; then echo "   fuzz sequence: no crash in ${secs}s"; else tail -30 "$scratch/fuzz-.log"; echo "   fuzz sequence: CRASH"; status=1; fi
exit "$status"
