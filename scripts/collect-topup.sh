#!/usr/bin/env bash
# On the GPU machine: finishes loom-bench sweeps that scripts/collect.sh stopped early (--max-seconds). For each
# PART:SKIP it runs `loom-bench --sms PART --skip SKIP` (the plan is deterministic, so the first SKIP cases are the
# ones already measured) under the CUPTI collector and packs <gpu>/smsPART/bench_topup.{cases.csv,lct.gz} into
# loom-<gpu>-topup.tar, which scripts/import-corpus.sh merges with the first run's tar.
#   bash scripts/collect-topup.sh --budget 450 132:3549 64:3591 16:3418
set -uo pipefail
cd "$(dirname "$0")/.."
BUDGET=450; [ "${1:-}" = "--budget" ] && { BUDGET=$2; shift 2; }
DEST="${OUT:-$PWD/collect-out}"; mkdir -p "$DEST"
WORK=/tmp/loom-topup; rm -rf "$WORK"; mkdir -p "$WORK"
B=build-gpu; T0=$(date +%s)
. scripts/lib/gpu-build.sh
gpu_build $B "$WORK/build.log" loom_cupti loom-bench || { tail -20 "$WORK/build.log"; exit 1; }
LIB=$(find $B -name libloom_cupti.so -print -quit)
NAME=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
case "$NAME" in *H200*) KEY=h200 ;; *H100*) KEY=h100 ;; *) KEY=unknown ;; esac
n=$#; i=0
for ps in "$@"; do
  part=${ps%%:*}; skip=${ps##*:}; i=$((i + 1))
  left=$(( BUDGET - ($(date +%s) - T0) - 20 )); share=$(( left / (n - i + 1) ))
  dir="$WORK/$KEY/sms$part"; mkdir -p "$dir"
  echo "[topup] sms=$part skip=$skip: up to ${share}s"
  CUDA_INJECTION64_PATH=$LIB NVTX_INJECTION64_PATH=$LIB LOOM_TRACE_OUT="$dir/bench_topup.lct" \
    timeout -s TERM -k 15 $((share + 10)) \
    $B/bench/loom-bench --sms "$part" --skip "$skip" --out "$dir/bench_topup" --max-seconds "$share" \
    > "$dir/bench_topup.log" 2>&1
  tail -2 "$dir/bench_topup.log"
  gzip -f "$dir/bench_topup.lct"
done
tar -C "$WORK" -cf "$DEST/loom-$KEY-topup.tar" "$KEY"
echo "[topup] packed $DEST/loom-$KEY-topup.tar in $(( $(date +%s) - T0 ))s"
