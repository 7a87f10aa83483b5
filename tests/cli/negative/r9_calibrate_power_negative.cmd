calibrate tests/data/calibrate/bad-power-negative.json --gpu h100-sxm
