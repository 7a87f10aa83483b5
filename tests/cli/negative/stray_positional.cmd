predict --gpu h100-sxm h200 --kernel "gemm m=8 n=8 k=8 dtype=bf16"
