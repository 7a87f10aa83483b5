calibrate tests/data/calibrate/good.json --gpu h100-sxm -o /tmp/a.yaml --out /tmp/b.yaml
