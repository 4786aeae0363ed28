#!/bin/bash -eu
# OSS-Fuzz style build of mdl's cargo-fuzz targets: `cargo fuzz build -O`, then every
# target binary, its seed corpus (fuzz/corpus/T as T_seed_corpus.zip) and dictionary
# (fuzz/dict/*.dict) into $OUT.
#
# In the ClusterFuzzLite image the repository is $SRC/mdl (see Dockerfile). Locally,
# outside Docker, point SRC at the repository itself:
#   SRC=/work/main OUT=/tmp/out bash .clusterfuzzlite/build.sh
# The toolchain: the image's default (it sets RUSTUP_TOOLCHAIN to its pinned nightly);
# elsewhere `+nightly` (override with MDL_FUZZ_TOOLCHAIN=+name, or empty).

: "${SRC:?set SRC to the repository (or its parent, holding mdl/)}"
: "${OUT:?set OUT to the output directory}"
if [ -f "$SRC/fuzz/Cargo.toml" ]; then
  repo=$SRC
elif [ -f "$SRC/mdl/fuzz/Cargo.toml" ]; then
  repo=$SRC/mdl
else
  echo "build.sh: no fuzz/Cargo.toml under $SRC or $SRC/mdl" >&2
  exit 1
fi
mkdir -p "$OUT"

if [ -n "${MDL_FUZZ_TOOLCHAIN+x}" ]; then
  tc=$MDL_FUZZ_TOOLCHAIN
elif [ -n "${RUSTUP_TOOLCHAIN:-}" ]; then
  tc=""
else
  tc=+nightly
fi
if ! cargo $tc fuzz --version >/dev/null 2>&1; then
  echo "installing cargo-fuzz"
  cargo install --locked cargo-fuzz
fi

# The targets: the [[bin]] names of fuzz/Cargo.toml.
targets=$(awk '/^\[\[bin\]\]/ { inbin = 1; next }
               /^\[/ { inbin = 0 }
               inbin && /^[[:space:]]*name[[:space:]]*=/ { gsub(/.*=[[:space:]]*"|".*/, ""); print }' \
  "$repo/fuzz/Cargo.toml")
if [ -z "$targets" ]; then
  echo "build.sh: fuzz/Cargo.toml has no [[bin]] targets" >&2
  exit 1
fi

cd "$repo"
# shellcheck disable=SC2086
cargo $tc fuzz build -O

triple=$(rustc $tc -vV | sed -n 's/^host: //p')
bindir=${CARGO_TARGET_DIR:-$repo/fuzz/target}/$triple/release
for t in $targets; do
  cp "$bindir/$t" "$OUT/$t"
  if [ -d "fuzz/corpus/$t" ] && [ -n "$(ls -A "fuzz/corpus/$t")" ]; then
    if command -v zip >/dev/null 2>&1; then
      rm -f "$OUT/${t}_seed_corpus.zip"
      (cd "fuzz/corpus/$t" && zip -q -r -j "$OUT/${t}_seed_corpus.zip" .)
    else
      echo "build.sh: no zip here; seed corpus of $t not packed"
    fi
  fi
done
# A dictionary fuzz/dict/NAME.dict goes to every target whose name contains NAME
# (scenario.dict -> scenario_parser).
if [ -d fuzz/dict ]; then
  for d in fuzz/dict/*.dict; do
    [ -f "$d" ] || continue
    n=$(basename "$d" .dict)
    for t in $targets; do
      case $t in *"$n"*) cp "$d" "$OUT/$t.dict" ;; esac
    done
  done
fi
echo "build.sh: built into $OUT: $(echo $targets)"
