calibrate tests/data/r15/host_cost_tiny.json --gpu h100-sxm -o $TMPDIR/h.yaml
