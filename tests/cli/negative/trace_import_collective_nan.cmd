trace import --from pipeweave tests/data/public/collective/H20/all_reduce.csv --out "$TMPDIR/loom-neg-public"
