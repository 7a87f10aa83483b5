tune --plan --gpu h200 --family moe-triton
