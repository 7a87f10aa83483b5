#!/usr/bin/env bash
# Regenerates loom's trace corpus on a GPU machine in one command: builds the CUDA targets, runs loom-bench and the
# PyTorch sweeps on each SM partition under libloom_cupti.so, the e2e scripts on the whole GPU, checks every trace,
# packs the results into at most 8 files under $OUT and prints a summary table last. See traces/README.md.
#
#   bash scripts/collect.sh [--quick] [--partitions 132,96,64,32,16] [--only FAMILY[,..]] [--budget SECONDS]
#                           [--out DIR] [--gpu-key KEY] [--no-build] [--no-e2e]
#
# --only takes loom-bench families or groups (gemm, moe, memory, attention, rms_norm, ...), `bench` (loom-bench
# only), `torch` (the PyTorch scripts only) or `e2e`. A failing step is logged and the others go on.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
T0=$(date +%s)

QUICK=0; PARTS="132,96,64,32,16"; ONLY=""; BUDGET=540; DEST="${OUT:-$ROOT/collect-out}"; GPU_KEY=""; BUILD=1; NO_E2E=0
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1 ;;
    --partitions) PARTS="$2"; shift ;;
    --only) ONLY="$2"; shift ;;
    --budget) BUDGET="$2"; shift ;;
    --out) DEST="$2"; shift ;;
    --gpu-key) GPU_KEY="$2"; shift ;;
    --no-build) BUILD=0 ;;
    --no-e2e) NO_E2E=1 ;;
    -h|--help) sed -n 2,10p "$0"; exit 0 ;;
    *) echo "collect.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

WORK="${LOOM_COLLECT_WORK:-/tmp/loom-collect}"
rm -rf "$WORK"; mkdir -p "$WORK" "$DEST"
LOG="$WORK/collect.log"
STEPS="$WORK/steps.tsv"
printf 'step\tpartition\trc\tseconds\n' > "$STEPS"
say() { echo "[collect $(( $(date +%s) - T0 ))s] $*" | tee -a "$LOG"; }
left() { echo $(( BUDGET - ($(date +%s) - T0) )); }

# --- what runs --------------------------------------------------------------------------------------------------
has() {
  [ -z "$ONLY" ] && return 0
  local t; for t in ${ONLY//,/ }; do for w in "$@"; do [ "$t" = "$w" ] && return 0; done; done; return 1
}
BENCH_FAMS=""
for t in ${ONLY//,/ }; do
  case "$t" in bench|torch|e2e|hf_ops) ;; *) BENCH_FAMS="${BENCH_FAMS:+$BENCH_FAMS,}$t" ;; esac
done
RUN_BENCH=0; { [ -z "$ONLY" ] || has bench || [ -n "$BENCH_FAMS" ]; } && RUN_BENCH=1
RUN_ATTN=0; has torch attention attention_prefill attention_decode && RUN_ATTN=1
RUN_MEM=0; has torch memory rms_norm layer_norm softmax elementwise rotary && RUN_MEM=1
RUN_HF=0; has torch memory hf_ops elementwise && RUN_HF=1
RUN_E2E=0; has torch e2e && [ "$NO_E2E" = 0 ] && RUN_E2E=1
QFLAG=""; [ "$QUICK" = 1 ] && QFLAG="--quick"

smi() {  # GPU name, clocks and state, for the record (clocks are read, never set)
  echo "== $1 $(date -u +%FT%TZ)" >> "$WORK/nvidia-smi.txt"
  local fields=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,temperature.gpu,power.draw,pstate
  nvidia-smi --query-gpu=$fields \
    --format=csv >> "$WORK/nvidia-smi.txt" 2>&1 || echo "nvidia-smi failed" >> "$WORK/nvidia-smi.txt"
}
smi start
GPU_NAME=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
[ -n "$GPU_KEY" ] || GPU_KEY=$(echo "${GPU_NAME:-unknown}" | tr 'A-Z' 'a-z' |
  sed -e 's/^nvidia //' -e 's/[^a-z0-9]\+/-/g' -e 's/-$//' | cut -d- -f1)
[ -n "$GPU_KEY" ] || GPU_KEY=unknown
RUN="$WORK/$GPU_KEY"; mkdir -p "$RUN"
say "GPU '$GPU_NAME' -> key $GPU_KEY; partitions $PARTS; quick=$QUICK; only='${ONLY:-all}'; budget ${BUDGET}s"

