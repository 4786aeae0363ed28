# shellcheck shell=bash
# Shared helpers for the verification jobs (ci/quick.sh, ci/nightly.sh, ci/mutants.sh).
#
# Source it from a job script, then:
#   verify_init JOB              # fresh target/verify/, records the start time
#   run_step NAME BUDGET REQ ECHO_RE CMD...   # one timed step (see below)
#   run_script NAME BUDGET REQ SCRIPT [ARGS...] # a ci/ script; a missing one fails the step
#   cannot_run NAME BUDGET REQ REASON   # a step whose tool cannot exist here: a failure
#                                # unless MDL_ALLOW_SKIP names the step
#   verify_finish                # writes summary.json / summary.md; returns the job's exit code
#
# Nothing is skipped silently. A step fails when its command fails, when its script is
# missing, when it says it was skipped (exit 77) and MDL_ALLOW_SKIP (a comma list of step
# names, or `all`) does not name it, and when its log shows a test binary that ran no
# test, or a test file planned for the step (ci/registry/src/plan.rs) that did not run
# (`mdl-ci ran`). An optional step that is skipped is recorded as skipped.
#
# A step's output goes to target/verify/logs/NAME.log; on failure its tail is printed. Lines
# that match ECHO_RE (an extended regex, or empty) are also copied to stdout while it runs
# (cargo test's `test result:` lines, for CI log parsers). REQ is `required` or `optional`:
# a failed optional step is reported but does not fail the job.
#
# Protocol for the scripts that steps run (all optional):
#   exit 77                    the step could not run here (the first `MDL_SKIP: reason`
#                              line is the note): a failure unless MDL_ALLOW_SKIP names it
#   MDL_COUNT: N UNIT          the step's count for the summary (the last such line wins;
#                              otherwise the count is parsed from cargo/libFuzzer/loom/
#                              shuttle/stateright/cargo-mutants output)
#   MDL_ARTIFACT: PATH         a file to keep; copied to target/verify/artifacts/NAME/
#   $MDL_STEP_ARTIFACTS        a directory the step may write its artifacts into directly
# Fuzz crashes (fuzz/artifacts/*/{crash,leak,timeout,oom,slow-unit}-*) and failing shuttle
# schedules printed in a log are collected automatically.

MDL_ROOT=${MDL_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
VERIFY_DIR=${MDL_VERIFY_DIR:-$MDL_ROOT/target/verify}
LOG_DIR=$VERIFY_DIR/logs
ART_DIR=$VERIFY_DIR/artifacts
# One line per step, fields separated by US (0x1f): tabs would collapse empty fields.
STEPS_TSV=$VERIFY_DIR/steps.txt
US=$'\x1f'
export MDL_ROOT VERIFY_DIR LOG_DIR ART_DIR
export MDL_ARTIFACTS_DIR=$ART_DIR
# shellcheck source=ci/lib/registry.sh
. "$MDL_ROOT/ci/lib/registry.sh" || return 2
# The cargo target directory the jobs build into (for the `mdl` binary).
MDL_TARGET=${CARGO_TARGET_DIR:-$MDL_ROOT/target}
export MDL_TARGET
# Hard limit of any one step, in seconds (a hung step becomes a failure, not a hung job).
MDL_STEP_TIMEOUT=${MDL_STEP_TIMEOUT:-5400}
# Lines of a failed step's log printed to stdout.
MDL_TAIL_LINES=${MDL_TAIL_LINES:-40}

_now() { date +%s.%N; }
_iso() { date -u +%Y-%m-%dT%H:%M:%SZ; }
_secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

verify_init() {
  VERIFY_JOB=$1
  VERIFY_T0=$(_now)
  VERIFY_STARTED=$(_iso)
  # Keep artifacts of earlier runs out of this job's summary: start from an empty dir.
  rm -rf "$LOG_DIR" "$ART_DIR" "$STEPS_TSV" "$VERIFY_DIR/summary.json" "$VERIFY_DIR/summary.md"
  mkdir -p "$LOG_DIR" "$ART_DIR"
  : >"$STEPS_TSV"
  echo "== mdl verification job '$VERIFY_JOB' started $VERIFY_STARTED in $MDL_ROOT"
  # The CI's tables (seeded bugs, test plan): every step's log is checked with them.
  if ! mdl_ci_build; then
    echo "!!! cannot build mdl-ci (ci/registry): every step will fail its test-binary check"
  fi
}

# Tab-free, newline-free text for the TSV.
_clean() { printf '%s' "$*" | tr '\037\t\n\r' '    '; }

_record() { # name budget required result count unit seconds note
  printf '%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s\n' "$(_clean "$1")" "$(_clean "$2")" "$3" "$4" \
    "$5" "$(_clean "$6")" "$7" "$(_clean "$8")" >>"$STEPS_TSV"
}

# True when MDL_ALLOW_SKIP (comma list of step names, or `all`) accepts a skip of NAME.
skip_allowed() { # name
  case ",${MDL_ALLOW_SKIP:-}," in *",$1,"* | *",all,"*) return 0 ;; esac
  return 1
}

