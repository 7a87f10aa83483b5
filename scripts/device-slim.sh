#!/bin/bash
# The GPU machines receive the checkout (tracked + untracked-not-ignored files) up to 64 MiB; the repository's
# tracked data is above that (70.7 MB at stop 23). Tracked files missing from the working tree do not travel
# (checked 2026-11-25 on nvidia-h200), so before a device call move the large data no device script reads out of
# the tree, and put it back right after. Never commit while they are out (git would record deletions).
#   bash scripts/device-slim.sh out     # moves them to /tmp/loom-device-slim, prints the size that will travel
#   bash scripts/device-slim.sh back    # restores them (git status must be clean of deletions afterwards)
set -euo pipefail
cd "$(dirname "$0")/.."
stash=/tmp/loom-device-slim
files=(traces/tune/h200/gemm-triton-1.corpus.csv.gz traces/tune/h100/gemm-triton-1.corpus.csv.gz
       traces/tune/h200/cublaslt-sweep.csv.gz traces/tune/h100-sxm/cublaslt-sweep.csv.gz
       models/efficiency-h200
       # the learned model (32 MB since the 10-level GEMM trees of 2026-11-27): no device script predicts
       models/efficiency
       # the random-shape GEMM training sets: read by `loom train` here, by no device script (2026-11-27: they took
       # the travelling checkout to 65 MB of the 64 MiB limit)
       traces/h200/sms132-{warm,linear}{3,4,5,6}.corpus.csv.gz
       traces/h100/sms132-{warm,linear}{3,4,5,6,7}.corpus.csv.gz)
case "${1:-}" in
  out)
    for f in "${files[@]}"; do [ -e "$f" ] || continue; mkdir -p "$stash/$(dirname "$f")"; mv "$f" "$stash/$f"; done
    echo "travels: $(git ls-files -z | xargs -0 du -cb 2>/dev/null |
      tail -1 | cut -f1) bytes of tracked files (limit 67108864)";;
  back)
    for f in "${files[@]}"; do [ -e "$stash/$f" ] || continue; mkdir -p "$(dirname "$f")"; mv "$stash/$f" "$f"; done
    # A build while the models were out packed none of them (build/models/packed); the restored files keep their old
    # times, so touch the model indexes to make the next build pack them again.
    touch models/efficiency*/model.json 2>/dev/null || true
    git status --short | grep '^ D' && { echo "still missing (see above)"; exit 1; } || echo "restored";;
  *) echo "usage: bash scripts/device-slim.sh out|back" >&2; exit 2;;
esac
