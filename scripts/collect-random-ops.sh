#!/usr/bin/env bash
# GPU machine: a training set of PyTorch ops at random shapes (scripts/torch/random_ops.py, seed 37; the held-out set
# is seed 31, scripts/collect-heldout.sh), cold (read flush) and warm (the same call in a loop), under the collector.
# The grids of memory_ops.py / attention_sweep.py left the forests unable to place widths and token counts between
# their grid points (traces/heldout/ops: norms, softmax, elementwise 13-39% off at random shapes; docs/gemm-heldout.md).
#   run(command="bash scripts/collect-random-ops.sh", kind="nvidia-h200")   # then kind="nvidia-h100-x1"
# Writes $OUT/loom-<gpu>-random-ops.tar holding <gpu>/rops_{cold,warm}.{lct.gz,cases.csv}; import with
#   build/loom trace import --lct D/rops_cold.lct.gz --cases D/rops_cold.cases.csv \
#     --out traces/<gpu>/sms132-rops.corpus.csv.gz
#   build/loom trace import --lct D/rops_warm.lct.gz --cases D/rops_warm.cases.csv \
#     --out traces/<gpu>/sms132-rops-warm.corpus.csv.gz
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/gpu-build.sh
DEST=${OUT:-/tmp/random-ops-out}; mkdir -p "$DEST"
SECS=${SECONDS_EACH:-240}; N=${N:-2000}; SEED=${SEED:-37}
t0=$(date +%s)
collector_prelude "$DEST/run.log" "$t0"
case "$gpu" in *H200*) key=h200 ;; *H100*) key=h100 ;; *) key=$(echo "$gpu" | tr 'A-Z ' 'a-z-') ;; esac
W=$(mktemp -d)/$key; mkdir -p "$W"
for mode in cold warm; do
  echo "== rops_$mode (seed $SEED, n $N, ${SECS}s) at $(( $(date +%s)-t0 )) s" | tee -a "$DEST/run.log"
  CUDA_INJECTION64_PATH="$LIB" NVTX_INJECTION64_PATH="$LIB" LOOM_TRACE_OUT="$W/rops_$mode.lct" \
    python3 scripts/torch/random_ops.py --out "$W/rops_$mode" --max-seconds "$SECS" --seed "$SEED" --n "$N" \
    $([ $mode = warm ] && echo --warm) 2>&1 | grep -v "cases, " | tail -4 | tee -a "$DEST/run.log"
  gzip -6 "$W/rops_$mode.lct"
done
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv | tee -a "$DEST/run.log"
tar -cf "$DEST/loom-$key-random-ops.tar" -C "$(dirname "$W")" "$key"
wc -l "$W"/*.cases.csv | tee -a "$DEST/run.log"; echo "total $(( $(date +%s)-t0 )) s" | tee -a "$DEST/run.log"
