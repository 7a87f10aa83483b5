#!/usr/bin/env bash
# GPU machine: PyTorch ops timed the way users time them — the same call repeated in a loop, no L2 flush, so each
# repetition finds its inputs in L2 — traced by the collector, for the warm-L2 training corpus (issue 12, item 4).
# Seeds and shape draws differ from the held-out warm set (traces/heldout/linear, seed 11), which is never trained on.
#   bash scripts/collect-warm.sh [LINEAR_SECONDS] [MEMORY_SECONDS] [ATTENTION_SECONDS]
# Writes to $OUT (or /tmp/warm-out) one tar, loom-<gpu>-warm.tar, holding <gpu>/sms132-warm/{linear,memops,attn}_warm.*;
# then, here (not import-corpus.sh, which files sms*-* folders as tuning data):
#   tar -xf loom-<gpu>-warm.tar -C /tmp/w && d=/tmp/w/<gpu>/sms132-warm &&
#   build/loom trace import --lct $d/linear_warm.lct.gz --cases $d/linear_warm.cases.csv [same for memops_warm,
#     attn_warm] --out traces/<gpu>/sms132-warm.corpus.csv.gz
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/gpu-build.sh
DEST=${OUT:-/tmp/warm-out}; mkdir -p "$DEST"
LIN=${1:-170}; MEM=${2:-60}; ATT=${3:-60}   # seconds per sweep; 0 skips it
SEED=${SEED:-23}; N=${N:-700}              # linear sweep: seed and shapes per dtype group (heldout uses seed 11)
export PYTHONUNBUFFERED=1
gpu_build build-gpu "$DEST/build.log" loom_cupti || { tail -20 "$DEST/build.log"; exit 1; }
LIB=$(pwd)/build-gpu/src/collector/libloom_cupti.so
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$name" in *H200*) gpu=h200 ;; *H100*) gpu=h100 ;; *) gpu=$(echo "$name" | tr 'A-Z ' 'a-z-') ;; esac
W=$(mktemp -d)/$gpu/sms132-warm; mkdir -p "$W"
[ -n "${PROBE:-}" ] && python3 scripts/torch/serving/probe_new_shapes.py --out "$DEST/new_shapes-$gpu.json" 2>&1 |
  tee "$DEST/new_shapes-$gpu.log" | tail -3
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv | tee "$W/smi.txt"
run() {  # run NAME SCRIPT SECONDS [extra args]
  local name=$1 script=$2 secs=$3; shift 3
  [ "$secs" = 0 ] && return 0
  echo "== $name ($script, ${secs}s)"
  CUDA_INJECTION64_PATH="$LIB" NVTX_INJECTION64_PATH="$LIB" LOOM_TRACE_OUT="$W/$name.lct" \
    python3 "scripts/torch/$script" --out "$W/$name" --max-seconds "$secs" --warm "$@" 2>&1 | tail -4
  gzip -6 "$W/$name.lct"
}
run linear_warm linear_paths.py "$LIN" --seed "$SEED" --n "$N"
run memops_warm memory_ops.py "$MEM"
run attn_warm attention_sweep.py "$ATT"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv | tee -a "$W/smi.txt"
tar -cf "$DEST/loom-$gpu-warm.tar" -C "$(dirname "$(dirname "$W")")" "$gpu"
ls -la "$DEST"; wc -l "$W"/*.cases.csv
