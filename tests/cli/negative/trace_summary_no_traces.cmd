trace summary tests/data/calibrate
