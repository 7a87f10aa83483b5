tune --gpu h200 --kernel "gemm m=4096 n=14336 k=4096 dtype=bf16" --reps 0
