trace import --from loom --gpu gpus/h200.yaml tests/data/public/collective/loom-h200-2gpu.csv --out "$TMPDIR/loom-neg-public"
