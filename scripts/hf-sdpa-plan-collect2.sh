#!/bin/bash
# Device batch for issue 12 (HF eager decode wall): cuDNN SDPA's per-new-KV-length host plan build as a function of
# batch, heads, KV heads, head_dim, KV length, layers and GQA handling, apart from the validation runs (traces/e2e):
# a standalone F.scaled_dot_product_attention decode loop, cuDNN SDPA on vs off, a fresh process per setting
# (scripts/torch/e2e/sdpa_plan_sweep.py; docs/hf-decode-wall.md says why these settings). The llama-3.2-1b and tiny
# (hf_host.py) attention shapes are repeated three times, interleaved, for the spread between processes. ~3 minutes on
# an H200; settings left when 180 s have passed are skipped (said in run.log). Results under $OUT: plan2.jsonl (one
# line a setting, per-step rows included), run.log.
#   run(command="bash scripts/hf-sdpa-plan-collect2.sh", kind="nvidia-h200")
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
t0=$(date +%s)
L1B="--heads 32 --kv-heads 8 --head-dim 64"   # llama-3.2-1b (traces/e2e)
TINY="--heads 2 --kv-heads 1 --head-dim 32"   # hf_host.py's TINY config, where 37 ms was measured
settings=(
  "l1b      --cudnn 1 $L1B --batch 1 --kv-start 512"
  "tiny     --cudnn 1 $TINY --batch 1 --kv-start 100"
  "l1b-off  --cudnn 0 $L1B --batch 1 --kv-start 512"
  "tiny-off --cudnn 0 $TINY --batch 1 --kv-start 100"
  "l1b-b8   --cudnn 1 $L1B --batch 8 --kv-start 512"
  "l1b-b64  --cudnn 1 $L1B --batch 64 --kv-start 128"
  "l1b-c128 --cudnn 1 $L1B --batch 1 --kv-start 128"
  "l1b-c2k  --cudnn 1 $L1B --batch 1 --kv-start 2048"
  "l1b      --cudnn 1 $L1B --batch 1 --kv-start 512"
  "tiny     --cudnn 1 $TINY --batch 1 --kv-start 100"
  "mha      --cudnn 1 --heads 32 --kv-heads 32 --head-dim 64 --batch 1 --kv-start 512"
  "8b       --cudnn 1 --heads 32 --kv-heads 8 --head-dim 128 --batch 1 --kv-start 512"
  "70b      --cudnn 1 --heads 64 --kv-heads 8 --head-dim 128 --batch 1 --kv-start 512"
  "70b-tp4  --cudnn 1 --heads 16 --kv-heads 2 --head-dim 128 --batch 1 --kv-start 512"
  "l1b      --cudnn 1 $L1B --batch 1 --kv-start 512"
  "tiny     --cudnn 1 $TINY --batch 1 --kv-start 100"
  "h32-d32  --cudnn 1 --heads 32 --kv-heads 8 --head-dim 32 --batch 1 --kv-start 512"
  "h2-d64   --cudnn 1 --heads 2 --kv-heads 1 --head-dim 64 --batch 1 --kv-start 512"
  "l1b-lay1 --cudnn 1 $L1B --batch 1 --kv-start 512 --layers 1"
  "l1b-lay64 --cudnn 1 $L1B --batch 1 --kv-start 512 --layers 64"
  "l1b-rep  --cudnn 1 $L1B --batch 1 --kv-start 512 --gqa repeat"
  "l1b-c8k  --cudnn 1 $L1B --batch 1 --kv-start 8192"
)
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  grep -m1 "model name" /proc/cpuinfo; nproc; uptime
  for s in "${settings[@]}"; do
    if [ $(( $(date +%s) - t0 )) -gt 180 ]; then echo "180 s passed: skipped: $s"; continue; fi
    read -r tag args <<< "$s"
    # shellcheck disable=SC2086  # args is a list of options
    timeout 45 python3 scripts/torch/e2e/sdpa_plan_sweep.py $args --tag "$tag" --out "$O/plan2.jsonl" ||
      echo "$tag: exit $?"
  done
  echo "total $(( $(date +%s) - t0 )) s"
} 2>&1 | grep -v "Warning\|warn_once" | tee "$O/run.log"
