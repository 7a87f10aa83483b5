trace import --from neusight tests/data/public/neusight_truncated.csv --out "$TMPDIR/loom-neg-public"
