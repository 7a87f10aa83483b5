tune --plan --gpu h200 --family gemm --sample-fraction 0.5
