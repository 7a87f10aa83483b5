#!/bin/bash
# Device batch for issue 15, after the sweeps: (1) the engines' default fused-MoE configs (vLLM's get_default_config:
# 16x32x64 GROUP 1 for M <= E, 64x64x32 GROUP 8 otherwise; 4 warps, 3 stages) on the first 300 shapes of the sweeps'
# seeded order (every shape of their pools), bf16 and fp8, under CUPTI; (2) a traced Qwen3-30B-A3B-shaped prefill with
# default vs loom-exported configs (scripts/torch/tune/moe_prefill.py, models/tune/engine/).  (carry: .carry)
# DEFAULT_SHAPES=0 runs the prefill only.
set -u
O=${OUT:-/tmp/out}; L=$O/log; mkdir -p $O/moe
source scripts/lib/gpu-build.sh
t0=$(date +%s)
gpu_build build-gpu $O/build.log loom_cupti || echo "collector build failed" | tee -a $L
LIB=$PWD/build-gpu/src/collector/libloom_cupti.so
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
key=$(case "$gpu" in *H200*) echo h200;; *H100*) echo h100-sxm;; *) echo unknown;; esac)
export PYTHONUNBUFFERED=1 LOOM_TRACE_OUT=/tmp/defaults.lct
if [ "${DEFAULT_SHAPES:-260}" -gt 0 ]; then
CUDA_INJECTION64_PATH=$LIB NVTX_INJECTION64_PATH=$LIB python3 scripts/torch/tune/moe_sweep.py --out /tmp/defaults \
  --configs 16x32x64_s3_w4_g1,64x64x32_s3_w4_g8 --shapes ${DEFAULT_SHAPES:-260} --max-seconds 150 2>&1 |
  grep -v "^shape\|cases," | tail -8 | tee -a $L
export LD_LIBRARY_PATH=$PWD/.carry/lib LOOM_HOME=$PWD
.carry/loom trace import --lct /tmp/defaults.lct --cases /tmp/defaults.cases.csv \
  -o $O/moe/$key-moe-triton-defaults.corpus.csv.gz 2>&1 | tail -2 | tee -a $L
unset LD_LIBRARY_PATH
fi
python3 scripts/torch/tune/moe_sweep.py --out /tmp/chk --configs 16x32x64_s3_w4_g1,64x128x64_s4_w8_g16 --shapes 0 \
  2>&1 | grep "check" | tee -a $L   # the kernel and the token sort against the fp32 reference
f=$(ls models/tune/engine/$key/E=128,N=768,*.json | grep -v dtype | head -1)
CUDA_INJECTION64_PATH=$LIB NVTX_INJECTION64_PATH=$LIB LOOM_TRACE_OUT=/tmp/prefill.lct \
  python3 scripts/torch/tune/moe_prefill.py --engine-file "$f" --json $O/$key-moe-prefill.json 2>&1 | tail -8 |
  tee -a $L
gzip -c /tmp/prefill.lct > $O/$key-moe-prefill.lct.gz
echo "total $(( $(date +%s)-t0 )) s" | tee -a $L
