trace import --from pipeweave tests/data/r14/gemm_fp8_test.csv --out "$TMPDIR/r14o"
