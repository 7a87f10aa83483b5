calibrate tests/data/r16/calibration-fp8-slowdown-text.json --gpu h100-sxm
