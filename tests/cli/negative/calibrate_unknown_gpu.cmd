calibrate tests/data/calibrate/good.json --gpu h100-sxx
