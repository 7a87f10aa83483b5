#!/usr/bin/env bash
# GPU machine: a third training set of PyTorch GEMMs at random user shapes (scripts/torch/linear_paths.py: F.linear,
# bmm, torch._scaled_mm; a third misaligned; fp32/tf32/bf16/fp16/fp8), warm (the same call in a loop, seed 47) and cold
# (read flush, seed 53), under the collector. The warm GEMMs had 9.7k training rows per GPU against 15k cold, and the
# held-out warm GEMMs are the worst part of issue 12's target (docs/gemm-heldout.md). Held-out seeds 11 and 41 are
# never used for training. One device call per GPU:
#   run(command="bash scripts/collect-linear3.sh", kind="nvidia-h200")   # then kind="nvidia-h100-x1"
# The fourth set (traces/<gpu>/sms132-{warm4,linear4}): WARM_SEED=59 COLD_SEED=61 N=5000 WARM_SECONDS=220
# COLD_SECONDS=180
# The seventh H100 / sixth H200 sets (2026-11-27): WARM_SEED=103 COLD_SEED=107 (H100), 109 / 113 (H200), N=8000
# WARM_SECONDS=330 (H100) / 290 (H200) COLD_SECONDS=170: both warm .lct.gz came back at 16.3 MB, just under the
# tool's 16 MiB
# Writes $OUT/<gpu>-linear3_{warm,cold}.{lct.gz,cases.csv} (files, not one tar: each comes back under the device
# tool's 16 MiB limit, the tar of all four does not: 17.5 MB on the H200); import with
#   build/loom trace import --lct D/<gpu>-linear3_warm.lct.gz --cases D/<gpu>-linear3_warm.cases.csv \
#     --out traces/<gpu>/sms132-warm3.corpus.csv.gz
#   build/loom trace import --lct D/<gpu>-linear3_cold.lct.gz --cases D/<gpu>-linear3_cold.cases.csv \
#     --out traces/<gpu>/sms132-linear3.corpus.csv.gz
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/gpu-build.sh
DEST=${OUT:-/tmp/linear3-out}; mkdir -p "$DEST"
WARM_S=${WARM_SECONDS:-200}; COLD_S=${COLD_SECONDS:-150}; N=${N:-3000}
WARM_SEED=${WARM_SEED:-47}; COLD_SEED=${COLD_SEED:-53}   # the fourth set: WARM_SEED=59 COLD_SEED=61 N=5000
t0=$(date +%s)
collector_prelude "$DEST/run.log" "$t0"
case "$gpu" in *H200*) key=h200 ;; *H100*) key=h100 ;; *) key=$(echo "$gpu" | tr 'A-Z ' 'a-z-') ;; esac
W=$(mktemp -d)/$key; mkdir -p "$W"
run() {  # run MODE SEED SECONDS [--warm]
  local mode=$1 seed=$2 secs=$3; shift 3
  echo "== linear3_$mode (seed $seed, n $N, ${secs}s) at $(( $(date +%s)-t0 )) s" | tee -a "$DEST/run.log"
  CUDA_INJECTION64_PATH="$LIB" NVTX_INJECTION64_PATH="$LIB" LOOM_TRACE_OUT="$W/linear3_$mode.lct" \
    python3 scripts/torch/linear_paths.py --out "$W/linear3_$mode" --max-seconds "$secs" --seed "$seed" --n "$N" "$@" \
    2>&1 | tail -4 | tee -a "$DEST/run.log"
  gzip -6 "$W/linear3_$mode.lct"
}
run warm "$WARM_SEED" "$WARM_S" --warm
run cold "$COLD_SEED" "$COLD_S"
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,temperature.gpu --format=csv | tee -a "$DEST/run.log"
for f in "$W"/*; do cp "$f" "$DEST/$key-$(basename "$f")"; done
wc -l "$W"/*.cases.csv | tee -a "$DEST/run.log"; echo "total $(( $(date +%s)-t0 )) s" | tee -a "$DEST/run.log"
