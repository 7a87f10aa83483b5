#!/bin/bash
# Device batch for issue 12 item 6 (one-GPU kinds): HF eager host cost per launch on a tiny model
# (scripts/torch/e2e/hf_host.py), plain and under loom's CUPTI collector (as traces/e2e was recorded).
# Results under $OUT: hf_host.json, hf_host-cupti.json, run.log.
#   run(command="bash scripts/hf-host-collect.sh", kind="nvidia-h200")
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
source scripts/lib/gpu-build.sh
export PYTHONPATH=$PWD/scripts/torch/e2e:$PWD/scripts/torch
python3 scripts/torch/e2e/hf_host.py --out "$O" 2>&1 | grep -v "Warning\|_warn_once" | tee "$O/run.log"
gpu_build build-gpu "$O/build.log" loom_cupti || echo "collector build failed" | tee -a "$O/run.log"
LIB=$PWD/build-gpu/src/collector/libloom_cupti.so
CUDA_INJECTION64_PATH=$LIB NVTX_INJECTION64_PATH=$LIB LOOM_TRACE_OUT=/tmp/hf_host.lct \
  python3 scripts/torch/e2e/hf_host.py --out "$O" --tag cupti 2>&1 | grep -v "Warning\|_warn_once" | tee -a "$O/run.log"
