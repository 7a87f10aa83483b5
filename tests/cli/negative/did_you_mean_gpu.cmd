predict --gpu h2000 --kernel "gemm m=1 n=1 k=1 dtype=bf16"
