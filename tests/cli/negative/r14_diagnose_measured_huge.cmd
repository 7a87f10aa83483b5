diagnose --gpu h200 --kernel "gemm m=4096 n=4096 k=4096 dtype=bf16" --measured-us 1e300
