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
launcher=()
# ccache, where installed, shares objects between checkouts (worktrees); CI builds without it.
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "${cuda[@]}" "${launcher[@]}" >/dev/null
ninja -C build -j"$(nproc)"
