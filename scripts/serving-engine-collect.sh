#!/bin/bash
# Device batch for the serving simulator's check (docs/serving.md): loom's continuous-batching engine
# (scripts/torch/serving/cb_engine.py, Llama-3-8B shapes, random weights) over the committed request files.
# Run with the device tool: `bash scripts/serving-engine-collect.sh` (writes $OUT/runs.tar.gz and $OUT/log).
set -u
O=${OUT:-/tmp/out}; L=$O/log; mkdir -p $O
export PYTHONUNBUFFERED=1
t0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit --format=csv | tee -a $L
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)" | tee -a $L
runs=()
for r in ${RUNS:-static16 static48 poisson4 poisson10}; do
  python3 scripts/torch/serving/cb_engine.py --model models/presets/llama-3-8b.json \
    --requests traces/serving/engine/requests/$r.csv --out $O/$r --max-seconds 150 2>&1 | tail -6 | tee -a $L
  nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv,noheader | tee -a $L
  [ -f $O/$r/per_request.csv ] && runs+=($r)
done
tar czf $O/runs.tar.gz -C $O "${runs[@]}" && rm -rf "${runs[@]/#/$O/}"
echo "total $(( $(date +%s)-t0 )) s" | tee -a $L