# cannot_run NAME BUDGET REQ REASON: the step's tool cannot exist on this machine. A
# failure, unless the step is optional or MDL_ALLOW_SKIP names it (then: skipped).
cannot_run() { # name budget req reason
  local name=$1 budget=$2 req=$3 reason=$4
  printf '%s\n' "cannot run: $reason" >"$LOG_DIR/$name.log"
  if [ "$req" != required ] || skip_allowed "$name"; then
    echo "--> [$name] skipped: $reason"
    _record "$name" "$budget" "$req" skipped "" "" 0 "$reason"
  else
    echo "<-- [$name] FAIL: cannot run here: $reason (MDL_ALLOW_SKIP=$name accepts that)"
    _record "$name" "$budget" "$req" fail "" "" 0 "cannot run: $reason (MDL_ALLOW_SKIP=$name accepts that)"
  fi
}

# The test binaries of a step's log against the plan (ci/registry/src/plan.rs): prints the
# problems, returns 1 when there is one (or when mdl-ci cannot be run).
check_test_runs() { # name log
  local out rc
  if [ -z "${MDL_CI:-}" ] || [ ! -x "$MDL_CI" ]; then
    echo "cannot check the step's test binaries: no mdl-ci binary (MDL_CI=${MDL_CI:-})"
    return 1
  fi
  out=$("$MDL_CI" ran --step "$1" "$2" 2>&1)
  rc=$?
  printf '%s\n' "$out" | grep -v ': 0 problem(s)$'
  return $rc
}

# Prints "N UNIT" (or nothing) for a step's log.
count_from_log() {
  local log=$1 c
  c=$(grep -E '^MDL_COUNT: [0-9]+' "$log" | tail -n 1 | sed -E 's/^MDL_COUNT: //')
  if [ -n "$c" ]; then
    echo "$c"
    return
  fi
  # cargo test / libtest: sum of passed over every `test result:` line.
  c=$(grep -E '^test result: ' "$log" | sed -E 's/.* ([0-9]+) passed; ([0-9]+) failed.*/\1 \2/' |
    awk '{ p += $1; f += $2; n++ } END { if (n) print p + f }')
  if [ -n "$c" ]; then
    echo "$c tests"
    return
  fi
  # cargo-mutants: "N mutants tested in ...: A missed, B caught, ..."
  c=$(grep -Eo '^[0-9]+ mutants tested' "$log" | tail -n 1 | awk '{ print $1 }')
  if [ -n "$c" ]; then
    echo "$c mutants"
    return
  fi
  # libFuzzer: "Done N runs in S second(s)", one per fuzzing run.
  c=$(grep -Eo 'Done [0-9]+ runs in' "$log" | awk '{ s += $2; n++ } END { if (n) print s }')
  if [ -n "$c" ]; then
    echo "$c executions"
    return
  fi
  # stateright / mdl check: "N states" (not "states/s"), summed over files.
  c=$(grep -Eo '[0-9][0-9,_]* (unique )?states([^/a-z]|$)' "$log" | tr -d ',_' |
    awk '{ s += $1; n++ } END { if (n) print s }')
  if [ -n "$c" ]; then
    echo "$c states"
    return
  fi
  # "states explored: N" / "states: N".
  c=$(grep -Eio 'states( explored)?: *[0-9][0-9,_]*' "$log" | sed -E 's/.*: *//' | tr -d ',_' |
    awk '{ s += $1; n++ } END { if (n) print s }')
  if [ -n "$c" ]; then
    echo "$c states"
    return
  fi
  # loom / shuttle: "N iterations|schedules|executions".
  c=$(grep -Eio '[0-9][0-9,_]* (iterations|schedules|executions)' "$log" | tr -d ',_' |
    awk '{ s += $1; u = tolower($2); n++ } END { if (n) print s, u }')
  if [ -n "$c" ]; then
    echo "$c"
    return
  fi
}

