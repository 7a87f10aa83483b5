#!/usr/bin/env bash
# Negative CLI tests: each tests/cli/negative/NAME.cmd holds loom's arguments; loom must exit 2 and print exactly
# one line on stderr, starting "loom: " and containing every line of NAME.err (fixed strings).
set -u
loom=$1; src=$2; cd "$src" || exit 1
# What a case writes (its -o paths, FIFOs) goes under $TMPDIR: a private directory made here and removed at exit,
# so parallel runs cannot collide and nothing is left in /tmp.
TMPDIR=$(mktemp -d "${TMPDIR:-/tmp}/loom-negative.XXXXXX") || exit 1
export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT
fail=0; n=0
for cmd in tests/cli/negative/*.cmd; do
  name=${cmd%.cmd}; n=$((n+1))
  [ -f "$name.err" ] || { echo "FAIL $name: no $name.err (the lines the message must contain)"; fail=1; continue; }
  err=$(eval "\"$loom\" $(cat "$cmd")" 2>&1 >/dev/null); rc=$?
  lines=$(printf '%s' "$err" | grep -c '' || true)
  if [ "$rc" -ne 2 ]; then echo "FAIL $name: exit $rc, want 2 ($err)"; fail=1; continue; fi
  if [ "$lines" -ne 1 ]; then echo "FAIL $name: $lines stderr lines, want 1:"; echo "$err"; fail=1; continue; fi
  case "$err" in "loom: "*) ;; *) echo "FAIL $name: stderr does not start with 'loom: ': $err"; fail=1; continue;; esac
  while IFS= read -r want; do
    [ -z "$want" ] && continue
    printf '%s' "$err" | grep -qF -- "$want" || { echo "FAIL $name: '$want' not in: $err"; fail=1; }
  done < "$name.err"
done
echo "$n negative cases"; exit $fail
