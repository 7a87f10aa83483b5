trace import --from foo tests/data/public/neusight_ok.csv --out "$TMPDIR/loom-neg-public"
