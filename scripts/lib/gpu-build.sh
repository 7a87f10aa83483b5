# Sourced by the GPU-side scripts (collect.sh, collect-topup.sh, gemm_state_check.sh, tune-*-collect.sh).
# gpu_build DIR LOG TARGET...: configures DIR for the GPU targets (sm_90a, or $LOOM_CUDA_ARCH; retries with 90 when
# that CMake does not know 90a) and builds each TARGET on its own, so one broken target leaves the others usable.
# Appends everything to LOG; returns non-zero if anything failed.
gpu_build() {
  local dir=$1 log=$2 rc=0 t; shift 2
  _gpu_cfg() { cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLOOM_CPU=OFF -DLOOM_CUDA=ON \
               -DCMAKE_CUDA_ARCHITECTURES="$1" >> "$log" 2>&1; }
  _gpu_cfg "${LOOM_CUDA_ARCH:-90a}" ||
    { echo "configure with ${LOOM_CUDA_ARCH:-90a} failed; retrying with 90" >> "$log"; rm -rf "$dir"; _gpu_cfg 90; } ||
    rc=1
  for t in "$@"; do
    ninja -C "$dir" -j"$(nproc)" "$t" >> "$log" 2>&1 || { rc=1; echo "build of $t FAILED ($log)" >&2; }
  done
  return $rc
}

# collector_prelude LOG T0: builds the CUPTI collector into build-gpu (log beside LOG), sets LIB (its .so) and gpu
# (the device's name), and records the build time, the GPU's clocks and power, and the torch/triton versions in LOG.
collector_prelude() {
  local log=$1 t0=$2
  gpu_build build-gpu "$(dirname "$log")/build.log" loom_cupti || echo "collector build failed" | tee -a "$log"
  LIB=$PWD/build-gpu/src/collector/libloom_cupti.so
  echo "build $(( $(date +%s)-t0 )) s" | tee -a "$log"
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv | tee -a "$log"
  python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)" | tee -a "$log"
  export PYTHONUNBUFFERED=1
}
