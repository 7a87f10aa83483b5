#!/bin/bash
# Device batch for issue 12 item 5 (one-GPU kinds: nvidia-h200, nvidia-h100-x1): SM clock, power and kernel speed
# under seconds of sustained load (scripts/torch/clock_load.py). Results under $OUT: clock_samples.csv,
# clock_iters.csv, smi.txt (the driver's clock/power settings), run.log.
#   run(command="bash scripts/clock-collect.sh", kind="nvidia-h200")
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
nvidia-smi -q -d CLOCK,POWER,PERFORMANCE,TEMPERATURE > "$O/smi.txt" 2>&1
python3 scripts/torch/clock_load.py --out "$O" "$@" 2>&1 | tee "$O/run.log"
