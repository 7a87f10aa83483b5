tune --gpu h200 --kernel "gemm m=64 n=64 k=64 impl=triton dtype=fp8" --tables /nonexistent/g.json
