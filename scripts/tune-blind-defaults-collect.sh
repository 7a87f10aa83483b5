#!/bin/bash
# Device batch for issue 15 (kind nvidia-h200; 2026-11-28, thirteenth session): the serving engines' default fused-MoE
# configs (vLLM's get_default_config without a tuned file: 16x32x64 GROUP 1 for M <= E, 64x64x32 GROUP 8 otherwise;
# 4 warps, 3 stages) on the shapes of the two blind fp8 grids, so `loom tune --validate --heldout-traces DIR` can
# report the tuner's speedup over the engines' default on shapes it was not fitted on:
#  1. part 3 of moe_sweep.py's seeded order (traces/checks/tune-blind/h200: --skip 197, the 59 shapes it completed);
#  2. the decode grid (traces/checks/tune-blind2/h200/moe-triton-fp8: tokens 3, 6, 12 on every model and TP shard).
# 64x64x32 is outside the tuning grid (BLOCK_SIZE_K >= 64 there), so it needs its own run; both configs are measured.
#   run(command="mkdir -p .carry && tar xJf .carry-xz/carry.tar.xz -C .carry; bash scripts/tune-blind-defaults-collect.sh",
#       kind="nvidia-h200", carry=[".carry-xz"])   (bash scripts/make-carry.sh --xz first)
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
t0=$(date +%s)
cfgs=16x32x64_s3_w4_g1,64x64x32_s3_w4_g8
OUT=$O/p3 PART=defaults-3 bash scripts/tune-moe-collect.sh 150 --configs $cfgs --dtypes fp8 --skip 197 --shapes 59
OUT=$O/dec PART=defaults-4 bash scripts/tune-moe-collect.sh 150 --configs $cfgs --dtypes fp8 --tokens 3,6,12
for d in p3 dec; do cat "$O/$d/build.log" >> "$O/$d/log" 2>/dev/null; rm -f "$O/$d/build.log" "$O"/$d/*.cases.csv.gz; done
find "$O" -type f | sort
echo "blind defaults total $(( $(date +%s)-t0 )) s"
