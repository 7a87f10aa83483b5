#!/usr/bin/env bash
# GPU-machine smoke test of the collector: a quick collect.sh run, then the collector's edge cases (SIGINT/SIGTERM
# flush, default output path, NVTX through our library vs. through libcupti directly, NVTX self-setup).
#   bash scripts/torch/smoke_collector.sh [OUTDIR]     (OUTDIR defaults to $OUT)
set -uo pipefail
cd "$(dirname "$0")/../.."
DEST=${1:-${OUT:-/tmp/smoke-out}}
mkdir -p "$DEST"
export PYTHONUNBUFFERED=1
if [ "${SMOKE_STAGE:-1}" = 1 ]; then
  bash scripts/collect.sh --quick --partitions "${SMOKE_PARTS:-132,32}" --budget "${SMOKE_BUDGET:-260}" \
    --out "$DEST/collect" 2>&1 | tee "$DEST/collect-stdout.log"
else  # stage 2: build only the collector; edge cases, a C++ program, overhead and full-size sweeps follow
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DLOOM_CPU=OFF -DLOOM_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES=90a > "$DEST/build.log" 2>&1 && ninja -C build-gpu loom_cupti >> "$DEST/build.log" 2>&1 \
    || { tail -20 "$DEST/build.log"; exit 1; }
fi

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
run() {
  local name=$1; shift; ( cd "$X" && env "$@" ) > "$X/$name.out" 2>&1
  echo "$name rc=$? stderr: $(grep loom_cupti "$X/$name.out" | tr '\n' ' ' | cut -c1-300)"
}
run nvtx_ours    CUDA_INJECTION64_PATH=$LIB NVTX_INJECTION64_PATH=$LIB LOOM_TRACE_OUT=$X/nvtx_ours.lct python3 -c "$PY"
run nvtx_cupti   CUDA_INJECTION64_PATH=$LIB NVTX_INJECTION64_PATH=/usr/local/cuda/lib64/libcupti.so \
  LOOM_TRACE_OUT=$X/nvtx_cupti.lct python3 -c "$PY"
run nvtx_selfset CUDA_INJECTION64_PATH=$LIB LOOM_TRACE_OUT=$X/nvtx_selfset.lct python3 -c "$PY"
run default_path CUDA_INJECTION64_PATH=$LIB NVTX_INJECTION64_PATH=$LIB python3 -c "$PY"
run sigint  CUDA_INJECTION64_PATH=$LIB NVTX_INJECTION64_PATH=$LIB LOOM_TRACE_OUT=$X/sigint-%p.lct \
  timeout -s INT 20 python3 -c "$PY" wait
run sigterm CUDA_INJECTION64_PATH=$LIB NVTX_INJECTION64_PATH=$LIB LOOM_TRACE_OUT=$X/sigterm.lct \
  timeout -s TERM 20 python3 -c "$PY" wait
run bad_out CUDA_INJECTION64_PATH=$LIB LOOM_TRACE_OUT=/nonexistent/dir/x.lct python3 -c "$PY"
if [ "${SMOKE_STAGE:-1}" = 2 ]; then
  # An unmodified C++ program: NVTX v3 ranges, a memcpy, kernels, and kernels replayed from a CUDA graph.
  cat > "$X/cxx.cu" <<'CU'
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <cstdio>
__global__ void axpy(float* y, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] += 2.f * x[i];
}
int main() {
  int n = 1 << 24; float *x, *y; cudaMalloc(&x, n * 4); cudaMalloc(&y, n * 4); cudaMemset(y, 0, n * 4);
  float* h = new float[n]; for (int i = 0; i < n; ++i) h[i] = i % 7; cudaMemcpy(x, h, n * 4, cudaMemcpyHostToDevice);
  cudaStream_t s; cudaStreamCreate(&s);
  nvtxRangePushA("loom.case=1");
  for (int r = 0; r < 3; ++r) {
    nvtxRangePushA("loom.rep"); axpy<<<n / 256, 256, 0, s>>>(y, x, n); cudaStreamSynchronize(s); nvtxRangePop();
  }
  nvtxRangePop();
  cudaGraph_t g; cudaGraphExec_t ge; cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
  for (int k = 0; k < 4; ++k) axpy<<<n / 256, 256, 0, s>>>(y, x, n);
  cudaStreamEndCapture(s, &g); cudaGraphInstantiate(&ge, g, 0);
  nvtxRangePushA("loom.case=2");
  for (int r = 0; r < 3; ++r) {
    nvtxRangePushA("loom.rep"); cudaGraphLaunch(ge, s); cudaStreamSynchronize(s); nvtxRangePop();
  }
  nvtxRangePop();
  printf("cxx done: %s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
CU
  nvcc -O2 -arch=sm_90 -o "$X/cxx" "$X/cxx.cu" &&
    run cxx CUDA_INJECTION64_PATH=$LIB NVTX_INJECTION64_PATH=$LIB LOOM_TRACE_OUT=$X/cxx.lct "$X/cxx"
  python3 scripts/torch/lct_check.py "$X/cxx.lct"
  echo "== collector overhead: hf_eager --quick without / with the collector (event medians, us)"
  python3 scripts/torch/e2e/hf_eager.py --quick --out "$X/eager_plain" > "$X/eager_plain.out" 2>&1
  run eager_traced CUDA_INJECTION64_PATH=$LIB NVTX_INJECTION64_PATH=$LIB LOOM_TRACE_OUT=$X/eager_traced.lct \
    python3 "$(pwd)/scripts/torch/e2e/hf_eager.py" --quick --out "$X/eager_traced"
  for f in eager_plain eager_traced; do grep -v '^#' "$X/$f.cases.csv"; done
  echo "== full-size sweeps (time-boxed): attention on 132 SMs, memory_ops on 16 SMs"
  run attn_full CUDA_INJECTION64_PATH=$LIB NVTX_INJECTION64_PATH=$LIB LOOM_TRACE_OUT=$X/attn_full.lct \
    python3 "$(pwd)/scripts/torch/attention_sweep.py" --out "$X/attn_full" --max-seconds 60
  tail -3 "$X/attn_full.out"
  python3 scripts/torch/lct_check.py "$X/attn_full.lct" --cases "$X/attn_full.cases.csv"
  run mem16 CUDA_INJECTION64_PATH=$LIB NVTX_INJECTION64_PATH=$LIB LOOM_TRACE_OUT=$X/mem16.lct \
    python3 "$(pwd)/scripts/torch/memory_ops.py" --sms 16 --out "$X/mem16" --max-seconds 60
  tail -3 "$X/mem16.out"
  python3 scripts/torch/lct_check.py "$X/mem16.lct" --cases "$X/mem16.cases.csv"
fi
for f in "$X"/*.lct; do python3 scripts/torch/lct_check.py "$f"; done
echo "== R lines of nvtx_ours.lct:"; grep -P '^R\t' "$X/nvtx_ours.lct" | head
echo "== header of nvtx_ours.lct:"; grep '^#' "$X/nvtx_ours.lct"
echo "== graph kernels in graph_decode trace:"
zcat /tmp/loom-collect/*/e2e/graph_decode.lct.gz 2>/dev/null | awk -F'\t' '$1=="K" && $8!=0' | wc -l
echo "== case list heads:"
for f in /tmp/loom-collect/*/*/*.cases.csv; do echo "-- $f"; head -20 "$f" | cut -c1-200; done
} > "$DEST/smoke.txt" 2>&1
tar -C /tmp -czf "$DEST/smoke-extra.tar.gz" loom-smoke-extra
cat "$DEST/smoke.txt" | cut -c1-250 | head -120
