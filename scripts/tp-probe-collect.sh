#!/bin/bash
# Device batch (kind nvidia-h200-x4; 2026-11-28, twelfth session): the tensor-parallel end-to-end recordings again,
# now with host probes after every eager rep on every rank (tp_e2e.py --host-probe 1), so `loom validate --e2e`
# prices each eager TP step at the host speed measured beside it, as the HF eager runs: Llama-3-8B at TP 4, and
# Llama-3-70B at TP 4 and TP 2 (the 8B TP 2 recording was made on nvidia-h200-x2 with
# `bash scripts/tp-e2e-collect.sh --host-probe 1`). Each stage's folder comes back as a tarball (multi-gpu-collect.sh).
#   bash scripts/device-slim.sh out; run(command="bash scripts/tp-probe-collect.sh", kind="nvidia-h200-x4",
#                                        timeout_s=600); bash scripts/device-slim.sh back
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
export TP_EXTRA="--host-probe 1"
OUT=$O/b8 STAGES="tp4" TP_SECONDS=${TP8_SECONDS:-120} bash scripts/multi-gpu-collect.sh > /dev/null
OUT=$O/b70 MODEL=llama-3-70b STAGES="tp4 tp2" TP_SECONDS=${TP70_SECONDS:-110} bash scripts/multi-gpu-collect.sh \
  > /dev/null
cat "$O"/b8/log.txt "$O"/b70/log.txt > "$O/log.txt"; rm -f "$O"/b8/log.txt "$O"/b70/log.txt
find "$O" -type f | sort
grep -h "batch=\|cases written\|rc=" "$O/log.txt" | tail -30
