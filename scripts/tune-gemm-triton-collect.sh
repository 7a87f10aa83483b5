#!/bin/bash
# Device batch for issue 15's Triton GEMM family (one call per GPU kind): builds the CUPTI collector, runs the
# exhaustive sweep of loom's Triton GEMM (scripts/torch/tune/gemm_sweep.py: every config + cuBLAS on each shape) under
# it until a deadline, and joins trace + case list into a corpus on the device with the loom binary carried in
# $SRC/.carry (scripts/make-carry.sh) or, without one, brings the trace back gzipped in parts to import here
# (cat PARTS | gunzip > x.lct; loom trace import --lct x.lct --cases CASES -o CORPUS).
#   run: [SRC=dir] [PART=n] bash $SRC/scripts/tune-gemm-triton-collect.sh [TOTAL_SECONDS] [extra gemm_sweep.py args]
# SRC is where this script's Python files and .carry are (default .: the repo root); the collector is built from the
# repo root's src/collector. TOTAL_SECONDS (default 470) is the whole call: the sweep stops starting cases 50 s
# before it, leaving time for the collector's flush, the import and the copies.
# Runs of 2026-11-25: PART=1, TOTAL_SECONDS=400, timeout 410 s, on H100 then H200 (352 s each; traces/README.md).
set -u
t0=$(date +%s)
O=${OUT:-/tmp/out}; L=$O/log; mkdir -p $O
SRC=${SRC:-.}
total=${1:-470}; shift || true; part=${PART:-1}
source scripts/lib/gpu-build.sh
collector_prelude $L $t0
CUDA_INJECTION64_PATH=$LIB NVTX_INJECTION64_PATH=$LIB LOOM_TRACE_OUT=/tmp/gemm.lct \
  python3 $SRC/scripts/torch/tune/gemm_sweep.py --out /tmp/gemm --deadline $(( t0 + total - 50 )) "$@" 2>&1 \
  | tee /tmp/sweep.log | grep -v "^  [0-9]* cases" | tail -40 | tee -a $L
grep -E "^(compiled|check|sweep budget)" /tmp/sweep.log | tee -a $L  # the precompile's and the check's lines
echo "sweep ended at $(( $(date +%s)-t0 )) s" | tee -a $L
nvidia-smi --query-gpu=name,clocks.sm,power.draw,temperature.gpu --format=csv | tee -a $L
ls -la /tmp/gemm.* | tee -a $L
key=$(case "$gpu" in *H200*) echo h200;; *H100*) echo h100;; *) echo unknown;; esac)
gzip -c /tmp/gemm.cases.csv > $O/$key-gemm-triton-$part.cases.csv.gz
if [ -x $SRC/.carry/loom ]; then  # join on the device
  mkdir -p $O/c
  LD_LIBRARY_PATH=$SRC/.carry/lib LOOM_HOME=$PWD $SRC/.carry/loom trace import --lct /tmp/gemm.lct \
    --cases /tmp/gemm.cases.csv -o $O/c/gemm-triton-$part.corpus.csv.gz 2>&1 | tail -5 | tee -a $L
  LD_LIBRARY_PATH=$SRC/.carry/lib LOOM_HOME=$PWD $SRC/.carry/loom trace summary $O/c 2>&1 | tail -8 | tee -a $L
  mv $O/c/gemm-triton-$part.corpus.csv.gz $O/$key-gemm-triton-$part.corpus.csv.gz; rmdir $O/c
else  # no carried binary (the working tree that travels has a size limit): bring the trace back in 15 MiB parts
  gzip -1 -c /tmp/gemm.lct | split -b 15m -d - $O/$key-gemm-triton-$part.lct.gz.part
  ls -la $O | tee -a $L
fi
echo "total $(( $(date +%s)-t0 )) s" | tee -a $L
