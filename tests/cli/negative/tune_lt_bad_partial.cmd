tune --validate --gpu h200 --family gemm-cublaslt --traces tests/data/cublaslt/sweep-small.csv --partial-shapes 2.5
