#!/usr/bin/env bash
# GPU machine: traces scripts/torch/linear_paths.py (misaligned / small-M / fp32 / tf32 / bmm linear and fp8
# torch._scaled_mm) under the collector, cold (read flush) and warm (no flush); results to $OUT.
#   bash scripts/collect-linear.sh [COLD_SECONDS] [WARM_SECONDS] [sweep args, e.g. --seed 12 --n 1200]
# Then, here: loom trace import --lct linear_cold.lct.gz --cases linear_cold.cases.csv \
#   --out traces/<gpu>/sms132-linear.corpus.csv.gz
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/gpu-build.sh
DEST=${OUT:-/tmp/linear-out}; mkdir -p "$DEST"
COLD=${1:-200}; WARM=${2:-90}; shift 2 2>/dev/null; EXTRA=("$@")
export PYTHONUNBUFFERED=1
gpu_build build-gpu "$DEST/build.log" loom_cupti || { tail -20 "$DEST/build.log"; exit 1; }
LIB=$(pwd)/build-gpu/src/collector/libloom_cupti.so
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv | tee "$DEST/smi.txt"
run() {  # run NAME SECONDS [extra args]
  local name=$1 secs=$2; shift 2
  CUDA_INJECTION64_PATH="$LIB" NVTX_INJECTION64_PATH="$LIB" LOOM_TRACE_OUT="$DEST/$name.lct" \
    python3 scripts/torch/linear_paths.py --out "$DEST/$name" --max-seconds "$secs" "${EXTRA[@]}" "$@" 2>&1 | tail -5
  gzip -6 "$DEST/$name.lct"
}
run linear_cold "$COLD"
[ "$WARM" -gt 0 ] && run linear_warm "$WARM" --warm
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv | tee -a "$DEST/smi.txt"
ls -la "$DEST"
