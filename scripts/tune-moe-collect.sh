#!/bin/bash
# Device batch for issue 15 (one call per GPU kind): builds the CUPTI collector, runs the exhaustive Triton fused-MoE
# tuning sweep (scripts/torch/tune/moe_sweep.py) under it, and joins trace + case list into a corpus on the device
# with the loom binary carried in .carry/ (scripts/make-carry.sh: the lct of ~10^5 cases is too large to bring back).
#   run: [PART=n] bash scripts/tune-moe-collect.sh [SWEEP_SECONDS] [extra moe_sweep.py args...]   (carry: .carry)
# Runs of 2026-11-24: PART=1 (390 s; H200 111 shapes, H100 ...), PART=2 --skip N (the next shapes of the same order).
set -u
O=${OUT:-/tmp/out}; L=$O/log; mkdir -p $O/moe
secs=${1:-400}; shift || true; part=${PART:-1}
source scripts/lib/gpu-build.sh
t0=$(date +%s)
collector_prelude $L $t0
CUDA_INJECTION64_PATH=$LIB NVTX_INJECTION64_PATH=$LIB LOOM_TRACE_OUT=/tmp/moe.lct \
  python3 scripts/torch/tune/moe_sweep.py --out /tmp/moe --max-seconds "$secs" "$@" 2>&1 | grep -v "^  [0-9]* cases" \
  | tail -60 | tee -a $L
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv | tee -a $L
ls -la /tmp/moe.* | tee -a $L
export LD_LIBRARY_PATH=$PWD/.carry/lib LOOM_HOME=$PWD
key=$(case "$gpu" in *H200*) echo h200;; *H100*) echo h100-sxm;; *) echo unknown;; esac)
.carry/loom trace import --lct /tmp/moe.lct --cases /tmp/moe.cases.csv \
  -o $O/moe/$key-moe-triton-$part.corpus.csv.gz 2>&1 | tail -5 | tee -a $L
.carry/loom trace summary $O/moe 2>&1 | tail -12 | tee -a $L
gzip -c /tmp/moe.cases.csv > $O/$key-moe-triton-$part.cases.csv.gz
echo "total $(( $(date +%s)-t0 )) s" | tee -a $L
