#!/bin/bash
# servekern device batch 2: Triton paged decode attention, cold (read flush) under CUPTI.
set -u
O=${OUT:-/tmp/out}; D=.dev/servekern; L=$O/log
source scripts/lib/gpu-build.sh
gpu_build build-gpu $O/build.log loom_cupti || echo "collector build failed" | tee -a $L
LIB=$PWD/build-gpu/src/collector/libloom_cupti.so
export PYTHONPATH=$PWD/$D:$PWD/scripts/torch PYTHONUNBUFFERED=1
CUDA_INJECTION64_PATH=$LIB NVTX_INJECTION64_PATH=$LIB LOOM_TRACE_OUT=$O/paged_cold.lct \
  python3 $D/paged_decode.py --check --out $O/paged_cold --max-seconds 150 2>&1 | tail -20 | tee -a $L
gzip -f $O/*.lct
