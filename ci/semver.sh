#!/usr/bin/env bash
# cargo semver-checks of mdl-core against its newest version tag (issue 29: the public API
# is a promise once a version is tagged). nightly.sh runs this optional step only when a
# tag `mdl-core-vX.Y.Z` exists, and reports it as not runnable, with that reason, before.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
tag=$(git tag --list 'mdl-core-v*' --sort=-v:refname | head -n 1)
if [ -z "$tag" ]; then
  echo "ci/semver.sh: no mdl-core-v* tag: nothing to compare against" >&2
  exit 2
fi
if ! command -v cargo-semver-checks >/dev/null 2>&1; then
  cargo install --locked cargo-semver-checks
fi
echo "+ cargo semver-checks check-release -p mdl-core --baseline-rev $tag"
cargo semver-checks check-release -p mdl-core --baseline-rev "$tag"
