#!/bin/bash
# Device batch for issue 15 (kind nvidia-h100-x1; 2026-12-07, fourteenth session): the H100's blind grids, the same
# protocol the H200 had (tune-blind2-collect.sh, tune-blind-defaults-collect.sh), with the methods and committed
# tables frozen before they are measured:
#  1. loom's Triton GEMM, part 2 of gemm_sweep.py's seeded shape order (--skip 368: the H100's part 1 reached shape
#     368, traces/tune/h100/gemm-triton-1.log), every config on each shape, until the deadline;
#  2. the Triton fused-MoE kernel in fp8 at the decode batch sizes no pool part has (tokens 3, 6, 12 on every model
#     and TP shard of moe_sweep.py);
#  3. vLLM's default fused-MoE configs (16x32x64 G1, 64x64x32 G8) on the fp8 shapes of part 3 (the 52 shapes the
#     H100's part 3 completed, traces/checks/tune-blind/h100) and of the decode grid of step 2.
#   run(command="mkdir -p .carry && tar xJf .carry-xz/carry.tar.xz -C .carry; bash scripts/tune-blind-h100-collect.sh",
#       kind="nvidia-h100-x1", carry=[".carry-xz"])   (bash scripts/make-carry.sh --xz first)
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
t0=$(date +%s)
cfgs=16x32x64_s3_w4_g1,64x64x32_s3_w4_g8
OUT=$O/gemm PART=2 bash scripts/tune-gemm-triton-collect.sh ${GEMM_SECONDS:-230} --skip 368
OUT=$O/moe PART=4 bash scripts/tune-moe-collect.sh ${MOE_SECONDS:-140} --dtypes fp8 --tokens 3,6,12
OUT=$O/p3 PART=defaults-3 bash scripts/tune-moe-collect.sh 60 --configs $cfgs --dtypes fp8 --skip 197 --shapes 52
OUT=$O/dec PART=defaults-4 bash scripts/tune-moe-collect.sh 60 --configs $cfgs --dtypes fp8 --tokens 3,6,12
# At most 8 files come back: fold the build logs into the run logs; the corpora carry the case lists' rows.
for d in gemm moe p3 dec; do
  cat "$O/$d/build.log" >> "$O/$d/log" 2>/dev/null; rm -f "$O/$d/build.log" "$O"/$d/*.cases.csv.gz
done
find "$O" -type f | sort
echo "blind h100 total $(( $(date +%s)-t0 )) s"
