trace import --from neusight tests/data/public/neusight_nan_latency.csv --out "$TMPDIR/loom-neg-public"
