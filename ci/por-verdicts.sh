#!/usr/bin/env bash
# Partial-order and symmetry reduction change no verdict: every scenario is checked with
# `mdl check` in five configurations (the default: BFS with symmetry and partial-order
# reduction; --no-por; --no-symmetry; --no-por --no-symmetry; --dfs) and every property's
# status must be the same in all five.
#
#   ci/por-verdicts.sh [MDL_BINARY]
#
# Scenarios: models/scenarios, models/mdl/tests/check_scenarios, and with MDL_POR_SCALE=1
# also models/scale (all but many30.mdl, which never finishes; same8.mdl only with a
# reduction on). MDL_BINARY defaults to a fresh debug build. Exit 0: identical verdicts
# everywhere; 1: some file differs (listed) or a run failed; 2: no scenario found.
# ci/seeded-model.sh runs it on every seeded-bug build; with the seeded bug
# `por_release_independent` it must fail (on tests/check_scenarios/por_release.mdl).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 2
bin=${1:-}
if [ -z "$bin" ]; then
  cargo build -q -p mdl --bin mdl || exit 1
  bin=${CARGO_TARGET_DIR:-$root/target}/debug/mdl
fi
files=(models/scenarios/*.mdl models/mdl/tests/check_scenarios/*.mdl)
if [ "${MDL_POR_SCALE:-0}" = 1 ]; then
  for f in models/scale/*.mdl; do
    [ "$(basename "$f")" = many30.mdl ] || files+=("$f")
  done
fi
if [ ${#files[@]} -lt 10 ]; then
  echo "por-verdicts: too few scenarios found (${#files[@]})"
  exit 2
fi
configs=("" "--no-por" "--no-symmetry" "--no-por --no-symmetry" "--dfs")
verdicts() {
  # One line: each property's status, in order (a run that gives no JSON, or exits 2,
  # fails; exit 1 and 3 are verdicts).
  local json rc
  # shellcheck disable=SC2086
  json=$("$bin" check --quiet --format json $2 "$1" 2>/dev/null)
  rc=$?
  [ "$rc" = 2 ] && return 1
  printf '%s' "$json" | python3 -c '
import json, sys
text = sys.stdin.read().strip()
if not text:
    sys.exit(1)
docs = [json.loads(l) for l in text.splitlines()] if text.startswith("{") and "\n{" in text else [json.loads(text)]
d = docs[0] if isinstance(docs[0], dict) else docs[0][0]
print(" ".join(p["status"] for p in d["properties"]), "|", d["unique_states"])
'
}
fail=0
n=0
for f in "${files[@]}"; do
  base=""
  line="$(basename "$f"):"
  for c in "${configs[@]}"; do
    if [ "$(basename "$f")" = same8.mdl ] && [ "$c" = "--no-por --no-symmetry" ]; then
      continue
    fi
    out=$(verdicts "$f" "$c") || { echo "!!! $f ${c:-default}: no result"; fail=1; continue; }
    v=${out% |*}
    states=${out##*| }
    line="$line ${c:-default}=$states"
    if [ -z "$base" ]; then
      base=$v
    elif [ "$v" != "$base" ]; then
      echo "!!! $f: ${c:-default} gives [$v], the default gives [$base]"
      fail=1
    fi
  done
  echo "$line"
  n=$((n + 1))
done
echo "MDL_COUNT: $n files, $([ $fail = 0 ] && echo 'identical verdicts' || echo 'verdicts DIFFER')"
exit $fail
