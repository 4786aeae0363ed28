#!/usr/bin/env bash
# Checks that `mdl explore` serves stateright's Explorer on loopback: the page, the model's
# status JSON (with our property names) and the initial states. This is how the Explorer
# was checked (no headless Chromium on the quick path): curl against 127.0.0.1 only.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 2
port=${MDL_EXPLORE_PORT:-3917}
cargo build -q -p mdl --bin mdl || exit 1
bin=${CARGO_TARGET_DIR:-$root/target}/debug/mdl
"$bin" explore models/scenarios/lock-tables-deadlock.mdl --addr "127.0.0.1:$port" >/dev/null 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null' EXIT
for _ in $(seq 1 100); do
  curl -s -o /dev/null "http://127.0.0.1:$port/" && break
  sleep 0.1
done
fail=0
curl -s "http://127.0.0.1:$port/" | grep -q "Stateright Explorer" || { echo "explore: no Explorer page"; fail=1; }
curl -s "http://127.0.0.1:$port/.status" | grep -q '"no lost wakeup"' || { echo "explore: no status JSON"; fail=1; }
curl -s "http://127.0.0.1:$port/.states/" | grep -q 'LockTable' || { echo "explore: no initial states"; fail=1; }
[ $fail = 0 ] && echo "explore: page, status and states served on 127.0.0.1:$port"
exit $fail
