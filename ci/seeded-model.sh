#!/usr/bin/env bash
# Seeded bugs of the model checker: every property `mdl check` claims can fail.
#
# The bugs are the registry's catches of harness `check` (ci/registry/src/bugs.rs; `mdl-ci
# bugs --harness check`): a scenario of models/mdl/tests/check_scenarios/ and the property
# that must be violated on it. For each: `mdl check` on the scenario exits 0 without the
# bug; built with MDL_BUG=NAME (every crate's build script turns it into
# `--cfg mdl_bug="NAME"`, so dependencies are not rebuilt) into target/seeded, it exits 1
# with that property violated; and the cfg'd test of models/mdl/tests/check_model.rs passes
# with at least one test run (MDL_SEEDED_MODEL_TESTS=0 leaves the tests out).
#
# Environment: MDL_SEEDED_BUGS=a,b runs only those (an unregistered name fails);
# MDL_BUG_TARGET_ROOT (default: target/) holds the seeded target dir; CARGO_TARGET_DIR
# (default: target/) is the bug-free build. Exit 1 when a bug is missed or nothing ran.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 2
# shellcheck source=ci/lib/registry.sh
. "$root/ci/lib/registry.sh" || exit 2
unset MDL_BUG
scen=models/mdl/tests/check_scenarios
bugroot=${MDL_BUG_TARGET_ROOT:-${CARGO_TARGET_DIR:-$root/target}}
clean_target=${CARGO_TARGET_DIR:-$root/target}
tests=${MDL_SEEDED_MODEL_TESTS:-1}

# NAME HARNESS PACKAGE FILE TEST ENV LAYER, one line per catch.
if ! rows=$(mdl_ci bugs --harness check --only "${MDL_SEEDED_BUGS:-}"); then
  echo "!!! no seeded bug to run (mdl-ci bugs --harness check --only '${MDL_SEEDED_BUGS:-}')"
  exit 1
fi

fail=0
echo "=== bug-free build ($clean_target)"
# shellcheck source=ci/lib/mdl.sh
. "$root/ci/lib/mdl.sh" || exit 2
if ! clean_bin=$(CARGO_TARGET_DIR=$clean_target MDL_TARGET=$clean_target mdl_bin debug); then
  echo "!!! the bug-free build failed"
  exit 1
fi
caught=0
total=0
target=$bugroot/seeded
log=$(mktemp)
trap 'rm -f "$log"' EXIT
while IFS=$'\t' read -r bug _ _ file prop _ _; do
  total=$((total + 1))
  echo "=== mdl_bug=\"$bug\": expect '$prop' violated on $file ($target)"
  "$clean_bin" check --quiet "$scen/$file"
  rc=$?
  if [ "$rc" != 0 ]; then
    echo "!!! without the bug, mdl check $file exits $rc (want 0)"
    fail=1
  fi
  # One build per bug: the cfg'd test and the `mdl` binary it runs (cargo builds the
  # package's binary for its integration tests), the binary's path from cargo itself.
  bin=$(MDL_BUG=$bug CARGO_TARGET_DIR=$target \
    cargo test -q -p mdl --test check_model --no-run --message-format=json-render-diagnostics 2>"$log" |
    grep '"kind":\["bin"\]' | grep '"name":"mdl"' | grep '"test":false' | grep -o '"executable":"[^"]*"' |
    sed -E 's/"executable":"(.*)"/\1/' | tail -n 1)
  if [ -z "$bin" ] || [ ! -x "$bin" ]; then
    tail -n 30 "$log"
    echo "!!! the build with mdl_bug=\"$bug\" failed"
    fail=1
    continue
  fi
  out=$("$bin" check "$scen/$file" 2>&1)
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
    MDL_BUG=$bug CARGO_TARGET_DIR=$target cargo test -p mdl --test check_model >"$log" 2>&1
    rc=$?
    grep -E '^test (seeded|result)' "$log"
    if [ "$rc" != 0 ] || ! mdl_ci ran --step seeded-model --no-plan "$log"; then
      tail -n 30 "$log"
      echo "!!! the seeded test for mdl_bug=\"$bug\" failed (exit $rc) or ran no test"
      fail=1
      continue
    fi
  fi
  caught=$((caught + 1))
  echo "--- caught: mdl_bug=\"$bug\" -> '$prop' violated (exit 1), bug-free exit 0"
done <<<"$rows"
echo "MDL_COUNT: $caught seeded bugs caught"
if [ "$total" = 0 ]; then
  echo "!!! no seeded bug was run"
  fail=1
fi
[ "$fail" = 0 ] && echo "=== every seeded bug ($caught/$total) was caught"
exit $fail
