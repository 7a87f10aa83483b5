calibrate tests/data/calibrate/bad-sms.json --gpu h100-sxm
