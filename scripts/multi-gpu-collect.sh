#!/bin/bash
# One device batch for a node of 4 (or more) GPUs, kind nvidia-h200-x4 (issues 11 and 16): how the node is linked,
# the collective sweep on every GPU (scripts/collectives-collect.sh: NCCL all_reduce fp16/bf16, all_gather,
# reduce_scatter, symmetric-memory one-shot/two-shot all-reduce), then the traced tensor-parallel Llama-3-8B step
# (scripts/tp-e2e-collect.sh: eager prefill, eager decode, CUDA-graph decode) at TP = every GPU and at TP 2 on two of
# them. Each stage has its own time cap, and one failing stage leaves the others; the machine returns at most 8
# files, so each stage's folder comes back as one tarball:
#   $OUT/coll.tar.gz   <gpu>-<n>gpu/{rank*.csv,all_reduce.csv}, node.txt, nccl-info.txt, run.log
#   $OUT/tp<n>.tar.gz  tp<n>.cases.csv + tp<n>.lct.gz (rank 0's trace, what `loom validate --e2e` reads), the
#                      other ranks' case lists, run.log, build.log;   $OUT/tp2.tar.gz the same at TP 2
#   $OUT/log.txt       what each stage printed, with its wall time
#   bash scripts/device-slim.sh out; run(command="bash scripts/multi-gpu-collect.sh", kind="nvidia-h200-x4",
#                                        timeout_s=600); bash scripts/device-slim.sh back
# COLL_SECONDS, TP_SECONDS (per TP degree) cap the stages (defaults 120 and 150). STAGES picks and orders them
# (default "coll tpN tp2"; "nop2p" adds NCCL all_reduce with peer-to-peer off, as on PCIe boards without P2P, into
# $OUT/nop2p.tar.gz; "host": scripts/torch/tp_host_cost.py at 2 and n GPUs, into $OUT/host.tar.gz); MODEL=llama-3-70b
# traces that model instead, TP_SHAPES=BxL,... other shapes, TAG names them (files tp<n>-<model>-<tag>.*);
# TP_EXTRA goes to tp_e2e.py as is (since 2026-11-28: TP_EXTRA="--host-probe 1", host probes after every eager rep).
# The twelfth session's call: STAGES="tp4 tp2" TP_EXTRA="--host-probe 1" bash scripts/multi-gpu-collect.sh (8B), then
# the same with MODEL=llama-3-70b (scripts/tp-probe-collect.sh runs both in one call).
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"; LOG=$O/log.txt; t0=$(date +%s)
stamp() { echo "== $1: $(( $(date +%s)-t0 )) s" | tee -a "$LOG"; }
n=$(nvidia-smi -L | wc -l)
stamp "start on $n GPUs ($(nvidia-smi --query-gpu=name --format=csv,noheader | head -1))"

coll_stage() {
  mkdir -p /tmp/coll
  OUT=/tmp/coll MAX_SECONDS=${COLL_SECONDS:-120} timeout $(( ${COLL_SECONDS:-120} + 90 )) \
    bash scripts/collectives-collect.sh >> "$LOG" 2>&1
  stamp "collectives rc=$?"
  tar -czf "$O/coll.tar.gz" -C /tmp/coll . 2>>"$LOG"
}

nop2p_stage() {  # NCCL all_reduce through host memory (NCCL_P2P_DISABLE=1) at n and at 2 GPUs
  local k d=/tmp/nop2p
  mkdir -p $d
  export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
  for k in $n 2; do
    CUDA_VISIBLE_DEVICES=$(seq -s, 0 $(( k-1 ))) NCCL_P2P_DISABLE=1 timeout 150 torchrun --standalone \
      --nproc_per_node $k scripts/torch/collectives.py --out $d/h200-${k}gpu-nop2p --ops all_reduce --max-log2 28 \
      --max-seconds 100 >> "$LOG" 2>&1
    stamp "nop2p $k GPUs rc=$?"
  done
  tar -czf "$O/nop2p.tar.gz" -C $d . 2>>"$LOG"
}

host_stage() {  # host cost of eager TP launches: scripts/torch/tp_host_cost.py at 2 and n GPUs, twice each
  local k i d=/tmp/host
  mkdir -p $d
  export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
  PYTHONPATH=scripts/torch timeout 60 python3 scripts/torch/host_cost.py > $d/tp1.txt 2>&1
  for i in 1 2; do for k in 2 $n; do
    CUDA_VISIBLE_DEVICES=$(seq -s, 0 $(( k-1 ))) PYTHONPATH=scripts/torch timeout 120 torchrun --standalone \
      --nproc_per_node $k scripts/torch/tp_host_cost.py --out $d/run$i >> "$LOG" 2>&1
    stamp "host $k GPUs run $i rc=$?"
  done; done
  tar -czf "$O/host.tar.gz" -C $d . 2>>"$LOG"
}

tp_stage() {  # tp_stage N: tp-e2e-collect.sh on the first N GPUs, into $O/tpN.tar.gz
  local k=$1 d=/tmp/tp$1 devs
  devs=$(seq -s, 0 $(( k-1 )))
  mkdir -p "$d"
  CUDA_VISIBLE_DEVICES=$devs NGPU=$k OUT=$d timeout $(( ${TP_SECONDS:-150} + 150 )) \
    bash scripts/tp-e2e-collect.sh --max-seconds "${TP_SECONDS:-150}" ${MODEL:+--model $MODEL} \
    ${TP_SHAPES:+--shapes $TP_SHAPES} ${TP_EXTRA:-} >> "$LOG" 2>&1
  stamp "tp $k ${MODEL:-llama-3-8b} rc=$?"
  rm -f "$d"/tp"$k".rank[1-9]*.lct.gz  # rank 0's trace is the one validate reads; the others' case lists stay
  local sfx=${MODEL:+-$MODEL}${TAG:+-$TAG}
  if [ -n "$sfx" ]; then for f in "$d"/tp"$k".*; do mv "$f" "${f/tp$k./tp$k$sfx.}"; done; fi
  tar -czf "$O/tp$k$sfx.tar.gz" -C "$d" . 2>>"$LOG"
}
for s in ${STAGES:-coll tp$n tp2}; do
  case $s in
    coll) coll_stage;;
    nop2p) nop2p_stage;;
    host) host_stage;;
    tp[0-9]*) [ "${s#tp}" -le "$n" ] && tp_stage "${s#tp}";;
    *) echo "unknown stage $s" | tee -a "$LOG";;
  esac
done
ls -la "$O" | tee -a "$LOG"
stamp "done"
