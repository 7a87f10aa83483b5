tune --gpu h200 --kernel "gemm m=3000 n=6144 k=4096 dtype=bf16" --tables tests/data/dup_key_tables.json
