trace import --from pipeweave tests/data/r13/gemm_fp8_test.csv --out "$TMPDIR/r13o"
