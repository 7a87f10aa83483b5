predict --gpu h200 --batch examples/kernels.csv --threads 0
