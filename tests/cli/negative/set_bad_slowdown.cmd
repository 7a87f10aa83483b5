predict --gpu h200 --set sustained_load.tensor_slowdown=0.5 --kernel "gemm m=64 n=64 k=64 dtype=bf16"
