#!/usr/bin/env bash
# Fresh machine -> working loom: installs dependencies, builds, and runs loom's main job on a built-in default
# (one kernel predicted across the whole GPU catalogue, with each GPU's bottleneck).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
echo
./build/loom predict --gpu all --kernel "gemm m=4096 n=4096 k=4096 dtype=bf16"
