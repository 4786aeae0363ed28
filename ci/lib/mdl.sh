# shellcheck shell=bash
# Steps around the `mdl` binary: build it, `mdl check` scenario files, `mdl zoo`.
# Sourced after common.sh, or alone (ci/explore-smoke.sh, ci/seeded-model.sh). Functions
# here run as step commands (in a child bash).

MDL_ROOT=${MDL_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
MDL_TARGET=${MDL_TARGET:-${CARGO_TARGET_DIR:-$MDL_ROOT/target}}

# mdl_bin PROFILE: builds `mdl` (debug or release) and prints its path. debug is the
# binary `cargo test --workspace` builds for the integration tests (its path from cargo):
# after the test step nothing is rebuilt, where `cargo build` would build every
# workspace crate again in the dev profile (2 minutes on this loaded machine).
mdl_bin() {
  local profile=$1 bin
  if [ "$profile" = release ]; then
    (cd "$MDL_ROOT" && cargo build -p mdl --bin mdl --release) >&2 || return 1
    echo "$MDL_TARGET/release/mdl"
    return 0
  fi
  # The binary's artifact, not its unit-test harness (also kind bin, name mdl): the one
  # whose profile is not a test build.
  bin=$(cd "$MDL_ROOT" && cargo test --workspace --no-run \
    --message-format=json-render-diagnostics |
    grep '"kind":\["bin"\]' | grep '"name":"mdl"' | grep '"test":false' | grep -o '"executable":"[^"]*"' |
    sed -E 's/"executable":"(.*)"/\1/' | tail -n 1)
  if [ -z "$bin" ] || [ ! -x "$bin" ]; then
    echo "mdl_bin: cargo built no mdl binary" >&2
    return 1
  fi
  echo "$bin"
}

# True when the subcommand is a stub (the skeleton's "not implemented yet").
mdl_is_stub() { # bin subcommand
  local out
  out=$("$1" "$2" 2>&1 </dev/null)
  [ $? = 2 ] && printf '%s' "$out" | grep -qiE 'not (yet )?implemented|unimplemented'
}

# mdl_check_step PROFILE MAX_STATES FILE...: `mdl check` every file (one run per file, so a
# violation's trace and report are kept per file). Exit 0 when all hold, 1 otherwise: a
# violation, an invalid file, no file at all, or an `mdl check` that is a stub.
mdl_check_step() {
  local profile=$1 max_states=$2 bin help f base rc n=0 held=0 viol=0 bad=0 tmp
  shift 2
  [ $# -gt 0 ] || { echo "!!! no scenario files to check (models/scenarios/*.mdl)"; return 1; }
  bin=$(mdl_bin "$profile") || return 1
  if mdl_is_stub "$bin" check; then
    echo "!!! mdl check is not implemented (a stub)"
    return 1
  fi
  help=$("$bin" check --help 2>&1)
  tmp=$(mktemp -d)
  for f in "$@"; do
    n=$((n + 1))
    base=$(basename "$f" .mdl)
    local args=()
    if printf '%s' "$help" | grep -q -- '--max-states' && [ -n "$max_states" ]; then
      args+=(--max-states "$max_states")
    fi
    if printf '%s' "$help" | grep -q -- '--report'; then
      args+=(--report "$tmp/$base.report.md")
    fi
    echo "=== mdl check ${args[*]} $f"
    "$bin" check "${args[@]}" "$f" 2>&1 | tee "$tmp/$base.out"
    rc=${PIPESTATUS[0]}
    case $rc in
      0) held=$((held + 1)) ;;
      1)
        viol=$((viol + 1))
        mkdir -p "$MDL_STEP_ARTIFACTS"
        cp "$tmp/$base.out" "$MDL_STEP_ARTIFACTS/$base.counterexample.txt"
        [ -f "$tmp/$base.report.md" ] && cp "$tmp/$base.report.md" "$MDL_STEP_ARTIFACTS/"
        echo "!!! $f: a property is violated (counterexample kept)"
        ;;
      *)
        bad=$((bad + 1))
        echo "!!! $f: exit status $rc (invalid file or command line)"
        ;;
    esac
  done
  rm -rf "$tmp"
  echo "mdl check: $n files, $held hold, $viol violated, $bad invalid"
  [ $viol = 0 ] && [ $bad = 0 ]
}

# mdl_zoo_step PROFILE: `mdl zoo`; a stub fails.
mdl_zoo_step() {
  local bin
  bin=$(mdl_bin "$1") || return 1
  if mdl_is_stub "$bin" zoo; then
    echo "!!! mdl zoo is not implemented (a stub)"
    return 1
  fi
  "$bin" zoo
}
