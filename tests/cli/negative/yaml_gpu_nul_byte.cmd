predict --gpu tests/data/bad_gpus/nul_byte.yaml --kernel "gemm m=64 n=64 k=64 dtype=bf16"
