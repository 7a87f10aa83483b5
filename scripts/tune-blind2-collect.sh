#!/bin/bash
# Device batch for issue 15 (kind nvidia-h200; 2026-11-28, twelfth session): two blind grids for tuners whose method
# and committed tables were frozen before they were measured.
#  1. loom's Triton GEMM, part 2 of gemm_sweep.py's seeded shape order (--skip 454: the H200's part 1 reached shape
#     454), every config on each shape, until the deadline;
#  2. the Triton fused-MoE kernel in fp8 at decode batch sizes no earlier part measured (tokens 3, 6, 12 on every
#     model and TP shard of moe_sweep.py; the earlier parts use vLLM's list 1, 2, 4, 8, 16, ...): the pool's fp8
#     losses sit in decode batches, and the first blind grid (part 3) held few of them.
# Both join their trace on the device with the carried loom binary.
#   run(command="mkdir -p .carry && tar xJf .carry-xz/carry.tar.xz -C .carry; bash scripts/tune-blind2-collect.sh",
#       kind="nvidia-h200", carry=[".carry-xz"])   (bash scripts/make-carry.sh --xz first)
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
t0=$(date +%s)
OUT=$O/gemm PART=2 bash scripts/tune-gemm-triton-collect.sh ${GEMM_SECONDS:-290} --skip 454
OUT=$O/moe PART=4 bash scripts/tune-moe-collect.sh ${MOE_SECONDS:-170} --dtypes fp8 --tokens 3,6,12
# At most 8 files come back: fold the build logs into the run logs; the corpora carry the case lists' rows.
for d in gemm moe; do cat "$O/$d/build.log" >> "$O/$d/log" 2>/dev/null; rm -f "$O/$d/build.log" "$O"/$d/*.cases.csv.gz; done
find "$O" -type f | sort
echo "blind2 total $(( $(date +%s)-t0 )) s"
