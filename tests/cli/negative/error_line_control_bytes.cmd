predict --gpu $'h2\x1b[31m0\n0' --kernel "gemm m=64 n=64 k=64 dtype=bf16"
