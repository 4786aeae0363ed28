#!/usr/bin/env bash
# Mutation testing of mdl-core's decision code with cargo-mutants (configuration:
# .cargo/mutants.toml; committed, explained report: ci/mutants/REPORT.md).
#
#   MDL_MUTANTS_FILES="a.rs b.rs"  the files to mutate (default: the decision code,
#                                  mdl-core/src/{lock,deadlock,book,table,dialect}.rs)
#   MDL_MUTANTS_RE=REGEX           only mutants whose name matches (cargo mutants --re)
#   MDL_MUTANTS_SHARD=K/N          one shard of the mutants
#   MDL_MUTANTS_JOBS=1             parallel builds (the machine is small: default 1)
#   MDL_MUTANTS_TIMEOUT=120        per-mutant test timeout, seconds
#   MDL_MUTANTS_TEST_ARGS="..."    extra `cargo test` arguments, for the build and the run
#                                  (e.g. "--lib --test mutants_*": only the fast unit and
#                                  mutation tests are built and run for each mutant)
#   MDL_MUTANTS_BASELINE=skip      skip the unmutated baseline run
#   MDL_MUTANTS_WORKSPACE=1        run the whole workspace's tests for every mutant
#   MDL_MUTANTS_TINY=1             a handful of mutants (for trying the job out)
#   MDL_MUTANTS_OUT=DIR            where mutants.out goes (default target/verify/mutants)
# Exit 0 when no mutant was missed or timed out, 1 otherwise (the counts are printed as
# `MDL_COUNT:` for the job summary), 2 when cargo-mutants could not run.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2

if ! cargo mutants --version >/dev/null 2>&1; then
  echo "installing cargo-mutants (cargo install --locked cargo-mutants, about 160 s)"
  cargo install --locked cargo-mutants || exit 2
fi
cargo mutants --version

out=${MDL_MUTANTS_OUT:-$root/target/verify/mutants}
mkdir -p "$out"
args=(--package mdl-core --jobs "${MDL_MUTANTS_JOBS:-1}" --timeout "${MDL_MUTANTS_TIMEOUT:-120}"
  --output "$out" --colors never --no-times)
files=${MDL_MUTANTS_FILES:-mdl-core/src/decide/lock.rs mdl-core/src/decide/deadlock.rs mdl-core/src/decide/book.rs mdl-core/src/table.rs mdl-core/src/decide/dialect.rs}
for f in $files; do args+=(--file "$f"); done
re=${MDL_MUTANTS_RE:-}
if [ "${MDL_MUTANTS_TINY:-0}" = 1 ] && [ -z "$re" ]; then
  # choose_victim: a few mutants, each caught by the deadlock tests.
  re='choose_victim'
fi
[ -z "$re" ] || args+=(--re "$re")
[ -z "${MDL_MUTANTS_SHARD:-}" ] || args+=(--shard "$MDL_MUTANTS_SHARD")
[ "${MDL_MUTANTS_WORKSPACE:-0}" != 1 ] || args+=(--test-workspace true)
if [ -n "${MDL_MUTANTS_TEST_ARGS:-}" ]; then
  set -f # `--test mutants_*` is cargo's glob, not the shell's
  for a in $MDL_MUTANTS_TEST_ARGS; do args+=("--cargo-test-arg=$a"); done
  set +f
fi
[ -z "${MDL_MUTANTS_BASELINE:-}" ] || args+=(--baseline "$MDL_MUTANTS_BASELINE")

echo "cargo mutants ${args[*]}"
cargo mutants "${args[@]}"
rc=$?
mo=$out/mutants.out
# `grep -c` prints 0 *and* fails on an empty file: one number either way.
count() {
  local n=0
  [ -f "$mo/$1.txt" ] && n=$(grep -c . "$mo/$1.txt")
  echo "${n:-0}"
}
caught=$(count caught)
missed=$(count missed)
timeout=$(count timeout)
unviable=$(count unviable)
total=$((caught + missed + timeout + unviable))
echo
echo "mutants: $total tested: $caught caught, $missed missed, $timeout timeout, $unviable unviable"
echo "details: $mo/{caught,missed,timeout,unviable}.txt, $mo/outcomes.json"
if [ "$missed" != 0 ]; then
  echo "missed mutants (each must be killed by a test or explained in ci/mutants/REPORT.md):"
  sed 's/^/  /' "$mo/missed.txt"
fi
for f in missed timeout caught unviable; do
  [ -f "$mo/$f.txt" ] && echo "MDL_ARTIFACT: $mo/$f.txt"
done
echo "MDL_COUNT: $total mutants"
case $rc in
  0) exit 0 ;;
  2 | 3) exit 1 ;; # 2: mutants missed, 3: timeouts
  *) exit 2 ;;
esac
