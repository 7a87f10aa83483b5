tune --validate --gpu h200 --family gemm --traces traces/tune --anchors-per-bucket 2.5
