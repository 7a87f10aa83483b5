tune --fit --gpu h200 --family gemm-cublaslt --traces tests/data/cublaslt/bad-splitk.csv --out /tmp/lt-neg.json
