#!/bin/bash
# Host side of a Triton GEMM collection (scripts/tune-gemm-triton-collect.sh) that brought its trace back in parts
# (no loom binary was carried): joins trace + case list into traces/tune/<gpu>/gemm-triton-<part>.corpus.csv.gz.
#   bash scripts/tune-gemm-triton-import.sh DIR GPU [PART]
#   (DIR: the run's files, e.g. /work/.device/N; GPU h200|h100)
set -euo pipefail
dir=$1; gpu=$2; part=${3:-1}; loom=${LOOM:-build/loom}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cat "$dir"/$gpu-gemm-triton-$part.lct.gz.part* | gunzip > "$tmp/gemm.lct"
gunzip -c "$dir/$gpu-gemm-triton-$part.cases.csv.gz" > "$tmp/gemm.cases.csv"
mkdir -p traces/tune/$gpu
"$loom" trace import --lct "$tmp/gemm.lct" --cases "$tmp/gemm.cases.csv" \
  -o traces/tune/$gpu/gemm-triton-$part.corpus.csv.gz
"$loom" trace summary traces/tune/$gpu | tail -8
