trace import --from pipeweave tests/data/public/moe_dse_H800_bad_stage.csv --out "$TMPDIR/loom-neg-public"
