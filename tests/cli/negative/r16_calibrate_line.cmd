calibrate tests/data/r16/calibration-sms-zero.json --gpu h100-sxm
