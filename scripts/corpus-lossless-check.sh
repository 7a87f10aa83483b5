#!/usr/bin/env bash
# Checks that corpus files changed since REV (default: main) read, in loom, as exactly what they read as at REV:
# same metadata, same rows in the same order, every field equal, numbers bit for bit (`loom trace diff`). The check
# behind a re-encoding of the committed corpus (scripts/compact-corpus.sh): the efficiency model is retrained from
# these rows in CI and must come out bit-identical.
#   bash scripts/corpus-lossless-check.sh [--loom build/loom] [REV]
set -euo pipefail
cd "$(dirname "$0")/.."
loom=build/loom
if [ "${1:-}" = "--loom" ]; then loom=$2; shift 2; fi
rev=${1:-main}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0; bad=0
while IFS= read -r f; do
  case "$f" in *.corpus.csv.gz|*.corpus.csv) ;; *) continue;; esac
  [ -f "$f" ] || { echo "MISSING $f (deleted since $rev)"; bad=$((bad+1)); continue; }
  git show "$rev:$f" > "$tmp/old-$(basename "$f")"
  n=$((n+1))
  if out=$("$loom" trace diff "$tmp/old-$(basename "$f")" "$f" 2>&1); then
    echo "same  $f: ${out##*: }"
  else
    echo "DIFF  $f: $out"; bad=$((bad+1))
  fi
  rm -f "$tmp/old-$(basename "$f")"
done < <(git diff --name-only "$rev" -- traces)
echo "$n corpus files changed since $rev: $((n-bad)) read the same, $bad differ"
[ "$bad" -eq 0 ]
