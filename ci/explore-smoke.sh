#!/usr/bin/env bash
# Checks that `mdl explore` serves stateright's Explorer on loopback: the page, the model's
# status JSON (with our property names) and the initial states. This is how the Explorer
# was checked (no headless Chromium on the quick path): curl against 127.0.0.1 only.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 2
# shellcheck source=ci/lib/mdl.sh
. "$root/ci/lib/mdl.sh" || exit 2
bin=$(mdl_bin debug) || exit 1
# A port of our own: MDL_EXPLORE_PORT, else random ones until our server holds one (other
# jobs on this machine may run this script at the same time).
pid=""
trap '[ -z "$pid" ] || kill $pid 2>/dev/null' EXIT
for _ in 1 2 3 4 5; do
  port=${MDL_EXPLORE_PORT:-$((20000 + RANDOM % 20000))}
  "$bin" explore models/scenarios/lock-tables-deadlock.mdl --addr "127.0.0.1:$port" >/dev/null 2>&1 &
  pid=$!
  for _ in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || break
    curl -s -o /dev/null "http://127.0.0.1:$port/" && break
    sleep 0.1
  done
  kill -0 "$pid" 2>/dev/null && break
  pid=""
done
if [ -z "$pid" ]; then
  echo "explore: mdl explore did not start (no free port?)"
  exit 1
fi
fail=0
# Each answer is read whole before it is searched: `curl | grep -q` under pipefail fails
# when grep stops reading a large page early (curl dies of SIGPIPE).
page=$(curl -s "http://127.0.0.1:$port/")
status=$(curl -s "http://127.0.0.1:$port/.status")
states=$(curl -s "http://127.0.0.1:$port/.states/")
grep -q "Stateright Explorer" <<<"$page" || { echo "explore: no Explorer page"; fail=1; }
grep -q '"no lost wakeup"' <<<"$status" || { echo "explore: no status JSON"; fail=1; }
grep -q 'sessions:' <<<"$states" || { echo "explore: no initial states (as a lock table)"; fail=1; }
[ $fail = 0 ] && echo "explore: page, status and states served on 127.0.0.1:$port"
exit $fail
