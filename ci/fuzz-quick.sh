#!/usr/bin/env bash
# Quick fuzzing: builds every cargo-fuzz target with the nightly toolchain and runs each
# for a short budget; fails on any crash. Artifacts (crashing inputs) go under
# fuzz/artifacts/TARGET/ (ignored by git); new corpus entries go to a scratch folder, so
# the committed seeds in fuzz/corpus/ stay as they are.
#
#   MDL_FUZZ_SECONDS   seconds per target (default 15)
#   CARGO_TARGET_DIR   where to build (default fuzz/target)
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
secs="${MDL_FUZZ_SECONDS:-15}"

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "== installing cargo-fuzz"
    cargo install --locked cargo-fuzz
fi

echo "== building the fuzz targets (nightly)"
cargo +nightly fuzz build

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
status=0
for t in $(cargo +nightly fuzz list); do
    mkdir -p "corpus/$t" "artifacts/$t" "$scratch/$t"
    extra=()
    if [ -f "dict/$t.dict" ]; then extra+=("-dict=dict/$t.dict"); fi
    case $t in scenario_parser | cli) extra+=("-dict=dict/scenario.dict") ;; esac
    echo "== $t for ${secs}s"
    if cargo +nightly fuzz run "$t" "$scratch/$t" "corpus/$t" -- \
        -max_total_time="$secs" -print_final_stats=1 "${extra[@]}" 2>"$scratch/$t.log"; then
        grep -E "stat::number_of_executed_units|stat::average_exec_per_sec" "$scratch/$t.log" || true
        echo "   $t: no crash"
    else
        tail -40 "$scratch/$t.log"
        echo "   $t: CRASH (input under fuzz/artifacts/$t/)"
        status=1
    fi
done
exit "$status"
