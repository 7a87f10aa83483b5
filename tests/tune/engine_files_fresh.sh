#!/bin/bash
# The committed engine config files (models/tune/engine/<gpu>/) are what `loom tune --export-moe-configs` writes from
# the committed moe-triton tables today (themselves a refit of the committed sweeps): regenerates each provenance
# file's set into a scratch directory and diffs.
#   engine_files_fresh.sh LOOM SOURCE_DIR
set -euo pipefail
loom=$1; src=$2; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=0
# The moe-triton tables themselves: a refit from the committed sweeps must give the committed file.
for t in "$src"/models/tune/*-moe-triton*.json; do
  b=$(basename "$t" .json); fam=moe-triton${b##*-moe-triton}; gpu=${b%-moe-triton*}
  LOOM_HOME=$src "$loom" tune --fit --traces "$src/traces/tune" --gpu "$gpu" --family "$fam" --out "$tmp/$b.json" \
    > /dev/null 2>&1
  cmp -s "$tmp/$b.json" "$t" ||
    { echo "STALE: $t differs from a refit (loom tune --fit --traces traces/tune)"; exit 1; }
done
for prov in "$src"/models/tune/engine/*/loom-moe-configs-*.json; do
  gpu=$(basename "$(dirname "$prov")")
  read -r model dtype tps < <(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); \
print(d['model'], d['dtype'], ','.join(str(f['tp']) for f in d['files']))" "$prov")
  LOOM_HOME=$src "$loom" tune --gpu "$gpu" --model "$model" --dtype "$dtype" --tp "$tps" \
    --export-moe-configs "$tmp/$gpu" > /dev/null
  files=$(python3 -c "import json,sys; print(' '.join(f['file'] for f in json.load(open(sys.argv[1]))['files']))" \
    "$prov")
  for f in $files; do
    cmp -s "$tmp/$gpu/$f" "$(dirname "$prov")/$f" || { echo "STALE: $gpu/$f differs from a fresh export"; exit 1; }
    n=$((n + 1))
  done
done
[ "$n" -gt 0 ] || { echo "no engine files checked"; exit 1; }
echo "$n engine config files match a fresh export"
