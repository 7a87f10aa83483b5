calibrate tests/data/calibrate/bad-missing.json --gpu h100-sxm
