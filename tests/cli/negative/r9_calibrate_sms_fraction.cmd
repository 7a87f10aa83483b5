calibrate tests/data/calibrate/bad-sms-fraction.json --gpu h100-sxm
