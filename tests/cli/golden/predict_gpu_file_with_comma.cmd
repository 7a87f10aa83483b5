predict --gpu "tests/data/gpus_comma/h200,lab.yaml" --kernel "gemm m=4096 n=4096 k=4096 dtype=bf16" --format csv
