#!/usr/bin/env bash
# Conformance with a real MariaDB server (models/conformance/README.md).
#
# Quick set (default): the SQL scenarios of models/conformance/*.mdl on a throwaway
# server and on our manager (tests/conform_server.rs with MDL_CONFORM=1), plus the
# offline checks (the learned table parses, predictions match the measured matrix).
# MDL_CONFORM_FULL=1 also re-measures the statement matrix and re-learns the statement
# table into target/conform/ and diffs them against the committed files. (The harness's
# seeded bugs are run by ci/seeded-tests.sh, from the registry.)
#
# Installs mariadb-server with apt-get when mariadbd is missing (ci/lib/mariadb.sh); when
# that is impossible it exits 77, which fails the step unless MDL_ALLOW_SKIP=conformance.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 2
target=${CARGO_TARGET_DIR:-$root/target}
# shellcheck source=ci/lib/mariadb.sh
. "$root/ci/lib/mariadb.sh" || exit 2
unset MDL_BUG
ensure_mariadb || exit $?

fail=0
echo "=== quick SQL set and offline checks"
start=$(date +%s)
# Not -q: the step's check (mdl-ci ran) needs cargo's lines naming each test binary.
if ! MDL_CONFORM=1 cargo test -p mdl-conform --test conform_server --test conform_mapping \
    --test conform_matrix -- --nocapture; then
  fail=1
fi
echo "=== quick set took $(( $(date +%s) - start ))s"

if [ "${MDL_CONFORM_FULL:-0}" = 1 ]; then
  mkdir -p "$target/conform"
  # shellcheck source=ci/lib/mdl.sh
  . "$root/ci/lib/mdl.sh" || exit 2
  mdl=$(mdl_bin debug) || exit 1
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
fi
exit $fail
