#!/usr/bin/env bash
# Seeded bugs of the model checker: every property `mdl check` claims can fail.
#
# For each bug: build `mdl` with MDL_BUG=NAME (the crates' build scripts turn it into
# `--cfg mdl_bug="NAME"`, so dependencies are not rebuilt) into target/seeded,
# and show that `mdl check` on the chosen scenario exits 1 (violated) with the bug and 0
# without it; then run the cfg'd test of models/mdl/tests/check_model.rs that names the
# property it expects to fail (MDL_SEEDED_MODEL_TESTS=0 skips the tests).
#
#   bug                     property that catches it   scenario
#   skip_second_waiter      no lost wakeup             lost_wakeup.mdl
#   grant_ignores_conflict  no conflicting grants      two_readers_wake.mdl
#   no_deadlock_detection   no stuck state             deadlock_plain.mdl
#   false_deadlock          no false deadlock          chain.mdl
#   heaviest_victim         assert never s2 deadlock   victim_dml.mdl
#
# Environment: MDL_SEEDED_BUGS=a,b runs only those; MDL_BUG_TARGET_ROOT (default: target/) holds the bug-NAME target dirs;
# CARGO_TARGET_DIR (default: target/) is the bug-free build.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 2
scen=models/mdl/tests/check_scenarios
bugroot=${MDL_BUG_TARGET_ROOT:-${CARGO_TARGET_DIR:-$root/target}}
clean_target=${CARGO_TARGET_DIR:-$root/target}
tests=${MDL_SEEDED_MODEL_TESTS:-1}
# MDL_SEEDED_BUGS=a,b runs only those bugs.
only=${MDL_SEEDED_BUGS:-}

bugs=(
  "skip_second_waiter|no lost wakeup|lost_wakeup.mdl"
  "grant_ignores_conflict|no conflicting grants|two_readers_wake.mdl"
  "no_deadlock_detection|no stuck state|deadlock_plain.mdl"
  "false_deadlock|no false deadlock|chain.mdl"
  "heaviest_victim|assert never s2 deadlock|victim_dml.mdl"
)

fail=0
echo "=== bug-free build ($clean_target)"
if ! CARGO_TARGET_DIR=$clean_target cargo build -q -p mdl --bin mdl; then
  echo "!!! the bug-free build failed"
  exit 1
fi
clean_bin=$clean_target/debug/mdl
caught=0
for entry in "${bugs[@]}"; do
  IFS='|' read -r bug prop file <<<"$entry"
  if [ -n "$only" ] && [[ ",$only," != *",$bug,"* ]]; then
    continue
  fi
  target=$bugroot/seeded
  echo "=== mdl_bug=\"$bug\": expect '$prop' violated on $file ($target)"
  "$clean_bin" check --quiet "$scen/$file"
  rc=$?
  if [ "$rc" != 0 ]; then
    echo "!!! without the bug, mdl check $file exits $rc (want 0)"
    fail=1
  fi
  if ! MDL_BUG=$bug CARGO_TARGET_DIR=$target \
    cargo build -q -p mdl --bin mdl; then
    echo "!!! the build with mdl_bug=\"$bug\" failed"
    fail=1
    continue
  fi
  out=$("$target/debug/mdl" check "$scen/$file" 2>&1)
  rc=$?
  printf '%s\n' "$out" | sed -n '1,12p'
  if [ "$rc" != 1 ]; then
    echo "!!! with mdl_bug=\"$bug\", mdl check $file exits $rc (want 1)"
    fail=1
    continue
  fi
  if ! printf '%s\n' "$out" | grep -E "^  $prop.* violated$" >/dev/null; then
    echo "!!! with mdl_bug=\"$bug\", '$prop' is not the violated property"
    fail=1
    continue
  fi
  if [ "$tests" != 0 ]; then
    if ! MDL_BUG=$bug CARGO_TARGET_DIR=$target \
      cargo test -q -p mdl --test check_model 2>&1 | tail -n 3; then
      echo "!!! the seeded test for mdl_bug=\"$bug\" failed"
      fail=1
      continue
    fi
  fi
  caught=$((caught + 1))
  echo "--- caught: mdl_bug=\"$bug\" -> '$prop' violated (exit 1), bug-free exit 0"
done
echo "MDL_COUNT: $caught seeded bugs caught"
exit $fail
