calibrate tests/data/r14/calibration-sms-source.json --gpu h100-sxm
