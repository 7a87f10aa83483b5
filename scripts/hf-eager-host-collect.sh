#!/bin/bash
# Device batch for issue 12 (HF eager decode wall): the traces/e2e hf_eager runs recorded again, under loom's CUPTI
# collector as before, with the host's speed measured beside every timed rep (hf_eager.py --host-probe 1: a
# `loom.host_probe` range after each prefill and decode rep, a synchronised forward of scripts/torch/host_cost.py's
# tiny eager model, the figure host.cpu_speed is defined by). Before it, the collector's own cost to that probe:
# host_cost.py alone and under the collector, interleaved five times each (the reference figure, 12.72 us a launch,
# was measured without the collector). ~3 minutes.
# Results under $OUT: hf_eager.cases.csv, hf_eager.lct.gz, probe-collector.tsv, run.log, build.log.
#   run(command="bash scripts/hf-eager-host-collect.sh", kind="nvidia-h200")
#   run(command="bash scripts/hf-eager-host-collect.sh", kind="nvidia-h100-x1")
#   run(command="PROBE_ONLY=1 ROUNDS='1 2 3 4 5 6 7 8' bash scripts/hf-eager-host-collect.sh")  # the probe part alone
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
t0=$(date +%s)
source scripts/lib/gpu-build.sh
export PYTHONPATH=$PWD/scripts/torch/e2e:$PWD/scripts/torch
collector_prelude "$O/run.log" "$t0"
traced() { CUDA_INJECTION64_PATH=$LIB NVTX_INJECTION64_PATH=$LIB LOOM_TRACE_OUT=$1 "${@:2}"; }
us_of() { grep "^host:" | awk '{print $2}'; }
{
  grep -m1 "model name" /proc/cpuinfo; nproc; uptime
  printf 'round\talone_us\tcollector_us\n' > "$O/probe-collector.tsv"
  for i in ${ROUNDS:-1 2 3 4 5}; do
    a=$(python3 scripts/torch/host_cost.py 2>&1 | grep "^host:")
    n=$(sed 's/.*(\([0-9]*\) launches.*/\1/' <<< "$a")   # the torch profiler cannot count under the collector
    c=$(traced /tmp/host_cost.lct python3 scripts/torch/host_cost.py --launches "$n" 2>&1 | us_of)
    a=$(us_of <<< "$a")
    printf '%s\t%s\t%s\n' "$i" "$a" "$c" | tee -a "$O/probe-collector.tsv"
  done
  [ "${PROBE_ONLY:-0}" = 1 ] && exit 0
  traced /tmp/hf_eager.lct timeout -s TERM -k 15 420 python3 scripts/torch/e2e/hf_eager.py --out "$O/hf_eager" \
    --host-probe 1 --max-seconds 400 2>&1 | grep -v "Warning\|warn_once"
  echo "hf_eager exit ${PIPESTATUS[0]}"
  gzip -9 -c /tmp/hf_eager.lct > "$O/hf_eager.lct.gz" && ls -l "$O"
  echo "total $(( $(date +%s) - t0 )) s"
} 2>&1 | tee -a "$O/run.log"
