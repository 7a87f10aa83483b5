#!/usr/bin/env bash
# Turns what scripts/collect.sh brought back (its .tar files, or a folder they were unpacked into) into the
# committed corpus: one traces/<gpu>/sms<N>.corpus.csv.gz per GPU and partition (loom trace import), the raw
# end-to-end traces under traces/e2e/<gpu>/, and the collection logs under traces/<gpu>/logs/.
#   bash scripts/import-corpus.sh [--loom build/loom] SRC...   (SRC: a .tar file or an unpacked folder)
set -euo pipefail
cd "$(dirname "$0")/.."
LOOM=build/loom
[ "${1:-}" = "--loom" ] && { LOOM=$2; shift 2; }
WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
for src in "$@"; do
  if [ -d "$src" ]; then cp -r "$src"/. "$WORK"/; else tar -xf "$src" -C "$WORK"; fi
done
for gdir in "$WORK"/*/; do
  gpu=$(basename "$gdir")
  # The catalogue key (traces/gpu_names.tsv maps the device name; the folder name is collect.sh's short key).
  for pdir in "$gdir"sms*/; do
    [ -d "$pdir" ] || continue
    part=$(basename "$pdir")
    lcts=(); cases=()
    for c in "$pdir"*.cases.csv; do
      stem=${c%.cases.csv}
      [ -f "$stem.lct.gz" ] || [ -f "$stem.lct" ] || { echo "import: $c has no trace; skipped" >&2; continue; }
      cases+=(--cases "$c"); lcts+=(--lct "$(ls "$stem".lct* | head -1)")
    done
    [ ${#cases[@]} -gt 0 ] || continue
    # sms<N>-<name> folders (scripts/collect-tune-fresh.sh) hold tuning data: traces/tune/<gpu>/<name>.corpus.csv.gz
    case "$part" in
      sms*-*) dest="traces/tune/$gpu/${part#*-}.corpus.csv.gz" ;;
      *) dest="traces/$gpu/$part.corpus.csv.gz" ;;
    esac
    mkdir -p "$(dirname "$dest")"
    "$LOOM" trace import "${lcts[@]}" "${cases[@]}" --out "$dest"
  done
  if [ -d "$gdir/e2e" ]; then
    mkdir -p "traces/e2e/$gpu"
    cp "$gdir"/e2e/*.cases.csv "$gdir"/e2e/*.lct.gz "traces/e2e/$gpu/"
  fi
  mkdir -p "traces/$gpu/logs"
  for f in steps.tsv summary.txt nvidia-smi.txt; do [ -f "$gdir/$f" ] && cp "$gdir/$f" "traces/$gpu/logs/"; done
done
du -sh traces
