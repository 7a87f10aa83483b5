trace import --from loom --gpu h200 tests/data/public/collective/loom-bad-impl.csv --out "$TMPDIR/loom-neg-public"
