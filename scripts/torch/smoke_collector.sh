#!/usr/bin/env bash
# GPU-machine smoke test of the collector: a quick collect.sh run, then the collector's edge cases (SIGINT/SIGTERM
# flush, default output path, NVTX through our library vs. through libcupti directly, NVTX self-setup).
#   bash scripts/torch/smoke_collector.sh [OUTDIR]     (OUTDIR defaults to $OUT)
set -uo pipefail
cd "$(dirname "$0")/../.."
DEST=${1:-${OUT:-/tmp/smoke-out}}
mkdir -p "$DEST"
export PYTHONUNBUFFERED=1
bash scripts/collect.sh --quick --partitions "${SMOKE_PARTS:-132,32}" --budget "${SMOKE_BUDGET:-260}" \
  --out "$DEST/collect" 2>&1 | tee "$DEST/collect-stdout.log"

LIB=$(pwd)/build-gpu/src/collector/libloom_cupti.so
X=/tmp/loom-smoke-extra; rm -rf "$X"; mkdir -p "$X"
{
echo "== edge cases ($(date -u +%T))"
PY='import torch,time,sys
x=torch.randn(1<<20,device="cuda"); torch.cuda.synchronize()
torch.cuda.nvtx.range_push("loom.case=1"); y=(x*2).sum(); torch.cuda.synchronize(); torch.cuda.nvtx.range_pop()
torch.cuda.nvtx.range_push("outer"); torch.cuda.nvtx.range_push("inner"); z=x+1; torch.cuda.synchronize()
torch.cuda.nvtx.range_pop(); torch.cuda.nvtx.range_pop()
print("ready", flush=True)
if len(sys.argv) > 1: time.sleep(60)'
run() { local name=$1; shift; ( cd "$X" && env "$@" ) > "$X/$name.out" 2>&1; echo "$name rc=$? stderr: $(grep loom_cupti "$X/$name.out" | tr '\n' ' ' | cut -c1-300)"; }
run nvtx_ours    CUDA_INJECTION64_PATH=$LIB NVTX_INJECTION64_PATH=$LIB LOOM_TRACE_OUT=$X/nvtx_ours.lct python3 -c "$PY"
run nvtx_cupti   CUDA_INJECTION64_PATH=$LIB NVTX_INJECTION64_PATH=/usr/local/cuda/lib64/libcupti.so LOOM_TRACE_OUT=$X/nvtx_cupti.lct python3 -c "$PY"
run nvtx_selfset CUDA_INJECTION64_PATH=$LIB LOOM_TRACE_OUT=$X/nvtx_selfset.lct python3 -c "$PY"
run default_path CUDA_INJECTION64_PATH=$LIB NVTX_INJECTION64_PATH=$LIB python3 -c "$PY"
run sigint  CUDA_INJECTION64_PATH=$LIB NVTX_INJECTION64_PATH=$LIB LOOM_TRACE_OUT=$X/sigint-%p.lct timeout -s INT 20 python3 -c "$PY" wait
run sigterm CUDA_INJECTION64_PATH=$LIB NVTX_INJECTION64_PATH=$LIB LOOM_TRACE_OUT=$X/sigterm.lct timeout -s TERM 20 python3 -c "$PY" wait
run bad_out CUDA_INJECTION64_PATH=$LIB LOOM_TRACE_OUT=/nonexistent/dir/x.lct python3 -c "$PY"
for f in "$X"/*.lct; do python3 scripts/torch/lct_check.py "$f"; done
echo "== R lines of nvtx_ours.lct:"; grep -P '^R\t' "$X/nvtx_ours.lct" | head
echo "== header of nvtx_ours.lct:"; grep '^#' "$X/nvtx_ours.lct"
echo "== graph kernels in graph_decode trace:"
zcat /tmp/loom-collect/*/e2e/graph_decode.lct.gz 2>/dev/null | awk -F'\t' '$1=="K" && $8!=0' | wc -l
echo "== case list heads:"; for f in /tmp/loom-collect/*/*/*.cases.csv; do echo "-- $f"; head -20 "$f" | cut -c1-200; done
} > "$DEST/smoke.txt" 2>&1
tar -C /tmp -czf "$DEST/smoke-extra.tar.gz" loom-smoke-extra
cat "$DEST/smoke.txt" | cut -c1-250 | head -120
