calibrate tests/data/calibrate/r10-device-new-sku.json --gpu h100-sxm
