#!/usr/bin/env bash
# Configures and builds loom into build/ (CUDA-side targets too when nvcc is present).
set -euo pipefail
cd "$(dirname "$0")/.."
cuda=()
if [ -x /usr/local/cuda/bin/nvcc ]; then
  cuda=(-DLOOM_CUDA=ON -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc -DCMAKE_CUDA_ARCHITECTURES=90)
else
  cuda=(-DLOOM_CUDA=OFF)
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "${cuda[@]}" >/dev/null
ninja -C build -j"$(nproc)"
