tune --fit --gpu h200 --family gemm --traces traces/tune
