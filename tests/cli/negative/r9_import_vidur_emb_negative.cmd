trace import --from vidur tests/data/public/vidur_emb_negative.csv --gpu a100-sxm4-80gb -o "$TMPDIR/r9vd"
