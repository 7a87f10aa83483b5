calibrate tests/data/calibrate/good.json --gpu h100-sxm -o /dev/full