. "$ROOT/scripts/lib/gpu-build.sh"
# --- build -------------------------------------------------------------------------------------------------------
BUILD_DIR="$ROOT/build-gpu"
if [ "$BUILD" = 1 ]; then
  t=$(date +%s)
  # Each target on its own, so a broken loom-bench still leaves the collector (and the torch sweeps) usable.
  targets=(loom_cupti); [ "$RUN_BENCH" = 1 ] && targets+=(loom-bench)
  rc=0; gpu_build "$BUILD_DIR" "$WORK/build.log" "${targets[@]}" 2>> "$LOG" || rc=1
  printf 'build\t-\t%s\t%s\n' "$rc" $(( $(date +%s) - t )) >> "$STEPS"
  say "build done (rc=$rc)"
fi
LIB=$(find "$BUILD_DIR/" -name libloom_cupti.so -print -quit 2>/dev/null)
BENCH="$BUILD_DIR/bench/loom-bench"
if [ -z "$LIB" ]; then say "no libloom_cupti.so: nothing can be traced"; tail -30 "$WORK/build.log"; exit 1; fi
[ -x "$BENCH" ] || { [ "$RUN_BENCH" = 1 ] && say "no loom-bench binary: bench steps skipped"; RUN_BENCH=0; }

# --- steps -------------------------------------------------------------------------------------------------------
# step NAME PARTITION SECONDS PREFIX -- CMD...: runs CMD traced into PREFIX.lct, stopped with SIGTERM (the
# collector still flushes) after SECONDS; an argument @MAXS@ becomes the soft limit for the script's own case loop.
# Logs to PREFIX.log; never aborts the run. A step gets at least MIN_STEP_S but never more than the budget leaves
# after the reserve for checks/packing and for the e2e steps still to come.
step() {
  local name=$1 part=$2 secs=$3 prefix=$4; shift 5
  local t=$(date +%s) rc a args=()
  local cap=$(( $(left) - RESERVE - PENDING ))
  [ "$secs" -ge "$MIN_STEP_S" ] || secs=$MIN_STEP_S
  [ "$secs" -le "$cap" ] || secs=$cap
  if [ "$secs" -lt 20 ]; then
    say "SKIP $name sms=$part: budget spent"; printf '%s\t%s\tskipped\t0\n' "$name" "$part" >> "$STEPS"; return
  fi
  for a in "$@"; do [ "$a" = "@MAXS@" ] && a=$(( secs - 15 )); args+=("$a"); done
  say "run $name sms=$part (limit ${secs}s)"
  CUDA_INJECTION64_PATH="$LIB" NVTX_INJECTION64_PATH="$LIB" LOOM_TRACE_OUT="$prefix.lct" PYTHONUNBUFFERED=1 \
    timeout -s TERM -k 15 "$secs" "${args[@]}" > "$prefix.log" 2>&1
  rc=$?
  printf '%s\t%s\t%s\t%s\n' "$name" "$part" "$rc" $(( $(date +%s) - t )) >> "$STEPS"
  [ "$rc" = 0 ] ||
    say "  $name sms=$part exited $rc (see $(basename "$prefix").log): $(tail -2 "$prefix.log" | tr '\n' ' ' |
      cut -c1-200)"
}

