calibrate tests/data/calibrate/bad-schema.json --gpu h100-sxm
