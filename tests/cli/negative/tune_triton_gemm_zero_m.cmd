tune --gpu h200 --kernel "gemm m=0 n=64 k=64 impl=triton"
