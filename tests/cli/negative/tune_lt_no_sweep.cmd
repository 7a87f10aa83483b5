tune --fit --gpu h200 --family gemm-cublaslt --traces tests/data/cublaslt/nowhere --out "$TMPDIR/lt-neg.json"
