#!/bin/bash
# Device batch for issue 11 (kind nvidia-h200-x2, or any node with >= 2 GPUs): how the node's GPUs are linked, then
# scripts/torch/collectives.py on every GPU (NCCL all_reduce fp16/bf16, all_gather, reduce_scatter; symmetric-memory
# one-shot/two-shot all-reduce). Results under $OUT: node.txt, run.log, DIR/all_reduce.csv (Vidur layout),
# DIR/rank<r>.csv (every op, per rank). NVLink multicast stays off (the lent machines forbid it).
#   run(command="bash scripts/collectives-collect.sh", kind="nvidia-h200-x2")
# OPS=send_recv (or any --ops list of collectives.py) sweeps only those, into DIR-<ops>; NOP2P=1 adds an all_reduce
# sweep with NCCL's peer-to-peer transport off (NCCL_P2P_DISABLE=1: through host memory, as on PCIe boards without
# P2P), into DIR-nop2p.
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
t0=$(date +%s)
{ nvidia-smi; nvidia-smi topo -m; nvidia-smi nvlink -s 2>&1 | head -60
  nvidia-smi -q 2>&1 | grep -i -A4 fabric | head -20
  nvidia-smi --query-gpu=name,clocks.max.sm,clocks.sm,power.limit --format=csv
  python3 -c "import torch
print('torch', torch.__version__, 'nccl', torch.cuda.nccl.version(), 'gpus', torch.cuda.device_count())"
} > "$O/node.txt" 2>&1
n=$(nvidia-smi -L | wc -l)
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '-' | tr 'A-Z' 'a-z')
dir="$O/$gpu-${n}gpu"; ops=${OPS:-all_reduce,all_gather,symm}
[ "$ops" = all_reduce,all_gather,symm ] || dir="$dir-$(echo "$ops" | tr ',' '-')"
NCCL_DEBUG=INFO NCCL_DEBUG_FILE="$O/nccl.%h.%p.log" timeout 540 torchrun --standalone --nproc_per_node "$n" \
  scripts/torch/collectives.py --out "$dir" --ops "$ops" --max-seconds ${MAX_SECONDS:-420} > "$O/run.log" 2>&1
echo "rc=$? total $(( $(date +%s)-t0 )) s" >> "$O/run.log"
if [ "${NOP2P:-0}" = 1 ]; then
  NCCL_P2P_DISABLE=1 timeout 300 torchrun --standalone --nproc_per_node "$n" scripts/torch/collectives.py \
    --out "$O/$gpu-${n}gpu-nop2p" --ops all_reduce --max-log2 28 --max-seconds 200 >> "$O/run.log" 2>&1
  echo "nop2p rc=$? total $(( $(date +%s)-t0 )) s" >> "$O/run.log"
fi
# NCCL's own log: keep rank 0's algorithm/protocol/channel lines only (one file).
cat "$O"/nccl.*.log 2>/dev/null | grep -E "NCCL version|Channel|Algo|Proto|NVLS|P2P|comm 0x.*rank 0 " | head -300 \
  > "$O/nccl-info.txt"
rm -f "$O"/nccl.*.log
tail -30 "$O/run.log"
