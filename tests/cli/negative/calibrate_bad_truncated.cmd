calibrate tests/data/calibrate/bad-truncated.json --gpu h100-sxm
