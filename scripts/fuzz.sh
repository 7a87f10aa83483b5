#!/usr/bin/env bash
# Runs each libFuzzer target briefly (default 20 s each) with ASan/UBSan: builds them with clang into build-fuzz/
# and fuzzes from a scratch copy of the committed seed corpus (so the run never rewrites tests/fuzz/corpus/).
#   bash scripts/fuzz.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-20}
command -v clang++ >/dev/null || { echo "fuzz: clang++ not found (scripts/install-deps.sh installs it)" >&2; exit 1; }
cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS=-O1 -DCMAKE_CXX_COMPILER=clang++ \
  -DLOOM_FUZZ=ON -DLOOM_CUDA=OFF >/dev/null
targets=(yaml_loader_fuzz kernel_spec_fuzz trace_reader_fuzz public_import_fuzz serving_requests_fuzz cli_args_fuzz
         chrome_trace_fuzz batch_csv_fuzz serving_sim_fuzz model_config_fuzz serving_profile_fuzz forest_binary_fuzz
         tune_tables_fuzz calibration_fuzz report_json_fuzz gpu_overrides_fuzz gz_stream_fuzz
         transfer_json_fuzz model_index_fuzz coverage_json_fuzz collectives_json_fuzz measured_run_fuzz gemm_paths_fuzz)
ninja -C build-fuzz -j"$(nproc)" "${targets[@]}"
for t in "${targets[@]}"; do
  scratch=$(mktemp -d)
  mkdir -p "$scratch/corpus"
  cp tests/fuzz/corpus/"$t"/* "$scratch/corpus/"
  echo "fuzz: $t for ${secs}s"
  set +e
  ./build-fuzz/tests/"$t" -max_total_time="$secs" -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$scratch/" "$scratch/corpus" > "$scratch/log" 2>&1
  rc=$?
  set -e
  grep -E "stat::number_of_executed_units|SUMMARY" "$scratch/log" || true
  if [ "$rc" -ne 0 ]; then
    echo "fuzz: $t failed (exit $rc); the failing input is in $scratch:" >&2
    tail -40 "$scratch/log" >&2
    exit 1
  fi
  rm -rf "$scratch"
done
