#!/bin/bash
# Device batch for issue 12 item 6: per-step host cost of cuDNN SDPA plan builds in HF eager decode
# (scripts/torch/e2e/hf_sdpa_plan.py), fresh process per setting. Results under $OUT: plan.jsonl (one line a run),
# run.log.
#   run(command="bash scripts/hf-sdpa-plan-collect.sh", kind="nvidia-h200")
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
export PYTHONPATH=$PWD/scripts/torch/e2e:$PWD/scripts/torch
for L in 8 16 32; do for c in 1 0 1 0; do
  python3 scripts/torch/e2e/hf_sdpa_plan.py --layers $L --cudnn $c --out "$O/plan.jsonl" 2>&1 |
    grep -v "Warning\|warn_once"
done; done | tee "$O/run.log"
