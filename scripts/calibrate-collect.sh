#!/bin/bash
# Device batch for issue 11 item 3 (one-GPU kinds): scripts/torch/calibrate.py on the whole GPU and on a green-context
# partition of 64 SMs. Results under $OUT: calibration.json, calibration-sm64.json, run.log.
#   run(command="bash scripts/calibrate-collect.sh", kind="nvidia-h100-x1")
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
{ python3 scripts/torch/calibrate.py --out "$O/calibration.json"
  python3 scripts/torch/calibrate.py --out "$O/calibration-sm64.json" --sms 64 --seconds 2; } 2>&1 | tee "$O/run.log"
