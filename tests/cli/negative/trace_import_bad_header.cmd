trace import --from neusight tests/data/public/unknown_header.csv --out "$TMPDIR/loom-neg-public"
