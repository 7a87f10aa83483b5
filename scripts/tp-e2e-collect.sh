#!/bin/bash
# Device batch for issues 11/13 (kind nvidia-h200-x2): the CUPTI collector, then scripts/torch/e2e/tp_e2e.py on
# both GPUs (a Llama-3-8B-shaped model at TP 2: eager prefill, eager decode, CUDA-graph decode) under it.
# Results under $OUT: tp2.cases.csv + tp2.lct.gz (rank 0: what `loom validate --e2e` reads), rank 1's case list
# and trace, run.log. NGPU=N (with CUDA_VISIBLE_DEVICES naming N GPUs) runs TP N on part of a larger node. NVLink
# multicast stays off (the lent machines forbid it).
#   run(command="bash scripts/tp-e2e-collect.sh", kind="nvidia-h200-x2")
# Extra arguments go to tp_e2e.py; since 2026-11-28 (twelfth session) the TP 2 recording is made with --host-probe 1:
#   run(command="bash scripts/tp-e2e-collect.sh --host-probe 1", kind="nvidia-h200-x2")
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"; L=$O/run.log
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
source scripts/lib/gpu-build.sh
t0=$(date +%s)
gpu_build build-gpu "$O/build.log" loom_cupti || echo "collector build failed" | tee -a "$L"
LIB=$PWD/build-gpu/src/collector/libloom_cupti.so
echo "build $(( $(date +%s)-t0 )) s" | tee -a "$L"
n=${NGPU:-$(nvidia-smi -L | wc -l)}  # NGPU=2 with CUDA_VISIBLE_DEVICES=0,1: TP 2 on a larger node
export PYTHONPATH=$PWD/scripts/torch/e2e:$PWD/scripts/torch
CUDA_INJECTION64_PATH=$LIB NVTX_INJECTION64_PATH=$LIB LOOM_TRACE_OUT=$O/tp$n.lct timeout 500 \
  torchrun --standalone --nproc_per_node "$n" scripts/torch/e2e/tp_e2e.py --out "$O/tp$n" --max-seconds 300 "$@" \
  2>&1 | grep -v "^W1\|_warn_once\|UserWarning" | tail -40 | tee -a "$L"
[ -f "$O/tp$n.rank0.lct" ] && mv "$O/tp$n.rank0.lct" "$O/tp$n.lct"
gzip -f "$O"/*.lct
ls -la "$O" | tee -a "$L"
echo "total $(( $(date +%s)-t0 )) s" | tee -a "$L"
