#!/bin/bash
# Device batch for issue 12 item 6 (one-GPU kinds): how fast this machine's host drives eager PyTorch, so host costs
# measured on one host (the profiles') can be scaled to another (`host.cpu_speed`). Runs, in order:
#   calibrate.py (its host_cost: a 16-layer tiny eager forward in plain torch, host time a launch; plus the usual
#   tensor/DRAM/launch rates), hf_host.py (the tiny HF Llama the hf profiles' host_overhead_us came from), and with
#   PLAN=1 hf_sdpa_plan.py (cuDNN SDPA plan builds a decode step, fresh process each).
# Results under $OUT: calibration.json, hf_host.json, plan.jsonl (PLAN=1), run.log.
#   run(command="bash scripts/host-speed-collect.sh", kind="nvidia-h200")
#   run(command="PLAN=1 bash scripts/host-speed-collect.sh", kind="nvidia-h100-x1")
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
export PYTHONPATH=$PWD/scripts/torch/e2e:$PWD/scripts/torch
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  grep -m1 "model name" /proc/cpuinfo; nproc
  python3 scripts/torch/calibrate.py --out "$O/calibration.json" --seconds 2
  python3 scripts/torch/e2e/hf_host.py --out "$O"
  if [ "${PLAN:-0}" = 1 ]; then
    for L in 8 16 32; do for c in 1 0; do
      python3 scripts/torch/e2e/hf_sdpa_plan.py --layers $L --cudnn $c --out "$O/plan.jsonl"
    done; done
  fi
} 2>&1 | grep -v "Warning\|_warn_once\|warn_once" | tee "$O/run.log"
