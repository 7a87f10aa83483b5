predict --gpu h200 --kernel "gemm m=8 n=8 k=8 dtype=bf16 impl=cutlass"
