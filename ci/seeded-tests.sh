#!/usr/bin/env bash
# Seeded bugs caught by a test of their own: the registry's catches of harness `test`
# (ci/registry/src/bugs.rs; `mdl-ci bugs --harness test`). Each names a test compiled only
# with the bug (`#[cfg(mdl_bug = "NAME")]`) that asserts the harness reports it (the
# engines disagree, the statement matrix differs, a SQL scenario differs from the server);
# its bug-free counterpart runs in the ordinary steps. For each: build with MDL_BUG=NAME
# (the crates' build scripts turn it into --cfg mdl_bug="NAME") into target/seeded, run
# exactly that test with the catch's environment, and require that it ran and passed.
#
#   MDL_SEEDED_BUGS=a,b   only these bugs (an unregistered name fails)
#   MDL_BUG_TARGET_ROOT   holds the seeded target dir (default: CARGO_TARGET_DIR, target/)
#
# A catch that needs the MariaDB server (MDL_CONFORM=1) installs it like ci/conformance.sh;
# when that is impossible the script exits 77 (a failure unless MDL_ALLOW_SKIP names the
# step). Exit 1 when a bug is missed or nothing ran.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 2
# shellcheck source=ci/lib/registry.sh
. "$root/ci/lib/registry.sh" || exit 2
# shellcheck source=ci/lib/mariadb.sh
. "$root/ci/lib/mariadb.sh" || exit 2
unset MDL_BUG
target=${MDL_BUG_TARGET_ROOT:-${CARGO_TARGET_DIR:-$root/target}}/seeded

# NAME HARNESS PACKAGE FILE TEST ENV LAYER, one line per catch.
if ! rows=$(mdl_ci bugs --harness test --only "${MDL_SEEDED_BUGS:-}"); then
  echo "!!! no seeded bug to run (mdl-ci bugs --harness test --only '${MDL_SEEDED_BUGS:-}')"
  exit 1
fi
if printf '%s\n' "$rows" | cut -f6 | grep -q 'MDL_CONFORM=1'; then
  ensure_mariadb || exit $?
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
fail=0
total=0
caught=0
while IFS=$'\t' read -r bug _ pkg file t env _; do
  total=$((total + 1))
  test_target=$(basename "$file" .rs)
  envs=()
  [ "$env" = - ] || read -r -a envs <<<"$env"
  echo "=== mdl_bug=\"$bug\": $pkg --test $test_target $t ${envs[*]}"
  start=$(date +%s)
  env "${envs[@]}" MDL_BUG="$bug" CARGO_TARGET_DIR="$target" \
    cargo test -p "$pkg" --test "$test_target" -- --exact "$t" --nocapture >"$log" 2>&1
  rc=$?
  grep -E '^(test |running )' "$log"
  if [ "$rc" != 0 ]; then
    tail -n 30 "$log"
    echo "!!! $bug: NOT caught: the seeded test $t failed (exit $rc)"
    fail=1
  elif ! grep -qE '^running 1 test$' "$log"; then
    echo "!!! $bug: the seeded test $t did not run (is it cfg'd on mdl_bug = \"$bug\"?)"
    fail=1
  else
    caught=$((caught + 1))
    echo "--- caught: $bug by $t ($file) in $(($(date +%s) - start))s"
  fi
done <<<"$rows"
echo "MDL_COUNT: $caught seeded bugs caught"
if [ "$total" = 0 ]; then
  echo "!!! no seeded bug was run"
  fail=1
fi
[ "$fail" = 0 ] && echo "=== every seeded bug ($caught/$total) was caught by its test"
exit $fail
