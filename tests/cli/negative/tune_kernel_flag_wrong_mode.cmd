tune --gpu h200 --kernel "gemm m=64 n=64 k=64 dtype=bf16" --lambda 0.1
