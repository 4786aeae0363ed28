#!/usr/bin/env bash
# Conformance with a real MariaDB server (models/conformance/README.md).
#
# Quick set (default): the SQL scenarios of models/conformance/*.mdl on a throwaway
# server and on our manager (tests/conform_server.rs with MDL_CONFORM=1), plus the
# offline checks (the learned table parses, predictions match the measured matrix).
# MDL_CONFORM_FULL=1 also re-measures the statement matrix and re-learns the statement
# table into target/conform/ and diffs them against the committed files, and runs the two
# seeded bugs of the harness (each a RUSTFLAGS build into its own target dir).
#
# Installs mariadb-server with apt-get when mariadbd is missing; when that is impossible
# it says so and exits 0 (skipped).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 2
target=${CARGO_TARGET_DIR:-$root/target}

if ! command -v mariadbd >/dev/null 2>&1 && [ ! -x /usr/sbin/mariadbd ]; then
  echo "conformance: mariadbd not found; installing mariadb-server"
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    if ! { apt-get update -qq && apt-get install -y -qq mariadb-server >/dev/null; }; then
      echo "conformance: SKIPPED: apt-get could not install mariadb-server"
      exit 0
    fi
  else
    echo "conformance: SKIPPED: mariadb-server is not installed and cannot be (needs root and apt-get)"
    exit 0
  fi
fi
export PATH="$PATH:/usr/sbin"

fail=0
echo "=== quick SQL set and offline checks"
start=$(date +%s)
if ! MDL_CONFORM=1 cargo test -q -p mdl-conform --test conform_server --test conform_mapping \
    --test conform_matrix -- --nocapture; then
  fail=1
fi
echo "=== quick set took $(( $(date +%s) - start ))s"

if [ "${MDL_CONFORM_FULL:-0}" = 1 ]; then
  mkdir -p "$target/conform"
  cargo build -q -p mdl --bin mdl || exit 1
  mdl="$target/debug/mdl"
  echo "=== re-measure the statement matrix"
  "$mdl" conform --matrix --out "$target/conform/statement-matrix.tsv" || fail=1
  if ! diff <(grep -v '^#' models/conformance/statement-matrix.tsv) \
            <(grep -v '^#' "$target/conform/statement-matrix.tsv"); then
    echo "!!! the measured matrix differs from the committed one"; fail=1
  fi
  echo "=== re-learn the statement table"
  "$mdl" conform --learn --out "$target/conform/statements.tsv" 2>"$target/conform/learn.log" || fail=1
  if ! diff <(grep -v '^#' models/conformance/statements.tsv) \
            <(grep -v '^#' "$target/conform/statements.tsv"); then
    echo "!!! the learned table differs from the committed one"; fail=1
  fi
  # bug|the test file whose cfg'd test must catch it
  for pair in conform_ignore_upgrades\|conform_matrix conform_skip_backoff\|conform_server; do
    bug=${pair%%|*}; test=${pair##*|}
    echo "=== seeded bug $bug (tests/$test.rs)"
    if ! CARGO_TARGET_DIR="$target/bug-$bug" RUSTFLAGS="--cfg mdl_bug=\"$bug\"" MDL_CONFORM=1 \
        cargo test -q -p mdl-conform --test "$test"; then
      echo "!!! the harness missed the seeded bug $bug"; fail=1
    fi
  done
fi
exit $fail
