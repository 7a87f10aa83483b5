#!/usr/bin/env bash
# Device-machine smoke test of loom-bench: --check, --quick on the whole chip and on a 32-SM green context, a
# SIGTERM stop, and two single families on 16 SMs to calibrate --list's time estimates. Logs/CSVs go to $OUT.
# Uses a carried build-cuda/bench/loom-bench when it runs there, else builds build-gpu.
set -o pipefail
OUT=${OUT:-/tmp/loom-bench-smoke}; mkdir -p "$OUT"
B=build-cuda/bench/loom-bench
if ! "$B" --list --quick >/dev/null 2>&1; then
  cmake -S . -B build-gpu -G Ninja -DLOOM_CPU=OFF -DLOOM_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90a >"$OUT/build.log" 2>&1 &&
    ninja -C build-gpu loom-bench >>"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
  B=build-gpu/bench/loom-bench
fi
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,memory.used --format=csv | tee "$OUT/smi.txt"
( time "$B" --check ) > "$OUT/check.log" 2>&1; grep -v " ok$" "$OUT/check.log"
( time "$B" --quick --out "$OUT/quick_full" ) > "$OUT/quick_full.log" 2>&1; grep -v "^loom-bench: [0-9]" "$OUT/quick_full.log"
( time "$B" --quick --sms 32 --out "$OUT/quick_sms32" ) > "$OUT/quick_sms32.log" 2>&1; grep -v "^loom-bench: [0-9]" "$OUT/quick_sms32.log"
timeout -s TERM 4 "$B" --families gemm_cublaslt --out "$OUT/sigterm" > "$OUT/sigterm.log" 2>&1
echo "sigterm run rc=$? rows=$(grep -c '^[0-9]' "$OUT/sigterm.cases.csv")"; tail -2 "$OUT/sigterm.log"
for f in moe attention_prefill; do
  "$B" --list --sms 16 --families $f | tail -1
  ( time "$B" --sms 16 --families $f --max-seconds 40 --out "$OUT/cal_$f" ) 2>&1 | grep -v "^loom-bench: [0-9]" | tail -4
done
echo "== quick, full chip vs 32 SMs (median us)"
join -t, -j1 <(tail -n +14 "$OUT/quick_full.cases.csv" | cut -d, -f3,4,6 | sed 's/,/|/' | sort) \
             <(tail -n +14 "$OUT/quick_sms32.cases.csv" | cut -d, -f3,4,6 | sed 's/,/|/' | sort) | head -90
