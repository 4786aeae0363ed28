#!/usr/bin/env bash
# The scale suite's benchmark: `mdl check --format json` over every file of models/scale/,
# one run after another, with the wall time and peak resident memory of the whole command
# (/usr/bin/time) and the machine's load. Not a test: numbers go to models/MODEL.md.
#
#   models/scale/bench.sh [MDL_BINARY] [-- EXTRA_CHECK_ARGS...]
#
# Environment: MDL_SCALE_FILES (default: every models/scale/*.mdl), MDL_SCALE_REPEAT
# (runs per file, default 1), MDL_SCALE_TIMEOUT (seconds per run, default 120),
# MDL_SCALE_VMEM_KB (a `ulimit -v` for each run, default none: set it to keep an old
# binary that runs out of memory from taking the machine down).
# Prints one Markdown table row per run: file, exit, states, unique, seconds (wall, the
# whole command), CPU seconds, states/s (per CPU second of the search when reported),
# bytes/state, peak RSS, load average before the run.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root" || exit 2
bin=${1:-$root/target/release/mdl}
shift || true
[ "${1:-}" = "--" ] && shift
extra=("$@")
if [ ! -x "$bin" ]; then
  cargo build -q --release -p mdl --bin mdl || exit 1
fi
files=${MDL_SCALE_FILES:-$(ls models/scale/*.mdl)}
repeat=${MDL_SCALE_REPEAT:-1}
limit=${MDL_SCALE_TIMEOUT:-120}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "| file | args | exit | states | unique | wall s | CPU s | states/CPU s | bytes/state | peak RSS MB | load |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"
for f in $files; do
  for _ in $(seq 1 "$repeat"); do
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    (
      [ -n "${MDL_SCALE_VMEM_KB:-}" ] && ulimit -v "$MDL_SCALE_VMEM_KB"
      /usr/bin/time -f "%e %U %S %M" -o "$tmp/time" timeout "$limit" \
        "$bin" check --format json "${extra[@]}" "$f" >"$tmp/out.json" 2>"$tmp/err"
      echo $? >"$tmp/rc"
    )
    rc=$(cat "$tmp/rc")
    read -r wall user sys rss < <(tail -n 1 "$tmp/time")
    python3 - "$f" "$rc" "$wall" "$user" "$sys" "$rss" "$load" "${extra[*]:-}" "$tmp/out.json" <<'PY'
import json, sys
f, rc, wall, user, sys_, rss, load, args, out = sys.argv[1:]
try:
    text = open(out).read().strip()
    try:
        d = json.loads(text)
    except json.JSONDecodeError:
        d = json.loads(text.splitlines()[0])
    if isinstance(d, list):
        d = d[0]
except Exception:
    d = {}
cpu = float(user) + float(sys_)
states = d.get("states")
unique = d.get("unique_states")
scpu = d.get("search_cpu_seconds") or cpu
rate = f"{states / scpu:,.0f}" if states and scpu else "-"
bps = d.get("bytes_per_state")
bps = f"{bps:.0f}" if bps else "-"
why = {"124": "timeout", "134": "abort (out of memory)", "137": "killed"}.get(rc, rc)
num = lambda x: f"{x:,}" if isinstance(x, int) else "-"
print(f"| {f.split('/')[-1]} | {args or '-'} | {why} | {num(states)} | {num(unique)} | "
      f"{float(wall):.2f} | {cpu:.2f} | {rate} | {bps} | {int(rss) / 1024:.0f} | {load} |")
PY
  done
done
