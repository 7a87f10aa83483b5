#!/bin/bash
# servekern device batch: collector build, Triton serving kernels cold + warm under CUPTI, host overhead.
set -u
O=${OUT:-/tmp/out}; D=.dev/servekern; L=$O/log
source scripts/lib/gpu-build.sh
t0=$(date +%s)
gpu_build build-gpu $O/build.log loom_cupti || echo "collector build failed" | tee -a $L
LIB=$PWD/build-gpu/src/collector/libloom_cupti.so
export PYTHONPATH=$PWD/$D:$PWD/scripts/torch PYTHONUNBUFFERED=1
echo "build $(( $(date +%s)-t0 )) s" | tee -a $L
nvidia-smi --query-gpu=name,clocks.sm,power.draw --format=csv | tee -a $L
CUDA_INJECTION64_PATH=$LIB NVTX_INJECTION64_PATH=$LIB LOOM_TRACE_OUT=$O/serving_cold.lct \
  python3 $D/serving_kernels.py --check --out $O/serving_cold --max-seconds 150 2>&1 | tail -20 | tee -a $L
CUDA_INJECTION64_PATH=$LIB NVTX_INJECTION64_PATH=$LIB LOOM_TRACE_OUT=$O/serving_warm.lct \
  python3 $D/serving_kernels.py --warm --out $O/serving_warm --max-seconds 120 2>&1 | tail -8 | tee -a $L
python3 $D/host_overhead.py --json $O/host.json 2>&1 | tee -a $L
gzip -f $O/*.lct
echo "total $(( $(date +%s)-t0 )) s" | tee -a $L
