#!/bin/bash
# Fills .carry/ (git-ignored) with the loom binary built here and the Debian shared libraries it needs that the GPU
# machine lacks (xgboost, dmlc, yaml-cpp 0.7, gomp), so device scripts can run `loom trace import` there.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .carry/lib
cp build/loom .carry/loom
for l in libxgboost.so.0 libdmlc.so.0 libyaml-cpp.so.0.7 libgomp.so.1; do
  cp -L "$(ldconfig -p | awk -v l=$l '$1==l {print $NF; exit}')" .carry/lib/$l
done
du -sh .carry
