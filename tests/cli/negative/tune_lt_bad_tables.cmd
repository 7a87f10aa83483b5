tune --export --gpu h200 --family gemm-cublaslt --tables tests/data/cublaslt/sweep-small.csv --out "$TMPDIR/lt-x"
