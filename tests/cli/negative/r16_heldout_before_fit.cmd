tune --gpu h200 --family gemm-triton --validate --no-timing --traces traces/tune --heldout-traces tests/data/r16/heldout-incomplete --heldout-only
