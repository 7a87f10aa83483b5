#!/usr/bin/env bash
# Device collection for `loom tune --family gemm-cublaslt` (one run per GPU): builds bench/cublaslt/cublaslt_sweep.cu
# with the device's nvcc, sweeps cuBLASLt's algorithm configs on F.linear bf16 GEMMs for BUDGET seconds (whole shapes
# only), and, where the exported tables exist (DISPATCH_HEADER), builds and runs the dispatcher example.
# Usage on the device (from the repo root, with the sources under SRC): bash scripts/cublaslt-collect.sh SRC
set -uo pipefail
SRC=${1:-.}
OUT=${OUT:-/tmp/out}
BUDGET=${BUDGET:-300}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"
nvcc -O2 -std=c++17 -arch=sm_90 -o /tmp/cublaslt_sweep "$SRC/bench/cublaslt/cublaslt_sweep.cu" -lcublasLt || exit 1
/tmp/cublaslt_sweep --out /tmp/cublaslt.csv --budget-s "$BUDGET" --seed 1 2>&1 | tee "$OUT/sweep.log"
gzip -c /tmp/cublaslt.csv > "$OUT/cublaslt.csv.gz"
if [ -n "${DISPATCH_HEADER:-}" ]; then
  nvcc -O2 -std=c++17 -x cu -arch=sm_90 -I"$(dirname "$DISPATCH_HEADER")" -o /tmp/cublaslt_dispatch \
    "$SRC/examples/cublaslt_dispatch.cpp" -lcublasLt && /tmp/cublaslt_dispatch 2>&1 | tee "$OUT/dispatch.log"
fi
ls -la "$OUT"
