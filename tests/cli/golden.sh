#!/usr/bin/env bash
# Golden CLI tests: each tests/cli/golden/NAME.cmd holds loom's arguments (shell words, run from the source dir);
# NAME.out holds the expected stdout followed by "exit: N". Regenerate with scripts/regen-golden.sh.
set -u
loom=$1; src=$2; cd "$src" || exit 1
diffs=$(mktemp "${TMPDIR:-/tmp}/loom-golden-diff.XXXXXX") || exit 1
# What a case writes goes under $TMPDIR: a private directory made here and removed at exit.
TMPDIR=$(mktemp -d "${TMPDIR:-/tmp}/loom-golden.XXXXXX") || exit 1
export TMPDIR
trap 'rm -f "$diffs"; rm -rf "$TMPDIR"' EXIT
fail=0; n=0
for cmd in tests/cli/golden/*.cmd; do
  name=${cmd%.cmd}; n=$((n+1))
  actual=$(eval "\"$loom\" $(cat "$cmd")" 2>/dev/null; echo "exit: $?")
  if ! diff -u "$name.out" <(printf '%s\n' "$actual") >"$diffs" 2>&1; then
    echo "FAIL $name"; head -40 "$diffs"; fail=1
  fi
done
echo "$n golden cases"; exit $fail
