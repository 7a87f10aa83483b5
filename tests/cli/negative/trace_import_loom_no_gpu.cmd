trace import --from loom tests/data/public/collective/loom-h200-2gpu.csv --out "$TMPDIR/loom-neg-public"
