predict --gpu "tests/data/gpus_comma/none,x.yaml" --kernel "gemm m=64 n=64 k=64 dtype=bf16"