IFS=, read -r -a PLIST <<< "$PARTS"
NP=${#PLIST[@]}
# Measured on an H200 (2026-11-21, smoke runs): hf_eager --quick 20 s, graph_decode --quick 17 s (each ~10 s of it
# model build); full attention sweep 22 s on all SMs, full memory_ops 5 s on 16 SMs (plus ~8 s torch start-up).
E2E_S=0; [ "$RUN_E2E" = 1 ] && E2E_S=$(( QUICK ? 70 : 120 ))
PENDING=$E2E_S
RESERVE=40      # checks + packing
MIN_STEP_S=30
W_BENCH=$(( RUN_BENCH * 5 )); W_ATTN=$(( RUN_ATTN * 3 )); W_MEM=$(( RUN_MEM * 2 )); W_HF=$(( RUN_HF * 2 ))
W=$(( W_BENCH + W_ATTN + W_MEM + W_HF )); [ "$W" -gt 0 ] || W=1
for i in "${!PLIST[@]}"; do
  n=${PLIST[$i]}
  dir="$RUN/sms$n"; mkdir -p "$dir"
  share=$(( ($(left) - PENDING - RESERVE) / (NP - i) ))  # what is left, split over the partitions still to run
  smi "sms$n"
  if [ "$RUN_BENCH" = 1 ]; then
    fam=(); [ -n "$BENCH_FAMS" ] && fam=(--families "$BENCH_FAMS")
    step loom-bench "$n" $(( share * W_BENCH / W )) "$dir/bench" -- "$BENCH" --sms "$n" --out "$dir/bench" \
      --max-seconds @MAXS@ $QFLAG "${fam[@]}"
  fi
  if [ "$RUN_ATTN" = 1 ]; then
    step attention "$n" $(( share * W_ATTN / W )) "$dir/attention" -- python3 scripts/torch/attention_sweep.py \
      --sms "$n" --out "$dir/attention" --max-seconds @MAXS@ $QFLAG
  fi
  if [ "$RUN_MEM" = 1 ]; then
    step memory_ops "$n" $(( share * W_MEM / W )) "$dir/memory_ops" -- python3 scripts/torch/memory_ops.py \
      --sms "$n" --out "$dir/memory_ops" --max-seconds @MAXS@ $QFLAG
  fi
  if [ "$RUN_HF" = 1 ]; then
    step hf_ops "$n" $(( share * W_HF / W )) "$dir/hf_ops" -- python3 scripts/torch/hf_ops.py \
      --sms "$n" --out "$dir/hf_ops" --max-seconds @MAXS@ $QFLAG
  fi
done
if [ "$RUN_E2E" = 1 ]; then
  PENDING=0
  dir="$RUN/e2e"; mkdir -p "$dir"
  step hf_eager all $(( ($(left) - RESERVE) / 2 )) "$dir/hf_eager" -- python3 scripts/torch/e2e/hf_eager.py \
    --out "$dir/hf_eager" --host-probe 1 --max-seconds @MAXS@ $QFLAG
  step graph_decode all $(( $(left) - RESERVE )) "$dir/graph_decode" -- python3 scripts/torch/e2e/graph_decode.py \
    --out "$dir/graph_decode" --max-seconds @MAXS@ $QFLAG
fi
smi end

# --- check, pack, summarise ----------------------------------------------------------------------------------------
python3 scripts/torch/corpus_summary.py "$RUN" --steps "$STEPS" --json "$WORK/summary.json" > "$WORK/summary.txt" 2>&1
cp "$STEPS" "$WORK/summary.txt" "$WORK/summary.json" "$WORK/nvidia-smi.txt" "$RUN/" 2>/dev/null
cp "$WORK/build.log" "$LOG" "$RUN/" 2>/dev/null
find "$RUN" -name '*.lct' -exec gzip -6 {} +   # readers take .lct.gz (traces/FORMAT.md)
packed=0
pack() {  # pack NAME PATHS...: one uncompressed tar of already-gzipped traces + small CSVs
  local name=$1; shift
  tar -C "$WORK" -cf "$DEST/$name" "$@" && packed=$((packed + 1))
  local sz=$(stat -c %s "$DEST/$name")
  [ "$sz" -lt $((16 * 1024 * 1024)) ] ||
    say "WARNING: $name is $((sz >> 20)) MiB (> 16 MiB: the device tool will not return it)"
}
meta=()
for f in steps.tsv summary.txt summary.json nvidia-smi.txt build.log collect.log; do
  [ -f "$RUN/$f" ] && meta+=("$GPU_KEY/$f")
done
parts=(); rest=()
for d in "$RUN"/sms* "$RUN"/e2e; do [ -d "$d" ] && parts+=("$GPU_KEY/$(basename "$d")"); done
# The device tool returns at most 8 files: up to 7 tars (logs ride in the first) + the summary.
i=0
for p in "${parts[@]}"; do
  i=$((i + 1))
  if [ "$i" -lt 7 ]; then
    extra=(); [ "$i" = 1 ] && extra=("${meta[@]}")
    pack "loom-$GPU_KEY-$(basename "$p").tar" "$p" "${extra[@]}"
  else
    rest+=("$p")
  fi
done
[ "${#rest[@]}" -gt 0 ] && pack "loom-$GPU_KEY-rest.tar" "${rest[@]}"
cp "$WORK/summary.txt" "$DEST/summary-$GPU_KEY.txt"
say "packed $packed tar files into $DEST; total $(( $(date +%s) - T0 ))s"
echo
cat "$WORK/summary.txt"
