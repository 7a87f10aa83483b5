report --gpu h100-sxm --kernel "gemm m=16 n=16 k=16 dtype=bf16" --kernel "gemm m=32 n=16 k=16 dtype=bf16" --measured-us 5