# Copies a step's artifacts into $ART_DIR/NAME/.
collect_artifacts() { # name log marker-file
  local name=$1 log=$2 marker=$3 dest=$ART_DIR/$1 p n=0
  mkdir -p "$dest"
  grep -E '^MDL_ARTIFACT: ' "$log" | sed -E 's/^MDL_ARTIFACT: //' | while IFS= read -r p; do
    case $p in /*) ;; *) p=$MDL_ROOT/$p ;; esac
    [ -e "$p" ] && cp -r "$p" "$dest/" 2>/dev/null
  done
  # Fuzz crashes written during this step.
  if [ -d "$MDL_ROOT/fuzz/artifacts" ]; then
    find "$MDL_ROOT/fuzz/artifacts" -type f -newer "$marker" \
      \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \
      -o -name 'slow-unit-*' \) 2>/dev/null | while IFS= read -r p; do
      mkdir -p "$dest/fuzz/$(basename "$(dirname "$p")")"
      cp "$p" "$dest/fuzz/$(basename "$(dirname "$p")")/"
    done
  fi
  # Files a step wrote straight into an artifacts directory (ours, or the one under its
  # CARGO_TARGET_DIR) instead of $MDL_STEP_ARTIFACTS: file them under this step.
  local d
  for d in "$ART_DIR" "$MDL_TARGET/verify/artifacts"; do
    [ -d "$d" ] || continue
    find "$d" -type f -newer "$marker" -not -path "$dest/*" 2>/dev/null | while IFS= read -r p; do
      case $p in
        "$ART_DIR"/*) mv "$p" "$dest/" ;;
        *) cp "$p" "$dest/" ;;
      esac
    done
  done
  # Failing shuttle schedules: the quoted string on the `failing schedule` line or the next.
  awk '/failing schedule/ { want = 1 }
       want && match($0, /"[^"]+"/) { print substr($0, RSTART + 1, RLENGTH - 2); want = 0 }' \
    "$log" | while IFS= read -r p; do
    n=$((n + 1))
    printf '%s\n' "$p" >"$dest/shuttle-schedule-$n.txt"
  done
  find "$dest" -mindepth 1 -maxdepth 1 | grep -q . || rmdir "$dest"
}

# run_step NAME BUDGET REQUIRED ECHO_RE CMD... : runs CMD (a command or an exported shell
# function) with a hard timeout, output to the step's log, timed, and records the result.
run_step() {
  local name=$1 budget=$2 req=$3 echo_re=$4
  shift 4
  local log=$LOG_DIR/$name.log marker t0 t1 rc secs result note count unit
  marker=$(mktemp)
  export MDL_STEP_ARTIFACTS=$ART_DIR/$name
  echo "--> [$name] $* (budget: $budget)"
  if declare -F "$1" >/dev/null; then
    # A shell function: run it in a child bash (timeout needs a program).
    # shellcheck disable=SC2046
    export -f $(declare -F | awk '{ print $3 }')
    set -- bash -c '"$@"' bash "$@"
  fi
  local had_e=0
  case $- in *e*) had_e=1 ;; esac
  t0=$(_now)
  set +e
  if [ -n "$echo_re" ]; then
    timeout -k 30 "$MDL_STEP_TIMEOUT" "$@" </dev/null 2>&1 | tee "$log" |
      grep -E --line-buffered "$echo_re"
    rc=${PIPESTATUS[0]}
  else
    timeout -k 30 "$MDL_STEP_TIMEOUT" "$@" </dev/null >"$log" 2>&1
    rc=$?
  fi
  [ $had_e = 0 ] || set -e
  t1=$(_now)
  secs=$(_secs "$t0" "$t1")
  note=""
  case $rc in
    0) result=pass ;;
    77)
      note=$(grep -E '^MDL_SKIP: ' "$log" | head -n 1 | sed -E 's/^MDL_SKIP: //')
      [ -n "$note" ] || note=$(tail -n 1 "$log")
      if [ "$req" != required ] || skip_allowed "$name"; then
        result=skipped
      else
        result=fail
        note="skipped, which is a failure: $note (MDL_ALLOW_SKIP=$name accepts that)"
      fi
      ;;
    124 | 137)
      result=fail
      note="timed out after ${MDL_STEP_TIMEOUT}s (MDL_STEP_TIMEOUT)"
      ;;
    *)
      result=fail
      note="exit status $rc"
      ;;
  esac
  # Every test binary ran some test; every test file planned for the step ran (unless the
  # step was skipped with MDL_ALLOW_SKIP's consent).
  local ran_out
  if [ "$result" != skipped ] && ! ran_out=$(check_test_runs "$name" "$log"); then
    printf '%s\n' "$ran_out" >>"$log"
    if [ "$result" != fail ]; then
      result=fail
      note=$(printf '%s\n' "$ran_out" | grep -m1 -E 'mdl-ci ran: |cannot check' | sed -E 's/^mdl-ci ran: //')
    fi
  fi
  count=$(count_from_log "$log")
  unit=${count#* }
  count=${count%% *}
  [ "$unit" != "$count" ] || unit=""
  collect_artifacts "$name" "$log" "$marker"
  rm -f "$marker"
  _record "$name" "$budget" "$req" "$result" "$count" "$unit" "$secs" "$note"
  case $result in
    pass) echo "<-- [$name] pass in ${secs}s${count:+ ($count $unit)}" ;;
    skipped) echo "<-- [$name] skipped: $note" ;;
    fail)
      echo "<-- [$name] FAIL ($note) in ${secs}s; last $MDL_TAIL_LINES lines of $log:"
      tail -n "$MDL_TAIL_LINES" "$log" | sed 's/^/    | /'
      ;;
  esac
  return 0
}

# run_script NAME BUDGET REQUIRED [env VAR=VALUE...] SCRIPT [ARGS...]: a step that runs a
# ci/ script; a script that does not exist fails the step.
run_script() {
  local name=$1 budget=$2 req=$3
  shift 3
  local envs=()
  if [ "${1:-}" = env ]; then
    shift
    while [ $# -gt 0 ] && [[ $1 == *=* ]]; do
      envs+=("$1")
      shift
    done
  fi
  local script=$1
  shift
  if [ ! -f "$MDL_ROOT/$script" ]; then
    echo "<-- [$name] FAIL: the script $script does not exist"
    printf '%s\n' "missing script: $script" >"$LOG_DIR/$name.log"
    _record "$name" "$budget" "$req" fail "" "" 0 "missing script: $script"
    return 0
  fi
  run_step "$name" "$budget" "$req" "" env "${envs[@]}" bash "$MDL_ROOT/$script" "$@"
}

have_nightly() { cargo +nightly --version >/dev/null 2>&1; }

# JSON string literal.
json_str() {
  local s
  s=$(printf '%s' "$1" | tr -d '\000-\010\013\014\016-\037')
  s=${s//\\/\\\\}
  s=${s//\"/\\\"}
  s=${s//$'\t'/\\t}
  s=${s//$'\n'/\\n}
  s=${s//$'\r'/\\r}
  printf '"%s"' "$s"
}

# Writes summary.json and summary.md from steps.tsv; prints the table; returns 1 when a
# required step failed.
verify_finish() {
  local finished secs failed=0 name budget req result count unit s note first=1 arts a
  finished=$(_iso)
  secs=$(_secs "$VERIFY_T0" "$(_now)")
  while IFS=$US read -r name budget req result count unit s note; do
    if [ "$result" = fail ] && [ "$req" = required ]; then failed=1; fi
  done <"$STEPS_TSV"
  local job_result=pass
  [ $failed = 0 ] || job_result=fail
  {
    printf '{\n  "job": %s,\n  "result": %s,\n' "$(json_str "$VERIFY_JOB")" "\"$job_result\""
    printf '  "started": "%s",\n  "finished": "%s",\n  "seconds": %s,\n' \
      "$VERIFY_STARTED" "$finished" "$secs"
    printf '  "commit": %s,\n' "$(json_str "$(git -C "$MDL_ROOT" rev-parse HEAD 2>/dev/null)")"
    printf '  "steps": ['
    while IFS=$US read -r name budget req result count unit s note; do
      [ $first = 1 ] || printf ','
      first=0
      printf '\n    {"name": %s, "budget": %s, "required": %s, "result": "%s", ' \
        "$(json_str "$name")" "$(json_str "$budget")" \
        "$([ "$req" = required ] && echo true || echo false)" "$result"
      if [ -n "$count" ]; then
        printf '"count": %s, "count_unit": %s, ' "$count" "$(json_str "$unit")"
      else
        printf '"count": null, "count_unit": null, '
      fi
      printf '"seconds": %s, "log": %s, "note": %s, "artifacts": [' "$s" \
        "$(json_str "logs/$name.log")" "$(json_str "$note")"
      if [ -d "$ART_DIR/$name" ]; then
        arts=$(cd "$VERIFY_DIR" && find "artifacts/$name" -type f | sort)
        local afirst=1
        while IFS= read -r a; do
          [ -n "$a" ] || continue
          [ $afirst = 1 ] || printf ', '
          afirst=0
          json_str "$a"
        done <<<"$arts"
      fi
      printf ']}'
    done <"$STEPS_TSV"
    printf '\n  ]\n}\n'
  } >"$VERIFY_DIR/summary.json"
  {
    echo "# mdl verification: $VERIFY_JOB — $job_result"
    echo
    echo "Started $VERIFY_STARTED, finished $finished, ${secs} s in all."
    echo
    echo "| step | budget | result | count | seconds | log | artifacts |"
    echo "|---|---|---|---|---:|---|---|"
    while IFS=$US read -r name budget req result count unit s note; do
      local r=$result links=""
      [ "$r" != fail ] || r="**FAIL**"
      [ "$req" = required ] || [ "$result" = skipped ] || r="$r (optional)"
      case $note in
        "") ;;
        "("*) r="$r $note" ;;
        *) r="$r: $note" ;;
      esac
      if [ -d "$ART_DIR/$name" ]; then
        while IFS= read -r a; do
          [ -n "$a" ] && links="$links[$(basename "$a")]($a) "
        done <<<"$(cd "$VERIFY_DIR" && find "artifacts/$name" -type f | sort)"
      fi
      printf '| %s | %s | %s | %s | %s | [log](logs/%s.log) | %s |\n' "$name" \
        "${budget//|/\\|}" "${r//|/\\|}" "${count:+$count $unit}" "$s" "$name" "$links"
    done <"$STEPS_TSV"
  } >"$VERIFY_DIR/summary.md"
  echo
  echo "== summary ($VERIFY_DIR/summary.md, summary.json)"
  printf '%-28s %-9s %10s %-12s %s\n' STEP RESULT SECONDS COUNT NOTE
  while IFS=$US read -r name budget req result count unit s note; do
    printf '%-28s %-9s %10s %-12s %s\n' "$name" "$result" "$s" "${count:+$count $unit}" "$note"
  done <"$STEPS_TSV"
  echo "== job '$VERIFY_JOB': $job_result in ${secs}s"
  if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
    cat "$VERIFY_DIR/summary.md" >>"$GITHUB_STEP_SUMMARY"
  fi
  [ $failed = 0 ]
}

# Step selection: MDL_STEPS (comma list: only these steps, by name or by the group given
# as the second argument) and MDL_SKIP_STEPS (comma list: never these).
want_step() { # name [group]
  local n=$1 g=${2:-$1}
  case ",${MDL_SKIP_STEPS:-}," in *",$n,"* | *",$g,"*) return 1 ;; esac
  [ -z "${MDL_STEPS:-}" ] && return 0
  case ",$MDL_STEPS," in *",$n,"* | *",$g,"*) return 0 ;; esac
  return 1
}
