calibrate tests/data/calibrate/bad-dup.json --gpu h100-sxm
