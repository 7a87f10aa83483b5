calibrate tests/data/calibrate/good.json --gpu h100-sxm -o "$TMPDIR/a.yaml" --out "$TMPDIR/b.yaml"
