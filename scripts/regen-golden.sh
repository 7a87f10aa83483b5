#!/usr/bin/env bash
# Regenerates tests/cli/golden/*.out from the current build (review the diff before committing!).
set -u
cd "$(dirname "$0")/.."
loom=${1:-build/loom}
TMPDIR=$(mktemp -d "${TMPDIR:-/tmp}/loom-golden.XXXXXX") || exit 1  # what a case writes (as tests/cli/golden.sh)
export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT
for cmd in tests/cli/golden/*.cmd; do
  name=${cmd%.cmd}
  { eval "\"$loom\" $(cat "$cmd")" 2>/dev/null; echo "exit: $?"; } > "$name.out"
done
git diff --stat tests/cli/golden
