tune --validate --gpu h200 --family gemm-cublaslt --traces tests/data/cublaslt/sweep-small.csv --sample-fraction 1.5
