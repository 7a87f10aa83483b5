calibrate tests/data/calibrate/r10-device-typo.json --gpu h100-sxm
