calibrate traces/checks/calibrate/h200/calibration-sm64.json --gpu h200
