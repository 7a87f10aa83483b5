trace import --from neusight tests/data/public/neusight_ok.csv --lct x.lct -o "$TMPDIR/loom-neg-import"
