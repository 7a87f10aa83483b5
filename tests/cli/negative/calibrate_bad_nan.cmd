calibrate tests/data/calibrate/bad-nan.json --gpu h100-sxm
