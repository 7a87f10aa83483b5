#!/usr/bin/env bash
# The long fuzz run (issue 17): every libFuzzer target until it has executed RUNS inputs (default 1,000,000) or
# MAX_S seconds pass (default 900), FUZZ_JOBS targets at a time (default 2), from a scratch copy of the seed corpus.
# Prints each target's executions, coverage and any finding; exit 1 on a finding. Builds as scripts/fuzz.sh does.
#   bash scripts/fuzz-long.sh [RUNS] [MAX_S]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-1000000}; max_s=${2:-900}; jobs=${FUZZ_JOBS:-2}
targets=${FUZZ_TARGETS:-$(sed -n '/^targets=(/,/)$/p' scripts/fuzz.sh | sed 's/^targets=(//' | tr -d ')' | tr '\n' ' ')}
command -v clang++ >/dev/null ||
  { echo "fuzz-long: clang++ not found (scripts/install-deps.sh installs it)" >&2; exit 1; }
cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS=-O1 -DCMAKE_CXX_COMPILER=clang++ \
  -DLOOM_FUZZ=ON -DLOOM_CUDA=OFF >/dev/null
ninja -C build-fuzz -j"$(nproc)" $targets
one() {
  local t=$1 scratch; scratch=$(mktemp -d); mkdir -p "$scratch/corpus"
  cp tests/fuzz/corpus/"$t"/* "$scratch/corpus/"
  if ./build-fuzz/tests/"$t" -runs="$runs" -max_total_time="$max_s" -rss_limit_mb=2048 -print_final_stats=1 \
       -artifact_prefix="$scratch/" "$scratch/corpus" > "$scratch/log" 2>&1; then
    echo "$t: $(grep -o 'number_of_executed_units: [0-9]*' "$scratch/log" |
      cut -d' ' -f2) executions, $(grep -o 'cov: [0-9]*' "$scratch/log" | tail -1), no finding"
    rm -rf "$scratch"
  else
    echo "$t: FINDING (input and log in $scratch)"; tail -20 "$scratch/log"; return 1
  fi
}
export -f one; export runs max_s
printf '%s\n' $targets | xargs -P "$jobs" -I{} bash -c 'one {}'
