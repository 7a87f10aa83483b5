trace import --from vidur tests/data/public/vidur_no_gpu_path.csv --out "$TMPDIR/loom-neg-public"
