tune --gpu h200 --family moe-triton-fp8 --validate --no-timing --traces traces/tune --heldout-traces tests/data/r17/defaults-bad-config --heldout-only
