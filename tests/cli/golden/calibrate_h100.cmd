calibrate traces/checks/calibrate/h100/calibration.json --gpu h100-sxm
