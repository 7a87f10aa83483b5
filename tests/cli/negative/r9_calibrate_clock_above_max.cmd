calibrate tests/data/calibrate/bad-clock-above-max.json --gpu h100-sxm
