#!/usr/bin/env bash
# GPU machine: torch SDPA attention at the per-GPU head layouts of tensor-parallel serving (1-2 KV heads per GPU,
# e.g. Llama-3-70B at TP 8 = 8 query heads on 1 KV head), cold L2, traced by the collector (issue 11/12: TP-8
# decode attention was outside the sweep). One device call per GPU:
#   bash scripts/collect-tp-attention.sh [SECONDS]
# Writes to $OUT (or /tmp/tpattn-out) loom-<gpu>-tpattn.tar holding <gpu>/sms132-tpattn/attn_tp.{lct.gz,cases.csv};
# then, here:
#   tar -xf loom-<gpu>-tpattn.tar -C /tmp/t && d=/tmp/t/<gpu>/sms132-tpattn &&
#   build/loom trace import --lct $d/attn_tp.lct.gz --cases $d/attn_tp.cases.csv \
#     --out traces/<gpu>/sms132-tpattn.corpus.csv.gz
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/gpu-build.sh
DEST=${OUT:-/tmp/tpattn-out}; mkdir -p "$DEST"
SECS=${1:-90}
export PYTHONUNBUFFERED=1
gpu_build build-gpu "$DEST/build.log" loom_cupti || { tail -20 "$DEST/build.log"; exit 1; }
LIB=$(pwd)/build-gpu/src/collector/libloom_cupti.so
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$name" in *H200*) gpu=h200 ;; *H100*) gpu=h100 ;; *) gpu=$(echo "$name" | tr 'A-Z ' 'a-z-') ;; esac
W=$(mktemp -d)/$gpu/sms132-tpattn; mkdir -p "$W"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv | tee "$W/smi.txt"
CUDA_INJECTION64_PATH="$LIB" NVTX_INJECTION64_PATH="$LIB" LOOM_TRACE_OUT="$W/attn_tp.lct" \
  python3 scripts/torch/attention_sweep.py --out "$W/attn_tp" --max-seconds "$SECS" --tp-layouts 2>&1 | tail -4
gzip -6 "$W/attn_tp.lct"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv | tee -a "$W/smi.txt"
tar -cf "$DEST/loom-$gpu-tpattn.tar" -C "$(dirname "$(dirname "$W")")" "$gpu"
ls -la "$DEST"; wc -l "$W"/*.cases.csv
