#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, then runs every ctest layer (unit, cli, fuzz, accuracy).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"
# libFuzzer with ASan/UBSan on the three input readers (YAML loader, kernel-spec parser, trace reader), briefly.
bash scripts/fuzz.sh 15
