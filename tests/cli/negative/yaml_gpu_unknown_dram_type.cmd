predict --gpu tests/data/bad_gpus/unknown_dram_type.yaml --kernel "gemm m=8 n=8 k=8 dtype=bf16"
