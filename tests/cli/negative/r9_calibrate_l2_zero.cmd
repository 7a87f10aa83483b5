calibrate tests/data/calibrate/bad-l2-zero.json --gpu h100-sxm
