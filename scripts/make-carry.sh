#!/bin/bash
# Fills .carry/ (git-ignored) with the loom binary built here and the Debian shared libraries it needs that the GPU
# machine lacks (xgboost, dmlc, yaml-cpp 0.7, gomp), so device scripts can run `loom trace import` there.
#   bash scripts/make-carry.sh          .carry/loom + .carry/lib (~12 MB)
#   bash scripts/make-carry.sh --xz     also .carry-xz/carry.tar.xz (stripped, ~3.5 MB): what fits beside the checkout
#                                       under the device's 64 MiB transfer limit; carry `.carry-xz` and start the
#                                       command with `mkdir -p .carry && tar xJf .carry-xz/carry.tar.xz -C .carry;`
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .carry/lib
cp build/loom .carry/loom
for l in libxgboost.so.0 libdmlc.so.0 libyaml-cpp.so.0.7 libgomp.so.1; do
  cp -L "$(ldconfig -p | awk -v l=$l '$1==l {print $NF; exit}')" .carry/lib/$l
done
du -sh .carry
if [ "${1:-}" = "--xz" ]; then
  tmp=$(mktemp -d)
  cp -r .carry/. "$tmp/"
  strip "$tmp/loom" "$tmp"/lib/* 2>/dev/null || true
  mkdir -p .carry-xz
  tar cJf .carry-xz/carry.tar.xz -C "$tmp" .
  rm -rf "$tmp"
  du -sh .carry-xz/carry.tar.xz
  echo "checkout that travels: $(($(git ls-files -z | xargs -0 du -cb 2>/dev/null |
    tail -1 | cut -f1) / 1048576)) MiB tracked"
fi
