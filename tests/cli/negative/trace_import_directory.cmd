trace import --from loom --gpu h200 tests/data --out "$TMPDIR/loom-neg-public"
