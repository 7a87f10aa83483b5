#!/bin/bash
# Device batch for issue 12 (HF eager decode wall): how an HF eager decode step's host time follows the host's speed,
# apart from the validation runs: scripts/torch/e2e/host_slope.py (the tiny-dimension HF Llama of hf_host.py, cuDNN
# SDPA on and off alternating, a host_cost.py probe after every step) for 240 s, no collector. ~5 minutes.
# Results under $OUT: host_slope.jsonl.gz, run.log.
#   run(command="bash scripts/host-slope-collect.sh", kind="nvidia-h200")
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
t0=$(date +%s)
export PYTHONPATH=$PWD/scripts/torch/e2e:$PWD/scripts/torch PYTHONUNBUFFERED=1
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  grep -m1 "model name" /proc/cpuinfo; nproc; uptime
  timeout -s TERM -k 15 280 python3 scripts/torch/e2e/host_slope.py --out /tmp/host_slope.jsonl --seconds ${SECS:-240} \
    2>&1 | grep -v "Warning\|warn_once"
  gzip -9 -c /tmp/host_slope.jsonl > "$O/host_slope.jsonl.gz"
  echo "total $(( $(date +%s) - t0 )) s"
} 2>&1 | tee "$O/run.log"
