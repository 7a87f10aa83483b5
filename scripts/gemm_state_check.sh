#!/usr/bin/env bash
# On the GPU machine: times the cuBLASLt GEMMs of bench/plans/gemm-state-check.plan with loom-bench under the
# CUPTI collector, once with the old write flush and once with the read flush, then the same shapes through
# PyTorch (scripts/torch/context_check.py, cool vs after sustained load). Everything lands in $OUT (or ./out);
# import the .lct/.cases.csv pairs with `loom trace import` on the dev machine. See traces/checks/README.md.
#   bash scripts/gemm_state_check.sh
set -uo pipefail
cd "$(dirname "$0")/.."
DEST="${OUT:-$PWD/out}"; mkdir -p "$DEST"
B=build-gpu
. scripts/lib/gpu-build.sh
gpu_build $B "$DEST/build.log" loom_cupti loom-bench || { tail -20 "$DEST/build.log"; exit 1; }
LIB=$(find $B -name libloom_cupti.so -print -quit)
for mode in write read; do
  CUDA_INJECTION64_PATH=$LIB LOOM_TRACE_OUT="$DEST/state_$mode.lct" $B/bench/loom-bench \
    --plan bench/plans/gemm-state-check.plan --out "$DEST/state_$mode" --flush $mode --reps 15 2>&1 | tail -2
  gzip -f "$DEST/state_$mode.lct"
done
python3 scripts/torch/context_check.py --reps 20 --preheat 5 --json "$DEST/context.json" 2>&1 | grep -v Warn
