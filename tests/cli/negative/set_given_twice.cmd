predict --gpu h200 --set sms=100 --set sms=120 --kernel "gemm m=64 n=64 k=64 dtype=bf16"
