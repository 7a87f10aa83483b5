#!/usr/bin/env bash
# Regenerates bench/cublaslt/enums.h (cuBLASLt tile / stages / cluster enum values -> names) from cublasLt.h.
set -euo pipefail
H=${1:-/usr/local/cuda/include/cublasLt.h}
cd "$(dirname "$0")/.."
table() {  # table NAME ENUM_PREFIX VALUE_REGEX
  printf "static const LtEnumName %s[] = {" "$1"
  grep -oE "$2($3) = [0-9]+" "$H" | sed -E "s/$2([0-9A-Zx]+) = ([0-9]+)/{\2,\"\1\"},/" | paste -sd' ' | fold -s -w 116 |
    sed 's/^/  /'
  echo "};"
}
{
  echo "// cuBLASLt enum values -> names (tile BMxBN, stages KxS, cluster XxYxZ), generated from CUDA 13's" \
    "cublasLt.h by"
  echo "// scripts/gen-cublaslt-enums.sh; used by the sweep (cublaslt_sweep.cu) to name configs and by loom to read" \
    "them."
  echo "#pragma once"
  echo "struct LtEnumName { int id; const char* name; };"
  table kLtTiles CUBLASLT_MATMUL_TILE_ '[0-9]+x[0-9]+'
  table kLtStages CUBLASLT_MATMUL_STAGES_ '[0-9]+x[0-9A-Z]+'
  table kLtClusters CUBLASLT_CLUSTER_SHAPE_ '[0-9]+x[0-9]+x[0-9]+'
} > bench/cublaslt/enums.h
