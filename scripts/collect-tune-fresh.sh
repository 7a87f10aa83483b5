#!/usr/bin/env bash
# One device call that measures what `loom tune` needs beyond the main corpus: its sparse sampling plans
# (bench/plans/*.plan, from `loom tune --plan`) and a FRESH exhaustive grid (every config on new seeded random shapes,
# --tune-seed 7, never seen by the fit) for out-of-sample validation. Output: tars under $OUT for import-corpus.sh.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-collect-out}; mkdir -p "$OUT"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DLOOM_CPU=OFF -DLOOM_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES=90a > /tmp/build.log 2>&1
ninja -C build-gpu loom_cupti loom-bench >> /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
LIB=$(find build-gpu -name libloom_cupti.so | head -1)
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z' 'a-z' |
  sed -e 's/^nvidia //' -e 's/[^a-z0-9]\+/-/g' | cut -d- -f1)
W=/tmp/tune-fresh/$GPU; rm -rf /tmp/tune-fresh; mkdir -p "$W/sms132-fresh" "$W/sms132-plan"
run() {
  CUDA_INJECTION64_PATH="$LIB" NVTX_INJECTION64_PATH="$LIB" LOOM_TRACE_OUT="$1.lct" timeout -s TERM 240 "${@:2}" \
    > "$1.log" 2>&1
  echo "$(basename "$1") rc=$?"
}
run "$W/sms132-fresh/bench" build-gpu/bench/loom-bench --families tune --tune-seed 7 --out "$W/sms132-fresh/bench"
for f in bench/plans/*.plan; do
  n=$(basename "$f" .plan)
  run "$W/sms132-plan/$n" build-gpu/bench/loom-bench --plan "$f" --out "$W/sms132-plan/$n"
done
find /tmp/tune-fresh -name '*.lct' -exec gzip -6 {} +
tar -C /tmp/tune-fresh -cf "$OUT/loom-$GPU-tune.tar" "$GPU"
for f in "$W"/*/*.cases.csv; do echo "$f $(grep -vc '^#' "$f") cases"; done
