#!/usr/bin/env bash
# Device-machine smoke test of loom-bench: --check, then --quick on the whole chip and on a 32-SM green context.
# Uses a carried build-cuda/bench/loom-bench when it runs there, else builds build-gpu. Logs/CSVs go to $OUT.
set -o pipefail
OUT=${OUT:-/tmp/loom-bench-smoke}; mkdir -p "$OUT"
B=build-cuda/bench/loom-bench
if ! "$B" --list --quick >/dev/null 2>&1; then
  cmake -S . -B build-gpu -G Ninja -DLOOM_CPU=OFF -DLOOM_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90a >"$OUT/build.log" 2>&1 &&
    ninja -C build-gpu loom-bench >>"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
  B=build-gpu/bench/loom-bench
fi
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.used --format=csv | tee "$OUT/smi.txt"
( time "$B" --check ) 2>&1 | tee "$OUT/check.log"
( time "$B" --quick --out "$OUT/quick_full" ) 2>&1 | tee "$OUT/quick_full.log" | tail -15
( time "$B" --quick --sms 32 --out "$OUT/quick_sms32" ) 2>&1 | tee "$OUT/quick_sms32.log" | tail -15
echo "== full chip"; column -s, -t "$OUT/quick_full.cases.csv" | cut -c1-150
echo "== sms 32"; cut -d, -f3-6 "$OUT/quick_sms32.cases.csv" | tail -n +14 | head -60
