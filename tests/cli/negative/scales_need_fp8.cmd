predict --gpu a100-sxm4-80gb --kernel "gemm m=8 n=16 k=32 dtype=bf16 scales=rowwise"
