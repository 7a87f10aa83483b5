trace import --from loom --gpu h200 tests/data/public/collective/loom-bad-time.csv --out "$TMPDIR/loom-neg-public"
