# shellcheck shell=bash
# cargo-fuzz helpers for the nightly job (long runs with corpus merge, coverage).
# Sourced after common.sh.

# The fuzz targets: the [[bin]] names of fuzz/Cargo.toml, filtered by MDL_FUZZ_TARGETS
# (space or comma separated) when set.
fuzz_targets() {
  local toml=$MDL_ROOT/fuzz/Cargo.toml all t
  [ -f "$toml" ] || return 0
  all=$(awk '/^\[\[bin\]\]/ { inbin = 1; next }
             /^\[/ { inbin = 0 }
             inbin && /^[[:space:]]*name[[:space:]]*=/ { gsub(/.*=[[:space:]]*"|".*/, ""); print }' \
    "$toml")
  if [ -z "${MDL_FUZZ_TARGETS:-}" ]; then
    printf '%s\n' "$all"
    return
  fi
  for t in ${MDL_FUZZ_TARGETS//,/ }; do
    printf '%s\n' "$all" | grep -qx "$t" && echo "$t"
  done
}

ensure_cargo_fuzz() {
  cargo fuzz --version >/dev/null 2>&1 && return 0
  echo "installing cargo-fuzz (cargo install --locked cargo-fuzz)"
  cargo install --locked cargo-fuzz
}

# fuzz_long_step TARGET SECONDS: fuzz one target in a scratch corpus seeded from
# fuzz/corpus/TARGET, then merge what found new coverage into $MDL_FUZZ_MERGE_INTO/TARGET
# (default fuzz/corpus/TARGET; libFuzzer -merge=1). A crash fails the step; its input is
# kept as an artifact.
fuzz_long_step() {
  local t=$1 secs=$2 scratch rc into
  ensure_cargo_fuzz || return 1
  scratch=$VERIFY_DIR/corpus/$t
  into=${MDL_FUZZ_MERGE_INTO:-$MDL_ROOT/fuzz/corpus}/$t
  mkdir -p "$scratch" "$into" "$MDL_ROOT/fuzz/artifacts/$t"
  cp -r "$MDL_ROOT/fuzz/corpus/$t/." "$scratch/" 2>/dev/null
  [ "$into" = "$MDL_ROOT/fuzz/corpus/$t" ] || cp -r "$MDL_ROOT/fuzz/corpus/$t/." "$into/" 2>/dev/null
  local dict=()
  case $t in scenario_parser | cli)
    [ -f "$MDL_ROOT/fuzz/dict/scenario.dict" ] &&
      dict=("-dict=$MDL_ROOT/fuzz/dict/scenario.dict") ;;
  esac
  cd "$MDL_ROOT/fuzz" || return 1
  echo "=== cargo +nightly fuzz run $t ($secs s)"
  cargo +nightly fuzz run "$t" "$scratch" -- -max_total_time="$secs" "${dict[@]}"
  rc=$?
  echo "=== merge new coverage into $into"
  local before after
  before=$(find "$into" -type f | wc -l)
  cargo +nightly fuzz run "$t" "$into" "$scratch" -- -merge=1 ||
    echo "merge failed (exit $?)"
  after=$(find "$into" -type f | wc -l)
  echo "corpus $into: $before -> $after files"
  return $rc
}

# fuzz_coverage_step: `cargo fuzz coverage` per target when llvm-tools is installed.
fuzz_coverage_step() {
  if ! rustup component list --toolchain nightly --installed 2>/dev/null | grep -q '^llvm-tools'; then
    echo "MDL_SKIP: (no llvm-tools in the nightly toolchain: rustup component add llvm-tools-preview --toolchain nightly)"
    return 77
  fi
  ensure_cargo_fuzz || return 1
  local t sysroot llvm_cov rc=0 out=$VERIFY_DIR/coverage
  sysroot=$(rustc +nightly --print sysroot)
  llvm_cov=$(find "$sysroot" -name llvm-cov -type f | head -n 1)
  mkdir -p "$out"
  cd "$MDL_ROOT/fuzz" || return 1
  for t in $(fuzz_targets); do
    echo "=== coverage $t"
    cargo +nightly fuzz coverage "$t" || { rc=1; continue; }
    local bin
    bin=$(find target -path "*coverage*" -type f -name "$t" -perm -u+x | head -n 1)
    if [ -n "$llvm_cov" ] && [ -n "$bin" ]; then
      "$llvm_cov" report "$bin" -instr-profile="coverage/$t/coverage.profdata" \
        --ignore-filename-regex='/.cargo/|/rustc/' | tee "$out/$t.txt"
      mkdir -p "$MDL_STEP_ARTIFACTS" && cp "$out/$t.txt" "$MDL_STEP_ARTIFACTS/coverage-$t.txt"
    fi
  done
  return $rc
}
