predict --gpu h200 --kernel "gemm m=$(printf "9%.0s" {1..400}) n=64 k=64 dtype=bf16"
