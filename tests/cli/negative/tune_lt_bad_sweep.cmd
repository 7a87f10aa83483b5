tune --fit --gpu h200 --family gemm-cublaslt --traces tests/data/cublaslt/bad-splitk.csv --out "$TMPDIR/lt-neg.json"
