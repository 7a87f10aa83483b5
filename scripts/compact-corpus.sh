#!/usr/bin/env bash
# Rewrites corpus files in corpus schema version 2 (traces/FORMAT.md section 3: kernel names in a dictionary),
# recompressed with zopfli, and keeps a file's new version only where it is smaller than the file it replaces.
# `loom trace compact` refuses a file whose rewrite would not read back as bit for bit the same metadata and rows;
# `loom trace diff` then checks the final zopfli'd file against the original before it replaces it.
# zopfli is slow (about 0.5 MB of text a second): a gzip -9 estimate first, zopfli only where version 2 wins there.
#   bash scripts/compact-corpus.sh [--loom build/loom] FILE.corpus.csv.gz...
#   bash scripts/compact-corpus.sh $(git ls-files 'traces/*.corpus.csv.gz')
set -euo pipefail
cd "$(dirname "$0")/.."
loom=build/loom
if [ "${1:-}" = "--loom" ]; then
  [ $# -ge 2 ] || { echo "loom: compact-corpus: --loom needs a path" >&2; exit 2; }
  loom=$2; shift 2
fi
[ $# -gt 0 ] || { echo "usage: bash scripts/compact-corpus.sh [--loom build/loom] FILE.corpus.csv.gz..." >&2; exit 2; }
command -v zopfli >/dev/null || { echo "compact-corpus: zopfli not found (apt-get install zopfli)" >&2; exit 1; }
# Arguments checked before anything is written (round 10): a missing loom, a folder or a missing file were each "kept"
# with exit 0, or failed in stat halfway through the table.
[ -f "$loom" ] && [ -x "$loom" ] ||
  { echo "loom: compact-corpus: --loom '$loom' is not an executable file" >&2; exit 2; }
for f in "$@"; do
  [ -f "$f" ] && [ -r "$f" ] || { echo "loom: compact-corpus: '$f' is not a readable file" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-70s %10s %10s %s\n' file before after note
for f in "$@"; do
  before=$(stat -c %s "$f")
  if ! "$loom" trace compact "$f" -o "$tmp/v2.csv" 2>"$tmp/log"; then
    # Kept only when the rewrite would not read back the same; a file loom cannot read at all is an error.
    grep -q "rewriting it would change what loom reads" "$tmp/log" ||
      { echo "loom: compact-corpus: $(tail -1 "$tmp/log" | sed 's/^loom: //')" >&2; exit 2; }
    printf '%-70s %10s %10s %s\n' "$f" "$before" - "kept: $(tail -1 "$tmp/log")"; continue
  fi
  old9=$(gzip -dc "$f" | gzip -9 | wc -c); new9=$(gzip -9 -c "$tmp/v2.csv" | wc -c)
  if [ "$new9" -ge "$old9" ]; then
    printf '%-70s %10s %10s %s\n' "$f" "$before" - "kept: gzip -9 $old9 -> $new9"; continue
  fi
  nice zopfli -c "$tmp/v2.csv" > "$tmp/v2.csv.gz"
  after=$(stat -c %s "$tmp/v2.csv.gz")
  if [ "$after" -ge "$before" ]; then
    printf '%-70s %10s %10s %s\n' "$f" "$before" "$after" "kept: not smaller"; continue
  fi
  "$loom" trace diff "$f" "$tmp/v2.csv.gz" >/dev/null || { echo "compact-corpus: $f: rewrite differs" >&2; exit 1; }
  cp "$tmp/v2.csv.gz" "$f"
  printf '%-70s %10s %10s %s\n' "$f" "$before" "$after" converted
done
