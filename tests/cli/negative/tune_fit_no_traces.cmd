tune --fit --gpu h200 --family gemm --traces /nonexistent --out "$TMPDIR/fit-neg.json"
