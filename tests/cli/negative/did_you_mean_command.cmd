predictt --gpu h200
