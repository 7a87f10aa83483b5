calibrate tests/data/calibrate/good.json
