# Sourced by the GPU-side scripts (collect.sh, collect-topup.sh, gemm_state_check.sh).
# gpu_build DIR LOG TARGET...: configures DIR for the GPU targets (sm_90a, or $LOOM_CUDA_ARCH; retries with 90 when
# that CMake does not know 90a) and builds each TARGET on its own, so one broken target leaves the others usable.
# Appends everything to LOG; returns non-zero if anything failed.
gpu_build() {
  local dir=$1 log=$2 rc=0 t; shift 2
  _gpu_cfg() { cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLOOM_CPU=OFF -DLOOM_CUDA=ON \
               -DCMAKE_CUDA_ARCHITECTURES="$1" >> "$log" 2>&1; }
  _gpu_cfg "${LOOM_CUDA_ARCH:-90a}" || { echo "configure with ${LOOM_CUDA_ARCH:-90a} failed; retrying with 90" >> "$log";
                                         rm -rf "$dir"; _gpu_cfg 90; } || rc=1
  for t in "$@"; do
    ninja -C "$dir" -j"$(nproc)" "$t" >> "$log" 2>&1 || { rc=1; echo "build of $t FAILED ($log)" >&2; }
  done
  return $rc
}
