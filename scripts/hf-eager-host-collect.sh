#!/bin/bash
# Device batch for issue 12 (HF eager decode wall): the traces/e2e hf_eager runs recorded again, under loom's CUPTI
# collector as before, with the host's speed measured beside every timed decode step (hf_eager.py --host-probe 3:
# three `loom.host_probe` ranges, each a synchronised forward of scripts/torch/host_cost.py's tiny eager model, the
# figure host.cpu_speed is defined by). host_cost.py also runs alone three times before and after, for the host's
# modes in the same minutes. ~3 minutes. Results under $OUT: hf_eager.cases.csv, hf_eager.lct.gz, run.log, build.log.
#   run(command="bash scripts/hf-eager-host-collect.sh", kind="nvidia-h200")
#   run(command="bash scripts/hf-eager-host-collect.sh", kind="nvidia-h100-x1")
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
t0=$(date +%s)
source scripts/lib/gpu-build.sh
export PYTHONPATH=$PWD/scripts/torch/e2e:$PWD/scripts/torch
collector_prelude "$O/run.log" "$t0"
host_cost() { for _ in 1 2 3; do python3 scripts/torch/host_cost.py 2>&1 | grep "^host:"; done; }
{
  grep -m1 "model name" /proc/cpuinfo; nproc; uptime
  echo "host_cost.py alone, before:"; host_cost
  CUDA_INJECTION64_PATH=$LIB NVTX_INJECTION64_PATH=$LIB LOOM_TRACE_OUT=/tmp/hf_eager.lct \
    timeout -s TERM -k 15 420 python3 scripts/torch/e2e/hf_eager.py --out "$O/hf_eager" --host-probe 3 \
    --max-seconds 400 2>&1 | grep -v "Warning\|warn_once"
  echo "hf_eager exit ${PIPESTATUS[0]}"
  echo "host_cost.py alone, after:"; host_cost
  gzip -6 -c /tmp/hf_eager.lct > "$O/hf_eager.lct.gz" && ls -l "$O"
  echo "total $(( $(date +%s) - t0 )) s"
} 2>&1 | tee -a "$O/run.log"
