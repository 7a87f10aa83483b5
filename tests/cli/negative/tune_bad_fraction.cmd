tune --validate --traces traces/ --gpu h200 --family gemm --sample-fraction 1.5
