trace import --from neusight tests/data/public/neusight_unknown_device.csv --out "$TMPDIR/loom-neg-public"
