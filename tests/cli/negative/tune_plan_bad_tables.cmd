tune --plan --gpu h200 --family gemm --tables /nonexistent/t.json
