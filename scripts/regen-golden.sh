#!/usr/bin/env bash
# Regenerates tests/cli/golden/*.out from the current build (review the diff before committing!).
set -u
cd "$(dirname "$0")/.."
loom=${1:-build/loom}
for cmd in tests/cli/golden/*.cmd; do
  name=${cmd%.cmd}
  { eval "\"$loom\" $(cat "$cmd")" 2>/dev/null; echo "exit: $?"; } > "$name.out"
done
git diff --stat tests/cli/golden
